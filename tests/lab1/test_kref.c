// SPDX-License-Identifier: GPL-2.0
/*
 * test_kref.c - the semantics of kref_init, kref_get and kref_put.
 */
#include <criterion/criterion.h>

#include "bug.h"
#include "kref.h"

static int releases;
static struct kref *released;

/* The release function of the tests: counts its calls, remembers @kref. */
static void count_release(struct kref *kref)
{
	releases++;
	released = kref;
}

/* Each test starts with no release seen and no warning counted. */
static void reset(void)
{
	releases = 0;
	released = NULL;
	warn_reset();
}

TestSuite(kref, .init = reset);

Test(kref, init_sets_one)
{
	struct kref k;

	kref_init(&k);
	cr_assert_eq(kref_read(&k), 1, "kref_init must start the count at 1, got %d",
		     kref_read(&k));
}

/* Hint: kref_get() returns the kref it was given, after one atomic
 * increment.
 */
Test(kref, get_adds_one_without_warning)
{
	struct kref k;

	kref_init(&k);
	cr_assert_eq(kref_get(&k), &k, "kref_get must return its argument");
	cr_assert_eq(kref_read(&k), 2, "kref_get on a count of 1 must give 2, got %d",
		     kref_read(&k));
	cr_assert_eq(warn_count(), 0, "kref_get on a live object must not WARN");
}

/* Hint: Decrement and test in one operation (atomic_dec_and_test): a
 * separate atomic_read after the decrement lets two callers both see 0.
 */
Test(kref, put_releases_on_last_reference_only)
{
	struct kref k;

	kref_init(&k);
	kref_get(&k);
	cr_assert_eq(kref_put(&k, count_release), 0,
		     "kref_put from 2 to 1 must return 0 (not released)");
	cr_assert_eq(releases, 0, "release ran while a reference was still held");
	cr_assert_eq(kref_read(&k), 1, "kref_put must drop exactly one reference");
	cr_assert_eq(kref_put(&k, count_release), 1,
		     "kref_put of the last reference must return 1");
	cr_assert_eq(releases, 1, "release must run exactly once, ran %d times",
		     releases);
	cr_assert_eq(released, &k, "release must be called with the kref itself");
}

/* Hint: The 2004 kref_get() WARN_ON()s a count of 0 and then increments
 * anyway: the warning is a diagnosis, not a defence.
 */
Test(kref, get_from_zero_warns)
{
	struct kref k;

	kref_init(&k);
	kref_put(&k, count_release);
	warn_set_quiet(1);
	kref_get(&k);
	warn_set_quiet(0);
	cr_assert_eq(warn_count(), 1,
		     "kref_get on a count of 0 must WARN_ON once (warnings: %lu)",
		     warn_count());
	cr_assert_eq(kref_read(&k), 1,
		     "the 2004 kref_get warns and still increments: expected 1, got %d",
		     kref_read(&k));
}

/* Hint: Every kref_get() adds exactly one and every kref_put() takes
 * exactly one; only the put that reaches 0 calls release.
 */
Test(kref, counts_balance)
{
	struct kref k;
	int i, n = 1000, freed = 0;

	kref_init(&k);
	for (i = 0; i < n; i++)
		kref_get(&k);
	cr_assert_eq(kref_read(&k), n + 1, "%d kref_get calls on a count of 1 "
		     "must give %d, got %d", n, n + 1, kref_read(&k));
	for (i = 0; i < n; i++)
		freed += kref_put(&k, count_release);
	cr_assert_eq(freed, 0, "released before the last put");
	cr_assert_eq(kref_read(&k), 1, "after as many puts as gets the count "
		     "must be back at 1, got %d", kref_read(&k));
	cr_assert_eq(kref_put(&k, count_release), 1,
		     "the last kref_put must release (return 1)");
	cr_assert_eq(releases, 1, "release must run exactly once, ran %d times",
		     releases);
	cr_assert_eq(warn_count(), 0, "balanced gets and puts on a live count must not WARN");
}
