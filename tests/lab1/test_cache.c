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

/* Hint: Find the key with __cache_find() and kref_get() it before
 * spin_unlock(&cache_lock): the reference is taken while the lock keeps the
 * object alive.
 */
Test(cache, lookup_takes_a_reference)
{
	struct cache_obj *obj;

	cr_assert_eq(cache_insert(7), 0, "cache_insert(7) into an empty cache must succeed");
	obj = cache_lookup(7);
	cr_assert_not_null(obj, "cache_lookup(7) returned NULL after cache_insert(7)");
	cr_assert_eq(obj->key, 7, "cache_lookup(7) returned another key's object");
	cr_assert_eq(kref_read(&obj->kref), 2,
		     "after one lookup: the cache's reference + the caller's = 2, got %d",
		     kref_read(&obj->kref));
	cr_assert_eq(cache_put(obj), 0, "cache_put freed an object the cache still holds");
	cr_assert_eq(kref_read(&obj->kref), 1,
		     "cache_put of the caller's reference must leave the cache's (count 1)");
	cr_assert_eq(warn_count(), 0, "a lookup and a put of a live object must not WARN");
}

Test(cache, lookup_of_absent_key_is_null)
{
	cr_assert_eq(cache_insert(1), 0, "cache_insert(1) into an empty cache must succeed");
	cr_assert_null(cache_lookup(2), "cache_lookup of a key never inserted must return NULL");
	cr_assert_null(cache_lookup_unlocked(2),
		       "cache_lookup_unlocked of a key never inserted must return NULL");
}

Test(cache, duplicate_insert_is_refused_without_leak)
{
	cr_assert_eq(cache_insert(3), 0, "cache_insert(3) into an empty cache must succeed");
	cr_assert_eq(cache_insert(3), -EEXIST,
		     "a second cache_insert(3) must be refused with -EEXIST");
	cr_assert_eq(slab_objects_live(), 1, "the refused object must be freed");
}

/* Hint: Unlink under cache_lock with __cache_unlink(), unlock, then drop
 * the cache's reference: kref_put(&obj->kref, cache_obj_release).
 */
Test(cache, remove_frees_an_unreferenced_object)
{
	cr_assert_eq(cache_insert(5), 0, "cache_insert(5) into an empty cache must succeed");
	cr_assert_eq(cache_remove(5), 0, "cache_remove of a key in the cache must return 0");
	cr_assert_eq(slab_frees(), 1,
		     "cache_remove must drop the cache's reference: the object "
		     "should be freed once, frees = %ld", slab_frees());
	cr_assert_eq(slab_objects_live(), 0, "no object may be left once the only key is removed");
	cr_assert_null(cache_lookup(5), "a removed key is still found");
	cr_assert_eq(cache_remove(5), -ENOENT,
		     "cache_remove of a key already removed must return -ENOENT");
}

/* Hint: cache_remove() drops only the cache's reference: an object a lookup
 * still holds is freed by that holder's put, not by the remove.
 */
Test(cache, remove_defers_free_to_last_put)
{
	struct cache_obj *obj;

	cr_assert_eq(cache_insert(9), 0, "cache_insert(9) into an empty cache must succeed");
	obj = cache_lookup(9);
	cr_assert_not_null(obj, "cache_lookup(9) returned NULL after cache_insert(9)");
	cr_assert_eq(cache_remove(9), 0, "cache_remove of a key in the cache must return 0");
	cr_assert_eq(slab_frees(), 0, "freed while a lookup still holds a reference");
	cr_assert_eq(kref_read(&obj->kref), 1,
		     "after cache_remove, the lookup's reference must be the only one (count 1)");
	cr_assert_eq(cache_put(obj), 1, "the last cache_put must free the object");
	cr_assert_eq(slab_frees(), 1, "the object must be freed exactly once, by the last put");
	cr_assert_eq(slab_objects_live(), 0, "no object may be left after the last put");
}

/* Hint: Each cache_lookup() takes exactly one reference (one kref_get() per
 * call, none on the not-found path).
 */
Test(cache, counts_balance_over_many_lookups)
{
	struct cache_obj *obj[64];
	int i;

	cr_assert_eq(cache_insert(11), 0, "cache_insert(11) into an empty cache must succeed");
	for (i = 0; i < 64; i++) {
		obj[i] = cache_lookup(11);
		cr_assert_not_null(obj[i], "cache_lookup(11) returned NULL "
				   "after cache_insert(11)");
	}
	cr_assert_eq(kref_read(&obj[0]->kref), 65,
		     "64 lookups must add 64 references to the cache's one (65)");
	for (i = 0; i < 64; i++)
		cr_assert_eq(cache_put(obj[i]), 0,
			     "cache_put of a lookup's reference freed an object the cache still holds");
	cr_assert_eq(cache_remove(11), 0, "cache_remove of a key in the cache must return 0");
	cr_assert_eq(slab_frees(), 1,
		     "the object must be freed exactly once, when the last reference goes");
	cr_assert_eq(warn_count(), 0, "balanced lookups and puts must not WARN");
}

/* Hint: cache_destroy() (given) calls your cache_remove() on every key
 * left: it must unlink and drop the cache's reference.
 */
Test(cache, destroy_frees_what_is_left)
{
	int i;

	for (i = 0; i < 10; i++)
		cr_assert_eq(cache_insert(i), 0, "cache_insert of a new key must succeed");
	cache_destroy();
	cr_assert_eq(slab_frees(), 10, "cache_destroy must free the 10 objects "
		     "left (through cache_remove's kref_put), freed %ld", slab_frees());
	cr_assert_eq(slab_objects_live(), 0, "no object may be left after cache_destroy");
	cr_assert_eq(cache_init(), 0, "cache_init after cache_destroy must succeed");	/* for the teardown */
}
