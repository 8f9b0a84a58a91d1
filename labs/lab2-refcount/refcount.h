/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refcount.h - refcount_t, the reference count of an object that lives in
 * a lock-free (RCU-read) collection, with the API of the 2004 patch
 * "Refcounting of objects part of a lockfree collection".
 *
 * Two ways to take a reference:
 *   refcount_get()      the caller already owns a reference, or holds the
 *                       lock under which the object is found: the count
 *                       cannot be 0 here, and it WARNs if it is;
 *   refcount_get_rcu()  the caller found the object without the lock
 *                       (under rcu_read_lock()): the count may be 0 already,
 *                       and then no reference may be taken.  One
 *                       compare-and-exchange loop increments only a count
 *                       that is not 0, so the check and the increment are
 *                       one atomic step.
 *
 * The memory of an object found under rcu_read_lock() must stay valid
 * until rcu_read_unlock(), or refcount_get_rcu() reads a freed (or reused)
 * count: free the object through call_rcu().  That is lab 3.
 */
#ifndef LAB2_REFCOUNT_H
#define LAB2_REFCOUNT_H

#include "atomic.h"
#include "spinlock.h"

typedef struct {
	atomic_t count;
} refcount_t;

/**
 * refcount_init - start @rc at 1: the creator's reference
 *
 * Guarantees: the count is 1.
 *
 * Call it before anybody else can see @rc.
 *
 * Given.
 */
void refcount_init(refcount_t *rc);

/**
 * refcount_read - the count at some instant (tests, debugging, heuristics)
 *
 * It promises nothing about the next instant.
 *
 * Given.
 */
int refcount_read(refcount_t *rc);

/**
 * refcount_get - take one more reference
 *
 * The caller must own a reference already, or hold the lock under which
 * the object is found.  An increment from 0 means the object is being (or
 * has been) freed.
 *
 * Guarantees: the count goes from c to c + 1 in one atomic step.  An
 * increment from 0 WARNs "addition on 0; use-after-free", as the kernel's
 * refcount_inc() does, and increments anyway.  Of concurrent gets on a
 * count of 0 exactly one increments from 0: exactly one WARNs.
 */
void refcount_get(refcount_t *rc);

/**
 * refcount_get_rcu - take a reference unless the count is 0
 *
 * For an object found without the collection's lock, e.g. under
 * rcu_read_lock().
 *
 * Guarantees: the count goes from c to c + 1 in one atomic step for some
 * c != 0, or it is not touched at all; a count that has reached 0 stays 0
 * (an object is never resurrected), however many gets meet it.  Returns
 * the count it found and incremented (not 0), or 0 when it found 0 and
 * took no reference.
 */
int refcount_get_rcu(refcount_t *rc);

/**
 * refcount_put - drop one reference
 *
 * Guarantees: of any number of concurrent callers exactly one, the one
 * whose decrement reaches 0, gets 1; fully ordered, so every access made
 * by other holders before their put happens before that caller's free.
 * Returns 1 if the count dropped to 0 (the caller frees the object).
 *
 * Given.
 */
int refcount_put(refcount_t *rc);

/**
 * refcount_dec - drop a reference that is known not to be the last one
 *
 * Guarantees: an atomic decrement (no concurrent update is lost); no
 * ordering, no test.
 *
 * Given.
 */
void refcount_dec(refcount_t *rc);

/**
 * refcount_put_and_lock - drop one reference; take @lock if it was the last
 *
 * atomic_dec_and_lock() semantics.
 *
 * Guarantees: while the count stays above 1 throughout the call, it is
 * decremented without touching @lock (the fast path).  Otherwise @lock is
 * taken first and the count decremented under it, so that a lookup holding
 * @lock never sees the count reach 0 while the object is still reachable.
 * Returns 1 with @lock held when the count dropped to 0 (the caller
 * unlinks the object, unlocks, frees); 0 with @lock not held otherwise.
 */
int refcount_put_and_lock(refcount_t *rc, spinlock_t *lock);

#endif /* LAB2_REFCOUNT_H */
