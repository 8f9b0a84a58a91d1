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
 * load without a "sees" line reads.  A replay that cannot read that store
 * there diverges.  The lines are written after the step they belong to;
 * their order does not matter.
 */
#include <stdlib.h>
#include <string.h>

#include "race/race.h"
#include "race/weak.h"

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

/* Make @sees[] hold step @step (new entries: the newest store). */
static void sees_grow(long **sees, long *nr, long step)
{
	long i;

	if (step < *nr)
		return;
	*sees = realloc(*sees, (step + 1) * sizeof(**sees));
	if (!*sees)
		abort();
	for (i = *nr; i <= step; i++)
		(*sees)[i] = RACE_SEES_NEWEST;
	*nr = step + 1;
}

/**
 * race_sees_parse - "LOAD STORE" of a sees line, into @sf
 *
 * Returns 0, or -1 with @err naming the line and what was expected.
 */
int race_sees_parse(struct race_schedfile *sf, const char *rest, int line,
		    char *err, size_t errlen)
{
	char store[32], extra;
	long load, from = 0;
	int k = sscanf(rest, "%ld %31s %c", &load, store, &extra);

	if (k == 2 && strcmp(store, "init")) {
		char *end;

		from = strtol(store, &end, 10);
		if (*end || from < 1)
			k = 0;
	}
	if (k != 2 || load < 1 || (from && from >= load)) {
		snprintf(err, errlen, "line %d: expected 'sees <load step> "
			 "<earlier store step>|init', got 'sees %s'", line, rest);
		return -1;
	}
	sees_grow(&sf->sees, &sf->nr_sees, load);
	sf->sees[load] = from;
	return 0;
}

/**
 * race_memory_parse - "sc" or "weak" of a memory line, into @sf
 */
int race_memory_parse(struct race_schedfile *sf, const char *rest, int line,
		      char *err, size_t errlen)
{
	if (!strcmp(rest, "sc"))
		sf->memory = RACE_OPT_MEMORY_SC;
	else if (!strcmp(rest, "weak"))
		sf->memory = RACE_OPT_MEMORY_WEAK;
	else {
		snprintf(err, errlen, "line %d: expected 'memory sc' or "
			 "'memory weak', got 'memory %s'", line, rest);
		return -1;
	}
	return 0;
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
	long i;

	race_opt.sees = NULL;
	race_opt.nr_sees = 0;
	for (i = 0; i < n; i++)
		if (steps[i].sees != RACE_SEES_NEWEST) {
			sees_grow(&race_opt.sees, &race_opt.nr_sees, i + 1);
			race_opt.sees[i + 1] = steps[i].sees;
		}
}
