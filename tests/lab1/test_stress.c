// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - the locked cache under concurrent lookups and removals.
 *
 * Bounded: each thread runs a fixed number of iterations; nothing sleeps.
 * What it checks: no use-after-free (ASan in the asan build, the slab's
 * poison check in both), no WARN from kref_get, and in the end every object
 * ever allocated was freed exactly once (slab_frees() equals the
 * allocations, slab_objects_live() is 0; a double free is a BUG).
 */
#include <errno.h>
#include <pthread.h>
#include <criterion/criterion.h>

#include "bug.h"
#include "cache.h"
#include "slab.h"

#define NR_KEYS		4
#define NR_LOOKERS	3
#define ITERATIONS	20000

struct looker {
	pthread_t thread;
	long found, bad;
};

/* Look every key up ITERATIONS times; count finds and wrong objects. */
static void *looker_fn(void *arg)
{
	struct looker *l = arg;
	struct cache_obj *obj;
	int i;

	for (i = 0; i < ITERATIONS; i++) {
		obj = cache_lookup(i % NR_KEYS);
		if (!obj)
			continue;
		l->found++;
		if (obj->key != i % NR_KEYS || kref_read(&obj->kref) < 1)
			l->bad++;
		cache_put(obj);
	}
	return NULL;
}

/* Insert and remove every key over and over; count the allocations. */
static long churn(void)
{
	long allocs = 0;
	int i, ret;

	for (i = 0; i < ITERATIONS; i++) {
		ret = cache_insert(i % NR_KEYS);
		allocs++;		/* an -EEXIST insert allocates too */
		cr_assert(ret == 0 || ret == -EEXIST, "cache_insert: %d", ret);
		if (i % 3 != 2)
			cache_remove((i + 1) % NR_KEYS);
	}
	return allocs;
}

Test(stress, locked_lookup_vs_remove, .timeout = 60)
{
	struct looker l[NR_LOOKERS] = { 0 };
	long allocs, found = 0;
	int i;

	slab_reset();
	warn_reset();
	cr_assert_eq(cache_init(), 0);
	for (i = 0; i < NR_LOOKERS; i++)
		pthread_create(&l[i].thread, NULL, looker_fn, &l[i]);
	allocs = churn();
	for (i = 0; i < NR_LOOKERS; i++) {
		pthread_join(l[i].thread, NULL);
		cr_assert_eq(l[i].bad, 0, "a lookup returned a wrong or dead object");
		found += l[i].found;
	}
	cache_destroy();
	cr_assert_gt(found, 0, "no lookup ever found an object");
	cr_assert_eq(warn_count(), 0, "kref_get warned: a reference was taken on a "
		     "count of 0");
	cr_assert_eq(slab_objects_live(), 0, "%ld objects leaked", slab_objects_live());
	cr_assert_eq(slab_frees(), allocs,
		     "every object must be freed exactly once: %ld allocated, %ld freed",
		     allocs, slab_frees());
}
