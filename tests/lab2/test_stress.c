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

#define NR_THREADS	4
#define ITERATIONS	20000

static refcount_t shared;
static DEFINE_SPINLOCK(shared_lock);
static int releases;		/* how many puts returned 1 */
static int failures;		/* seen by a worker; asserted by the test */

/* Worker threads may not assert (Criterion aborts from the test's thread). */
static void worker_failed(void)
{
	__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t tid[NR_THREADS];
	long i;

	for (i = 0; i < NR_THREADS; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL, fn, (void *)i), 0);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);
}

static void *get_put(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		refcount_get(&shared);
		refcount_put(&shared);
	}
	return NULL;
}

Test(stress, get_put_exact)
{
	refcount_init(&shared);
	warn_reset();
	run_threads(get_put);
	cr_assert_eq(refcount_read(&shared), 1, "lost or extra references");
	cr_assert_eq(warn_count(), 0);
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
	cr_assert_eq(refcount_read(&shared), 1 + NR_THREADS * ITERATIONS / 2);
}

static void *get_rcu_put(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		if (!refcount_get_rcu(&shared))
			worker_failed();	/* the count is held above 0 */
		refcount_put(&shared);
	}
	return NULL;
}

Test(stress, get_rcu_put_exact)
{
	refcount_init(&shared);
	failures = 0;
	run_threads(get_rcu_put);
	cr_assert_eq(failures, 0, "get_rcu failed %d times on a count held above 0",
		     failures);
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
	releases = 0;
	run_threads(probe_then_drop);
	cr_assert_eq(refcount_read(&shared), 0);
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
	releases = failures = 0;
	run_threads(put_and_lock_many);
	cr_assert_eq(failures, 0, "put_and_lock returned 1 without the lock");
	cr_assert_eq(refcount_read(&shared), 0);
	cr_assert_eq(releases, 1, "%d puts returned 1", releases);
	/* Only the owner of the last reference can ever see a count of 1. */
	cr_assert_eq(shared_lock.nr_acquired, 1,
		     "the lock was taken %lu times; only the last put may take it",
		     shared_lock.nr_acquired);
}

/*
 * The pattern put_and_lock exists for: an object found in a slot under a
 * lock, unlinked by whoever drops the last reference.  The slot does not
 * own a reference; lookups take theirs under the lock with refcount_get,
 * which must therefore never see 0.
 */
struct slot_obj {
	refcount_t ref;
};

static struct kmem_cache *slot_cachep;
static struct slot_obj *slot;		/* under shared_lock */
static long created;

static struct slot_obj *slot_get_or_create(void)
{
	struct slot_obj *obj;

	spin_lock(&shared_lock);
	obj = READ_ONCE(slot);
	if (obj) {
		refcount_get(&obj->ref);
	} else {
		obj = kmem_cache_alloc(slot_cachep, GFP_KERNEL);
		BUG_ON(!obj);
		refcount_init(&obj->ref);
		WRITE_ONCE(slot, obj);
		__atomic_add_fetch(&created, 1, __ATOMIC_RELAXED);
	}
	spin_unlock(&shared_lock);
	return obj;
}

static void slot_put(struct slot_obj *obj)
{
	if (!refcount_put_and_lock(&obj->ref, &shared_lock))
		return;
	WRITE_ONCE(slot, NULL);
	spin_unlock(&shared_lock);
	kmem_cache_free(slot_cachep, obj);
}

static void *slot_user(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS / 4; i++)
		slot_put(slot_get_or_create());
	return NULL;
}

Test(stress, put_and_lock_protects_lookup)
{
	slot_cachep = kmem_cache_create("slot_obj", sizeof(struct slot_obj),
					0, 0, NULL);
	spin_lock_init(&shared_lock);
	warn_reset();
	run_threads(slot_user);
	cr_assert_null(slot);
	cr_assert_eq(warn_count(), 0, "a lookup under the lock found a count of 0");
	cr_assert_eq(slab_frees(), created, "%ld objects created, %ld freed",
		     created, slab_frees());
	cr_assert_eq(slab_objects_live(), 0);
	kmem_cache_destroy(slot_cachep);
}
