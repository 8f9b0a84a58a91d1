// SPDX-License-Identifier: GPL-2.0
/*
 * sees.c - what the weak memory model adds to a schedule file.
 *
 *	memory weak
 *	step 12 T2 fget.READ_ONCE obj#1+8 32
 *	sees 12 4
 *
 * "memory weak" (a header line; "memory sc" is the default) says the
 * schedule runs under the weak model.  "sees LOAD STORE": the load of
 * step LOAD reads the store made at step STORE ("init": the value the
 * location had when the threads started), not the newest store, which a
 * load without a "sees" line reads; for a store, STORE is the one it goes
 * right after in its location's coherence order, not the newest.  A
 * replay that cannot read (or place) it there diverges.  The lines are
 * written after the step they belong to; their order does not matter.
 */
#include <stdlib.h>
#include <string.h>

#include "race/report/report.h"
#include "race/models/weak.h"

/**
 * race_sees_line - the "sees" line of step @nr, if its load read an older
 * store than the newest; 0 if it has none
 */
int race_sees_line(const struct race_step *s, long nr, char *buf, size_t len)
{
	if (s->sees == RACE_SEES_NEWEST)
		return 0;
	if (s->sees)
		snprintf(buf, len, "sees %ld %ld", nr, s->sees);
	else
		snprintf(buf, len, "sees %ld init", nr);
	return 1;
}

/**
 * race_sees_set - record that the load of step @load reads the store of
 * step @from (0: the initial value); loads without a record read the
 * newest store
 *
 * The array grows geometrically: a file's sees lines cost linear time.
 */
void race_sees_set(struct race_schedfile *sf, long load, long from)
{
	long i;

	while (load >= sf->cap_sees)
		sf->sees = race_grow(sf->sees, sf->cap_sees, &sf->cap_sees,
				     sizeof(*sf->sees));
	for (i = sf->nr_sees; i <= load; i++)
		sf->sees[i] = RACE_SEES_NEWEST;
	if (load >= sf->nr_sees)
		sf->nr_sees = load + 1;
	sf->sees[load] = from;
}

/**
 * race_memory_choose - set race_weak for scenario @sc: @memory says
 * (RACE_OPT_MEMORY_*: an option, a schedule's 'memory' line), else the
 * scenario's .memory
 * @nr_sees: the 'sees' lines of the schedule followed, if any
 * @where:   for the message
 *
 * 'sees' lines under sequential consistency would be ignored: that is an
 * error (exit 2), not a silent change of the schedule.
 */
void race_memory_choose(int memory, const struct race_scenario *sc,
			long nr_sees, const char *where)
{
	race_weak = memory == RACE_OPT_MEMORY_WEAK ||
		    (memory == RACE_OPT_MEMORY_SCENARIO &&
		     sc->memory == RACE_MEMORY_WEAK);
	if (nr_sees && !race_weak) {
		fprintf(stderr, "race: %s: 'sees' lines choose the stores loads read "
			"under the weak memory model, but this runs under "
			"sequential consistency: add the line 'memory weak'\n", where);
		exit(2);
	}
}

/**
 * race_sees_from_steps - race_opt.sees from the loads of @steps, so that a
 * replay of them reads the same stores
 */
void race_sees_from_steps(const struct race_step *steps, long n)
{
	static struct race_schedfile sf;	/* race_opt.sees points in */
	long i;

	race_grow_free(sf.sees, sf.cap_sees, sizeof(*sf.sees));
	memset(&sf, 0, sizeof(sf));
	for (i = 0; i < n; i++)
		if (steps[i].sees != RACE_SEES_NEWEST)
			race_sees_set(&sf, i + 1, steps[i].sees);
	race_opt.sees = sf.sees;
	race_opt.nr_sees = sf.nr_sees;
}
