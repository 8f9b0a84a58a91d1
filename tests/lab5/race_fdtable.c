// SPDX-License-Identifier: GPL-2.0
/*
 * race_fdtable.c - lab 5's race scenarios (see common/race/scenario.h).
 *
 * Small tables keep the state space small: the embedded table holds
 * NR_OPEN_DEFAULT (4) fds, so a setup that opens 8 has already grown it
 * once (the current array is allocated, and the next growth frees it), and
 * the 9th open in a thread grows it again, 8 -> 16, under the other
 * thread's feet.  Copies are plain memcpy under file_lock: no steps.
 *
 * Must hold (exhaustive within 2 preemptions; the witness, an execution
 * that must be among them, in brackets):
 *   fget_vs_close            fget(0) + read + fput against close(0)
 *                            [T1 holds A's last reference]
 *   fget_vs_close_reuse      fget(0) against close(0), then an open that
 *                            reuses fd 0; A stays open at fd 1
 *                            (CVE-2021-4083) [T1 holds A across the close]
 *   fget_vs_dup2             fget(1) against dup2(0, 1): never NULL
 *                            [T1 holds B, the file dup2 replaced]
 *   fget_vs_expand           fget(3) + read against the 8 -> 16 growth
 *                            [the two overlap]
 *   fget_past_end_vs_expand  fget(8) against the open that grows the table
 *                            and installs fd 8 [T1 returns the new file]
 *   install_vs_expand        two opens: one installs while the other grows
 *                            [the two overlap]
 *   dup_files_vs_expand      fork's copy against the growth [they overlap]
 *   dup2_vs_close            dup2(0, 4), which grows the table, against
 *                            close(0) [dup2 returns 4 around the close]
 *   light_shared_vs_close    fget_light(0) on a table of two users against
 *                            close(0) [T1 holds A's last reference]
 *   cloexec_vs_expand        get_close_on_exec(3) against the growth
 *                            [they overlap]
 *   fcheck_vs_grow           the bare lock-free reads against a bare growth,
 *                            weak memory: the patch's barriers [overlap]
 * Demos, historical (test-local code built on your fcheck_files; listed
 * and runnable, not graded):
 *   unlocked_266_fget        2.6.6's fget with spin_lock turned into
 *                            rcu_read_lock and get_file kept: the 2004
 *                            article's race, in the fd table (warn)
 *   patch_fget_vs_dup2       the 2004 patch's fget, which gives up when the
 *                            count was 0: NULL for an fd dup2 never left
 *                            empty (check)
 *   no_recheck_vs_reuse      fget without the re-check after the get:
 *                            CVE-2021-4083 (check)
 */
#include <errno.h>
#include <stdio.h>

#include "bug.h"
#include "fdtable.h"
#include "race/scenario.h"
#include "rcupdate.h"
#include "rwonce.h"

#define INO_SIZE	32

static unsigned char ino_data[INO_SIZE];
static struct inode ino = { 5, INO_SIZE, ino_data };

static struct files_struct *files, *child;
static struct file *fds[16];	/* setup's files, by fd */
static struct file *newfile;	/* what a thread installs */
static struct file *seen3, *seen8;	/* fcheck_vs_grow's reads */
static int cloexec_seen;
static struct file *got;	/* T1's result, held until teardown */
static int ret1, ret2;		/* the threads' return values */
static int count_seen;		/* T2's file_count() after its close */
static int insane;		/* T1 read a file that is not one */
static int count_held;		/* the count T1 saw while it used its file */
static int other_state;		/* T2: 0 before, 1 during, 2 after its call */
static int seen_before, seen_after;	/* other_state around T1's call */

/* Open a new file at the lowest free fd; BUG if the lab code fails. */
static struct file *open_new(int *fdp)
{
	struct file *file;
	int fd = get_unused_fd(files);

	BUG_ON(fd < 0);
	file = alloc_file(&ino);
	BUG_ON(!file);
	fd_install(files, fd, file);
	*fdp = fd;
	return file;
}

/* A table with @n files at fds 0 .. n-1, and the threads' slots cleared. */
static void setup_open(int n)
{
	int fd;

	for (fd = 0; fd < INO_SIZE; fd++)
		ino_data[fd] = (unsigned char)(fd * 3 + 1);
	files = files_alloc();
	BUG_ON(!files);
	child = NULL;
	newfile = got = seen3 = seen8 = NULL;
	cloexec_seen = 0;
	ret1 = ret2 = count_seen = insane = count_held = 0;
	other_state = seen_before = seen_after = 0;
	for (int i = 0; i < n; i++) {
		fds[i] = open_new(&fd);
		BUG_ON(fd != i);
	}
	for (int i = 0; i < n; i++)	/* the table holds what setup put there */
		BUG_ON(fcheck_files(files, i) != fds[i]);
}

static void teardown(void)
{
	if (got)
		fput(got);
	if (child)
		put_files_struct(child);
	put_files_struct(files);
}

/*
 * Use @file as a holder of a reference would: its count (a step, so that
 * other threads may run between the lookup and the use) is at least 1,
 * and it reads as our file.  Note it if not.
 */
static void read_file(struct file *file)
{
	unsigned char c = 0;

	count_held = file_count(file);
	if (count_held < 1 || file->f_inode != &ino ||
	    file_pread(file, &c, 1, 7) != 1 || c != ino_data[7])
		insane = 1;
}

/*
 * Overlap: T2 marks its call (a step before, a step after), T1 reads the
 * marks around its own.  The witness of the scenarios whose point is one
 * operation running while another grows the table.
 */
static void other_begins(void)	{ WRITE_ONCE(other_state, 1); }
static void other_ends(void)	{ WRITE_ONCE(other_state, 2); }
static void mine_begins(void)	{ seen_before = READ_ONCE(other_state); }
static void mine_ends(void)	{ seen_after = READ_ONCE(other_state); }

/* Witness: neither call ran entirely before the other. */
static bool overlapped(void)
{
	return seen_before != 2 && seen_after != 0;
}

/* "T1 ...": NULL when T1 only ever saw our files, else why not. */
static const char *sane(void)
{
	return insane ? "T1 read through a file that is not one: its "
			"memory was freed or never initialised" : NULL;
}

/* --- fget against close ---------------------------------------------- */

static void setup_one(void)	{ setup_open(1); }

static void fget0_read_put(void)
{
	struct file *file = fget(files, 0);

	ret1 = file == fds[0];
	if (!file)
		return;
	read_file(file);
	fput(file);
}

static void close0(void)
{
	ret2 = close_fd(files, 0);
}

static const char *closed_once(void)
{
	if (ret2 != 0)
		return "T2's close(0) of an open fd did not return 0";
	return sane();
}

/* Witness: T1 got A, and close(0) had dropped the table's reference. */
static bool held_last(void)
{
	return ret1 && count_held == 1;
}

/* Hint: fget() against close(): a count of 0 must never be raised
 * (get_file_rcu(), not get_file()), and close_fd() must empty the slot before
 * its fput() (the handout's Part 1, case 1).
 */
RACE_SCENARIO(fget_vs_close) = {
	.name     = "fget_vs_close",
	.summary  = "fget(0) + read + fput against close(0)",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_one,
	RACE_THREADS(fget0_read_put, close0),
	.check    = closed_once,
	.witness  = held_last,
	.outcome  = "T1's fget(0) returns A and T1 uses it after T2's close(0) "
		    "dropped the table's reference",
	.teardown = teardown,
	.bound    = 2,
};

/* --- CVE-2021-4083: the slot reused between the read and the get ------ */

static void setup_dup(void)
{
	setup_open(1);
	BUG_ON(dup2_fd(files, 0, 1) != 1);	/* A at fd 0 and fd 1 */
}

static void fget0_keep(void)
{
	got = fget(files, 0);
}

/* T2: close fd 0, look at A's count (fd 1 keeps A alive), open fd 0 again. */
static void close0_count_reopen(void)
{
	int fd;

	ret2 = close_fd(files, 0);
	count_seen = file_count(fds[0]);
	newfile = open_new(&fd);
	BUG_ON(fd != 0);
}

static const char *no_ref_after_close(void)
{
	if (ret2 != 0)
		return "T2's close(0) of an open fd did not return 0";
	if (got && got != fds[0] && got != newfile)
		return "T1's fget(0) returned a file that never was at fd 0";
	if (got == fds[0] && count_seen == 1)
		return "T1's fget(0) took its reference to A after close(0) had "
		       "removed A from fd 0 (T2 saw A's count at 1 after its "
		       "close): re-check the slot after the get (CVE-2021-4083)";
	return NULL;
}

/* Witness: T1 took its reference to A before the close, and kept it. */
static bool held_across_close(void)
{
	return got == fds[0] && count_seen == 2;
}

/* Hint: After a successful get, fget() must check that the slot still holds
 * the same file; if not, fput() it and look again (the handout's Part 1, case
 * 3, CVE-2021-4083).
 */
RACE_SCENARIO(fget_vs_close_reuse) = {
	.name     = "fget_vs_close_reuse",
	.summary  = "fget(0) against close(0) + reopen at 0; A stays at fd 1",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_dup,
	RACE_THREADS(fget0_keep, close0_count_reopen),
	.check    = no_ref_after_close,
	.witness  = held_across_close,
	.outcome  = "T1's fget(0) returns A, taken before T2's close(0): T2 "
		    "sees A's count at 2",
	.teardown = teardown,
	.bound    = 2,
};

/* --- dup2 replaces atomically --------------------------------------- */

static void setup_two(void)	{ setup_open(2); }

static void fget1_keep(void)
{
	got = fget(files, 1);
}

static void dup2_0_1(void)
{
	ret2 = dup2_fd(files, 0, 1);
}

static const char *never_empty(void)
{
	if (ret2 != 1)
		return "T2's dup2(0, 1) did not return 1";
	if (!got)
		return "T1's fget(1) returned NULL, but fd 1 was never empty: "
		       "dup2 replaces its file atomically (retry when the get "
		       "finds a count of 0)";
	if (got != fds[0] && got != fds[1])
		return "T1's fget(1) returned a file that never was at fd 1";
	return NULL;
}

/* Witness: T1 holds B, the file dup2 took fd 1's reference from. */
static bool holds_replaced(void)
{
	return got == fds[1];
}

/* Hint: fget() of an fd that dup2 replaces must never return NULL: a failed
 * get means look again, not closed (the handout's Part 1, case 2); dup2_fd()
 * must replace the file in one store.
 */
RACE_SCENARIO(fget_vs_dup2) = {
	.name     = "fget_vs_dup2",
	.summary  = "fget(1) against dup2(0, 1): fd 1 is never empty",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_two,
	RACE_THREADS(fget1_keep, dup2_0_1),
	.check    = never_empty,
	.witness  = holds_replaced,
	.outcome  = "T1's fget(1) returns B, the file T2's dup2 replaces",
	.teardown = teardown,
	.bound    = 2,
};

/* --- reads against the growth ---------------------------------------- */

static void setup_eight(void)	{ setup_open(8); }

static void fget3_read_put(void)
{
	struct file *file;

	mine_begins();
	file = fget(files, 3);
	mine_ends();
	ret1 = file == fds[3];
	if (!file)
		return;
	read_file(file);
	fput(file);
}

/* T2: the 9th open grows the table, 8 -> 16, and frees the old arrays. */
static void open_grow(void)
{
	other_begins();
	newfile = open_new(&ret2);
	other_ends();
}

static const char *found_fd3(void)
{
	if (!ret1)
		return "T1's fget(3) did not return the file open at fd 3 "
		       "all along";
	if (ret2 != 8)
		return "T2's open did not return fd 8";
	return sane();
}

/* Hint: A reader inside rcu_read_lock() still uses the old array during a
 * growth: expand_fd_array() must free it through call_rcu(), after publishing
 * the new one.
 */
RACE_SCENARIO(fget_vs_expand) = {
	.name     = "fget_vs_expand",
	.summary  = "fget(3) + read against the open that grows the table 8 -> 16",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_eight,
	RACE_THREADS(fget3_read_put, open_grow),
	.check    = found_fd3,
	.witness  = overlapped,
	.outcome  = "T1's fget(3) runs while T2's open grows the table",
	.teardown = teardown,
	.bound    = 2,
};

static void fget8_keep(void)
{
	got = fget(files, 8);
}

static const char *null_or_new(void)
{
	if (ret2 != 8)
		return "T2's open did not return fd 8";
	if (got && got != newfile)
		return "T1's fget(8) returned a file that never was at fd 8";
	return NULL;
}

/* Witness: T1 finds the file installed past the old end. */
static bool found_new(void)
{
	return got && got == newfile;
}

/* Hint: fcheck_files() must never index past the end of the array it reads: a
 * reader that sees the new size must see the new array too. The handout's
 * Part 2 (2004: the order of the stores and loads and their barriers) or "Two
 * designs" (2005: one published table).
 */
RACE_SCENARIO(fget_past_end_vs_expand) = {
	.name     = "fget_past_end_vs_expand",
	.summary  = "fget(8) against the open that grows the table and installs fd 8",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_eight,
	RACE_THREADS(fget8_keep, open_grow),
	.check    = null_or_new,
	.witness  = found_new,
	.outcome  = "T1's fget(8) returns the file T2 installed past the old end",
	.teardown = teardown,
	.bound    = 2,
};

/* --- updates against the growth -------------------------------------- */

static struct file *installed1;

static void setup_seven(void)
{
	setup_open(7);
	installed1 = NULL;
}

static void open_t1(void)
{
	mine_begins();
	installed1 = open_new(&ret1);
	mine_ends();
}

static const char *both_installed(void)
{
	struct file *at1, *at2;

	if (!((ret1 == 7 && ret2 == 8) || (ret1 == 8 && ret2 == 7)))
		return "the two opens did not get fds 7 and 8";
	at1 = fcheck_files(files, ret1);
	at2 = fcheck_files(files, ret2);
	if (at1 != installed1 || at2 != newfile)
		return "an fd_install was lost: an fd does not hold the file "
		       "installed there (installed into an array that the "
		       "growth had already copied?)";
	return NULL;
}

/* Hint: An install lost during a growth: fd_install() must store under
 * file_lock, so that it never writes into an array the growth has already
 * copied (the handout's Part 3).
 */
RACE_SCENARIO(install_vs_expand) = {
	.name     = "install_vs_expand",
	.summary  = "two opens: fds 7 and 8, one of them grows the table",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_seven,
	RACE_THREADS(open_t1, open_grow),
	.check    = both_installed,
	.witness  = overlapped,
	.outcome  = "T1's open runs while T2's open (one of them grows the table)",
	.teardown = teardown,
	.bound    = 2,
};

static void fork_copy(void)
{
	int err = 0;

	mine_begins();
	child = dup_files(files, &err);
	mine_ends();
	ret1 = err;
}

static const char *copy_is_a_copy(void)
{
	static char msg[160];
	struct file *at8;

	if (!child)
		return "T1's dup_files failed";
	for (int fd = 0; fd < 8; fd++) {
		if (fcheck_files(child, fd) != fds[fd] || file_count(fds[fd]) != 2) {
			snprintf(msg, sizeof(msg), "the copy's fd %d does not hold "
				 "the parent's file with a reference of its own "
				 "(count %d, expected 2)", fd, file_count(fds[fd]));
			return msg;
		}
	}
	at8 = fcheck_files(child, 8);
	if (at8 && at8 != newfile)
		return "the copy's fd 8 holds a file that never was at fd 8";
	if (file_count(newfile) != (at8 ? 2 : 1))
		return "fd 8's file has the wrong count for the copy";
	return NULL;
}

/* Hint: fork's copy against a growth: dup_files() must copy under oldf's
 * file_lock, from the table it reads there, with a reference per file (the
 * handout's Part 4).
 */
RACE_SCENARIO(dup_files_vs_expand) = {
	.name     = "dup_files_vs_expand",
	.summary  = "dup_files (fork) of 8 fds against the open that grows the table",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_eight,
	RACE_THREADS(fork_copy, open_grow),
	.check    = copy_is_a_copy,
	.witness  = overlapped,
	.outcome  = "T1's dup_files runs while T2's open grows the table",
	.teardown = teardown,
	.bound    = 2,
};

/* dup2(0, 4) grows the embedded table: the lock may drop in between. */
static void dup2_0_4(void)
{
	mine_begins();
	ret1 = dup2_fd(files, 0, 4);
	mine_ends();
}

/* T2 of dup2_vs_close: close(0), marked. */
static void close0_marked(void)
{
	other_begins();
	close0();
	other_ends();
}

/* Witness: dup2 succeeded while the close ran. */
static bool dup2_around_close(void)
{
	return ret1 == 4 && overlapped();
}

static const char *dup2_or_ebadf(void)
{
	struct file *at4 = fcheck_files(files, 4);

	if (ret2 != 0)
		return "T2's close(0) of an open fd did not return 0";
	if (ret1 == 4 && (at4 != fds[0] || file_count(fds[0]) != 1))
		return "dup2 returned 4, but fd 4 does not hold A with one reference";
	if (ret1 == -EBADF && at4)
		return "dup2 returned -EBADF, but fd 4 holds a file";
	if (ret1 != 4 && ret1 != -EBADF)
		return "dup2(0, 4) against close(0) returned neither 4 nor -EBADF";
	return NULL;
}

/* Hint: dup2_fd() that grows the table may lose file_lock in expand_files():
 * read oldfd's file again afterwards, it may have been closed meanwhile.
 */
RACE_SCENARIO(dup2_vs_close) = {
	.name     = "dup2_vs_close",
	.summary  = "dup2(0, 4), which grows the table, against close(0)",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_one,
	RACE_THREADS(dup2_0_4, close0_marked),
	.check    = dup2_or_ebadf,
	.witness  = dup2_around_close,
	.outcome  = "T1's dup2(0, 4) returns 4 while T2's close(0) runs",
	.teardown = teardown,
	.bound    = 2,
};

/* --- fget_light on a shared table ------------------------------------ */

static void setup_shared(void)
{
	setup_open(1);
	get_files_struct(files);	/* T1 and T2: two users */
}

static void light0_read_put(void)
{
	int fput_needed;
	struct file *file = fget_light(files, 0, &fput_needed);

	ret1 = file == fds[0];
	if (!file)
		return;
	read_file(file);
	fput_light(file, fput_needed);
}

static void teardown_shared(void)
{
	put_files_struct(files);
	teardown();
}

/* Hint: fget_light() may skip the reference only when the table has one user:
 * with two, it must take one as fget() does (the handout's Part 1,
 * fget_light).
 */
RACE_SCENARIO(light_shared_vs_close) = {
	.name     = "light_shared_vs_close",
	.summary  = "fget_light(0) + read on a table of two users against close(0)",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_shared,
	RACE_THREADS(light0_read_put, close0),
	.check    = closed_once,
	.witness  = held_last,
	.outcome  = "T1's fget_light(0) returns A and T1 uses it after T2's "
		    "close(0) dropped the table's reference",
	.teardown = teardown_shared,
	.bound    = 2,
};

/* --- a lock-free read of the bitmaps against the growth -------------- */

static void setup_cloexec(void)
{
	setup_open(8);
	BUG_ON(set_close_on_exec(files, 3, 1));
}

static void cloexec3(void)
{
	mine_begins();
	ret1 = get_close_on_exec(files, 3);
	mine_ends();
}

static const char *flag_kept(void)
{
	if (ret1 != 1)
		return "T1's get_close_on_exec(3) did not see the flag set all along";
	return ret2 == 8 ? NULL : "T2's open did not return fd 8";
}

/* Hint: get_close_on_exec() during a growth must read a bitmap that is not
 * freed, within the size that goes with it: look at how expand_fdset()
 * publishes the new sets and frees the old ones (call_rcu(), with the size
 * they had; the handout's Part 2).
 */
RACE_SCENARIO(cloexec_vs_expand) = {
	.name     = "cloexec_vs_expand",
	.summary  = "get_close_on_exec(3) against the open that grows the bitmaps",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_cloexec,
	RACE_THREADS(cloexec3, open_grow),
	.check    = flag_kept,
	.witness  = overlapped,
	.outcome  = "T1's get_close_on_exec(3) runs while T2's open grows the "
		    "bitmaps",
	.teardown = teardown,
	.bound    = 2,
};

/* --- the barriers: the bare lock-free reads against a bare growth ------ */

/* T1: fds 3 and 8 and fd 3's flag, read lock-free, in one section. */
static void read_3_8_flag(void)
{
	mine_begins();
	rcu_read_lock();
	seen3 = fcheck_files(files, 3);
	seen8 = fcheck_files(files, 8);
	cloexec_seen = get_close_on_exec(files, 3);
	rcu_read_unlock();
	mine_ends();
}

/* T2: grow the table 8 -> 16 and its bitmaps, install nothing. */
static void grow_only(void)
{
	other_begins();
	spin_lock(&files->file_lock);
	ret2 = expand_files(files, 8);
	spin_unlock(&files->file_lock);
	other_ends();
}

static const char *reads_consistent(void)
{
	if (ret2 != 1)
		return "T2's expand_files(8) on an 8-fd table did not report a growth";
	if (seen3 != fds[3])
		return "T1's fcheck_files(3) missed fd 3's file: it read a new array "
		       "before the copy into it (the first smp_wmb, in "
		       "rcu_assign_pointer)";
	if (seen8)
		return "T1's fcheck_files(8) found a file where none was installed";
	if (cloexec_seen != 1)
		return "T1's get_close_on_exec(3) missed the flag set all along";
	return NULL;
}

/*
 * The message-passing shape of the patch, with nothing else around it, in
 * the weak memory model (docs/reproducer.md): a load may read an older
 * store than the newest.  The barrier bugs show only here: without the
 * smp_wmb between the array and its size, or the reader's smp_rmb, T1
 * reads the new max_fds and the old array.  (The copy into the new array
 * is a plain memcpy, which the model does not track: a publication without
 * release is TSan's to see.)
  * Hint: Under the weak memory model: a reader saw the new size with the old
  * array, or a slot that nothing ordered after the copy. Look at what orders
  * your publication against the reader's loads: the barrier pairs and
  * rcu_assign_pointer() of the handout's Part 2.
 */
RACE_SCENARIO(fcheck_vs_grow) = {
	.name     = "fcheck_vs_grow",
	.summary  = "fcheck_files(3), (8), get_close_on_exec(3) against a bare growth",
	.expect   = RACE_MUST_HOLD,
	.memory   = RACE_MEMORY_WEAK,
	.setup    = setup_cloexec,
	RACE_THREADS(read_3_8_flag, grow_only),
	.check    = reads_consistent,
	.witness  = overlapped,
	.outcome  = "T1's reads run while T2 grows the table",
	.teardown = teardown,
	.bound    = 2,
};

/* --- historical bugs, on purpose --------------------------------------- */

/*
 * T1, BROKEN ON PURPOSE: 2.6.6's fget with spin_lock(&file_lock) turned
 * into rcu_read_lock() and nothing else changed.  The reference is kept
 * (teardown puts it), so the execution ends at the WARN, nothing later.
 */
static void unlocked_fget0(void)
{
	struct file *file;

	rcu_read_lock();
	file = fcheck_files(files, 0);
	if (file)
		get_file(file);
	rcu_read_unlock();
	got = file;
}

/* Hint: A demo, not graded: 2.6.6's fget() with its lock turned into
 * rcu_read_lock(), built on your fcheck_files(); get_file() raises a count of
 * 0 and WARNs.
 */
RACE_SCENARIO(unlocked_266_fget) = {
	.name     = "unlocked_266_fget",
	.summary  = "2.6.6's fget under rcu_read_lock, get_file kept: get from 0",
	.expect   = RACE_DEMO,
	.verdict  = "warn",
	.setup    = setup_one,
	RACE_THREADS(unlocked_fget0, close0),
	.teardown = teardown,
	.bound    = 2,
};

/* T1, BROKEN ON PURPOSE: the 2004 patch's fget gives up on a count of 0. */
static void patch_fget1(void)
{
	struct file *file;

	rcu_read_lock();
	file = fcheck_files(files, 1);
	if (file && !get_file_rcu(file))
		file = NULL;
	rcu_read_unlock();
	got = file;
}

/* Hint: A demo, not graded: the 2004 patch's fget(), which gives up when the
 * count was 0, returns NULL for an fd that dup2 never left empty.
 */
RACE_SCENARIO(patch_fget_vs_dup2) = {
	.name     = "patch_fget_vs_dup2",
	.summary  = "the 2004 patch's fget(1) against dup2(0, 1): NULL for an open fd",
	.expect   = RACE_DEMO,
	.verdict  = "check",
	.setup    = setup_two,
	RACE_THREADS(patch_fget1, dup2_0_1),
	.check    = never_empty,
	.teardown = teardown,
	.bound    = 2,
};

/* T1, BROKEN ON PURPOSE: fget that retries a count of 0 but never re-checks. */
static void no_recheck_fget0(void)
{
	struct file *file;

	rcu_read_lock();
	do
		file = fcheck_files(files, 0);
	while (file && !get_file_rcu(file));
	rcu_read_unlock();
	got = file;
}

/* Hint: A demo, not graded: fget() without the re-check after the get takes a
 * reference to a file already closed at that fd (CVE-2021-4083).
 */
RACE_SCENARIO(no_recheck_vs_reuse) = {
	.name     = "no_recheck_vs_reuse",
	.summary  = "fget without the re-check: a reference taken after close (CVE-2021-4083)",
	.expect   = RACE_DEMO,
	.verdict  = "check",
	.setup    = setup_dup,
	RACE_THREADS(no_recheck_fget0, close0_count_reopen),
	.check    = no_ref_after_close,
	.teardown = teardown,
	.bound    = 2,
};
