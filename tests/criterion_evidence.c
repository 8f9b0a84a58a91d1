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
 * lines do not mix, and each carries the run's token.
 *
 * When graded (KIT_LOCKDOWN), the runner makes itself non-dumpable before
 * any test starts, and each test's process locks itself down
 * (kit_lockdown()) first thing in its suite's .init (or its own): before
 * anything of the code under test runs there.
 *
 * A test's process is the binary run again by Criterion's sandbox
 * (BoxFort): it gets the runner's copy of each test's .init and .fini --
 * the wrappers below -- but the wrappers find the test's and the suite's
 * own ones where the compiler put them, in this process's copy of
 * Criterion's tables (the cr_tst and cr_sts sections), which nobody
 * changed.  Nothing here changes what a test does.
 * The hooks that call these functions are in criterion_timeout.c (Criterion
 * names a hook by its line, so the kit keeps its hooks in one file).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <criterion/criterion.h>
#include <criterion/internal/ordered-set.h>

#include "criterion_evidence.h"
#include "evidence.h"

/* Criterion's tables of this process, as the compiler laid them out. */
extern struct criterion_test *__start_cr_tst[] __attribute__((weak));
extern struct criterion_test *__stop_cr_tst[] __attribute__((weak));
extern struct criterion_suite *__start_cr_sts[] __attribute__((weak));
extern struct criterion_suite *__stop_cr_sts[] __attribute__((weak));

/* The test's own extra data, from this process's table, or NULL. */
static const struct criterion_test_extra_data *own_test(const struct criterion_test *t)
{
	struct criterion_test **p;

	for (p = __start_cr_tst; p && p < __stop_cr_tst; p++)
		if (*p && !strcmp((*p)->name, t->name) && !strcmp((*p)->category, t->category))
			return (*p)->data;
	return NULL;
}

/* The suite's own extra data, from this process's table, or NULL. */
static const struct criterion_test_extra_data *own_suite(const struct criterion_suite *s)
{
	struct criterion_suite **p;

	for (p = __start_cr_sts; p && p < __stop_cr_sts; p++)
		if (*p && !strcmp((*p)->name, s->name))
			return (*p)->data;
	return NULL;
}

/* The .init of every suite that has data: the lockdown, then its own. */
static void start_of_suite(void)
{
	const struct criterion_test_extra_data *own = own_suite(criterion_current_suite);

	kit_lockdown();
	if (own && own->init)
		own->init();
}

/* The .init of every test: the lockdown (if its suite's did not), then its
 * own. */
static void start_of_test(void)
{
	const struct criterion_test_extra_data *own = own_test(criterion_current_test);

	kit_lockdown();
	if (own && own->init)
		own->init();
}

/* The .fini of every test: its own first, then the note that it ended. */
static void end_of_test(void)
{
	const struct criterion_test *t = criterion_current_test;
	const struct criterion_test_extra_data *own = own_test(t);

	if (own && own->fini)
		own->fini();
	kit_evidence("end %s/%s", t->category, t->name);
}

void evidence_declare(struct criterion_test_set *set)
{
	if (getenv("KIT_LOCKDOWN"))	/* no test's process may read or write ours */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	FOREACH_SET(struct criterion_suite_set *suite, set->suites) {
		if (!suite->tests)
			continue;
		if (suite->suite.data)
			suite->suite.data->init = start_of_suite;
		FOREACH_SET(struct criterion_test *test, suite->tests) {
			kit_evidence("declared %s/%s signal=%d exit=%d", suite->suite.name,
				     test->name, test->data->signal, test->data->exit_code);
			test->data->init = start_of_test;
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
