// SPDX-License-Identifier: GPL-2.0
/*
 * rcuref.c - YOURS: rcuref_read(), rcuref_get() and rcuref_put(), and
 * their slow paths.
 *
 * Lab 6, part 1.  rcuref.h has the contracts and the zones; README.md
 * walks through the fast paths, the slow paths and the two races.  Touch
 * the count only through common/atomic.h: atomic_read, atomic_set,
 * atomic_add_negative_relaxed, atomic_sub_return_release,
 * atomic_cmpxchg_release; and smp_acquire__after_ctrl_dep (barrier.h),
 * preempt_disable/preempt_enable (preempt.h), WARN_ON (bug.h).  Read the
 * count as an unsigned int: the zones are unsigned ranges.
 */
#include "rcuref.h"

unsigned int rcuref_read(rcuref_t *ref)
{
	/* TODO: 0 in the dead zone (NOREF too), else the count + 1. */
	(void)ref;
	return 0;
}

bool rcuref_get_slowpath(rcuref_t *ref)
{
	/*
	 * TODO: read the count again.  Dead zone: set it back to DEAD,
	 * return false.  Saturation zone: WARN "rcuref saturated - leaking
	 * memory", set it to SATURATED, return true.  Otherwise (a put
	 * brought it back meanwhile): return true.
	 */
	(void)ref;
	return false;
}

bool rcuref_get(rcuref_t *ref)
{
	/*
	 * TODO: add 1, relaxed, and look at the result's sign: not
	 * negative, you hold a reference; negative, the slow path decides.
	 */
	(void)ref;
	return false;
}

bool rcuref_put_slowpath(rcuref_t *ref, unsigned int cnt)
{
	/*
	 * TODO: decide on @cnt, what your subtraction left (do not read the
	 * count again: README.md says why).  NOREF: one
	 * atomic_cmpxchg_release from NOREF to DEAD, no retry; if it
	 * exchanged, smp_acquire__after_ctrl_dep() and return true, else
	 * false.  Dead zone: WARN "rcuref - imbalanced put()", set DEAD,
	 * false.  Saturation zone: set SATURATED, false.
	 */
	(void)ref;
	(void)cnt;
	return false;
}

bool rcuref_put(rcuref_t *ref)
{
	/*
	 * TODO: with preemption disabled from before the subtraction until
	 * the slow path is done: subtract 1 with release ordering
	 * (atomic_sub_return_release); a result that is not negative means
	 * false; else the slow path decides, on that result.
	 */
	(void)ref;
	return false;
}
