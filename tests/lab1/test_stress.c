// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - the locked cache under concurrent lookups and removals.
 *
 * Bounded: each thread runs a fixed number of iterations; nothing sleeps.
 * What it checks: no use-after-free (ASan in the asan build, the slab's
 * poison check in both), no WARN from kref_get, every lookup of KEY_KEPT --
 * a key inserted first and never removed -- finds it (whatever the timing:
 * nothing here depends on how the threads overlap), and in the end every
 * object ever allocated was freed exactly once (slab_frees() equals the
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
#define KEY_KEPT	NR_KEYS		/* in the cache for the whole test */

struct looker {
	pthread_t thread;
	long missed, bad;
};

/* Look @key up; count a wrong or dead object.  Returns 1 if found. */
static int look(struct looker *l, int key)
{
	struct cache_obj *obj = cache_lookup(key);

	if (!obj)
		return 0;
	if (obj->key != key || kref_read(&obj->kref) < 1)
		l->bad++;
	cache_put(obj);
	return 1;
}

/* Look every churned key and KEY_KEPT up ITERATIONS times. */
static void *looker_fn(void *arg)
{
	struct looker *l = arg;
	int i;

	for (i = 0; i < ITERATIONS; i++) {
		look(l, i % NR_KEYS);
		if (!look(l, KEY_KEPT))
			l->missed++;
	}
	return NULL;
}

/*
 * Insert and remove every key over and over; return the first value of
 * cache_insert() that is neither 0 nor -EEXIST, else 0.  It asserts
 * nothing itself: a failed assertion ends the test at once, and the
 * lookers would run on while the test's process exits (a crash, or not,
 * as the timing falls, where the verdict is a failure).
 */
static int churn(void)
{
	int i, ret, wrong = 0;

	for (i = 0; i < ITERATIONS; i++) {
		ret = cache_insert(i % NR_KEYS);
		if (ret != 0 && ret != -EEXIST && !wrong)
			wrong = ret;
		if (i % 3 != 2)
			cache_remove((i + 1) % NR_KEYS);
	}
	return wrong;
}

/* Hint: Run the cache:: tests first: this one runs the same lookup against
 * removes of other keys from several threads.
 */
Test(stress, locked_lookup_vs_remove, .timeout = 60)
{
	struct looker l[NR_LOOKERS] = { 0 };
	int i, wrong;

	slab_reset();
	warn_reset();
	cr_assert_eq(cache_init(), 0, "cache_init must succeed");
	cr_assert_eq(cache_insert(KEY_KEPT), 0, "cache_insert into an empty cache must succeed");
	for (i = 0; i < NR_LOOKERS; i++)
		pthread_create(&l[i].thread, NULL, looker_fn, &l[i]);
	wrong = churn();
	for (i = 0; i < NR_LOOKERS; i++)	/* all of them, before any assertion */
		pthread_join(l[i].thread, NULL);
	cr_assert(wrong == 0, "cache_insert: %d", wrong);
	for (i = 0; i < NR_LOOKERS; i++) {
		cr_assert_eq(l[i].bad, 0, "a lookup returned a wrong or dead object");
		cr_assert_eq(l[i].missed, 0, "cache_lookup(%d) returned NULL %ld times, "
			     "though key %d was in the cache all along",
			     KEY_KEPT, l[i].missed, KEY_KEPT);
	}
	cache_destroy();
	cr_assert_eq(warn_count(), 0, "kref_get warned: a reference was taken on a "
		     "count of 0");
	cr_assert_eq(slab_objects_live(), 0, "every object must be freed exactly "
		     "once: %ld still allocated after cache_destroy()",
		     slab_objects_live());
}
