// SPDX-License-Identifier: GPL-2.0
/*
 * rcuref.c - rcuref_t: a get that is one relaxed add, a put that is one
 * release subtraction, and slow paths that put a count back in the middle
 * of its zone, or mark it dead.
 */
#include "rcuref.h"

unsigned int rcuref_read(rcuref_t *ref)
{
	unsigned int c = (unsigned int)atomic_read(&ref->refcnt);

	return c >= RCUREF_RELEASED ? 0 : c + 1;
}

bool rcuref_get_slowpath(rcuref_t *ref)
{
	unsigned int cnt = (unsigned int)atomic_read(&ref->refcnt);

	/* Dead: undo our add (and any other's), stay in the middle. */
	if (cnt >= RCUREF_RELEASED) {
		atomic_set(&ref->refcnt, (int)RCUREF_DEAD);
		return false;
	}
	/* Saturated: leak the object rather than let the count wrap. */
	if (WARN_ON(cnt > RCUREF_MAXREF && "rcuref saturated - leaking memory"))
		atomic_set(&ref->refcnt, (int)RCUREF_SATURATED);
	return true;
}

bool rcuref_get(rcuref_t *ref)
{
	if (likely(!atomic_add_negative_relaxed(1, &ref->refcnt)))
		return true;
	return rcuref_get_slowpath(ref);
}

bool rcuref_put_slowpath(rcuref_t *ref, unsigned int cnt)
{
	/* Did this put drop the last reference?  (@cnt: not a new read.) */
	if (likely(cnt == RCUREF_NOREF)) {
		/*
		 * Unless a get raised the count since (then the object lives)
		 * or that get's put marked it dead already (then that put
		 * frees it).  Neither is retried.
		 */
		if (atomic_cmpxchg_release(&ref->refcnt, (int)RCUREF_NOREF,
					   (int)RCUREF_DEAD) != (int)RCUREF_NOREF)
			return false;
		smp_acquire__after_ctrl_dep();	/* the free comes after */
		return true;
	}
	if (WARN_ON(cnt >= RCUREF_RELEASED && "rcuref - imbalanced put()")) {
		atomic_set(&ref->refcnt, (int)RCUREF_DEAD);
		return false;
	}
	if (cnt > RCUREF_MAXREF)
		atomic_set(&ref->refcnt, (int)RCUREF_SATURATED);
	return false;
}

bool rcuref_put(rcuref_t *ref)
{
	bool released = false;
	int cnt;

	/* No grace period may end before the slow path is done with @ref. */
	preempt_disable();
	cnt = atomic_sub_return_release(1, &ref->refcnt);
	if (unlikely(cnt < 0))
		released = rcuref_put_slowpath(ref, (unsigned int)cnt);
	preempt_enable();
	return released;
}
