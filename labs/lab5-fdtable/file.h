/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file.h - struct file: what an fd refers to (the code: file_given.c).
 *
 * A file is refcounted by f_count, an atomic_t: the fd table holds one
 * reference per fd that refers to the file, and every fget() one more.
 * The last fput() frees the file through call_rcu(), as the 2004 patch
 * made __fput do: a lock-free fget() that read the file's pointer from the
 * table, inside rcu_read_lock(), may still read its count after the last
 * put, and must find a 0 there, not freed memory.
 *
 * Each file reads from an in-memory "inode" (a byte buffer) at its own
 * position, so that tests and the benchmark can check every byte a read
 * through the table returns.
 */
#ifndef LAB5_FILE_H
#define LAB5_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "atomic.h"
#include "bug.h"
#include "rcupdate.h"

/**
 * struct inode - the contents a file reads: @i_size bytes at @i_data
 *
 * Owned by its creator, who keeps it until every file reading it is freed.
 */
struct inode {
	unsigned long i_ino;
	size_t i_size;
	const unsigned char *i_data;
};

struct file {
	atomic_t f_count;		/* references; 0: on its way to call_rcu */
	unsigned long f_id;		/* 1, 2, ...: which alloc_file() made it */
	struct inode *f_inode;
	atomic_t f_pos;			/* file_read()'s position */
	int f_queued;			/* the free is queued (bookkeeping) */
	struct rcu_head f_rcuhead;	/* the last fput() frees through it */
};

/**
 * alloc_file - a new file reading @inode from position 0
 *
 * Guarantees: f_count is 1, the caller's reference; f_id differs from every
 * other file's.  Returns NULL when memory is exhausted.
 */
struct file *alloc_file(struct inode *inode);

/**
 * get_file - one more reference, for a caller that already owns one, or
 * that holds the file_lock of a table in which the file is installed
 *
 * Guarantees: one atomic increment.  An increment from 0 (a file whose last
 * reference is gone) WARNs "get_file: count was 0; use-after-free".
 */
static inline struct file *get_file(struct file *file)
{
	int count = atomic_inc_return(&file->f_count);

	WARN_ON(count == 1 && "get_file: count was 0; use-after-free");
	return file;
}

/**
 * get_file_rcu - one more reference unless the count is 0
 *
 * For a file found without a lock, inside rcu_read_lock(): its memory is
 * still a file, but its count may have reached 0.
 * Guarantees: increments a non-zero count in one atomic step and returns 1,
 * or finds 0, leaves it 0 and returns 0 (atomic_inc_not_zero).
 */
static inline int get_file_rcu(struct file *file)
{
	return atomic_inc_not_zero(&file->f_count);
}

/**
 * file_count - the number of references (tests, debugging)
 *
 * Guarantees: the count at some instant during the call; one step.
 */
static inline int file_count(struct file *file)
{
	return atomic_read(&file->f_count);
}

/**
 * fput - drop one reference
 *
 * Guarantees: the put that brings the count to 0 queues the free with
 * call_rcu(), so a reader inside rcu_read_lock() that found the file can
 * still read it until rcu_read_unlock(); every file is freed once.  A put
 * below 0 (one reference put twice) WARNs "fput: count below 0"; a count
 * that reaches 0 a second time (after a get from 0) WARNs and queues
 * nothing more.
 */
void fput(struct file *file);

/**
 * file_read - read up to @len bytes at the file's position, and advance it
 *
 * Guarantees: returns the number of bytes copied into @buf (0 at the end of
 * the inode); concurrent reads of one file each get their own range.
 * The caller holds a reference.
 */
ssize_t file_read(struct file *file, void *buf, size_t len);

/**
 * file_pread - read up to @len bytes at offset @pos; the position is not used
 *
 * Guarantees: returns the number of bytes copied (0 at or past the end).
 * The caller holds a reference.
 */
ssize_t file_pread(struct file *file, void *buf, size_t len, size_t pos);

/**
 * file_llseek - set the position file_read() reads from next
 *
 * Guarantees: the next file_read() starts at @pos.
 */
void file_llseek(struct file *file, size_t pos);

#endif /* LAB5_FILE_H */
