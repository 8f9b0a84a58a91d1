// SPDX-License-Identifier: GPL-2.0
/*
 * access.c - the memory hooks of race_hooks.h, under the sequentially
 * consistent model, and the reports of common/bug.c.
 *
 * Every access is a scheduling point; when the thread is chosen it makes
 * the access at once and alone, so every thread sees every store as soon
 * as it is made.  The value the access read or wrote is recorded, and is
 * the value the primitive returns.  (A weaker model would keep a history
 * of the stores to each location and answer race_seen() from it; the
 * RACE_* ordering flags are its input.  None is implemented: see
 * docs/reproducer.md, "Limits".)
 *
 * Each hook is a scheduling point for a scenario thread and does nothing
 * for any other thread (setup, teardown, the parent): outside an execution
 * there is nobody to interleave with.
 */
#include <string.h>

#include "race/sched.h"
#include "race_hooks.h"

/* A point before an access; an object freed meanwhile ends the search. */
void race_access(const char *fn, const char *what, const volatile void *addr,
		 unsigned int how __maybe_unused)
{
	struct race_thread *t = race_self();

	if (!t)
		return;
	race_sched_point(NULL, fn, what, addr);
	race_obj_check_access(t, addr);
}

/* The value of this thread's current step; every store is seen at once. */
long race_seen(long value)
{
	struct race_thread *t = race_self();

	if (t && t->step)
		race_trace_value(t->step, value);
	return value;
}

/* A point with no access: "<fn>.<label>". */
void race_point_at(const char *fn, const char *label)
{
	if (race_self())
		race_sched_point(NULL, fn, label, NULL);
}

/* The step the calling thread is performing, 1-based; -1 if none. */
static long current_step(void)
{
	struct race_thread *t = race_self();

	if (!t || !t->step)
		return -1;
	return t->step - race_sh->steps + 1;
}

/**
 * race_report - a primitive found a bug: a WARN is noted and the thread
 * goes on; anything else ends the search with that verdict.
 */
bool race_report(const char *kind, const char *message)
{
	if (!race_sh)
		return false;	/* not a search process: report as usual */
	if (strcmp(kind, "warn"))
		race_fail(kind, "%s", message);
	if (!race_sh->note[0]) {
		snprintf(race_sh->note, sizeof(race_sh->note), "%s", message);
		race_sh->note_step = current_step();
	}
	return true;
}
