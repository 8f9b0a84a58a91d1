// SPDX-License-Identifier: GPL-2.0
/*
 * test_refcount.c - lab 2, one thread: what each refcount_t operation does.
 */
#include <criterion/criterion.h>

#include "bug.h"
#include "refcount.h"
#include "spinlock.h"

/*
 * A count of @n, set directly (the gets are tested on their own), and
 * watched from now on: an update that takes it from 0 to more is a BUG
 * (0 is final: refcount_watch.h).
 */
static void set_count(refcount_t *rc, int n)
{
	refcount_init(rc);
	atomic_set(&rc->count, n);
	refcount_watch(&rc->count);
}

Test(refcount, init_is_one)
{
	refcount_t rc;

	refcount_init(&rc);
	cr_assert_eq(refcount_read(&rc), 1, "refcount_init must start the count at 1");
}

Test(refcount, get_adds_one_without_warning)
{
	refcount_t rc;

	refcount_init(&rc);
	warn_reset();
	refcount_get(&rc);
	refcount_get(&rc);
	cr_assert_eq(refcount_read(&rc), 3, "two refcount_get on a count of 1 must give 3");
	cr_assert_eq(warn_count(), 0, "refcount_get on a count of 1 or 2 warned");
}

Test(refcount, get_on_zero_warns)
{
	refcount_t rc;

	/* a 0 nobody watches: this is the WARN's test, not 0 is final's */
	refcount_init(&rc);
	atomic_set(&rc.count, 0);
	warn_set_quiet(1);
	warn_reset();
	refcount_get(&rc);
	cr_assert_eq(warn_count(), 1,
		     "refcount_get on a count of 0 must WARN (addition on 0; use-after-free)");
	cr_assert_eq(refcount_read(&rc), 1, "refcount_get still increments");
}

Test(refcount, put_is_true_only_for_the_last)
{
	refcount_t rc;

	set_count(&rc, 3);
	cr_assert_eq(refcount_put(&rc), 0, "refcount_put from 3 to 2 must return 0");
	cr_assert_eq(refcount_put(&rc), 0, "refcount_put from 2 to 1 must return 0");
	cr_assert_eq(refcount_put(&rc), 1, "refcount_put of the last reference must return 1");
	cr_assert_eq(refcount_read(&rc), 0, "after the last put the count must be 0");
}

Test(refcount, dec_subtracts_one)
{
	refcount_t rc;

	set_count(&rc, 2);
	refcount_dec(&rc);
	cr_assert_eq(refcount_read(&rc), 1, "refcount_dec from 2 must give 1");
}

Test(refcount, get_rcu_increments_a_live_count)
{
	refcount_t rc;

	refcount_init(&rc);
	warn_reset();
	cr_assert_eq(refcount_get_rcu(&rc), 1, "get_rcu on a count of 1 must "
		     "return the count it found, 1");
	cr_assert_eq(refcount_read(&rc), 2, "get_rcu on a count of 1 must leave it at 2");
	set_count(&rc, 1000);
	cr_assert_eq(refcount_get_rcu(&rc), 1000, "get_rcu on a count of 1000 "
		     "must return the count it found, 1000");
	cr_assert_eq(refcount_read(&rc), 1001, "get_rcu on a count of 1000 must leave it at 1001");
	cr_assert_eq(warn_count(), 0, "get_rcu on a live count must not WARN");
}

Test(refcount, get_rcu_never_resurrects)
{
	refcount_t rc;

	set_count(&rc, 0);
	warn_reset();
	cr_assert_eq(refcount_get_rcu(&rc), 0, "get_rcu on a count of 0 must return 0");
	cr_assert_eq(refcount_read(&rc), 0, "get_rcu incremented a count of 0");
	cr_assert_eq(refcount_get_rcu(&rc), 0, "a second get_rcu on a count of 0 must return 0 too");
	cr_assert_eq(refcount_read(&rc), 0, "get_rcu must never increment a count of 0");
}

Test(refcount, get_rcu_then_put_releases_once)
{
	refcount_t rc;

	set_count(&rc, 1);
	cr_assert_neq(refcount_get_rcu(&rc), 0,
		      "get_rcu on a count of 1 must succeed (return non-zero)");
	cr_assert_eq(refcount_put(&rc), 0,
		     "the put of get_rcu's reference must return 0 (one reference is left)");
	cr_assert_eq(refcount_put(&rc), 1, "the put of the last reference must return 1");
	cr_assert_eq(refcount_get_rcu(&rc), 0, "get_rcu after the last put must return 0");
	cr_assert_eq(refcount_read(&rc), 0, "get_rcu after the last put must leave the count at 0");
}

Test(put_and_lock, fast_path_takes_no_lock)
{
	DEFINE_SPINLOCK(lock);
	refcount_t rc;

	set_count(&rc, 3);
	cr_assert_eq(refcount_put_and_lock(&rc, &lock), 0, "put_and_lock from 3 to 2 must return 0");
	cr_assert_eq(refcount_put_and_lock(&rc, &lock), 0, "put_and_lock from 2 to 1 must return 0");
	cr_assert_eq(refcount_read(&rc), 1, "two put_and_lock from 3 must leave 1");
	cr_assert_not(spin_is_locked(&lock), "returned 0 with the lock held");
	cr_assert_eq(lock.nr_acquired, 0,
		     "put_and_lock took the lock %lu times on the fast path",
		     lock.nr_acquired);
}

Test(put_and_lock, last_put_returns_with_the_lock)
{
	DEFINE_SPINLOCK(lock);
	refcount_t rc;

	refcount_init(&rc);
	cr_assert_eq(refcount_put_and_lock(&rc, &lock), 1,
		     "the last put must return 1");
	cr_assert(spin_is_locked(&lock), "returned 1 without the lock held");
	cr_assert_eq(lock.nr_acquired, 1, "the last put_and_lock must take the lock exactly once");
	cr_assert_eq(refcount_read(&rc), 0, "the last put_and_lock must leave the count at 0");
	spin_unlock(&lock);
}

Test(put_and_lock, two_then_one)
{
	DEFINE_SPINLOCK(lock);
	refcount_t rc;

	set_count(&rc, 2);
	cr_assert_eq(refcount_put_and_lock(&rc, &lock), 0, "put_and_lock from 2 to 1 must return 0");
	cr_assert_eq(lock.nr_acquired, 0, "put_and_lock from 2 to 1 must not take the lock");
	cr_assert_eq(refcount_put_and_lock(&rc, &lock), 1,
		     "put_and_lock of the last reference must return 1");
	cr_assert(spin_is_locked(&lock), "put_and_lock returned 1 without the lock held");
	spin_unlock(&lock);
	cr_assert_eq(refcount_read(&rc), 0, "the last put_and_lock must leave the count at 0");
}
