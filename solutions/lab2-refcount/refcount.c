// SPDX-License-Identifier: GPL-2.0
/*
 * refcount.c - refcount_get(), refcount_get_rcu(), refcount_put_and_lock():
 * the 2004 API on the kit's atomics.
 */
#include "bug.h"
#include "refcount.h"

void refcount_get(refcount_t *rc)
{
	int new = atomic_inc_return(&rc->count);

	WARN_ON(new == 1 && "refcount_t: addition on 0; use-after-free");
}

int refcount_get_rcu(refcount_t *rc)
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

/*
 * Decrement @rc unless it is 1 (atomic_add_unless(v, -1, 1) in the kernel).
 * Returns 1 if it decremented, 0 if it found 1 and left it alone.
 */
static int refcount_dec_not_one(refcount_t *rc)
{
	int c = atomic_read(&rc->count);
	int old;

	while (c != 1 && (old = atomic_cmpxchg(&rc->count, c, c - 1)) != c)
		c = old;
	return c != 1;
}

int refcount_put_and_lock(refcount_t *rc, spinlock_t *lock)
{
	if (refcount_dec_not_one(rc))
		return 0;		/* fast path: not the last reference */
	spin_lock(lock);
	if (refcount_put(rc))
		return 1;		/* the last one: return with the lock */
	spin_unlock(lock);		/* somebody took a reference meanwhile */
	return 0;
}
