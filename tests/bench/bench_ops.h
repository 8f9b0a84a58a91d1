/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_ops.h - one build of lab 5's fd table, as make bench's driver sees
 * it: a table of the build's functions.
 *
 * mk/bench.mk compiles lab 5's code (fdtable.c and fget.c of IMPL, the
 * given files) several times, each time with something else under it, and
 * links each build into one relocatable object in which only its
 * struct bench_ops stays global (ld -r, then objcopy --keep-global-symbol):
 * the builds' fget, fput, files_alloc, ... cannot clash, and the driver
 * reaches each only through its table.  The builds:
 *
 *   bench_ops_lockfree  lab 5 as the lab builds it: the lock-free fget,
 *                       liburcu's memb flavour (common/rcupdate.c)
 *   bench_ops_spinlock  -DCONFIG_FDTABLE_LOCKED: fget_locked_given.c's
 *                       2.6.6 fget, under file_lock
 *   bench_ops_rwlock    fget_rwlock.c's fget: a pthread rwlock's read side
 *   bench_ops_hashlock  the file count through lab 4's refcount_t
 *                       (file_refcount.h, file_given_refcount.c)
 *   bench_ops_qsbr      RCU of liburcu's QSBR flavour (rcupdate_qsbr.c)
 *
 * The driver never touches a struct file or files_struct itself: the two
 * builds may even lay them out differently.
 */
#ifndef BENCH_OPS_H
#define BENCH_OPS_H

#include <stddef.h>
#include <sys/types.h>

struct file;
struct files_struct;
struct inode;

/**
 * struct bench_ops - lab 5's API in one build, plus what the build's RCU
 * flavour and lock need from the threads that use it
 * @thread_online:  a thread registers with the build's RCU flavour before
 *                  its first lookup (rcu_register_thread)
 * @thread_offline: and unregisters before it ends
 * @quiescent:      called between lookups, every few: QSBR's readers
 *                  announce a quiescent state there; nothing elsewhere
 * @update_begin, @update_end: around every update of a table (rwlock: the
 *                  write side of the lock that its fget reads under;
 *                  nothing elsewhere, where lab 5's file_lock is the lock)
 * @flush_rcu:      rcu_barrier(): every call_rcu() of the build's flavour has run
 */
struct bench_ops {
	struct files_struct *(*files_alloc)(void);
	void (*get_files_struct)(struct files_struct *files);
	void (*put_files_struct)(struct files_struct *files);
	int (*get_unused_fd)(struct files_struct *files);
	void (*fd_install)(struct files_struct *files, unsigned int fd,
			   struct file *file);
	int (*close_fd)(struct files_struct *files, unsigned int fd);
	int (*dup2_fd)(struct files_struct *files, unsigned int oldfd,
		       unsigned int newfd);
	struct file *(*fget)(struct files_struct *files, unsigned int fd);
	struct file *(*fget_light)(struct files_struct *files, unsigned int fd,
				   int *fput_needed);
	struct file *(*alloc_file)(struct inode *inode);
	struct file *(*get_file)(struct file *file);
	void (*fput)(struct file *file);
	int (*file_count)(struct file *file);
	ssize_t (*file_pread)(struct file *file, void *buf, size_t len,
			      size_t pos);
	void (*thread_online)(void);
	void (*thread_offline)(void);
	void (*quiescent)(void);
	void (*update_begin)(void);
	void (*update_end)(void);
	void (*flush_rcu)(void);
};

extern const struct bench_ops bench_ops_lockfree, bench_ops_spinlock,
	bench_ops_rwlock, bench_ops_hashlock, bench_ops_qsbr;

/*
 * The hooks a build may supply (strong definitions); bench_ops.c has the
 * defaults (weak: nothing to do).
 */
void bench_quiescent_state(void);
void bench_update_begin(void);
void bench_update_end(void);

#endif /* BENCH_OPS_H */
