// SPDX-License-Identifier: GPL-2.0
/*
 * access.c - the memory hooks of race_hooks.h, and the reports of
 * common/bug.c.
 *
 * Every access is a scheduling point; when the thread is chosen it makes
 * the access at once and alone.  Under the default model, sequential
 * consistency, every thread therefore sees every store as soon as it is
 * made, and a fence changes nothing (race_fence is not even a point).
 * Under the weak model (weak.c) a load may read an older store, which
 * race_access() chooses and race_seen() returns, and fences are points
 * the model applies.  The value the access read or wrote is recorded, and
 * is the value the primitive returns.  Each point also tells the
 * partial-order reduction (explore/dpor.c) what it touches, and the
 * "0 is final" oracle (zero.c) what a watched count was before and after.
 *
 * Each hook is a scheduling point for a scenario thread and does nothing
 * for any other thread (setup, teardown, the parent): outside an execution
 * there is nobody to interleave with.
 */
#include <string.h>

#include "race/models/models.h"
#include "race/models/weak.h"
#include "race/scenario.h"
#include "race_hooks.h"

/* What an access touches: a load, a store or update, an unlock. */
static int access_kind(const char *what, unsigned int how)
{
	if (!(how & RACE_STORE))
		return RACE_FP_LOAD;
	return race_streq(what, "spin_unlock") ? RACE_FP_UNLOCK :
		RACE_FP_STORE;
}

/* A point before an access; an object freed meanwhile ends the search. */
void race_access(const char *fn, const char *what, const volatile void *addr,
		 unsigned int how)
{
	struct race_thread *t = race_self();
	const char *race;

	if (!t)
		return;
	race_sched_footprint(access_kind(what, how), addr, 0,
			    race_weak && (how & RACE_RMW) == RACE_RMW &&
			    (how & RACE_FULL) == RACE_FULL ? RACE_FP_MB : 0);
	race_sched_point(NULL, fn, what, addr);
	race_obj_check(t, addr, how);
	race_spin_before(t, addr);
	race_zero_before(t, addr, how);
	if (race_weak && (race = race_weak_access(t, addr, how)))
		race_report("data-race", race);
}

/* The value of this thread's current step: the store a load read. */
long race_seen(long value)
{
	struct race_thread *t = race_self();

	if (t && t->step) {
		if (race_weak)
			value = race_weak_seen(t, value);
		race_trace_value(t->step, value);
	}
	if (t) {
		const char *warn;

		race_obj_seen(t);
		warn = race_zero_after(t);
		if (warn)
			race_report("warn", warn);
	}
	return value;
}

/* A plain access of the calling thread's last step: what it touches. */
void race_touch(const volatile void *addr, unsigned int how)
{
	race_sched_touch(how & RACE_STORE ? RACE_FP_STORE : RACE_FP_LOAD,
			 addr, 0);
}

/* A barrier: nothing under sequential consistency, a point under the
 * weak model. */
void race_fence(const char *fn, const char *what, unsigned int how)
{
	struct race_thread *t = race_self();

	if (!t || !race_weak)
		return;
	race_sched_footprint(RACE_FP_NONE, NULL, 0,
			    (how & RACE_FULL) == RACE_FULL ? RACE_FP_MB : 0);
	race_sched_point(NULL, fn, what, NULL);
	race_weak_fence(t, how);
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
	return race_trace_nr(t->step);
}

/* A report that is noted, not a verdict: a WARN, and a data race of the
 * weak model in a scenario whose check() judges what was noted (.warns is
 * RACE_WARNS_CHECKED: the litmus front end's, which flags it). */
static bool noted(const char *kind)
{
	return !strcmp(kind, "warn") ||
	       (!strcmp(kind, "data-race") && race_sc &&
		race_sc->warns == RACE_WARNS_CHECKED);
}

/**
 * race_report - a primitive found a bug: a WARN is noted and the thread
 * goes on; anything else ends the search with that verdict.
 */
bool race_report(const char *kind, const char *message)
{
	if (!race_sh)
		return false;	/* not a search process: report as usual */
	if (!noted(kind))
		race_fail(kind, "%s", message);
	race_sh->warns++;
	if (!race_sh->note[0]) {
		snprintf(race_sh->note, sizeof(race_sh->note), "%s", message);
		race_sh->note_step = current_step();
	}
	return true;
}
