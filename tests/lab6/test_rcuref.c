// SPDX-License-Identifier: GPL-2.0
/*
 * test_rcuref.c - lab 6, one thread: what each rcuref_t operation does, in
 * every zone.  Counts are set where a test needs them (near MAXREF, in the
 * dead zone): the zones are reached without 2^31 increments.
 */
#include <criterion/criterion.h>

#include "bug.h"
#include "preempt.h"
#include "rcupdate.h"
#include "rcuref.h"

/* The stored count, and setting it directly. */
static unsigned int raw(rcuref_t *ref)
{
	return (unsigned int)atomic_read(&ref->refcnt);
}

static void set_raw(rcuref_t *ref, unsigned int v)
{
	atomic_set(&ref->refcnt, (int)v);
}

static void setup(void)
{
	rcu_register_thread();		/* preempt_disable() is a read-side section */
	warn_set_quiet(1);
	warn_reset();
}

static void teardown(void)
{
	rcu_unregister_thread();
}

TestSuite(rcuref, .init = setup, .fini = teardown);
TestSuite(slowpath, .init = setup, .fini = teardown);

/* Hint: rcuref_read() must add 1 to the stored count outside the dead zone
 * (rcuref.h, rcuref_read's Guarantees); rcuref_init() is given and stores
 * references - 1.
 */
Test(rcuref, init_then_read)
{
	rcuref_t r;

	rcuref_init(&r, 1);
	cr_assert_eq(rcuref_read(&r), 1,
		     "rcuref_init(1): rcuref_read gave %u, not 1", rcuref_read(&r));
	cr_assert_eq(raw(&r), RCUREF_ONEREF, "one reference is stored as 0");
	rcuref_init(&r, 5);
	cr_assert_eq(rcuref_read(&r), 5,
		     "rcuref_init(5): rcuref_read gave %u, not 5", rcuref_read(&r));
}

/* Hint: rcuref_read() reads 0 anywhere in the dead zone, NOREF included, and
 * the stored count + 1 everywhere else, the saturation zone too: compare your
 * test with the zone edges (the handout's "The zones").
 */
Test(rcuref, read_in_every_zone)
{
	rcuref_t r;

	set_raw(&r, 41);
	cr_assert_eq(rcuref_read(&r), 42, "stored 41: 42 references");
	set_raw(&r, RCUREF_MAXREF);
	cr_assert_eq(rcuref_read(&r), 0x80000000U,
		     "stored MAXREF: 0x80000000 references, not %#x", rcuref_read(&r));
	set_raw(&r, RCUREF_SATURATED);
	cr_assert_eq(rcuref_read(&r), RCUREF_SATURATED + 1,
		     "stored SATURATED: SATURATED + 1, not %#x", rcuref_read(&r));
	set_raw(&r, RCUREF_RELEASED - 1);
	cr_assert_eq(rcuref_read(&r), RCUREF_RELEASED, "the last of the "
		     "saturation zone is not dead");
	set_raw(&r, RCUREF_RELEASED);
	cr_assert_eq(rcuref_read(&r), 0, "the dead zone reads 0");
	set_raw(&r, RCUREF_DEAD);
	cr_assert_eq(rcuref_read(&r), 0,
		     "DEAD reads 0, not %u", rcuref_read(&r));
	set_raw(&r, RCUREF_NOREF);
	cr_assert_eq(rcuref_read(&r), 0, "NOREF: the last reference is gone");
}

/* Hint: rcuref_get() takes one atomic add and goes to the slow path only when
 * the result reads as negative; MAXREF itself is still in the valid zone
 * (rcuref.h, rcuref_get).
 */
Test(rcuref, get_adds_one)
{
	rcuref_t r;

	rcuref_init(&r, 1);
	cr_assert(rcuref_get(&r), "a get on one reference failed");
	cr_assert(rcuref_get(&r), "a get on two references failed");
	cr_assert_eq(rcuref_read(&r), 3,
		     "two gets after init(1): 3 references, not %u", rcuref_read(&r));
	cr_assert_eq(raw(&r), 2,
		     "three references are stored as 2, not %#x", raw(&r));
	set_raw(&r, RCUREF_MAXREF - 1);
	cr_assert(rcuref_get(&r), "a get just below MAXREF failed");
	cr_assert_eq(raw(&r), RCUREF_MAXREF, "MAXREF itself is still counted");
	cr_assert_eq(warn_count(), 0, "a get below MAXREF is no bug: no WARN");
}

/* Hint: A get on a dead count must fail and leave DEAD behind, without a WARN:
 * look at rcuref_get_slowpath()'s dead-zone branch (rcuref.h,
 * rcuref_get_slowpath's Guarantees).
 */
Test(rcuref, get_on_dead_fails)
{
	rcuref_t r;
	int i;

	set_raw(&r, RCUREF_DEAD);
	for (i = 0; i < 3; i++) {
		cr_assert_not(rcuref_get(&r), "a get on a dead count succeeded");
		cr_assert_eq(raw(&r), RCUREF_DEAD, "a failed get must leave DEAD, "
			     "not %#x", raw(&r));
	}
	cr_assert_eq(rcuref_read(&r), 0,
		     "a dead count reads 0, not %u", rcuref_read(&r));
	cr_assert_eq(warn_count(), 0, "a get on a dead count is no bug: no WARN");
}

/* Hint: rcuref_get_slowpath() must recognise every value from RELEASED to
 * NOREF as dead, not only DEAD itself: check the bounds of your zone test (the
 * handout's "The zones").
 */
Test(rcuref, get_anywhere_in_the_dead_zone_goes_back_to_dead)
{
	static const unsigned int dead[] = {
		RCUREF_RELEASED, RCUREF_RELEASED + 1, RCUREF_DEAD - 3,
		RCUREF_DEAD + 7, RCUREF_NOREF - 1,
	};
	rcuref_t r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dead); i++) {
		set_raw(&r, dead[i]);
		cr_assert_not(rcuref_get(&r), "a get on %#x succeeded", dead[i]);
		cr_assert_eq(raw(&r), RCUREF_DEAD, "a failed get on %#x left %#x, "
			     "not DEAD", dead[i], raw(&r));
	}
	cr_assert_eq(warn_count(), 0,
		     "a get in the dead zone is no bug: no WARN");
}

/* Hint: A get that lands in the saturation zone succeeds, WARNs and puts
 * SATURATED back, every time (rcuref.h, rcuref_get_slowpath); check which zone
 * your slow path tests first.
 */
Test(rcuref, get_past_maxref_saturates_and_warns)
{
	rcuref_t r;

	set_raw(&r, RCUREF_MAXREF);
	cr_assert(rcuref_get(&r), "a get past MAXREF must succeed");
	cr_assert_eq(raw(&r), RCUREF_SATURATED, "past MAXREF: SATURATED, not %#x",
		     raw(&r));
	cr_assert_eq(warn_count(), 1, "past MAXREF: one WARN (rcuref saturated)");
	cr_assert(rcuref_get(&r), "a get on a saturated count must succeed");
	cr_assert_eq(raw(&r), RCUREF_SATURATED,
		     "a saturated count stays SATURATED, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 2, "every get on a saturated count WARNs");
	set_raw(&r, 0x80000000U + 9);
	cr_assert(rcuref_get(&r),
		  "a get anywhere in the saturation zone must succeed");
	cr_assert_eq(raw(&r), RCUREF_SATURATED,
		     "a get in the saturation zone sets SATURATED, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 3,
		     "three gets past MAXREF: three WARNs, not %lu", warn_count());
}

/* Hint: rcuref_put() subtracts 1 and returns false while the result is not
 * negative; it must also undo its own preempt_disable() on every path
 * (rcuref.h, rcuref_put).
 */
Test(rcuref, put_not_last)
{
	rcuref_t r;

	rcuref_init(&r, 3);
	cr_assert_not(rcuref_put(&r), "the first of three puts returned true");
	cr_assert_not(rcuref_put(&r), "the second of three puts returned true");
	cr_assert_eq(rcuref_read(&r), 1,
		     "three references, two puts: 1 left, not %u", rcuref_read(&r));
	cr_assert_eq(warn_count(), 0, "balanced puts are no bug: no WARN");
	cr_assert_eq(preempt_count(), 0, "rcuref_put returned with preemption "
		     "disabled");
}

/* Hint: The last put leaves NOREF; rcuref_put_slowpath() must then mark it
 * DEAD and return true (the handout's Part 1, rcuref_put). Check that the slow
 * path is reached with what the subtraction returned.
 */
Test(rcuref, last_put_marks_dead)
{
	rcuref_t r;

	rcuref_init(&r, 1);
	cr_assert(rcuref_put(&r), "the last put must return true");
	cr_assert_eq(raw(&r), RCUREF_DEAD, "after the last put: DEAD, not %#x",
		     raw(&r));
	cr_assert_eq(rcuref_read(&r), 0,
		     "after the last put rcuref_read gives 0, not %u", rcuref_read(&r));
	cr_assert_not(rcuref_get(&r), "a get after the last put succeeded");
	cr_assert_eq(warn_count(), 0, "the last put is no bug: no WARN");
	cr_assert_eq(preempt_count(), 0, "rcuref_put returned with preemption "
		     "disabled");
}

/* Hint: After a get and its put, the owner's put is the last and must return
 * true: look at rcuref_get()'s fast path and at which value rcuref_put() hands
 * its slow path.
 */
Test(rcuref, get_then_put_then_last)
{
	rcuref_t r;

	rcuref_init(&r, 1);
	cr_assert(rcuref_get(&r), "a get on one reference failed");
	cr_assert_not(rcuref_put(&r), "a put of two references returned true");
	cr_assert(rcuref_put(&r), "the last put must return true");
	cr_assert_not(rcuref_get(&r), "a get after the last put succeeded");
	cr_assert_eq(raw(&r), RCUREF_DEAD,
		     "after the last put: DEAD, not %#x", raw(&r));
}

/* Hint: A put on a dead count is a put too many: rcuref_put_slowpath()'s
 * dead-zone branch WARNs, puts DEAD back and returns false (rcuref.h,
 * rcuref_put_slowpath's Guarantees).
 */
Test(rcuref, imbalanced_put_warns)
{
	rcuref_t r;

	rcuref_init(&r, 1);
	cr_assert(rcuref_put(&r), "the last put must return true");
	cr_assert_not(rcuref_put(&r), "a put on a dead count returned true");
	cr_assert_eq(warn_count(), 1, "a put on a dead count must WARN "
		     "(rcuref - imbalanced put())");
	cr_assert_eq(raw(&r), RCUREF_DEAD, "an imbalanced put must leave DEAD, "
		     "not %#x", raw(&r));
	cr_assert_eq(preempt_count(), 0,
		     "rcuref_put returned with preemption disabled");
}

/* Hint: A put in the saturation zone must neither free nor WARN:
 * rcuref_put_slowpath() puts SATURATED back (rcuref.h). Check the order of
 * your zone tests on cnt.
 */
Test(rcuref, put_on_saturated_stays_saturated)
{
	rcuref_t r;
	int i;

	set_raw(&r, RCUREF_SATURATED);
	for (i = 0; i < 3; i++) {
		cr_assert_not(rcuref_put(&r), "a put on a saturated count returned true");
		cr_assert_eq(raw(&r), RCUREF_SATURATED, "a put on a saturated "
			     "count must leave SATURATED, not %#x", raw(&r));
	}
	cr_assert_eq(warn_count(), 0, "a put on a saturated count is no bug");
}

/* The slow paths on their own: the states a racing thread leaves. */

/* Hint: rcuref_get_slowpath() reads the count again and decides by zone: dead,
 * saturated, or back in the valid zone where it changes nothing (the handout's
 * Part 1, rcuref_get).
 */
Test(slowpath, get_slowpath_in_each_zone)
{
	rcuref_t r;

	set_raw(&r, RCUREF_DEAD + 2);
	cr_assert_not(rcuref_get_slowpath(&r),
		      "the get slow path on DEAD + 2 succeeded");
	cr_assert_eq(raw(&r), RCUREF_DEAD,
		     "the get slow path in the dead zone sets DEAD, not %#x", raw(&r));
	set_raw(&r, 0x80000001U);
	cr_assert(rcuref_get_slowpath(&r),
		  "the get slow path in the saturation zone must succeed");
	cr_assert_eq(raw(&r), RCUREF_SATURATED,
		     "in the saturation zone: SATURATED, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 1,
		     "a saturated get: one WARN, not %lu", warn_count());
	/* A put brought the count back since the get's add: nothing to do. */
	set_raw(&r, RCUREF_MAXREF);
	cr_assert(rcuref_get_slowpath(&r),
		  "the get slow path on a valid count must succeed");
	cr_assert_eq(raw(&r), RCUREF_MAXREF,
		     "a valid count must stay, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 1, "a valid count is no saturation");
}

/* Hint: With cnt at NOREF the put slow path marks the count DEAD with one
 * compare-and-exchange from NOREF and returns true when it exchanged
 * (rcuref.h, rcuref_put_slowpath).
 */
Test(slowpath, put_slowpath_marks_noref_dead)
{
	rcuref_t r;

	set_raw(&r, RCUREF_NOREF);
	cr_assert(rcuref_put_slowpath(&r, RCUREF_NOREF),
		  "the put slow path on NOREF must mark it dead and return true");
	cr_assert_eq(raw(&r), RCUREF_DEAD,
		     "the put slow path on NOREF must leave DEAD, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 0,
		     "marking the count dead is no bug: no WARN");
}

/* Hint: A get raised the count after this put left NOREF: the put slow path
 * must not overwrite it, nor retry (the handout's "The mark-dead race").
 */
Test(slowpath, put_slowpath_after_a_get_came_in)
{
	rcuref_t r;

	/* The put left NOREF, then a get raised it to one reference. */
	set_raw(&r, RCUREF_ONEREF);
	cr_assert_not(rcuref_put_slowpath(&r, RCUREF_NOREF),
		      "a get holds the object: the put must not free it");
	cr_assert_eq(raw(&r), RCUREF_ONEREF, "the getter's reference was lost");
	cr_assert_eq(warn_count(), 0, "a get that came in is no bug: no WARN");
}

/* Hint: cnt says NOREF but memory already says DEAD: another put owns the
 * free. rcuref_put_slowpath() decides on @cnt, not on a second read (rcuref.h;
 * the handout's "The bug of 2023").
 */
Test(slowpath, put_slowpath_after_the_getter_put_it)
{
	rcuref_t r;

	/* The put left NOREF; a get and its put marked it dead since. */
	set_raw(&r, RCUREF_DEAD);
	cr_assert_not(rcuref_put_slowpath(&r, RCUREF_NOREF),
		      "the other put frees it: this one must not");
	cr_assert_eq(raw(&r), RCUREF_DEAD,
		     "the other put marked it DEAD: leave DEAD, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 0, "a put that raced with a get and a put "
		     "is balanced: no WARN");
}

/* Hint: A @cnt in the dead zone other than NOREF is an imbalanced put: one
 * WARN, DEAD stored back, false (rcuref.h, rcuref_put_slowpath).
 */
Test(slowpath, put_slowpath_in_the_dead_zone)
{
	rcuref_t r;

	set_raw(&r, RCUREF_DEAD - 1);
	cr_assert_not(rcuref_put_slowpath(&r, RCUREF_DEAD - 1),
		      "a put slow path in the dead zone returned true");
	cr_assert_eq(raw(&r), RCUREF_DEAD,
		     "an imbalanced put sets DEAD, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 1,
		     "a put in the dead zone must WARN once, not %lu times", warn_count());
}

/* Hint: A @cnt in the saturation zone: SATURATED stored back, false, and no
 * WARN (rcuref.h, rcuref_put_slowpath); check where your zone tests draw the
 * line between saturated and dead.
 */
Test(slowpath, put_slowpath_in_the_saturation_zone)
{
	rcuref_t r;

	set_raw(&r, RCUREF_SATURATED - 1);
	cr_assert_not(rcuref_put_slowpath(&r, RCUREF_SATURATED - 1),
		      "a put slow path in the saturation zone returned true");
	cr_assert_eq(raw(&r), RCUREF_SATURATED,
		     "a put in the saturation zone sets SATURATED, not %#x", raw(&r));
	cr_assert_eq(warn_count(), 0,
		     "a put on a saturated count is no bug: no WARN");
}
