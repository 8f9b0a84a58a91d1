// SPDX-License-Identifier: GPL-2.0
/*
 * scenarios.c - the scenarios registered in the binary: gathered from the
 * race_scenarios section, sorted by name, and checked before anything
 * runs.
 *
 * A scenario that cannot be judged is refused, with one line per problem
 * naming its file and line: a must-fail or demo without the verdict it
 * must end in (otherwise any crash, even of the test's own code, would
 * count as the bug), a must-hold without a witness (otherwise code that
 * never reaches the interesting case would pass), threads missing, an
 * interrupt of a thread that does not exist, a name used twice.
 */
#include <stdlib.h>
#include <string.h>

#include "race/front/lincheck.h"

#define RACE_MAX_SCENARIOS	64

extern const struct race_registration *const __start_race_scenarios[];
extern const struct race_registration *const __stop_race_scenarios[];

static const struct race_registration *sorted[RACE_MAX_SCENARIOS];
static int nr_sorted;

/* qsort order of registrations: by scenario name. */
static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct race_registration *const *)a)->scenario->name,
		      (*(const struct race_registration *const *)b)->scenario->name);
}

/* The number of thread functions, or -1 if a slot after a NULL is used. */
static int count_threads(const struct race_scenario *sc)
{
	int n = 0, i;

	while (n < RACE_MAX_THREADS && sc->threads[n])
		n++;
	for (i = n; i < RACE_MAX_THREADS; i++)
		if (sc->threads[i])
			return -1;
	return n;
}

/* What is wrong with @sc, or NULL. */
static const char *problem(const struct race_scenario *sc)
{
	int n = count_threads(sc), i;

	if (n < 2)
		return "needs 2 to 4 thread functions, T1 first, no gap "
		       "(RACE_THREADS(a, b, ...))";
	if (sc->expect != RACE_MUST_HOLD && (!sc->verdict || !*sc->verdict))
		return "no .verdict: pin the verdict kind it must end in "
		       "(.verdict = \"use-after-free\", \"check\", ...), so "
		       "that no other failure counts as the bug";
	for (i = n; i < RACE_MAX_THREADS; i++)
		if (sc->irqs[i])
			return "RACE_IRQ() names a thread the scenario does not "
			       "have";
	if (sc->expect == RACE_MUST_HOLD && sc->verdict)
		return ".verdict is set, but a must-hold ends in no verdict";
	if (sc->expect == RACE_MUST_HOLD && (!sc->witness || !sc->outcome))
		return "no .witness and .outcome: say which "
		       "outcome an execution must reach for the scenario to "
		       "prove anything (a lookup that hits, a get that "
		       "succeeds)";
	return NULL;
}

/* Print every problem of the sorted scenarios; the number of them. */
static int check_all(void)
{
	const struct race_scenario *sc;
	const char *why;
	int i, bad = 0;

	for (i = 0; i < nr_sorted; i++) {
		sc = sorted[i]->scenario;
		why = problem(sc);
		if (!why && i && !strcmp(sc->name, sorted[i - 1]->scenario->name))
			why = "another scenario has the same name";
		if (!why)
			continue;
		fprintf(stderr, "race: %s:%d: scenario %s (%s): %s\n",
			sorted[i]->file, sorted[i]->line, sc->name,
			race_expect_name(sc), why);
		bad++;
	}
	return bad;
}

/**
 * race_scenarios_load - gather, sort and check the registered scenarios
 *
 * Returns 0, or the number of scenarios refused (each reported on stderr).
 */
int race_scenarios_load(void)
{
	const struct race_registration *const *p;

	for (p = __start_race_scenarios; p < __stop_race_scenarios &&
	     nr_sorted < RACE_MAX_SCENARIOS; p++)
		sorted[nr_sorted++] = *p;
	qsort(sorted, nr_sorted, sizeof(sorted[0]), by_name);
	return check_all();
}

/** race_scenarios_count - how many scenarios the binary has */
int race_scenarios_count(void)
{
	return nr_sorted;
}

/** race_scenario_at - the @i-th scenario by name */
const struct race_scenario *race_scenario_at(int i)
{
	return sorted[i]->scenario;
}

/**
 * race_scenario_find - the registered scenario called @name, or the
 * generated one (lin:...), or NULL
 */
const struct race_scenario *race_scenario_find(const char *name)
{
	int i;

	for (i = 0; i < nr_sorted; i++)
		if (!strcmp(sorted[i]->scenario->name, name))
			return sorted[i]->scenario;
	return race_lin_find(name);	/* a generated one (lin_run.c)? */
}

/** race_expect_name - "must-hold", "must-fail" or "demo" */
const char *race_expect_name(const struct race_scenario *sc)
{
	switch (sc->expect) {
	case RACE_MUST_FAIL:
		return "must-fail";
	case RACE_DEMO:
		return "demo";
	default:
		return "must-hold";
	}
}

/* No scenario @name: say which there are, exit 2. */
static void __noreturn no_such(const char *name)
{
	int i;

	fprintf(stderr, "race: no scenario '%s'; this binary has:",
		name ? name : "");
	for (i = 0; i < nr_sorted; i++)
		fprintf(stderr, " %s", sorted[i]->scenario->name);
	fprintf(stderr, "\n");
	exit(2);
}

/**
 * race_scenario_select - make scenario @name the one of the searches to
 * come: its threads, and the shared page sized for its steps
 *
 * Exits 2, listing the scenarios there are, if there is none of that name.
 */
const struct race_scenario *race_scenario_select(const char *name)
{
	const struct race_scenario *sc = name ? race_scenario_find(name) : NULL;

	if (!sc)
		no_such(name);
	race_sched_init(sc);
	race_shared_map(race_opt.max_steps ? race_opt.max_steps :
			sc->max_steps ? sc->max_steps : RACE_DEFAULT_STEPS);
	return sc;
}
