// SPDX-License-Identifier: GPL-2.0
/*
 * race_lin.c - lab 5's operations and their sequential specification: the
 * generated scenarios "lincheck:fdtable" (common/race/lin.h).
 *
 * One table of open files, used by every thread.  The operations are the
 * calls a process makes on it; keys are fds 1-4 (fd 4 is the first past
 * the embedded table of NR_OPEN_DEFAULT fds: reaching it grows the table):
 *   reserve     get_unused_fd: the fd reserved, kept by the thread
 *   install     alloc_file + fd_install at the oldest fd the thread
 *               reserved: that fd (open = reserve + install)
 *   close(k)    close_fd(k): 0, or -EBADF
 *   fget(k)     fget(k), the reference kept by the thread (teardown puts
 *               it): which file, or 0 (a miss)
 *   dup0to(k)   dup2_fd(0, k): k, or -EBUSY (k reserved, not installed);
 *               fd 0 holds a file throughout, so never -EBADF (not
 *               generated from the empty table)
 * The final probes: fget(k) of every key, and one reserve, which says the
 * lowest free fd the threads left.
 *
 * A file reads as its number: fd + 1 for the initial state's file at fd,
 * 100 * T + fd for the one thread T installed at fd (a thread installs at
 * most once at an fd: three operations per thread).  The number is the
 * file's inode's, so that it names the file, not the order of allocation.
 *
 * The specification is the table as the header promises it: each fd is
 * free, reserved, or holds one file; reserve takes the lowest free fd;
 * close frees an fd that holds a file; dup2 replaces atomically, and
 * refuses a reserved fd.  Every operation is one step of the model,
 * whatever the code does in between: an expansion that drops file_lock,
 * the put after the unlock.  What the results cannot show, the oracles
 * judge: a file freed twice or never, a reader in a freed array.
 *
 * Left out, because their results are no atomic operation's: the close-on-
 * exec flag (close clears the slot, then the flag: a lock-free reader can
 * see the one without the other) and a file's count (a failing fget holds
 * a reference for a moment).  dup2 from an fd that may be empty is left
 * out too: whether -EBADF or -EBUSY wins when @oldfd is empty and @newfd
 * reserved, the header does not say.
 */
#include <errno.h>
#include <stdint.h>

#include "fdtable.h"
#include "race/lin.h"

#define NFDS		32		/* fds the model keeps: enough for 8 + 9 */
#define KEYS		4		/* keys: fds 1 .. 4 */
#define RESERVED	(-1)		/* model: reserved, nothing installed */
#define FILE_OF(t, fd)	((t) ? 100 * (t) + (fd) : (fd) + 1)

static struct files_struct *files;
static struct inode inodes[RACE_MAX_THREADS + 1][NFDS];	/* [T][fd], T 0: setup */

struct fd_model {
	short fd[NFDS];			/* 0 free, RESERVED, or a file's number */
	signed char reserved[RACE_MAX_THREADS + 1][LIN_MAX_HELD];
	signed char nr_reserved[RACE_MAX_THREADS + 1];
};

static const struct lin_name fd_names[] = {
	{ 0, "0" }, { -EBADF, "-EBADF" }, { -EBUSY, "-EBUSY" },
	{ -EMFILE, "-EMFILE" }, { 0, NULL },
};

static const struct lin_name file_names[] = {
	{ 0, "0 (a miss)" }, { 0, NULL },
};

/* --- the code under test ---------------------------------------------------- */

/* A reservation is kept as fd + 1 under key 0 (never NULL). */
static void hold_fd(struct lin_ctx *ctx, int fd)
{
	lin_hold(ctx, (void *)(uintptr_t)(fd + 1), 0);
}

static int unhold_fd(struct lin_ctx *ctx)
{
	return (int)(uintptr_t)lin_unhold(ctx, 0) - 1;
}

/* A new file at @fd, read from inode [@t][@fd]; BUG if out of memory. */
static struct file *new_file(int t, int fd)
{
	struct file *file = alloc_file(&inodes[t][fd]);

	BUG_ON(!file);
	return file;
}

static long run_reserve(struct lin_ctx *ctx, int key __maybe_unused)
{
	int fd = get_unused_fd(files);

	if (fd >= NFDS)
		return fd;		/* no spec returns it: a wrong fd */
	if (fd >= 0)
		hold_fd(ctx, fd);
	return fd;
}

static long run_install(struct lin_ctx *ctx, int key __maybe_unused)
{
	int fd = unhold_fd(ctx);

	if (fd < 0)
		return LIN_NOTHING;
	fd_install(files, fd, new_file(ctx->thread, fd));
	return fd;
}

static long run_close(struct lin_ctx *ctx __maybe_unused, int key)
{
	return close_fd(files, key);
}

static long run_fget(struct lin_ctx *ctx, int key)
{
	struct file *file = fget(files, key);

	if (!file)
		return 0;
	lin_hold(ctx, file, key);	/* put by teardown */
	return (long)file->f_inode->i_ino;
}

static long run_dup0to(struct lin_ctx *ctx __maybe_unused, int key)
{
	return dup2_fd(files, 0, key);
}

/* --- the specification -------------------------------------------------------- */

static long spec_reserve(void *model, int thread, int key __maybe_unused)
{
	struct fd_model *m = model;
	int fd;

	for (fd = 0; fd < NFDS && m->fd[fd]; fd++)
		;
	if (fd == NFDS || m->nr_reserved[thread] == LIN_MAX_HELD)
		return -EMFILE;		/* beyond the model: never generated */
	m->fd[fd] = RESERVED;
	m->reserved[thread][m->nr_reserved[thread]++] = fd;
	return fd;
}

static long spec_install(void *model, int thread, int key __maybe_unused)
{
	struct fd_model *m = model;
	int i, fd;

	if (!m->nr_reserved[thread])
		return LIN_NOTHING;
	fd = m->reserved[thread][0];
	for (i = 1; i < m->nr_reserved[thread]; i++)
		m->reserved[thread][i - 1] = m->reserved[thread][i];
	m->reserved[thread][--m->nr_reserved[thread]] = 0;
	m->fd[fd] = FILE_OF(thread, fd);
	return fd;
}

static long spec_close(void *model, int thread __maybe_unused, int key)
{
	struct fd_model *m = model;

	if (m->fd[key] <= 0)
		return -EBADF;		/* free, or reserved: stays reserved */
	m->fd[key] = 0;
	return 0;
}

static long spec_fget(void *model, int thread __maybe_unused, int key)
{
	struct fd_model *m = model;

	return m->fd[key] > 0 ? m->fd[key] : 0;
}

static long spec_dup0to(void *model, int thread __maybe_unused, int key)
{
	struct fd_model *m = model;

	if (m->fd[0] <= 0)
		return -EBADF;		/* never generated: fd 0 stays open */
	if (m->fd[key] == RESERVED)
		return -EBUSY;
	m->fd[key] = m->fd[0];
	return key;
}

static const struct lin_op ops[] = {
	{ "close", LIN_KEYED, run_close, spec_close, fd_names },
	{ "fget", LIN_KEYED | LIN_POST, run_fget, spec_fget, file_names },
	{ "dup0to", LIN_KEYED, run_dup0to, spec_dup0to, fd_names },
	/* the last probe: a growth it causes frees only after the others */
	{ "reserve", LIN_TAKES | LIN_POST, run_reserve, spec_reserve, fd_names },
	{ "install", LIN_DROPS, run_install, spec_install, fd_names },
};

#define OP(name)	(1u << (name))
enum { CLOSE, FGET, DUP0TO, RESERVE, INSTALL };

/*
 * mode: how many fds setup opens, 0 .. n-1; then it reserves one fd for
 * each thread .held says, T1 first.  full8 keeps to the operations whose
 * point there is the growth that frees an allocated array: fget against it.
 */
static const struct lin_init inits[] = {
	{ "empty", "no fd open",
	  .ops = OP(RESERVE) | OP(INSTALL) | OP(CLOSE) | OP(FGET) },
	{ "fds012", "fds 0-2 open: the next open takes the embedded table's "
	  "last fd, the one after grows it, as a dup2 onto fd 4 does",
	  .mode = 3 },
	{ "reserved", "fds 0, 1 open; T1 has reserved fd 2, T2 fd 3",
	  .mode = 2, .held = { 1, 1 } },
	{ "full8", "fds 0-7 open: the table grown once; the next open grows "
	  "it again and frees the allocated array", .mode = 8,
	  .ops = OP(RESERVE) | OP(INSTALL) | OP(FGET) },
};

static void inodes_init(void)
{
	int t, fd;

	for (t = 0; t <= RACE_MAX_THREADS; t++)
		for (fd = 0; fd < NFDS; fd++)
			inodes[t][fd] = (struct inode){ .i_ino = FILE_OF(t, fd) };
}

static void setup(const struct lin_init *init, struct lin_ctx *ctx[])
{
	int i, t, fd;

	inodes_init();
	files = files_alloc();
	BUG_ON(!files);
	for (i = 0; i < (int)init->mode; i++) {
		fd = get_unused_fd(files);
		BUG_ON(fd != i);
		fd_install(files, fd, new_file(0, fd));
	}
	for (t = 0; t < RACE_MAX_THREADS; t++)
		for (i = 0; i < init->held[t]; i++)
			hold_fd(ctx[t + 1], get_unused_fd(files));
}

/* Put the references the threads hold, give back their reserved fds. */
static void teardown(struct lin_ctx *ctx[], int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		while (ctx[i]->nr_held) {
			if (ctx[i]->held_key[0])
				fput(lin_unhold(ctx[i], ctx[i]->held_key[0]));
			else
				put_unused_fd(files, unhold_fd(ctx[i]));
		}
	put_files_struct(files);
}

static void model_init(void *model, const struct lin_init *init)
{
	struct fd_model *m = model;
	int i, t;

	for (i = 0; i < (int)init->mode; i++)
		m->fd[i] = FILE_OF(0, i);
	for (t = 0; t < RACE_MAX_THREADS; t++)
		for (i = 0; i < init->held[t]; i++)
			spec_reserve(m, t + 1, 0);
}

LIN_SPEC(fdtable_spec) = {
	.name		= "fdtable",
	.summary	= "reserve, install, close, fget, dup2 from fd 0 on fds "
			  "1-4, from an empty table, 3 and 8 fds open, two "
			  "reserved fds",
	.ops		= ops,
	.nr_ops		= ARRAY_SIZE(ops),
	.inits		= inits,
	.nr_inits	= ARRAY_SIZE(inits),
	.keys		= KEYS,
	.setup		= setup,
	.teardown	= teardown,
	.model_size	= sizeof(struct fd_model),
	.model_init	= model_init,
	/*
	 * Within 1 preemption, pairs too: a call here is 10-30 steps (a growth
	 * drops file_lock, a put queues an RCU callback), and 2 would cost ten
	 * times as much (about 200,000 executions, 15-18 s); every bug the
	 * generated scenarios find in tests/mutants/lab5-fdtable shows within 1.
	 */
	.pairs_bound	= 1,
	.random		= 24,
};

/* --- lincheck:fdfork: fork, fget_light, close-on-exec, the edges ------------- */

/*
 * The operations lincheck:fdtable leaves out, on tables at their edges:
 * fds at exactly max_fds (the first an access must grow the table for),
 * at the last slot, and past one bitmap word (fds 63 and 64 of a table
 * of 128).  The table has two users (a second one took it, as a clone
 * does): fget_light must take a reference like fget.
 *   fget(k), close(k), dup0to(k), reserve, install   as in lincheck:fdtable
 *   light(k)     fget_light(k): which file (the reference kept), or 0; a
 *                file without a reference is no result of the spec
 *   cloexec(k)   set_close_on_exec(k, 1): 0, or -EBADF
 *   flag(k)      get_close_on_exec(k): 0 or 1 (and a final probe)
 *   fork         dup_files(): the copy's files and close-on-exec flags at
 *                fd 0 and the keys, and the lowest fd free in it, as one
 *                number (the copy is put at once)
 * The keys are fds picked per initial state (fd_of_key).  A fork takes a
 * reference per open file, a step each: with the eight files of the edge
 * states it is in the shapes only, against every operation in the wide
 * states (three files).  Close and dup2
 * clear a flag after they change the slot, so a lock-free flag() can see
 * one without the other: the states with flags keep to reserve, install,
 * cloexec, flag, fget and fork.
 */
#define FORK_NFDS	136		/* the model: past 128, the wide table's end */
#define FORK_FIELD	2048		/* fork's result: a field per fd */

enum { EDGE, WIDE, FLAGS8, FLAGS_WIDE };	/* lin_init.mode */

/* Key k is fd fd_of_key[mode][k]; fork reports fds [0] .. [3]. */
static const int fd_of_key[][4] = {
	[EDGE]		= { 0, 7, 8, 3 },	/* last slot, max_fds; embedded */
	[WIDE]		= { 0, 64, 128, 63 },	/* second word, max_fds; first */
	[FLAGS8]	= { 0, 7, 8, 3 },
	[FLAGS_WIDE]	= { 0, 64, 128, 63 },
};
static int mode;

#define FD(key)		fd_of_key[mode][key]

struct fork_model {
	short fd[FORK_NFDS];		/* 0 free, RESERVED, or a file's number */
	unsigned char flag[FORK_NFDS];
	signed char reserved[LIN_IRQ + 1][LIN_MAX_HELD];
	signed char nr_reserved[LIN_IRQ + 1];
};

static const struct lin_name flag_names[] = {
	{ 0, "0" }, { 1, "1" }, { -EBADF, "-EBADF" }, { 0, NULL },
};

#define LIGHT_NO_REF	(-2000)		/* fget_light returned a file, no reference */

static const struct lin_name light_names[] = {
	{ 0, "0 (a miss)" }, { LIGHT_NO_REF, "a file without a reference, on a "
	  "table of two users" }, { 0, NULL },
};

static struct inode fork_inodes[LIN_IRQ + 1][FORK_NFDS];

static long fork_close(struct lin_ctx *ctx __maybe_unused, int key)
{
	return close_fd(files, FD(key));
}

static long fork_fget(struct lin_ctx *ctx, int key)
{
	struct file *file = fget(files, FD(key));

	if (!file)
		return 0;
	lin_hold(ctx, file, key);
	return (long)file->f_inode->i_ino;
}

static long fork_light(struct lin_ctx *ctx, int key)
{
	int fput_needed;
	struct file *file = fget_light(files, FD(key), &fput_needed);

	if (!file)
		return 0;
	if (!fput_needed)
		return LIGHT_NO_REF;
	lin_hold(ctx, file, key);	/* put by teardown */
	return (long)file->f_inode->i_ino;
}

static long fork_dup0to(struct lin_ctx *ctx __maybe_unused, int key)
{
	int ret = dup2_fd(files, 0, FD(key));

	return ret == FD(key) ? key : ret;
}

static long fork_reserve(struct lin_ctx *ctx, int key __maybe_unused)
{
	int fd = get_unused_fd(files);

	if (fd >= 0 && fd < FORK_NFDS)
		hold_fd(ctx, fd);
	return fd;
}

static long fork_install(struct lin_ctx *ctx, int key __maybe_unused)
{
	int fd = unhold_fd(ctx);
	struct file *file;

	if (fd < 0)
		return LIN_NOTHING;
	file = alloc_file(&fork_inodes[ctx->thread][fd]);
	BUG_ON(!file);
	fd_install(files, fd, file);
	return fd;
}

static long fork_cloexec(struct lin_ctx *ctx __maybe_unused, int key)
{
	return set_close_on_exec(files, FD(key), 1);
}

static long fork_flag(struct lin_ctx *ctx __maybe_unused, int key)
{
	return get_close_on_exec(files, FD(key));
}

/* One field of fork's result: the file at @fd (its number) and its flag. */
static long fork_field(long file, int flag)
{
	return file * 2 + !!flag;
}

static long fork_run(struct lin_ctx *ctx __maybe_unused, int key __maybe_unused)
{
	struct files_struct *copy;
	struct file *file;
	long result = 0;
	int err = 0, k, low;

	copy = dup_files(files, &err);
	if (!copy)
		return err;
	for (k = 3; k >= 0; k--) {
		file = fcheck_files(copy, FD(k));
		result = result * FORK_FIELD +
			fork_field(file ? (long)file->f_inode->i_ino : 0,
				   file && get_close_on_exec(copy, FD(k)));
	}
	low = get_unused_fd(copy);
	if (low >= 0)
		put_unused_fd(copy, low);
	put_files_struct(copy);
	return result * FORK_FIELD + low;
}

static long fork_spec_close(void *model, int thread __maybe_unused, int key)
{
	struct fork_model *m = model;

	if (m->fd[FD(key)] <= 0)
		return -EBADF;
	m->fd[FD(key)] = 0;
	m->flag[FD(key)] = 0;
	return 0;
}

static long fork_spec_fget(void *model, int thread __maybe_unused, int key)
{
	struct fork_model *m = model;

	return m->fd[FD(key)] > 0 ? m->fd[FD(key)] : 0;
}

static long fork_spec_dup0to(void *model, int thread __maybe_unused, int key)
{
	struct fork_model *m = model;

	if (m->fd[0] <= 0)
		return -EBADF;
	if (m->fd[FD(key)] == RESERVED)
		return -EBUSY;
	m->fd[FD(key)] = m->fd[0];
	m->flag[FD(key)] = 0;
	return key;
}

static long fork_spec_reserve(void *model, int thread, int key __maybe_unused)
{
	struct fork_model *m = model;
	int fd;

	for (fd = 0; fd < FORK_NFDS && m->fd[fd]; fd++)
		;
	if (fd == FORK_NFDS || m->nr_reserved[thread] == LIN_MAX_HELD)
		return -EMFILE;
	m->fd[fd] = RESERVED;
	m->flag[fd] = 0;
	m->reserved[thread][m->nr_reserved[thread]++] = fd;
	return fd;
}

static long fork_spec_install(void *model, int thread, int key __maybe_unused)
{
	struct fork_model *m = model;
	int i, fd;

	if (!m->nr_reserved[thread])
		return LIN_NOTHING;
	fd = m->reserved[thread][0];
	for (i = 1; i < m->nr_reserved[thread]; i++)
		m->reserved[thread][i - 1] = m->reserved[thread][i];
	m->reserved[thread][--m->nr_reserved[thread]] = 0;
	m->fd[fd] = FILE_OF(thread, fd);
	return fd;
}

static long fork_spec_cloexec(void *model, int thread __maybe_unused, int key)
{
	struct fork_model *m = model;

	if (m->fd[FD(key)] <= 0)
		return -EBADF;
	m->flag[FD(key)] = 1;
	return 0;
}

static long fork_spec_flag(void *model, int thread __maybe_unused, int key)
{
	struct fork_model *m = model;

	return m->flag[FD(key)];
}

static long fork_spec(void *model, int thread __maybe_unused, int key __maybe_unused)
{
	struct fork_model *m = model;
	long result = 0;
	int k, fd, low;

	for (k = 3; k >= 0; k--) {
		fd = FD(k);
		result = result * FORK_FIELD + (m->fd[fd] > 0 ?
			fork_field(m->fd[fd], m->flag[fd]) : 0);
	}
	for (low = 0; low < FORK_NFDS && m->fd[low] > 0; low++)
		;		/* reserved in the original: free in the copy */
	return result * FORK_FIELD + low;
}

static const struct lin_op fork_ops[] = {
	{ "close", LIN_KEYED, fork_close, fork_spec_close, fd_names },
	{ "fget", LIN_KEYED | LIN_POST, fork_fget, fork_spec_fget, file_names },
	{ "light", LIN_KEYED, fork_light, fork_spec_fget, light_names },
	{ "dup0to", LIN_KEYED, fork_dup0to, fork_spec_dup0to, fd_names },
	{ "cloexec", LIN_KEYED, fork_cloexec, fork_spec_cloexec, flag_names },
	{ "flag", LIN_KEYED | LIN_POST, fork_flag, fork_spec_flag, flag_names },
	{ "fork", 0, fork_run, fork_spec, NULL },
	{ "reserve", LIN_TAKES | LIN_POST, fork_reserve, fork_spec_reserve, fd_names },
	{ "install", LIN_DROPS, fork_install, fork_spec_install, fd_names },
};

enum { F_CLOSE, F_FGET, F_LIGHT, F_DUP0TO, F_CLOEXEC, F_FLAG, F_FORK, F_RESERVE,
       F_INSTALL };

#define TABLE_OPS	(OP(F_CLOSE) | OP(F_FGET) | OP(F_LIGHT) | OP(F_DUP0TO) | \
			 OP(F_FORK) | OP(F_RESERVE) | OP(F_INSTALL))
#define FLAG_OPS	(OP(F_CLOEXEC) | OP(F_FLAG) | OP(F_FGET) | OP(F_FORK) | \
			 OP(F_RESERVE) | OP(F_INSTALL))

static const struct lin_init fork_inits[] = {
	{ "edge", "fds 0-7 open, two users: keys fd 7 (the last slot) and "
	  "fd 8 (max_fds: past the end)", .mode = EDGE,
	  .ops = TABLE_OPS & ~OP(F_FORK) },
	{ "wide", "fd 0 open, dup2'ed to 63 and 64 (the table grown to 128, "
	  "its bitmaps two words), two users: keys fd 64 (the second word) "
	  "and 128 (max_fds)", .mode = WIDE, .ops = TABLE_OPS },
	{ "flags8", "fds 0-7 open, fd 7's close-on-exec flag set: keys fd 7 "
	  "and 8", .mode = FLAGS8, .ops = FLAG_OPS & ~OP(F_FORK) },
	{ "flagswide", "the wide table, fd 64's flag set: keys fd 64 and 128",
	  .mode = FLAGS_WIDE, .ops = FLAG_OPS },
};

static void fork_setup(const struct lin_init *init, struct lin_ctx *ctx[] __maybe_unused)
{
	int i, t, fd, n = init->mode == EDGE || init->mode == FLAGS8 ? 8 : 1;

	mode = init->mode;
	for (t = 0; t <= LIN_IRQ; t++)
		for (fd = 0; fd < FORK_NFDS; fd++)
			fork_inodes[t][fd] = (struct inode){ .i_ino = FILE_OF(t, fd) };
	files = files_alloc();
	BUG_ON(!files);
	for (i = 0; i < n; i++) {
		fd = get_unused_fd(files);
		BUG_ON(fd != i);
		fd_install(files, fd, alloc_file(&fork_inodes[0][fd]));
	}
	if (n == 1) {
		BUG_ON(dup2_fd(files, 0, 63) != 63 || dup2_fd(files, 0, 64) != 64);
		if (mode == FLAGS_WIDE)
			set_close_on_exec(files, 64, 1);
	} else if (mode == FLAGS8) {
		set_close_on_exec(files, 7, 1);
	}
	get_files_struct(files);	/* the second user */
}

static void fork_teardown(struct lin_ctx *ctx[], int nr)
{
	teardown(ctx, nr);		/* and the first user's put */
	put_files_struct(files);	/* the second user's */
}

static void fork_model_init(void *model, const struct lin_init *init)
{
	struct fork_model *m = model;
	int i;

	mode = init->mode;
	if (mode == EDGE || mode == FLAGS8) {
		for (i = 0; i < 8; i++)
			m->fd[i] = FILE_OF(0, i);
		m->flag[7] = mode == FLAGS8;
	} else {
		m->fd[0] = m->fd[63] = m->fd[64] = FILE_OF(0, 0);
		m->flag[64] = mode == FLAGS_WIDE;
	}
}

/*
 * Three threads whose contracts meet: a lookup against a close and the
 * open that reuses the fd; fork against a replacement and a close.
 */
static const char *const fork_shapes[] = {
	"edge:fget(1)|close(1)|reserve+install",
	"edge:fork|dup0to(2)",
	"flags8:fork|cloexec(1)",
	"wide:light(1)|dup0to(1)|close(1)",
	"wide:fork|close(1)|dup0to(2)",
	"flagswide:flag(2)|reserve+install|cloexec(2)",
	NULL,
};

LIN_SPEC(fdfork_spec) = {
	.name		= "fdfork",
	.summary	= "fget_light, fork (dup_files), close-on-exec, close, dup2 "
			  "and opens at the table's edges (fd max_fds, the last "
			  "slot) and past one bitmap word (fds 63, 64, 128)",
	.ops		= fork_ops,
	.nr_ops		= ARRAY_SIZE(fork_ops),
	.inits		= fork_inits,
	.nr_inits	= ARRAY_SIZE(fork_inits),
	.keys		= 2,
	.setup		= fork_setup,
	.teardown	= fork_teardown,
	.model_size	= sizeof(struct fork_model),
	.model_init	= fork_model_init,
	.pairs_bound	= 1,
	.random		= 8,
	.max_exec	= 3000,
	.shapes		= fork_shapes,
};
