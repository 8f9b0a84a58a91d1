// SPDX-License-Identifier: GPL-2.0
/*
 * fdtable.c - the fd table's update side and its lock-free reads, in the
 * 2004 patch's design: the array, the bitmaps and their sizes are fields
 * of the embedded files->fdtab, replaced in place one at a time, in an
 * order the lock-free readers rely on.
 *
 * Lab 5: fdtable.h has the contracts, README.md the why.
 */
#include <errno.h>
#include <string.h>

#include "barrier.h"
#include "fdtable.h"
#include "rwonce.h"
#include "slab.h"

const int fdtable_design = FDTABLE_2004;

/* An old fd array, waiting for its grace period (the patch's rcu_fd_array). */
struct fd_array_rcu {
	struct rcu_head rcu;
	struct file **array;
	unsigned int nfds;
};

/* Old bitmaps, waiting for their grace period (the patch's rcu_fd_set). */
struct fdset_rcu {
	struct rcu_head rcu;
	unsigned long *open_fds, *close_on_exec;
	unsigned int nfds;
};

struct file *fcheck_files(struct files_struct *files, unsigned int fd)
{
	struct fdtable *fdt = &files->fdtab;
	struct file **array;

	if (fd >= READ_ONCE(fdt->max_fds))
		return NULL;
	smp_rmb();		/* max_fds, then fd: pairs with expand_fd_array */
	array = rcu_dereference(fdt->fd);
	return rcu_dereference(array[fd]);
}

int get_close_on_exec(struct files_struct *files, unsigned int fd)
{
	struct fdtable *fdt = &files->fdtab;
	int set = 0;

	rcu_read_lock();
	if (fd < READ_ONCE(fdt->max_fdset)) {
		smp_rmb();	/* max_fdset, then the set: see expand_fdset */
		set = test_bit(fd, rcu_dereference(fdt->close_on_exec));
	}
	rcu_read_unlock();
	return set;
}

/* The size an expansion to hold @nr grows to: doubled, at most NR_OPEN. */
static unsigned int grown_size(unsigned int size, unsigned int nr)
{
	while (size <= nr)
		size *= 2;
	return size < NR_OPEN ? size : NR_OPEN;
}

static void fd_array_free_rcu(struct rcu_head *head)
{
	struct fd_array_rcu *old = container_of(head, struct fd_array_rcu, rcu);

	free_fd_array(old->array, old->nfds);
	kfree(old);
}

int expand_fd_array(struct files_struct *files, unsigned int nr)
{
	struct fdtable *fdt = &files->fdtab;
	struct file **new_fds, **old_fds;
	struct fd_array_rcu *old;
	unsigned int nfds;

	if (nr >= NR_OPEN)
		return -EMFILE;
	nfds = grown_size(fdt->max_fds, nr);
	/* Allocate unlocked, as the kernel did (its allocations could sleep). */
	spin_unlock(&files->file_lock);
	new_fds = alloc_fd_array(nfds);
	old = kmalloc(sizeof(*old), GFP_KERNEL);
	spin_lock(&files->file_lock);
	if (!new_fds || !old || nfds <= fdt->max_fds) {
		/* No memory, or somebody expanded while we were unlocked. */
		if (new_fds)
			free_fd_array(new_fds, nfds);
		kfree(old);
		return new_fds && old ? 0 : -ENOMEM;
	}
	old_fds = fdt->fd;
	old->array = old_fds;
	old->nfds = fdt->max_fds;
	memcpy(new_fds, old_fds, old->nfds * sizeof(*new_fds));
	/* The copy before the pointer: a reader that finds new_fds sees it. */
	rcu_assign_pointer(fdt->fd, new_fds);
	/* The pointer before the size: pairs with fcheck_files' smp_rmb(). */
	smp_wmb();
	WRITE_ONCE(fdt->max_fds, nfds);
	if (old_fds != files->fd_array)
		call_rcu(&old->rcu, fd_array_free_rcu);
	else
		kfree(old);	/* the embedded array is never freed */
	return 0;
}

static void fdset_free_rcu(struct rcu_head *head)
{
	struct fdset_rcu *old = container_of(head, struct fdset_rcu, rcu);

	free_fdset(old->open_fds, old->nfds);
	free_fdset(old->close_on_exec, old->nfds);
	kfree(old);
}

int expand_fdset(struct files_struct *files, unsigned int nr)
{
	struct fdtable *fdt = &files->fdtab;
	unsigned long *new_open, *new_exec;
	struct fdset_rcu *old;
	unsigned int nfds;
	int err = 0;

	if (nr >= NR_OPEN)
		return -EMFILE;
	nfds = grown_size(fdt->max_fdset, nr);
	spin_unlock(&files->file_lock);
	new_open = alloc_fdset(nfds);
	new_exec = alloc_fdset(nfds);
	old = kmalloc(sizeof(*old), GFP_KERNEL);
	spin_lock(&files->file_lock);
	if (!new_open || !new_exec || !old)
		err = -ENOMEM;
	if (err || nfds <= fdt->max_fdset)
		goto out_free;
	old->open_fds = fdt->open_fds;
	old->close_on_exec = fdt->close_on_exec;
	old->nfds = fdt->max_fdset;	/* the old size, not nfds */
	bitmap_copy(new_open, old->open_fds, old->nfds);
	bitmap_copy(new_exec, old->close_on_exec, old->nfds);
	rcu_assign_pointer(fdt->open_fds, new_open);
	rcu_assign_pointer(fdt->close_on_exec, new_exec);
	smp_wmb();		/* the sets before their size */
	WRITE_ONCE(fdt->max_fdset, nfds);
	if (old->open_fds != files->open_fds_init)
		call_rcu(&old->rcu, fdset_free_rcu);
	else
		kfree(old);	/* the embedded sets are never freed */
	return 0;
out_free:
	if (new_open)
		free_fdset(new_open, nfds);
	if (new_exec)
		free_fdset(new_exec, nfds);
	kfree(old);
	return err;
}

void fd_install(struct files_struct *files, unsigned int fd, struct file *file)
{
	struct fdtable *fdt;

	spin_lock(&files->file_lock);
	fdt = files_fdtable(files);
	BUG_ON(rcu_dereference_protected(fdt->fd[fd], 1));
	rcu_assign_pointer(fdt->fd[fd], file);
	spin_unlock(&files->file_lock);
}

int close_fd(struct files_struct *files, unsigned int fd)
{
	struct fdtable *fdt;
	struct file *file;

	spin_lock(&files->file_lock);
	fdt = files_fdtable(files);
	file = fcheck_files(files, fd);
	if (!file) {
		spin_unlock(&files->file_lock);
		return -EBADF;
	}
	rcu_assign_pointer(fdt->fd[fd], NULL);
	clear_bit(fd, fdt->close_on_exec);
	clear_bit(fd, fdt->open_fds);
	if (fd < files->next_fd)
		files->next_fd = fd;
	spin_unlock(&files->file_lock);
	fput(file);		/* the table's reference; a reader may hold one */
	return 0;
}

int dup2_fd(struct files_struct *files, unsigned int oldfd, unsigned int newfd)
{
	struct file *file, *tofree;
	struct fdtable *fdt;
	int err = -EBADF;

	spin_lock(&files->file_lock);
	if (!fcheck_files(files, oldfd))
		goto out_unlock;
	err = newfd;
	if (newfd == oldfd)
		goto out_unlock;
	err = -EBADF;
	if (newfd >= NR_OPEN)
		goto out_unlock;
	err = expand_files(files, newfd);
	if (err < 0)
		goto out_unlock;
	/* expand_files may have dropped the lock: oldfd may be closed now. */
	err = -EBADF;
	file = fcheck_files(files, oldfd);
	if (!file)
		goto out_unlock;
	fdt = files_fdtable(files);
	tofree = rcu_dereference_protected(fdt->fd[newfd], 1);
	err = -EBUSY;
	if (!tofree && test_bit(newfd, fdt->open_fds))
		goto out_unlock;	/* reserved by get_unused_fd */
	get_file(file);		/* the reference newfd will hold, first */
	rcu_assign_pointer(fdt->fd[newfd], file);
	set_bit(newfd, fdt->open_fds);
	clear_bit(newfd, fdt->close_on_exec);
	spin_unlock(&files->file_lock);
	if (tofree)
		fput(tofree);
	return newfd;
out_unlock:
	spin_unlock(&files->file_lock);
	return err;
}

/* The installed and reserved fds of @fdt lie below this. */
static unsigned int count_open_files(struct fdtable *fdt)
{
	unsigned int last = find_last_bit(fdt->open_fds, fdt->max_fdset);

	return last == fdt->max_fdset ? 0 : last + 1;
}

/* Copy @oldf's table into the private @newf; both file_locks are held. */
static int copy_fdtable(struct files_struct *newf, struct files_struct *oldf)
{
	struct fdtable *old_fdt = files_fdtable(oldf), *new_fdt;
	unsigned int open_files = count_open_files(old_fdt), fd;
	int err;

	if (open_files) {
		err = expand_files(newf, open_files - 1);
		if (err < 0)
			return err;
	}
	new_fdt = files_fdtable(newf);
	bitmap_copy(new_fdt->open_fds, old_fdt->open_fds, open_files);
	bitmap_copy(new_fdt->close_on_exec, old_fdt->close_on_exec, open_files);
	for (fd = 0; fd < open_files; fd++) {
		struct file *file = rcu_dereference_protected(old_fdt->fd[fd], 1);

		if (file)
			get_file(file);	/* installed: its count is not 0 */
		else
			clear_bit(fd, new_fdt->open_fds);	/* only reserved */
		RCU_INIT_POINTER(new_fdt->fd[fd], file);
	}
	return 0;
}

struct files_struct *dup_files(struct files_struct *oldf, int *errorp)
{
	struct files_struct *newf = files_alloc();
	int err;

	if (!newf) {
		*errorp = -ENOMEM;
		return NULL;
	}
	/* Nobody else can reach newf: its lock only satisfies expand_files. */
	spin_lock(&oldf->file_lock);
	spin_lock(&newf->file_lock);
	err = copy_fdtable(newf, oldf);
	spin_unlock(&newf->file_lock);
	spin_unlock(&oldf->file_lock);
	if (err) {
		put_files_struct(newf);
		*errorp = err;
		return NULL;
	}
	return newf;
}
