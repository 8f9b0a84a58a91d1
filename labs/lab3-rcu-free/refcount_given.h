/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refcount_given.h - the refcount_t of lab 2, complete, for lab 3.
 *
 * Lab 3 does not build on your lab 2 files: a lab 3 that fails because
 * lab 2 is unfinished would teach nothing.  This header is lab 2's
 * reference solution in static inline form, under another file name (every
 * lab's folder is on the include path, so names must not collide).  Only
 * the calls lab 3 needs are here.
 */
#ifndef LAB3_REFCOUNT_GIVEN_H
#define LAB3_REFCOUNT_GIVEN_H

#include "atomic.h"
#include "bug.h"

typedef struct {
	atomic_t count;
} refcount_t;

/** refcount_init - the count is 1, the creator's reference */
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
 * refcount_get - one more reference, for a caller that already owns one
 * or holds the lock under which the object is found
 *
 * An increment from 0 WARNs "addition on 0; use-after-free".
 */
static inline void refcount_get(refcount_t *rc)
{
	int new = atomic_inc_return(&rc->count);

	WARN_ON(new == 1 && "refcount_t: addition on 0; use-after-free");
}

/**
 * refcount_get_rcu - one more reference unless the count is 0
 *
 * Guarantees: c -> c + 1 in one atomic step for some c != 0, or no change;
 * a count of 0 stays 0.  Returns the count found (not 0), or 0.
 */
static inline int refcount_get_rcu(refcount_t *rc)
{
	int seen = atomic_read(&rc->count);

	for (;;) {
		int found;

		if (!seen)
			return 0;		/* dying: never bring it back */
		/* Store seen + 1 only if the count still is seen. */
		found = atomic_cmpxchg(&rc->count, seen, seen + 1);
		if (found == seen)
			return seen;		/* our increment happened */
		seen = found;			/* it moved: retry from there */
	}
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

#endif /* LAB3_REFCOUNT_GIVEN_H */
