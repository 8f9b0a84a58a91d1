// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_fdtable.c - lab 5 under ThreadSanitizer, on the real liburcu
 * backend (a plain program: Criterion aborts under TSan).
 *
 *   tsan_fdtable --list     one line per case: "<case> clean|race"
 *   tsan_fdtable <case>     a bounded stress of that case; exits 0, or 1
 *                           if an end-of-run check fails
 *
 *   readers_vs_writers  clean  shared_workload.c: fget/fget_light + reads
 *                              against open, close, dup2, fork and growth
 *   light_misuse        race   fget_light's no-reference path, done by
 *                              the kit's own reader, on a table that three
 *                              threads really share: a close frees the
 *                              file under the readers (the grader tries 3)
 *
 * TSan ignores fences (smp_wmb, smp_rmb); what it checks here is that
 * every access to a file or an array is ordered before its free: by a
 * reference, or by the grace period (common/rcupdate.c tells TSan what
 * liburcu orders).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "fdtable.h"
#include "shared_files.h"
#include "shared_workload.h"
#include "slab.h"
#include "tsan_case.h"

#define MISUSE_ROUNDS	100000	/* files opened and closed under the readers, */
#define MISUSE_SECONDS	3	/* or as many as fit in this time */
#define MISUSE_BATCH	256	/* closes between two rcu_barrier() calls */
#define MISUSE_READERS	2
#define CASE_LIMIT_S	15	/* a case takes about 3 s at most */
#define __STR(x)	#x
#define STR(x)		__STR(x)

/* Every object freed once, nothing warned, no failure counted. */
static int end_checks(long failures, long live0)
{
	rcu_barrier();
	if (!failures && slab_objects_live() == live0 && !warn_count())
		return 0;
	fprintf(stderr, "failures %ld, objects never freed %ld, warnings %lu\n",
		failures, slab_objects_live() - live0, warn_count());
	return 1;
}

static int case_readers_vs_writers(const struct tsan_case *c __maybe_unused)
{
	static const struct workload w = { .rounds = 3, .reads = 10000, .writes = 2500 };
	long live0 = slab_objects_live();

	return end_checks(run_workload(&w), live0);
}

static struct files_struct *shared;
static pthread_barrier_t start;		/* every thread begins together */
static int closer_done;			/* the readers read until it is set */

/*
 * BROKEN ON PURPOSE: what fget_light's one-user path does, done by the kit
 * itself on a table that two more threads really share: the slot read with
 * no reference, no lock and no read-side section.  It is the kit's code,
 * not the student's fget_light, so that no correct fget_light -- one that
 * wraps its one-user path in rcu_read_lock(), say, which orders the reads
 * before the grace period and silences TSan -- can make the witness fail.
 * What it needs of the student's code is that close_fd() frees the file
 * (after a grace period) while the readers still run.  (fget_light's own
 * contract -- no reference, no lock with one user -- is a unit test's.)
 */
static struct file *light_lookup(struct files_struct *files, unsigned int fd)
{
	struct fdtable *fdt = __atomic_load_n(&files->fdt, __ATOMIC_ACQUIRE);

	if (fd >= __atomic_load_n(&fdt->max_fds, __ATOMIC_ACQUIRE))
		return NULL;
	return __atomic_load_n(&fdt->fd[fd], __ATOMIC_ACQUIRE);
}

static void *light_reader(void *arg)
{
	(void)arg;
	rcu_register_thread();
	pthread_barrier_wait(&start);
	for (int i = 0; !__atomic_load_n(&closer_done, __ATOMIC_RELAXED); i++) {
		struct file *file = light_lookup(shared, 0);

		if (!file)
			continue;
		/* Its count (the slab's poison shows a freed one) and bytes. */
		if (file_count(file) >= 0)
			(void)file_is_sane(file, i);
	}
	rcu_unregister_thread();
	return NULL;
}

/*
 * The closer's loop ends after MISUSE_ROUNDS, or MISUSE_SECONDS on a busy
 * machine: TSan reports within 0.4 s when it reports at all, and a run
 * that saw nothing is one the grader tries again -- never one the
 * watchdog below mistakes for a lookup that does not return.
 */
static bool misuse_over(int round)
{
	static struct timespec end;
	struct timespec now;

	if (round % 1000)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!round) {
		end = now;
		end.tv_sec += MISUSE_SECONDS;
	}
	return now.tv_sec > end.tv_sec ||
	       (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec);
}

static int case_light_misuse(const struct tsan_case *c __maybe_unused)
{
	pthread_t tid[MISUSE_READERS];

	inodes_init();
	shared = files_alloc();
	pthread_barrier_init(&start, NULL, MISUSE_READERS + 1);
	for (int i = 0; i < MISUSE_READERS; i++)
		pthread_create(&tid[i], NULL, light_reader, NULL);
	pthread_barrier_wait(&start);
	/*
	 * An rcu_barrier() every MISUSE_BATCH closes: the frees must happen
	 * while the readers still run.  Left to liburcu's call_rcu thread,
	 * which competes with three busy threads for 2 cores, they often
	 * did not (in a run without a report 97,000 of 100,000 files were
	 * still unfreed at the end).  A reader's read of a file is never
	 * ordered before that file's free (the reader releases nothing), so
	 * each free of a file a reader saw is a race TSan can report.
	 */
	for (int i = 0; i < MISUSE_ROUNDS && !misuse_over(i); i++) {
		open_inode(shared, i);
		close_fd(shared, 0);
		if (i % MISUSE_BATCH == MISUSE_BATCH - 1)
			rcu_barrier();
	}
	__atomic_store_n(&closer_done, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < MISUSE_READERS; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&start);
	put_files_struct(shared);
	return 0;		/* the verdict is TSan's report */
}

/*
 * TSan's default is to sleep a second at exit while other threads still
 * run (liburcu's call_rcu thread always does), to catch races at exit.
 * Nothing of the lab runs then: the second would be a third of the case.
 * The longest history: a free that liburcu's thread makes milliseconds
 * after a reader's last access must still find that access to report.
 */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "atexit_sleep_ms=0 history_size=7";
}

static const struct tsan_case cases[] = {
	{ "readers_vs_writers",	"clean", case_readers_vs_writers, NULL },
	{ "light_misuse",	"race",  case_light_misuse, NULL },
};

/*
 * A broken table (a file installed with a count of 0) sends fget's retry
 * loop round forever.  A watchdog thread ends the case with a message, and
 * before the grader's own time limit, rather than as a bare TIMEOUT.  (A
 * thread, not alarm(): TSan delivers a signal only when the thread that
 * gets it calls into the runtime, and a thread spinning on atomics never
 * does.)
 */
static void *watchdog(void *arg)
{
	static const char msg[] = "tsan_fdtable: the case did not end in "
		STR(CASE_LIMIT_S) " s: a lookup that never returns (fget "
		"retrying on a file still installed with a count of 0?)\n";
	struct timespec limit = { CASE_LIMIT_S, 0 };

	(void)arg;
	while (nanosleep(&limit, &limit))
		;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

int main(int argc, char **argv)
{
	pthread_t tid;

	pthread_create(&tid, NULL, watchdog, NULL);
	rcu_register_thread();		/* rcu_barrier() and the last fputs */
	return tsan_case_main(argc, argv, cases, ARRAY_SIZE(cases));
}
