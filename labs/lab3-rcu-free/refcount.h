/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refcount.h - GIVEN: lab 3's refcount_t.  Read it, do not edit it.
 *
 * The calls of lab 2's API that lab 3 needs, each one line on the kernel's
 * own primitives -- not on your lab 2 files, so lab 3 can be done first and
 * a bug left in lab 2 cannot fail it.  refcount_get_rcu() is
 * atomic_inc_not_zero() (common/atomic.h): the name the kernel settled on,
 * soon after the lock-free fd lookup was merged, for the compare-and-
 * exchange loop you write in lab 2 -- "get unless zero".
 *
 * Only lab 3's folder is on lab 3's include path, so this header and lab
 * 2's refcount.h never meet.
 */
#ifndef LAB3_REFCOUNT_H
#define LAB3_REFCOUNT_H

#include "atomic.h"

typedef struct {
	atomic_t count;
} refcount_t;

/** refcount_init - the count is 1: the creator's reference */
static inline void refcount_init(refcount_t *rc)
{
	atomic_set(&rc->count, 1);
}

/** refcount_read - the count at some instant (tests and debugging only) */
static inline int refcount_read(refcount_t *rc)
{
	return atomic_read(&rc->count);
}

/**
 * refcount_get_rcu - take a reference unless the count is 0
 *
 * Guarantees: the count goes from c to c + 1 in one atomic step for some
 * c != 0, or it is not touched; a count of 0 stays 0.  Returns non-zero
 * iff it took a reference.
 */
static inline int refcount_get_rcu(refcount_t *rc)
{
	return atomic_inc_not_zero(&rc->count);
}

/**
 * refcount_put - drop one reference; 1 if it was the last
 *
 * Guarantees: fully ordered; exactly one caller sees the count reach 0.
 */
static inline int refcount_put(refcount_t *rc)
{
	return atomic_dec_and_test(&rc->count);
}

#endif /* LAB3_REFCOUNT_H */
