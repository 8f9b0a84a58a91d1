// SPDX-License-Identifier: GPL-2.0
/*
 * bench_run.c - one run of make bench (bench_run.h): the tables, the
 * reader threads, the writer, and every check of their answers.
 *
 * The driver reaches lab 5's code only through a struct bench_ops; it
 * includes file.h for struct inode alone (the files' contents are its).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_run.h"
#include "bug.h"
#include "fdtable.h"	/* NR_OPEN, struct inode; its functions are the builds' */
#include "slab.h"

#define WRITER_INODE	BENCH_MAX_THREADS	/* the writer's files read this one */
#define NR_INODES	(BENCH_MAX_THREADS + 1)
#define CHECK_EVERY	64	/* lookups between stop checks, quiescent states */
#define FULL_CHECK	64	/* one read in FULL_CHECK is compared word by word */
#define GROW_EVERY	128	/* writer rounds between two expansions */
#define WRITER_PAUSE_NS	50000	/* between two writer rounds (timed runs) */
#define SMOKE_WRITES	(GROW_EVERY * 8)	/* smoke: every expansion, then stop */
#define WORD		sizeof(uint64_t)
#define HUNG_S		10	/* a thread not done this long after its end: stuck */

static struct inode inodes[NR_INODES];

/* Word at byte @pos of inode @ino: which file and where, so a read of the
 * wrong file or at the wrong offset cannot pass. */
static uint64_t inode_word(unsigned int ino, size_t pos)
{
	return ((uint64_t)(ino + 1) << 40) | pos;
}

void bench_init(void)
{
	for (unsigned int i = 0; i < NR_INODES; i++) {
		uint64_t *words = malloc(BENCH_FILE_SIZE);

		if (!words) {
			fprintf(stderr, "bench: out of memory\n");
			exit(2);
		}
		for (size_t w = 0; w < BENCH_FILE_SIZE / WORD; w++)
			words[w] = inode_word(i, w * WORD);
		inodes[i] = (struct inode){ i, BENCH_FILE_SIZE, (void *)words };
	}
}

/* --- one run's shared state ---------------------------------------------- */

struct reader {
	struct bench *b;
	struct files_struct *files;	/* the shared table, or its own */
	unsigned int fd, ino;
	struct file *expect;		/* what fd holds */
	uint64_t seed;
	size_t pos;			/* sequential reads: the next offset */
	long ops;
	pthread_t tid;
	unsigned char buf[BENCH_BLOCK] __attribute__((aligned(64)));
};

struct bench {
	const struct run_spec *spec;
	const struct bench_ops *ops;
	struct files_struct *shared;	/* NULL for the light variant */
	struct file *files[BENCH_MAX_THREADS];	/* installed at fds 0, 1, ... */
	int nr_files;
	struct reader readers[BENCH_MAX_THREADS];
	pthread_t writer;
	pthread_barrier_t start;
	int stop;			/* __atomic: readers and writer end */
	int writer_done;		/* __atomic: smoke readers wait for it */
	int finished;			/* __atomic: threads out of their loop */
	pthread_mutex_t fail_lock;
	char failure[512];		/* the first check that failed */
};

static __printf(2, 3) void fail(struct bench *b, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&b->fail_lock);
	if (!b->failure[0]) {
		va_start(ap, fmt);
		vsnprintf(b->failure, sizeof(b->failure), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&b->fail_lock);
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELAXED);
}

static int stopped(struct bench *b)
{
	return __atomic_load_n(&b->stop, __ATOMIC_RELAXED);
}

static uint64_t next_rand(uint64_t *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 7;
	*seed ^= *seed << 17;
	return *seed;
}

/* --- readers -------------------------------------------------------------- */

/* The word at @i of the block read at @off must be the file's there. */
static int word_ok(struct reader *r, size_t off, size_t i)
{
	uint64_t got;

	memcpy(&got, r->buf + i * WORD, WORD);
	return got == inode_word(r->ino, off + i * WORD);
}

/* pread a block through @file and check it: its first, last and one
 * random word every time, every word one read in FULL_CHECK. */
static void read_and_check(struct reader *r, struct file *file)
{
	const size_t words = BENCH_BLOCK / WORD;
	struct bench *b = r->b;
	size_t off, i;
	ssize_t got;

	if (b->spec->w->random) {
		off = next_rand(&r->seed) % (BENCH_FILE_SIZE / BENCH_BLOCK) * BENCH_BLOCK;
	} else {
		off = r->pos;
		r->pos = (r->pos + BENCH_BLOCK) % BENCH_FILE_SIZE;
	}
	got = b->ops->file_pread(file, r->buf, BENCH_BLOCK, off);
	if (got != BENCH_BLOCK) {
		fail(b, "a pread of %d bytes at %zu of fd %u returned %zd",
		     BENCH_BLOCK, off, r->fd, got);
		return;
	}
	if (!word_ok(r, off, 0) || !word_ok(r, off, words - 1) ||
	    !word_ok(r, off, next_rand(&r->seed) % words))
		goto wrong;
	if (r->ops % FULL_CHECK == 0)
		for (i = 0; i < words; i++)
			if (!word_ok(r, off, i))
				goto wrong;
	return;
wrong:
	fail(b, "a read of fd %u at offset %zu returned bytes that are not "
	     "its file's there", r->fd, off);
}

/* One lookup: the file, checked; the read, if the workload reads; the put. */
static void lookup_one(struct reader *r)
{
	struct bench *b = r->b;
	int fput_needed = 1;
	struct file *file;

	if (b->spec->v->light)
		file = b->ops->fget_light(r->files, r->fd, &fput_needed);
	else
		file = b->ops->fget(r->files, r->fd);
	if (file != r->expect) {
		fail(b, "fget(%u) returned %s, but fd %u holds file %p", r->fd,
		     file ? "another file" : "NULL", r->fd, (void *)r->expect);
		if (!file)
			return;
		fput_needed = 0;	/* not a file we know how to put */
	} else if (b->spec->v->light && fput_needed) {
		fail(b, "fget_light(%u) took a reference on a table with one user",
		     r->fd);
	}
	if (b->spec->w->read && file == r->expect)
		read_and_check(r, file);
	if (fput_needed)
		b->ops->fput(file);
}

static void *reader(void *arg)
{
	struct reader *r = arg;
	struct bench *b = r->b;
	long n;

	b->ops->thread_online();
	pthread_barrier_wait(&b->start);
	for (n = 0;; n++) {
		if (n % CHECK_EVERY == 0) {
			b->ops->quiescent();
			if (stopped(b) || (!b->spec->seconds && n >= b->spec->ops &&
					    __atomic_load_n(&b->writer_done, __ATOMIC_RELAXED)))
				break;
		}
		r->ops = n;
		lookup_one(r);
	}
	r->ops = n;
	__atomic_add_fetch(&b->finished, 1, __ATOMIC_RELEASE);
	b->ops->thread_offline();
	if (b->shared)
		b->ops->put_files_struct(b->shared);
	return NULL;
}

/* --- the writer ------------------------------------------------------------- */

/* One update of the shared table, under the variant's update lock. */
#define update(b, call) ({						\
	int __ret;							\
	(b)->ops->update_begin();					\
	__ret = (call);							\
	(b)->ops->update_end();						\
	__ret;								\
})

static void pause_writer(void)
{
	struct timespec ts = { 0, WRITER_PAUSE_NS };

	nanosleep(&ts, NULL);
}

/*
 * Open a file at the lowest free fd (above the readers'); every GROW_EVERY
 * rounds dup2 it onto the next power of two, past the table's end (the
 * table grows), and close that; close the file.  Each update's result is
 * checked against its contract.
 */
static int writer_round(struct bench *b, unsigned int *grow_to, long round)
{
	const struct bench_ops *ops = b->ops;
	struct files_struct *files = b->shared;
	struct file *file;
	int fd, ret;

	fd = update(b, ops->get_unused_fd(files));
	if (fd < b->nr_files) {
		fail(b, "get_unused_fd returned %d with fds 0..%d taken", fd,
		     b->nr_files - 1);
		return -1;
	}
	file = ops->alloc_file(&inodes[WRITER_INODE]);
	if (!file) {
		fail(b, "alloc_file: out of memory");
		return -1;
	}
	update(b, (ops->fd_install(files, fd, file), 0));
	if (round % GROW_EVERY == 0 && *grow_to < NR_OPEN) {
		ret = update(b, ops->dup2_fd(files, fd, *grow_to));
		if (ret != (int)*grow_to) {
			fail(b, "dup2_fd(%d, %u) returned %d", fd, *grow_to, ret);
			return -1;
		}
		ret = update(b, ops->close_fd(files, *grow_to));
		if (ret) {
			fail(b, "close_fd(%u) returned %d after dup2", *grow_to, ret);
			return -1;
		}
		*grow_to *= 2;
	}
	ret = update(b, ops->close_fd(files, fd));
	if (ret) {
		fail(b, "close_fd(%d) of an open fd returned %d", fd, ret);
		return -1;
	}
	return 0;
}

static void *writer(void *arg)
{
	struct bench *b = arg;
	unsigned int grow_to = 8;
	long round;

	while (grow_to <= (unsigned int)b->nr_files)
		grow_to *= 2;
	b->ops->thread_online();
	pthread_barrier_wait(&b->start);
	for (round = 1; !stopped(b); round++) {
		if (writer_round(b, &grow_to, round))
			break;
		b->ops->quiescent();
		if (b->spec->seconds)
			pause_writer();
		else if (round >= SMOKE_WRITES)
			break;
	}
	__atomic_store_n(&b->writer_done, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&b->finished, 1, __ATOMIC_RELEASE);
	b->ops->thread_offline();
	b->ops->put_files_struct(b->shared);
	return NULL;
}

/* --- set-up, the run, the checks at the end ---------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Install b->files[] at fds 0, 1, ... of @files (a reference each). */
static void install_files(struct bench *b, struct files_struct *files, int first)
{
	for (int i = 0; i < b->nr_files; i++) {
		int fd = b->ops->get_unused_fd(files);

		if (fd != i) {
			fail(b, "get_unused_fd on a table with fds 0..%d open "
			     "returned %d", i - 1, fd);
			return;
		}
		if (first)
			b->files[i] = b->ops->alloc_file(&inodes[i]);
		else
			b->ops->get_file(b->files[i]);
		if (!b->files[i]) {
			fail(b, "alloc_file: out of memory");
			return;
		}
		b->ops->fd_install(files, fd, b->files[i]);
	}
}

static void setup(struct bench *b)
{
	int t, threads = b->spec->threads;

	b->nr_files = b->spec->w->one_fd ? 1 : threads;
	if (!b->spec->v->light) {
		b->shared = b->ops->files_alloc();
		install_files(b, b->shared, 1);
	}
	for (t = 0; t < threads; t++) {
		struct reader *r = &b->readers[t];

		r->b = b;
		r->fd = b->spec->w->one_fd ? 0 : t;
		r->ino = r->fd;
		r->seed = 0x9e3779b97f4a7c15ull * (t + 1);
		r->pos = (size_t)t * 7 * BENCH_BLOCK % BENCH_FILE_SIZE;
		if (b->spec->v->light) {	/* a table of its own, one user */
			r->files = b->ops->files_alloc();
			install_files(b, r->files, t == 0);
		} else {
			r->files = b->shared;
			b->ops->get_files_struct(b->shared);
		}
		r->expect = b->files[r->fd];
	}
	if (b->spec->w->writer)
		b->ops->get_files_struct(b->shared);
}

/* Every fd of @files holds what it held before the run, nothing else. */
static void check_table(struct bench *b, struct files_struct *files)
{
	for (unsigned int fd = 0; fd < NR_OPEN && !b->failure[0]; fd++) {
		struct file *want = (int)fd < b->nr_files ? b->files[fd] : NULL;
		struct file *got = b->ops->fget(files, fd);

		if (got != want)
			fail(b, "after the run fget(%u) returns %s, not %s", fd,
			     got ? "a file" : "NULL", want ? "its file" : "NULL");
		if (got)
			b->ops->fput(got);
	}
}

/* The tables hold what they held, each file's count is its holders', and
 * the tables put: everything freed once the callbacks have run. */
static void check_and_free(struct bench *b, long live0, unsigned long warn0)
{
	int t, holders = b->spec->v->light ? b->spec->threads : 1;
	long live;

	for (t = 0; t < (b->shared ? 1 : b->spec->threads); t++)
		check_table(b, b->shared ? b->shared : b->readers[t].files);
	for (t = 0; t < b->nr_files && !b->failure[0]; t++)
		if (b->ops->file_count(b->files[t]) != holders)
			fail(b, "after the run the file at fd %d has count %d, "
			     "not %d (the tables' references only)", t,
			     b->ops->file_count(b->files[t]), holders);
	if (b->shared)
		b->ops->put_files_struct(b->shared);
	else
		for (t = 0; t < b->spec->threads; t++)
			b->ops->put_files_struct(b->readers[t].files);
	b->ops->thread_offline();
	b->ops->flush_rcu();
	live = slab_objects_live();
	if (!b->failure[0] && live != live0)
		fail(b, "%ld object(s) %s once the tables were put and every "
		     "RCU callback had run", labs(live - live0),
		     live > live0 ? "never freed" : "freed too often");
	if (!b->failure[0] && warn_count() != warn0)
		fail(b, "%lu WARN(s) fired (see above)", warn_count() - warn0);
}

static __noreturn void give_up(struct bench *b);

/*
 * Every thread out of its loop within HUNG_S seconds of its end (a smoke
 * run's whole length counts as its end), or the table under test keeps one
 * inside a call: an fget that retries forever on a count stuck at 0, a
 * lock never released.  Nothing can get it out; the process ends.
 */
static void wait_for_threads(struct bench *b, int workers, double end)
{
	struct timespec tick = { 0, 1000000 };

	while (__atomic_load_n(&b->finished, __ATOMIC_ACQUIRE) < workers) {
		if (now() - end > HUNG_S) {
			fail(b, "%d of %d thread(s) still inside a call of lab "
			     "code %d s after the end of the run: a lookup that "
			     "never returns (an fget retrying on a count stuck at "
			     "0?) or a lock never released", workers -
			     __atomic_load_n(&b->finished, __ATOMIC_ACQUIRE),
			     workers, HUNG_S);
			give_up(b);
		}
		nanosleep(&tick, NULL);
	}
}

static __noreturn void give_up(struct bench *b)
{
	const struct run_spec *s = b->spec;

	fprintf(stderr, "\nbench: %s, %s, %d thread(s): %s\n"
		"bench: the code under test (%s/lab5-fdtable%s) is wrong, so its "
		"figures mean nothing; no figures printed.  Fix it first: make "
		"lab-5 IMPL=%s\n", s->v->name, s->w->name, s->threads, b->failure,
		s->impl, s->v->lab4 ? ", and lab4-hashlock's refcount.c" : "",
		s->impl);
	if (s->v->lab4)
		fprintf(stderr, "bench: and make lab-4 IMPL=%s; or measure the "
			"others alone: make bench IMPL=%s BENCH_VARIANTS=%s\n", s->impl,
			s->impl, s->others);
	fflush(NULL);
	_exit(1);	/* threads may be stuck in the code under test */
}

/* Readers (and the writer) run for spec->seconds, or spec->ops lookups. */
static void measure(struct bench *b, struct run_result *res)
{
	struct timespec tick = { 0, 1000000 };
	double t0;
	int t;

	for (t = 0; t < b->spec->threads; t++)
		pthread_create(&b->readers[t].tid, NULL, reader, &b->readers[t]);
	if (b->spec->w->writer)
		pthread_create(&b->writer, NULL, writer, b);
	pthread_barrier_wait(&b->start);
	t0 = now();
	if (b->spec->seconds) {
		while (!stopped(b) && now() - t0 < b->spec->seconds)
			nanosleep(&tick, NULL);
		__atomic_store_n(&b->stop, 1, __ATOMIC_RELAXED);
	}
	res->seconds = now() - t0;
	wait_for_threads(b, b->spec->threads + b->spec->w->writer, now());
	for (t = 0; t < b->spec->threads; t++) {
		pthread_join(b->readers[t].tid, NULL);
		res->ops += b->readers[t].ops;
	}
	if (b->spec->w->writer)
		pthread_join(b->writer, NULL);
}

void bench_run(const struct run_spec *spec, struct run_result *res)
{
	static struct bench bench;
	struct bench *b = &bench;
	int workers = spec->threads + spec->w->writer;
	long live0 = slab_objects_live();
	unsigned long warn0 = warn_count();

	memset(b, 0, sizeof(*b));
	b->spec = spec;
	b->writer_done = !spec->w->writer;
	b->ops = spec->v->ops;
	pthread_mutex_init(&b->fail_lock, NULL);
	pthread_barrier_init(&b->start, NULL, workers + 1);
	*res = (struct run_result){ 0, 0 };

	b->ops->thread_online();	/* lab 5's updates may call_rcu */
	setup(b);
	b->ops->thread_offline();	/* QSBR: not in the readers' way */
	if (b->failure[0])
		give_up(b);
	measure(b, res);
	pthread_barrier_destroy(&b->start);
	if (b->failure[0])
		give_up(b);
	b->ops->thread_online();	/* fget and puts, to check */
	check_and_free(b, live0, warn0);
	if (b->failure[0])
		give_up(b);
}
