// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - lab 2, several threads: exact counts after bounded
 * concurrent get/put, one release per count, put_and_lock's lock protocol.
 *
 * No sleeps and no timing: each thread runs a fixed number of iterations
 * and the assertions are about final values that any correct
 * implementation reaches in every interleaving.
 */
#include <pthread.h>

#include <criterion/criterion.h>

#include "bug.h"
#include "refcount.h"
#include "rwonce.h"
#include "slab.h"
#include "spinlock.h"
#include "shared_workload.h"

static int releases;		/* how many puts returned 1 */

Test(stress, get_put_exact)
{
	refcount_init(&shared);
	warn_reset();
	run_threads(get_put);
	cr_assert_eq(refcount_read(&shared), 1, "lost or extra references");
	cr_assert_eq(warn_count(), 0, "gets and puts of live counts must not WARN");
}

static void *get_many_dec_many(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++)
		refcount_get(&shared);
	for (int i = 0; i < ITERATIONS / 2; i++)
		refcount_dec(&shared);
	return NULL;
}

Test(stress, get_dec_exact)
{
	refcount_init(&shared);
	run_threads(get_many_dec_many);
	cr_assert_eq(refcount_read(&shared), 1 + NR_THREADS * ITERATIONS / 2,
		     "each thread's gets and decs must leave exactly 1 + threads x iterations / 2");
}

Test(stress, get_rcu_put_exact)
{
	refcount_init(&shared);
	refcount_watch(&shared.count);
	worker_failures = 0;
	run_threads(get_rcu_put);
	cr_assert_eq(worker_failures, 0,
		     "get_rcu failed %d times on a count held above 0",
		     worker_failures);
	cr_assert_eq(refcount_read(&shared), 1, "lost or extra references");
}

/*
 * Each thread owns one reference and probes with get_rcu; once the count
 * reaches 0 it must stay 0, so exactly one put in the whole run returns 1.
 */
static void *probe_then_drop(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		if (refcount_get_rcu(&shared) && refcount_put(&shared))
			__atomic_add_fetch(&releases, 1, __ATOMIC_RELAXED);
	}
	if (refcount_put(&shared))
		__atomic_add_fetch(&releases, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < ITERATIONS; i++) {
		if (refcount_get_rcu(&shared) && refcount_put(&shared))
			__atomic_add_fetch(&releases, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

Test(stress, get_rcu_never_resurrects)
{
	atomic_set(&shared.count, NR_THREADS);
	refcount_watch(&shared.count);	/* 0 is final: refcount_watch.h */
	releases = 0;
	run_threads(probe_then_drop);
	cr_assert_eq(refcount_read(&shared), 0,
		     "every reference was dropped: the count must end at 0");
	cr_assert_eq(releases, 1, "the count reached 0 %d times", releases);
}

/* Each thread drops ITERATIONS references it owns with put_and_lock. */
static void *put_and_lock_many(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		if (!refcount_put_and_lock(&shared, &shared_lock))
			continue;
		if (!spin_is_locked(&shared_lock))
			worker_failed();	/* returned 1 without the lock */
		__atomic_add_fetch(&releases, 1, __ATOMIC_RELAXED);
		spin_unlock(&shared_lock);
	}
	return NULL;
}

Test(stress, put_and_lock_locks_once)
{
	atomic_set(&shared.count, NR_THREADS * ITERATIONS);
	spin_lock_init(&shared_lock);
	releases = worker_failures = 0;
	run_threads(put_and_lock_many);
	cr_assert_eq(worker_failures, 0, "put_and_lock returned 1 without the lock");
	cr_assert_eq(refcount_read(&shared), 0,
		     "every reference was dropped: the count must end at 0");
	cr_assert_eq(releases, 1, "%d puts returned 1", releases);
	/* Only the owner of the last reference can ever see a count of 1. */
	cr_assert_eq(shared_lock.nr_acquired, 1,
		     "the lock was taken %lu times; only the last put may take it",
		     shared_lock.nr_acquired);
}

/* The slot of shared_workload.c: put_and_lock's own use case. */
Test(stress, put_and_lock_protects_lookup)
{
	slot_open();
	warn_reset();
	run_threads(slot_user);
	cr_assert_null(slot, "the last user must have emptied the slot");
	cr_assert_eq(warn_count(), 0, "a lookup under the lock found a count of 0");
	cr_assert_eq(slab_frees(), slots_created, "%ld objects created, %ld freed",
		     slots_created, slab_frees());
	cr_assert_eq(slab_objects_live(), 0, "every object created must have been freed");
	slot_close();
}
