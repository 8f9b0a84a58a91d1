// SPDX-License-Identifier: GPL-2.0
/*
 * execution.c - one execution of the scenario, and its oracles.
 *
 * Every model forgets the last execution (each registered one's reset,
 * RACE_MODEL); setup() builds the state alone;
 * the threads run as the strategy chooses (each is checked when it
 * returns: models/held.c); then, alone again, the oracles: the WARNs of the run,
 * the scenario's check(), its witness (did the outcome the scenario exists
 * for happen?), teardown(), the callbacks still queued, and the leak count.
 */
#include "race/explore/dpor.h"
#include "race/models/models.h"
#include "slab.h"

/* Every model back to the start of an execution. */
static void reset_models(void)
{
	race_trace_reset();
	race_sched_reset();
	race_objects_reset();
	race_models_reset();
	race_dpor_reset();
	slab_reset();		/* the slab's own messages number as we do */
	race_sh->note[0] = 0;
	race_sh->note_step = -1;
	race_sh->warns = 0;
}

/** race_warn_count - the WARNs fired so far in this execution */
long race_warn_count(void)
{
	return race_sh->warns;
}

/** race_holds_lock - whether the calling thread holds @lock */
bool race_holds_lock(const void *lock)
{
	struct race_thread *t = race_self();

	return t && race_held_lock(t->id, lock);
}

/*
 * The WARNs of the execution against the scenario's .warns: none, unless
 * it expects exactly N (or lets its check() count them).
 */
static void check_warns(void)
{
	int want = race_sc->warns;

	if (want == RACE_WARNS_CHECKED || race_sh->warns == want)
		return;
	if (!want)
		race_fail("warn", "%s", race_sh->note);
	race_fail("warn", "%ld WARN%s in this execution; the scenario expects "
		  "exactly %d%s%s", race_sh->warns, race_sh->warns == 1 ? "" : "s",
		  want, race_sh->warns ? ", the first: " : "", race_sh->note);
}

/* After teardown: every object of the execution must have been freed. */
static void check_leaks(void)
{
	char names[RACE_MSG_LEN / 2];
	long live = race_objects_live(names, sizeof(names));

	if (live)
		race_fail("leak", "%ld object(s) still allocated after teardown: "
			  "%s%s (every object must be freed exactly once)",
			  live, names, live > 4 ? ", ..." : "");
}

/**
 * race_run_execution - one execution of the scenario, start to finish
 *
 * Returns only if no oracle fired: every thread finished, no WARN, the
 * check held and teardown freed every object the execution allocated.
 * Counts the execution in race_sh->witnessed if the scenario's witness
 * saw its outcome.  Any verdict ends the search process (race_fail).
 */
void race_run_execution(void)
{
	const char *msg;

	reset_models();
	if (race_sc->setup)
		race_sc->setup();
	race_sched_run();
	check_warns();
	msg = race_sc->check ? race_sc->check() : NULL;
	if (msg)
		race_fail("check", "%s", msg);
	if (race_sc->witness && race_sc->witness())
		race_sh->witnessed++;
	if (race_sc->teardown)
		race_sc->teardown();
	race_rcu_flush();
	check_leaks();
}
