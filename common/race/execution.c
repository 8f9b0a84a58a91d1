// SPDX-License-Identifier: GPL-2.0
/*
 * execution.c - one execution of the scenario, and its oracles.
 *
 * Every model forgets the last execution; setup() builds the state alone;
 * the threads run as the strategy chooses; then, alone again, the oracles:
 * a WARN noted during the run, the scenario's check(), its witness (did
 * the outcome the scenario exists for happen?), teardown(), the callbacks
 * still queued, and the leak count.
 */
#include "race/dpor.h"
#include "race/sched.h"
#include "race/weak.h"
#include "slab.h"

/* Every model back to the start of an execution. */
static void reset_models(void)
{
	race_trace_reset();
	race_sched_reset();
	race_rcu_reset();
	race_irq_reset();
	race_objects_reset();
	race_weak_reset();
	race_dpor_reset();
	slab_reset();		/* the slab's own messages number as we do */
	race_sh->note[0] = 0;
	race_sh->note_step = -1;
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
	if (race_sh->note[0])
		race_fail("warn", "%s", race_sh->note);
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
