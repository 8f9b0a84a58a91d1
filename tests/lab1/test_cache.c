// SPDX-License-Identifier: GPL-2.0
/*
 * test_cache.c - the locked cache: who holds which reference, and when an
 * object is freed.  The slab counts frees, so "released exactly once" and
 * "no leak" are checked by slab_frees() and slab_objects_live().
 */
#include <errno.h>
#include <criterion/criterion.h>

#include "bug.h"
#include "cache.h"
#include "slab.h"

/* Each test starts with an empty cache, an empty slab record, no warning. */
static void setup(void)
{
	warn_reset();
	slab_reset();
	cr_assert_eq(cache_init(), 0, "cache_init failed");
}

/* Each test ends by emptying the cache (the slab reports what leaked). */
static void teardown(void)
{
	cache_destroy();
}

TestSuite(cache, .init = setup, .fini = teardown);

Test(cache, lookup_takes_a_reference)
{
	struct cache_obj *obj;

	cr_assert_eq(cache_insert(7), 0);
	obj = cache_lookup(7);
	cr_assert_not_null(obj, "cache_lookup(7) returned NULL after cache_insert(7)");
	cr_assert_eq(obj->key, 7);
	cr_assert_eq(kref_read(&obj->kref), 2,
		     "after one lookup: the cache's reference + the caller's = 2, got %d",
		     kref_read(&obj->kref));
	cr_assert_eq(cache_put(obj), 0, "cache_put freed an object the cache still holds");
	cr_assert_eq(kref_read(&obj->kref), 1);
	cr_assert_eq(warn_count(), 0);
}

Test(cache, lookup_of_absent_key_is_null)
{
	cr_assert_eq(cache_insert(1), 0);
	cr_assert_null(cache_lookup(2));
	cr_assert_null(cache_lookup_unlocked(2));
}

Test(cache, duplicate_insert_is_refused_without_leak)
{
	cr_assert_eq(cache_insert(3), 0);
	cr_assert_eq(cache_insert(3), -EEXIST);
	cr_assert_eq(slab_objects_live(), 1, "the refused object must be freed");
}

Test(cache, remove_frees_an_unreferenced_object)
{
	cr_assert_eq(cache_insert(5), 0);
	cr_assert_eq(cache_remove(5), 0);
	cr_assert_eq(slab_frees(), 1,
		     "cache_remove must drop the cache's reference: the object "
		     "should be freed once, frees = %ld", slab_frees());
	cr_assert_eq(slab_objects_live(), 0);
	cr_assert_null(cache_lookup(5), "a removed key is still found");
	cr_assert_eq(cache_remove(5), -ENOENT);
}

Test(cache, remove_defers_free_to_last_put)
{
	struct cache_obj *obj;

	cr_assert_eq(cache_insert(9), 0);
	obj = cache_lookup(9);
	cr_assert_not_null(obj, "cache_lookup(9) returned NULL after cache_insert(9)");
	cr_assert_eq(cache_remove(9), 0);
	cr_assert_eq(slab_frees(), 0, "freed while a lookup still holds a reference");
	cr_assert_eq(kref_read(&obj->kref), 1);
	cr_assert_eq(cache_put(obj), 1, "the last cache_put must free the object");
	cr_assert_eq(slab_frees(), 1);
	cr_assert_eq(slab_objects_live(), 0);
}

Test(cache, counts_balance_over_many_lookups)
{
	struct cache_obj *obj[64];
	int i;

	cr_assert_eq(cache_insert(11), 0);
	for (i = 0; i < 64; i++) {
		obj[i] = cache_lookup(11);
		cr_assert_not_null(obj[i], "cache_lookup(11) returned NULL "
				   "after cache_insert(11)");
	}
	cr_assert_eq(kref_read(&obj[0]->kref), 65);
	for (i = 0; i < 64; i++)
		cr_assert_eq(cache_put(obj[i]), 0);
	cr_assert_eq(cache_remove(11), 0);
	cr_assert_eq(slab_frees(), 1);
	cr_assert_eq(warn_count(), 0);
}

Test(cache, destroy_frees_what_is_left)
{
	int i;

	for (i = 0; i < 10; i++)
		cr_assert_eq(cache_insert(i), 0);
	cache_destroy();
	cr_assert_eq(slab_frees(), 10, "cache_destroy must free the 10 objects "
		     "left (through cache_remove's kref_put), freed %ld", slab_frees());
	cr_assert_eq(slab_objects_live(), 0);
	cr_assert_eq(cache_init(), 0);	/* for the teardown */
}
