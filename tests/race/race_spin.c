// SPDX-License-Identifier: GPL-2.0
/*
 * race_spin.c - self-test scenarios of busy waiting (models/spin.c): a
 * loop that changes nothing waits for another thread's write, at no
 * preemption; a wait that nobody ends is still a verdict (test_race.py,
 * Spin, pins the messages).
 *
 *   trylock_wait        must hold: T2 retries spin_trylock while T1 holds
 *                       the lock for a few steps
 *   cmpxchg_wait        must hold: T1 retries a cmpxchg that fails until T2
 *                       has set the value it expects
 *   two_location_wait   must hold: T1 waits until two variables are equal,
 *                       and T2 changes the second
 *   bounded_retry       must hold: T1 tries the lock four times and gives
 *                       up, which T2, holding it, waits for: a count the
 *                       model cannot see ends the loop
 *   wait_forever        must fail (livelock): T1 waits for a flag nobody
 *                       sets
 *   spin_holding_lock   must fail (deadlock): T1 waits under the lock for a
 *                       count that T2 can only clear under that lock
 *   wait_for_each_other must fail (livelock): each thread waits for the
 *                       other's flag before setting its own
 */
#include <stdbool.h>

#include "atomic.h"
#include "race/scenario.h"
#include "rwonce.h"
#include "spinlock.h"

static DEFINE_SPINLOCK(lock);
static int value, a, b, gave_up, flag1, flag2;
static bool got_it, waited;

static void reset(void)
{
	spin_lock_init(&lock);
	value = a = b = gave_up = flag1 = flag2 = 0;
	got_it = waited = false;
}

/* --- waits that end ---------------------------------------------------------- */

/* T1: hold the lock over a few writes. */
static void hold_a_while(void)
{
	spin_lock(&lock);
	WRITE_ONCE(a, 1);
	WRITE_ONCE(a, 2);
	WRITE_ONCE(value, 1);
	spin_unlock(&lock);
}

/* T2: take it by retrying spin_trylock; remember whether it failed once. */
static void trylock_loop(void)
{
	while (!spin_trylock(&lock))
		waited = true;
	got_it = READ_ONCE(value) == 1 || READ_ONCE(a) == 0;
	spin_unlock(&lock);
}

static const char *whole_section(void)
{
	return got_it ? NULL : "T2 took the lock in the middle of T1's section";
}

/* The loop went round at least once. */
static bool looped(void)
{
	return waited;
}

RACE_SCENARIO(trylock_wait) = {
	.name = "trylock_wait",
	.summary = "a spin_trylock loop waits for the holder, at no preemption",
	.expect = RACE_MUST_HOLD,
	.setup = reset,
	RACE_THREADS(hold_a_while, trylock_loop),
	.check = whole_section,
	.witness = looped,
	.outcome = "T2's spin_trylock fails at least once",
	.bound = 1,
};

/* T1: replace 1 by 2, retrying while the value is not 1 yet. */
static void cmpxchg_loop(void)
{
	while (cmpxchg(&value, 1, 2) != 1)
		waited = true;
}

static void set_one(void)
{
	WRITE_ONCE(a, 1);
	WRITE_ONCE(value, 1);
}

static const char *two_in_the_end(void)
{
	return value == 2 ? NULL : "the cmpxchg loop ended without storing 2";
}

RACE_SCENARIO(cmpxchg_wait) = {
	.name = "cmpxchg_wait",
	.summary = "a failed cmpxchg retried: a wait for the value it expects",
	.expect = RACE_MUST_HOLD,
	.setup = reset,
	RACE_THREADS(cmpxchg_loop, set_one),
	.check = two_in_the_end,
	.witness = looped,
	.outcome = "T1's cmpxchg fails at least once",
	.bound = 1,
};

/* T1: wait until a == b (a is 1 from the start). */
static void wait_equal(void)
{
	while (READ_ONCE(a) != READ_ONCE(b))
		waited = true;
	WRITE_ONCE(value, 1);
}

static void a_is_one(void)
{
	reset();
	a = 1;
}

static void set_b(void)
{
	WRITE_ONCE(flag1, 1);
	WRITE_ONCE(b, 1);
}

static const char *value_set(void)
{
	return value == 1 ? NULL : "T1 never saw a == b";
}

RACE_SCENARIO(two_location_wait) = {
	.name = "two_location_wait",
	.summary = "a wait on two locations ends when the second changes",
	.expect = RACE_MUST_HOLD,
	.setup = a_is_one,
	RACE_THREADS(wait_equal, set_b),
	.check = value_set,
	.witness = looped,
	.outcome = "T1 goes round its loop at least once",
	.bound = 1,
};

/* T1: four tries, then give up (or take it and let go). */
static void try_four_times(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (spin_trylock(&lock)) {
			got_it = true;
			spin_unlock(&lock);
			break;
		}
	}
	WRITE_ONCE(gave_up, 1);
}

/* T2: hold the lock until T1 is done trying. */
static void hold_until_given_up(void)
{
	spin_lock(&lock);
	while (!READ_ONCE(gave_up))
		;
	spin_unlock(&lock);
}

static bool gave_up_for_good(void)
{
	return !got_it;
}

RACE_SCENARIO(bounded_retry) = {
	.name = "bounded_retry",
	.summary = "a loop ended by its own count, while the other thread spins",
	.expect = RACE_MUST_HOLD,
	.setup = reset,
	RACE_THREADS(try_four_times, hold_until_given_up),
	.witness = gave_up_for_good,
	.outcome = "T1 gives up without the lock",
	.bound = 1,
};

/* --- waits that never end ---------------------------------------------------- */

static void wait_flag1(void)
{
	while (!READ_ONCE(flag1))
		;
}

static void set_other(void)
{
	WRITE_ONCE(flag2, 1);
}

RACE_SCENARIO(wait_forever) = {
	.name = "wait_forever",
	.summary = "a wait for a flag nobody sets",
	.expect = RACE_MUST_FAIL,
	.verdict = "livelock",
	.setup = reset,
	RACE_THREADS(wait_flag1, set_other),
};

/* T1: under the lock, wait for the count to drop to 0. */
static void wait_under_lock(void)
{
	spin_lock(&lock);
	while (READ_ONCE(value))
		;
	spin_unlock(&lock);
}

/* T2: drop the count, under the lock. */
static void put_under_lock(void)
{
	spin_lock(&lock);
	WRITE_ONCE(value, 0);
	spin_unlock(&lock);
}

static void value_one(void)
{
	reset();
	value = 1;
}

RACE_SCENARIO(spin_holding_lock) = {
	.name = "spin_holding_lock",
	.summary = "a wait under the lock the waker needs",
	.expect = RACE_MUST_FAIL,
	.verdict = "deadlock",
	.setup = value_one,
	RACE_THREADS(wait_under_lock, put_under_lock),
};

static void first_2_then_1(void)
{
	while (!READ_ONCE(flag2))
		;
	WRITE_ONCE(flag1, 1);
}

static void first_1_then_2(void)
{
	while (!READ_ONCE(flag1))
		;
	WRITE_ONCE(flag2, 1);
}

RACE_SCENARIO(wait_for_each_other) = {
	.name = "wait_for_each_other",
	.summary = "two threads, each waiting for the other's flag",
	.expect = RACE_MUST_FAIL,
	.verdict = "livelock",
	.setup = reset,
	RACE_THREADS(first_2_then_1, first_1_then_2),
};
