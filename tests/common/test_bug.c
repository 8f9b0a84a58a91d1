// SPDX-License-Identifier: GPL-2.0
/*
 * test_bug.c - WARN_ON counts and carries on; BUG_ON stops.
 */
#include <signal.h>
#include <criterion/criterion.h>

#include "bug.h"

Test(bug, warn_on_counts_and_returns_the_condition)
{
	int x = 0;

	warn_reset();
	warn_set_quiet(1);
	cr_assert_eq(WARN_ON(x == 1), 0);
	cr_assert_eq(warn_count(), 0, "a false condition must not warn");
	cr_assert_eq(WARN_ON(x == 0), 1);
	cr_assert_eq(WARN_ON(x == 0), 1);
	cr_assert_eq(warn_count(), 2);
	warn_reset();
	cr_assert_eq(warn_count(), 0);
}

/* One WARN_ON_ONCE call site, called several times. */
static int warn_once_site(void)
{
	return WARN_ON_ONCE(1);
}

Test(bug, warn_on_once_prints_once_but_returns_each_time)
{
	warn_reset();
	warn_set_quiet(1);
	cr_assert_eq(warn_once_site(), 1);
	cr_assert_eq(warn_once_site(), 1);
	cr_assert_eq(warn_count(), 1);
}

Test(bug, bug_on_false_continues)
{
	BUG_ON(0);
}

Test(bug, bug_on_true_aborts, .signal = SIGABRT)
{
	BUG_ON(1 + 1 == 2);
}
