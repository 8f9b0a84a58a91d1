// SPDX-License-Identifier: GPL-2.0
/*
 * file_given.c - GIVEN: struct file's allocation, its last fput, reads.
 *
 * Read it, do not edit it: your code calls get_file_rcu() and fput().
 *
 * Files come from one kmem_cache, "filp" (the kernel's filp_cachep), made
 * on first use.  fput() is the 2004 patch's: the put that reaches 0 frees
 * through call_rcu(), never at once.
 */
#include <pthread.h>
#include <string.h>

#include "file.h"
#include "slab.h"

static struct kmem_cache *filp_cachep;
static pthread_once_t filp_once = PTHREAD_ONCE_INIT;
static unsigned long last_file_id;

static void filp_cache_init(void)
{
	filp_cachep = kmem_cache_create("filp", sizeof(struct file), 0, 0, NULL);
	BUG_ON(!filp_cachep);
}

struct file *alloc_file(struct inode *inode)
{
	struct file *file;

	pthread_once(&filp_once, filp_cache_init);
	file = kmem_cache_alloc(filp_cachep, GFP_KERNEL);
	if (!file)
		return NULL;
	/* Not yet visible to anyone: plain initialisation, no steps. */
	file->f_count.counter = 1;
	refcount_watch(&file->f_count);	/* 0 is final (refcount_watch.h) */
	file->f_pos.counter = 0;
	file->f_queued = 0;
	file->f_id = __atomic_add_fetch(&last_file_id, 1, __ATOMIC_RELAXED);
	file->f_inode = inode;
	return file;
}

/* The RCU callback of the last fput(): every reader has left its section. */
static void file_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(filp_cachep, container_of(head, struct file, f_rcuhead));
}

void fput(struct file *file)
{
	int count = atomic_dec_return(&file->f_count);

	WARN_ON(count < 0 && "fput: count below 0");
	if (count)
		return;
	/* A second queueing of one rcu_head would corrupt RCU's queue. */
	if (WARN_ON(__atomic_exchange_n(&file->f_queued, 1, __ATOMIC_RELAXED) &&
		    "fput: count reached 0 twice; a get from 0 (get_file_rcu?)"))
		return;
	call_rcu(&file->f_rcuhead, file_free_rcu);
}

ssize_t file_pread(struct file *file, void *buf, size_t len, size_t pos)
{
	const struct inode *inode = file->f_inode;

	if (pos >= inode->i_size)
		return 0;
	if (len > inode->i_size - pos)
		len = inode->i_size - pos;
	memcpy(buf, inode->i_data + pos, len);
	return len;
}

ssize_t file_read(struct file *file, void *buf, size_t len)
{
	int end = atomic_add_return((int)len, &file->f_pos);

	return file_pread(file, buf, len, (size_t)end - len);
}

void file_llseek(struct file *file, size_t pos)
{
	atomic_set(&file->f_pos, (int)pos);
}
