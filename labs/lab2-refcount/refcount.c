// SPDX-License-Identifier: GPL-2.0
/*
 * refcount.c - YOURS: refcount_get(), refcount_get_rcu() and
 * refcount_put_and_lock(), the 2004 API on the kit's atomics.
 *
 * Lab 2.  The handout (README.md) says what each must guarantee;
 * refcount.h has the contracts; refcount_init, refcount_read, refcount_put
 * and refcount_dec are given in refcount_given.c.  Use only the atomics of
 * common/atomic.h (atomic_read, atomic_inc_return, atomic_cmpxchg, ...)
 * and the spinlock of common/spinlock.h.
 */
#include "bug.h"
#include "refcount.h"

void refcount_get(refcount_t *rc)
{
	/*
	 * TODO: increment the count.  If it was 0, WARN "addition on 0;
	 * use-after-free" (one atomic operation: do not read, then add).
	 */
	(void)rc;
}

int refcount_get_rcu(refcount_t *rc)
{
	/*
	 * TODO: increment the count unless it is 0, with an atomic_cmpxchg()
	 * loop.  Return the count found (not 0) on success, 0 if it was 0.
	 */
	(void)rc;
	return 0;
}

int refcount_put_and_lock(refcount_t *rc, spinlock_t *lock)
{
	/*
	 * TODO: atomic_dec_and_lock().  While the count is above 1 this put
	 * cannot be the last: decrement it without the lock (a cmpxchg
	 * loop).  When you see 1, take @lock, then decrement.  Return 1 with
	 * @lock held iff the count reached 0; otherwise unlock, return 0.
	 */
	(void)rc;
	(void)lock;
	return 0;
}
