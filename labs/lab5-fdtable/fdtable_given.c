// SPDX-License-Identifier: GPL-2.0
/*
 * fdtable_given.c - GIVEN: creating and destroying a table, the arrays'
 * allocator, and the fd allocator (get_unused_fd), which 2.6.6 had and
 * the 2004 patch left alone.  Read it, do not edit it.
 *
 * Everything here works with either design: under file_lock it reads the
 * current table through files_fdtable(files).
 */
#include <errno.h>
#include <pthread.h>

#include "fdtable.h"
#include "slab.h"

static struct kmem_cache *files_cachep;
static pthread_once_t files_once = PTHREAD_ONCE_INIT;

static void files_cache_init(void)
{
	files_cachep = kmem_cache_create("files_cache",
					 sizeof(struct files_struct), 0, 0, NULL);
	BUG_ON(!files_cachep);
}

struct files_struct *files_alloc(void)
{
	struct files_struct *files;
	struct fdtable *fdt;

	pthread_once(&files_once, files_cache_init);
	files = kmem_cache_zalloc(files_cachep, GFP_KERNEL);
	if (!files)
		return NULL;
	atomic_set(&files->count, 1);
	refcount_watch(&files->count);	/* 0 is final (refcount_watch.h) */
	spin_lock_init(&files->file_lock);
	fdt = &files->fdtab;
	fdt->max_fds = NR_OPEN_DEFAULT;
	fdt->max_fdset = NR_OPEN_DEFAULT;
	fdt->fd = files->fd_array;
	fdt->open_fds = files->open_fds_init;
	fdt->close_on_exec = files->close_on_exec_init;
	RCU_INIT_POINTER(files->fdt, fdt);
	return files;
}

void get_files_struct(struct files_struct *files)
{
	atomic_inc(&files->count);
}

void put_files_struct(struct files_struct *files)
{
	struct fdtable *fdt;
	unsigned int fd;

	if (!atomic_dec_and_test(&files->count))
		return;
	/* The last user: nobody else can reach the table any more. */
	fdt = rcu_dereference_protected(files->fdt, 1);
	for (fd = 0; fd < fdt->max_fds; fd++) {
		struct file *file = rcu_dereference_protected(fdt->fd[fd], 1);

		if (file)
			fput(file);
	}
	if (fdt->fd != files->fd_array)
		free_fd_array(fdt->fd, fdt->max_fds);
	if (fdt->open_fds != files->open_fds_init) {
		free_fdset(fdt->open_fds, fdt->max_fdset);
		free_fdset(fdt->close_on_exec, fdt->max_fdset);
	}
	if (fdt != &files->fdtab)
		kfree(fdt);
	kmem_cache_free(files_cachep, files);
}

/*
 * The arrays' allocator.  In 2.6.6 the size an array was allocated with
 * chose kmalloc or vmalloc, and the size it was freed with chose kfree or
 * vfree: a wrong size freed with the wrong one.  Here a wrong size is a
 * BUG at once.  An fd array's size is its slab object's; a bitmap's
 * number of bits is recorded in a word in front of it.
 */
struct fdset_mem {
	unsigned long nfds;
	unsigned long bits[];
};

/*
 * @mem must be the start of an object that @fn's alloc_ counterpart
 * returned: a BUG ("bad-free") otherwise.  An object already freed passes:
 * kfree() then reports the double free, with who freed it first.
 */
static int allocated_here(const char *fn, const void *mem, const char *what,
			  struct slab_info *info)
{
	if (!slab_lookup(mem, info) || info->offset)
		kit_bug("bad-free", "%s: %p is not %s from alloc_%s() (the "
			"embedded ones are never freed)", fn, mem, what, fn + 5);
	return !info->freed;
}

struct file **alloc_fd_array(unsigned int nfds)
{
	return kzalloc(nfds * sizeof(struct file *), GFP_KERNEL);
}

void free_fd_array(struct file **array, unsigned int nfds)
{
	struct slab_info info;

	if (allocated_here(__func__, array, "an fd array", &info) &&
	    info.size != nfds * sizeof(struct file *))
		kit_bug("bad-free", "free_fd_array: obj#%lu holds %zu fds, "
			"freed as %u: free it with the size it was allocated "
			"with", info.id, info.size / sizeof(struct file *), nfds);
	kfree(array);
}

unsigned long *alloc_fdset(unsigned int nfds)
{
	struct fdset_mem *set;

	set = kzalloc(sizeof(*set) + BITS_TO_LONGS(nfds) * sizeof(unsigned long),
		      GFP_KERNEL);
	if (!set)
		return NULL;
	set->nfds = nfds;
	return set->bits;
}

void free_fdset(unsigned long *bits, unsigned int nfds)
{
	struct fdset_mem *set = container_of(bits, struct fdset_mem, bits);
	struct slab_info info;

	if (allocated_here(__func__, set, "a bitmap", &info) && set->nfds != nfds)
		kit_bug("bad-free", "free_fdset: obj#%lu holds %lu bits, freed "
			"as %u: free it with the size it was allocated with "
			"(the 2004 patch's expand_fdset did)", info.id, set->nfds,
			nfds);
	kfree(set);
}

int expand_files(struct files_struct *files, unsigned int nr)
{
	int expanded = 0, err;

	if (nr >= files_fdtable(files)->max_fdset) {
		err = expand_fdset(files, nr);
		if (err)
			return err;
		expanded = 1;
	}
	/* expand_fdset may have dropped the lock: read the table again. */
	if (nr >= files_fdtable(files)->max_fds) {
		err = expand_fd_array(files, nr);
		if (err)
			return err;
		expanded = 1;
	}
	return expanded;
}

int get_unused_fd(struct files_struct *files)
{
	struct fdtable *fdt;
	unsigned int fd;
	int err;

	spin_lock(&files->file_lock);
repeat:
	fdt = files_fdtable(files);
	fd = find_next_zero_bit(fdt->open_fds, fdt->max_fdset, files->next_fd);
	err = -EMFILE;
	if (fd >= NR_OPEN)
		goto out;
	err = expand_files(files, fd);
	if (err < 0)
		goto out;
	if (err)
		goto repeat;	/* the lock may have been dropped: look again */
	set_bit(fd, fdt->open_fds);
	clear_bit(fd, fdt->close_on_exec);
	files->next_fd = fd + 1;
	err = fd;
out:
	spin_unlock(&files->file_lock);
	return err;
}

void put_unused_fd(struct files_struct *files, unsigned int fd)
{
	spin_lock(&files->file_lock);
	clear_bit(fd, files_fdtable(files)->open_fds);
	if (fd < files->next_fd)
		files->next_fd = fd;
	spin_unlock(&files->file_lock);
}

int set_close_on_exec(struct files_struct *files, unsigned int fd, int flag)
{
	struct fdtable *fdt;
	int err = -EBADF;

	spin_lock(&files->file_lock);
	fdt = files_fdtable(files);
	if (fcheck_files(files, fd)) {
		if (flag)
			set_bit(fd, fdt->close_on_exec);
		else
			clear_bit(fd, fdt->close_on_exec);
		err = 0;
	}
	spin_unlock(&files->file_lock);
	return err;
}
