// SPDX-License-Identifier: GPL-2.0
/*
 * test_hidden.c - an instructor's hidden test of lab 2, outside the
 * students' tree: make grade EXTRA_TESTS=tests/grader/hidden builds it into
 * lab 2's unit binaries, where it counts like the kit's own tests.
 * make check grades the solutions and the Gradescope layout with it.
 */
#include <criterion/criterion.h>

#include "refcount.h"

Test(hidden, get_rcu_returns_the_count_it_found)
{
	refcount_t rc;

	refcount_init(&rc);
	refcount_get(&rc);
	cr_assert_eq(refcount_get_rcu(&rc), 2,
		     "refcount_get_rcu on a count of 2 must return 2 (the count it found)");
	cr_assert_eq(refcount_read(&rc), 3, "refcount_get_rcu must add exactly one");
}
