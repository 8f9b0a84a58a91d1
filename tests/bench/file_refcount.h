/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file_refcount.h - the benchmark's hashlock build: lab 5's file.h with
 * the file count's get and get-unless-zero through lab 2's refcount_t API,
 * whose back end in that build is lab 4's hashed-lock refcount.c.
 *
 * That is the 2004 patch's own shape: it made f_count a refcount_t, and
 * get_file() refcount_get(), fget's get refcount_get_rcu(), __fput's test
 * refcount_put(); on a CPU without cmpxchg those took the hashed locks.
 *
 * mk/bench.mk forces this header (-include) into every source of the
 * hashlock build, lab 5's files included, before they include file.h: its
 * include guard then keeps them on this version.  The students' files are
 * compiled unchanged.  file.h's own get_file() and get_file_rcu() are
 * renamed out of the way while it is read, and defined again below; fput's
 * decrement is file_given_refcount.c's business.
 *
 * refcount_t is a struct holding one atomic_t, f_count is an atomic_t: the
 * count is the same word either way, initialised to 1 by alloc_file() as
 * refcount_init() would.
 */
#ifndef BENCH_FILE_REFCOUNT_H
#define BENCH_FILE_REFCOUNT_H

#include "refcount.h"

#define get_file	lab5_atomic_get_file
#define get_file_rcu	lab5_atomic_get_file_rcu
#include "file.h"
#undef get_file
#undef get_file_rcu

_Static_assert(sizeof(refcount_t) == sizeof(atomic_t),
	       "a refcount_t must be the atomic_t it wraps");

/** file_ref - @count, a struct file's f_count, as the refcount_t it is */
static inline refcount_t *file_ref(atomic_t *count)
{
	return container_of(count, refcount_t, count);
}

/** get_file - file.h's contract, through refcount_get() (WARNs from 0) */
static inline struct file *get_file(struct file *file)
{
	refcount_get(file_ref(&file->f_count));
	return file;
}

/** get_file_rcu - file.h's contract, through refcount_get_rcu() */
static inline int get_file_rcu(struct file *file)
{
	return refcount_get_rcu(file_ref(&file->f_count)) != 0;
}

#endif /* BENCH_FILE_REFCOUNT_H */
