// SPDX-License-Identifier: GPL-2.0
/*
 * preempt.c - preempt_disable() as a read-side section (preempt.h says why).
 *
 * Built from the kit's RCU, which already offers itself to the reproducer:
 * no hook of its own beyond the scheduling point that names it and where
 * a scenario thread's nesting is counted (race_preempt_depth()).
 */
#include "bug.h"
#include "preempt.h"
#include "race_hooks.h"
#include "rcupdate.h"

static __thread int preempt_depth;

/* The calling thread's nesting: a scenario thread's is the reproducer's. */
static int *depth(void)
{
	int *scenario = race_preempt_depth();

	return scenario ? scenario : &preempt_depth;
}

void __preempt_disable(const char *fn)
{
	race_point_at(fn, "preempt_disable");
	if ((*depth())++ == 0)
		__rcu_read_lock(fn);
}

void __preempt_enable(const char *fn)
{
	int *d = depth();

	race_point_at(fn, "preempt_enable");
	if (*d <= 0)
		kit_bug("bug", "%s: preempt_enable without preempt_disable", fn);
	if (--*d == 0)
		__rcu_read_unlock(fn);
}

int preempt_count(void)
{
	return *depth();
}
