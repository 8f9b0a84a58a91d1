// SPDX-License-Identifier: GPL-2.0
/*
 * criterion_evidence.c - what the grader needs to know about each test, in
 * a file the grader chose.
 *
 * Criterion counts a test whose worker process exits with status 0 as
 * passed, wherever it exited: a kref_get() that calls exit(0) "passes"
 * every test that reaches it.  So the grader does not take Criterion's word
 * alone.  When KIT_EVIDENCE names a file (tools/kit/criterion.py gives a
 * fresh, unguessable path for each run), every unit binary appends to it:
 *
 *   declared SUITE/NAME signal=S exit=E
 *                                 before any test runs, once per test the
 *                                 binary declares, with the signal or exit
 *                                 status it expects to end in (0: none;
 *                                 the runner process)
 *   end SUITE/NAME                when the test's own process has run the
 *                                 test to its end, fixtures included (a
 *                                 failed assertion ends a test too)
 *   outcome SUITE/NAME status=S exit=E signal=N timeout=T
 *                                 what the runner saw of the test
 *
 * A test that passed without its "end" line did not run to its end (unless
 * it expects to end in a signal or an exit status, and did).  The
 * lines go through kit_evidence() (common/evidence.h), so the workers'
 * lines do not mix.  Nothing here changes what a test does.
 * The hooks that call these functions are in criterion_timeout.c (Criterion
 * names a hook by its line, so the kit keeps its hooks in one file).
 */
#include <criterion/criterion.h>
#include <criterion/internal/ordered-set.h>

#include "criterion_evidence.h"
#include "evidence.h"

#define MAX_TESTS	1024

/* Each test's own .fini, called before its end is noted. */
static struct {
	const struct criterion_test *test;
	void (*fini)(void);
} finis[MAX_TESTS];
static size_t nr_finis;

/* The .fini of every test: its own first, then the note that it ended. */
static void end_of_test(void)
{
	const struct criterion_test *t = criterion_current_test;
	size_t i;

	for (i = 0; i < nr_finis; i++)
		if (finis[i].test == t && finis[i].fini)
			finis[i].fini();
	kit_evidence("end %s/%s", t->category, t->name);
}

void evidence_declare(struct criterion_test_set *set)
{
	FOREACH_SET(struct criterion_suite_set *suite, set->suites) {
		if (!suite->tests)
			continue;
		FOREACH_SET(struct criterion_test *test, suite->tests) {
			kit_evidence("declared %s/%s signal=%d exit=%d", suite->suite.name,
				     test->name, test->data->signal, test->data->exit_code);
			if (nr_finis == MAX_TESTS) {
				kit_evidence("error more than %d tests", MAX_TESTS);
				continue;
			}
			finis[nr_finis].test = test;
			finis[nr_finis++].fini = test->data->fini;
			test->data->fini = end_of_test;
		}
	}
}

void evidence_outcome(const struct criterion_test_stats *stats)
{
	kit_evidence("outcome %s/%s status=%d exit=%d signal=%d timeout=%d",
	     stats->test->category, stats->test->name, (int)stats->test_status,
	     stats->exit_code, stats->signal, (int)stats->timed_out);
}
