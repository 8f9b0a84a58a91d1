/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fdtable.h - a process's table of open files: lock-free lookups (fget)
 * under RCU, every update under files->file_lock, and an fd array that
 * grows while readers index it.
 *
 * The 2004 patch "Lock free fd lookup" turned the spin_lock(&file_lock)
 * around fget's lookup into rcu_read_lock().  Three things had to change
 * for that (README.md walks through each):
 *   - a file may be closed, its count brought to 0, between the lookup and
 *     the get: fget takes its reference with get_file_rcu() (never from 0),
 *     and the last fput frees through call_rcu();
 *   - the array may be replaced by a larger copy under the reader's feet:
 *     the copy, the new pointer and the new size are published in an
 *     order that readers rely on, and the old array is freed after a grace
 *     period;
 *   - fget_light's fast path stays: with one user, nobody else can close.
 *
 * The layout below serves both designs a student may choose (README "Two
 * designs"); say which one fdtable.c implements in fdtable_design.
 *
 *   FDTABLE_2004  the patch: files->fdt always points at files->fdtab; an
 *                 expansion replaces fdtab.fd, then fdtab.max_fds (and the
 *                 sets, then max_fdset) in place, one published field at a
 *                 time, with the barriers between them.
 *   FDTABLE_2005  Linux 2.6.14: fdtab is the first table and never changes;
 *                 an expansion fills a whole new struct fdtable (kmalloc),
 *                 with arrays from alloc_fd_array()/alloc_fdset(), and
 *                 publishes it with one rcu_assign_pointer(files->fdt).
 *
 * Locking: every update (get_unused_fd, fd_install, close_fd, dup2_fd,
 * expansion, set_close_on_exec) holds file_lock; fcheck_files, fget and
 * get_close_on_exec take none.  A thread that uses a table is one of its
 * users (files->count): only users may call these functions.
 */
#ifndef LAB5_FDTABLE_H
#define LAB5_FDTABLE_H

#include "atomic.h"
#include "bitops.h"
#include "file.h"
#include "rcupdate.h"
#include "spinlock.h"

#define NR_OPEN_DEFAULT	4	/* fds in the embedded array and sets */
#define NR_OPEN		1024	/* get_unused_fd: -EMFILE from here on */

/* The two designs (README "Two designs"); fdtable.c says which is its. */
#define FDTABLE_2004	2004
#define FDTABLE_2005	2005

/**
 * struct fdtable - an fd array, its two bitmaps and their sizes
 * @max_fds:       entries in @fd
 * @max_fdset:     bits in @open_fds and @close_on_exec
 * @fd:            the slots: a file or NULL (RCU-protected)
 * @open_fds:      fds installed or reserved by get_unused_fd
 * @close_on_exec: fds flagged close-on-exec
 * @rcu:           FDTABLE_2005: frees a replaced table after a grace period
 */
struct fdtable {
	unsigned int max_fds;
	unsigned int max_fdset;
	struct file **fd;
	unsigned long *open_fds;
	unsigned long *close_on_exec;
	struct rcu_head rcu;
};

/**
 * struct files_struct - the table of open files, shared by its users
 * @count:     users (threads sharing the table)
 * @file_lock: serialises every update
 * @next_fd:   no free fd below it (under file_lock)
 * @fdt:       the current table (RCU-protected; see the two designs)
 * @fdtab:     the first table, embedded: its arrays are the three below
 *
 * A table of up to NR_OPEN_DEFAULT fds allocates nothing; the embedded
 * arrays are never freed on their own.
 */
struct files_struct {
	atomic_t count;
	spinlock_t file_lock;
	unsigned int next_fd;
	struct fdtable *fdt;
	struct fdtable fdtab;
	unsigned long open_fds_init[BITS_TO_LONGS(NR_OPEN_DEFAULT)];
	unsigned long close_on_exec_init[BITS_TO_LONGS(NR_OPEN_DEFAULT)];
	struct file *fd_array[NR_OPEN_DEFAULT];
};

/**
 * fdtable_design - FDTABLE_2004 or FDTABLE_2005: the design fdtable.c
 * implements (defined there)
 *
 * Guarantees: the table behaves as that design says: FDTABLE_2004 never
 * moves files->fdt off files->fdtab; FDTABLE_2005 never changes the
 * embedded fdtab's fields after files_alloc().
 */
extern const int fdtable_design;

/**
 * files_fdtable - the current table, for a caller that holds file_lock
 *
 * Guarantees: the table every update sees until file_lock is dropped
 * (expand_files may drop it: read it again after).  No step.
 */
#define files_fdtable(files)	rcu_dereference_protected((files)->fdt, 1)

/* --- given (fdtable_given.c) ------------------------------------------- */

/**
 * files_alloc - an empty table with one user, the caller
 *
 * Guarantees: count 1; no fd open; fds 0 .. NR_OPEN_DEFAULT - 1 need no
 * allocation (the embedded table).  NULL when memory is exhausted.
 */
struct files_struct *files_alloc(void);

/**
 * get_files_struct - one more user of @files
 *
 * Guarantees: atomic; the table lives until this user's put_files_struct().
 */
void get_files_struct(struct files_struct *files);

/**
 * put_files_struct - a user is done with @files
 *
 * Guarantees: the last user's put fputs every installed file (once per
 * fd) and frees the table's memory; the embedded arrays are never freed
 * on their own.
 */
void put_files_struct(struct files_struct *files);

/**
 * alloc_fd_array - @nfds empty slots (kmalloc); NULL if memory is exhausted
 *
 * Guarantees: every slot is NULL.
 */
struct file **alloc_fd_array(unsigned int nfds);

/**
 * free_fd_array - free an array that alloc_fd_array(@nfds) returned
 *
 * Guarantees: frees it now; an array of another size, or one that
 * alloc_fd_array() did not return (the embedded fd_array), is a BUG
 * ("bad-free"): in the kernel the size chose kfree or vfree.
 */
void free_fd_array(struct file **array, unsigned int nfds);

/**
 * alloc_fdset - a bitmap of @nfds clear bits; NULL if memory is exhausted
 *
 * Guarantees: every bit is clear.
 */
unsigned long *alloc_fdset(unsigned int nfds);

/**
 * free_fdset - free a bitmap that alloc_fdset(@nfds) returned
 *
 * Guarantees: frees it now; a bitmap of another size, or one that
 * alloc_fdset() did not return (an embedded set), is a BUG ("bad-free").
 */
void free_fdset(unsigned long *set, unsigned int nfds);

/**
 * expand_files - make the table hold fd @nr; called with file_lock held
 *
 * Calls expand_fdset() and expand_fd_array() as needed.  Guarantees:
 * returns 1 if it expanded (the lock may have been dropped meanwhile:
 * re-read whatever you read from the table before), 0 if the table
 * already held @nr, or expand_*'s error.
 */
int expand_files(struct files_struct *files, unsigned int nr);

/**
 * get_unused_fd - reserve the lowest free fd
 *
 * Guarantees: returns the lowest fd that is neither installed nor reserved,
 * now reserved, with its close-on-exec flag clear, growing the table when
 * it is full; installed files stay at their fds.  -EMFILE when every fd
 * below NR_OPEN is taken.  fd_install() or put_unused_fd() must follow.
 */
int get_unused_fd(struct files_struct *files);

/**
 * put_unused_fd - give back an fd that get_unused_fd() reserved and nothing
 * was installed at
 *
 * Guarantees: the fd is free again: the next get_unused_fd() may return it.
 */
void put_unused_fd(struct files_struct *files, unsigned int fd);

/**
 * set_close_on_exec - set (@flag != 0) or clear @fd's close-on-exec flag
 *
 * Guarantees: returns 0 and the flag is as asked, or -EBADF if no file is
 * installed at @fd.
 */
int set_close_on_exec(struct files_struct *files, unsigned int fd, int flag);

/* --- what you write: fdtable.c ------------------------------------------ */

/**
 * fcheck_files - the file installed at @fd, or NULL; takes no reference
 *
 * Caller holds rcu_read_lock() (the file stays readable, not referenced,
 * until rcu_read_unlock()), or file_lock, or is the table's only user.
 * Guarantees: takes no lock; never reads past the end of the array it
 * indexes, nor an array that has been freed; returns what was installed at
 * @fd at some instant during the call (NULL for an fd past the table).
 */
struct file *fcheck_files(struct files_struct *files, unsigned int fd);

/**
 * fd_install - install @file at @fd, which get_unused_fd() reserved
 *
 * Guarantees: from its return on, fcheck_files(@fd) and fget(@fd) find
 * @file, whatever expansion runs concurrently; the caller's reference
 * passes to the table (no new reference is taken).
 */
void fd_install(struct files_struct *files, unsigned int fd, struct file *file);

/**
 * close_fd - close @fd
 *
 * Guarantees: returns 0 with @fd free (neither installed nor reserved) and
 * its close-on-exec flag clear, and the table's reference to the file
 * dropped; -EBADF if no file is installed at @fd (a reserved fd stays
 * reserved).
 */
int close_fd(struct files_struct *files, unsigned int fd);

/**
 * dup2_fd - make @newfd refer to @oldfd's file (POSIX dup2)
 *
 * Guarantees: returns @newfd, with @newfd installed with @oldfd's file (one
 * more reference) and its close-on-exec flag clear; a file @newfd held
 * before loses the table's reference, and no fget(@newfd) finds @newfd
 * empty meanwhile (the replacement is atomic).  @oldfd == @newfd: returns
 * @newfd and changes nothing.  -EBADF if no file is installed at @oldfd or
 * @newfd >= NR_OPEN; -EBUSY if @newfd is reserved and not yet installed.
 * Grows the table when @newfd is past its end.
 */
int dup2_fd(struct files_struct *files, unsigned int oldfd, unsigned int newfd);

/**
 * dup_files - a copy of @oldf for a new process (fork)
 * @errorp: set to -ENOMEM when NULL is returned
 *
 * Guarantees: returns a table with one user whose installed fds are those
 * installed in @oldf at one instant of the call, each with the same file
 * (one more reference each) and the same close-on-exec flag; fds reserved
 * but not installed in @oldf are free in the copy; @oldf is unchanged.
 */
struct files_struct *dup_files(struct files_struct *oldf, int *errorp);

/**
 * expand_fd_array - grow the array to hold fd @nr; called with file_lock
 * held, which it may drop and take again
 *
 * Guarantees: returns 0 with files_fdtable(files)->max_fds > @nr and every
 * installed file at its fd (whoever expanded); a concurrent fcheck_files()
 * never indexes past the end of the array it reads and never reads a
 * freed array: the old array is freed after a grace period, the embedded
 * one never; never waits for a grace period.  -EMFILE if @nr >= NR_OPEN;
 * -ENOMEM.
 */
int expand_fd_array(struct files_struct *files, unsigned int nr);

/**
 * expand_fdset - grow the bitmaps to hold bit @nr; called with file_lock
 * held, which it may drop and take again
 *
 * Guarantees: returns 0 with files_fdtable(files)->max_fdset > @nr and
 * every open and close-on-exec bit kept; a concurrent get_close_on_exec()
 * never reads a freed bitmap: the old ones are freed after a grace period
 * with the size they were allocated with, the embedded ones never; never
 * waits for a grace period.  -EMFILE if @nr >= NR_OPEN; -ENOMEM.
 */
int expand_fdset(struct files_struct *files, unsigned int nr);

/**
 * get_close_on_exec - whether @fd's close-on-exec flag is set
 *
 * Guarantees: takes no lock; the flag as it was at some instant during
 * the call (0 for an fd past the bitmaps); never reads a freed bitmap.
 */
int get_close_on_exec(struct files_struct *files, unsigned int fd);

/* --- what you write: fget.c --------------------------------------------- */

/*
 * Your fget() and fget_light() are weak definitions: a build with
 * -DCONFIG_FDTABLE_LOCKED links fget_locked_given.c's 2.6.6 versions, which
 * take file_lock, in their place (the benchmark compares the two).  Your
 * code needs nothing for that; only fget_locked_given.c defines
 * FDTABLE_LOCKED_FGET.
 */
#ifdef FDTABLE_LOCKED_FGET
#define __fget_weak
#else
#define __fget_weak	__attribute__((weak))
#endif

/**
 * fget - the file at @fd, with a reference for the caller
 *
 * Guarantees: takes no lock; returns a file with one new reference (fput()
 * it), and that file was installed at @fd at the instant the reference was
 * taken (never a file already closed at @fd: CVE-2021-4083); never
 * increments a count that has reached 0; returns NULL only if nothing was
 * installed at @fd at some instant during the call.
 */
struct file *fget(struct files_struct *files, unsigned int fd) __fget_weak;

/**
 * fget_light - fget() that skips the reference when nobody else can close
 * @fput_needed: set to 1 iff a reference was taken
 *
 * Guarantees: on a table with one user (files->count is 1), takes no
 * reference and no lock and sets *@fput_needed to 0: the caller, the only
 * user, cannot close @fd while it uses the file.  Otherwise as fget(), with
 * *@fput_needed = 1 when it returns a file.
 */
struct file *fget_light(struct files_struct *files, unsigned int fd,
			int *fput_needed) __fget_weak;

/**
 * fput_light - drop what fget_light() took
 *
 * Guarantees: fput() iff @fput_needed.
 */
static inline void fput_light(struct file *file, int fput_needed)
{
	if (fput_needed)
		fput(file);
}

#endif /* LAB5_FDTABLE_H */
