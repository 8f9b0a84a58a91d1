// SPDX-License-Identifier: GPL-2.0
/*
 * race_cache.c - lab 1's scenarios for the race reproducer.
 *
 * The cache holds key 1.  T1 looks it up and drops its reference; T2
 * removes it, dropping the cache's reference.  With cache_lookup() the
 * reference is taken under cache_lock and every interleaving is correct.
 * With cache_lookup_unlocked() T2 can unlink and free the object between
 * T1's unlock and T1's kref_get(): kref_get then reads and increments
 * freed memory, the race the 2004 LWN article tabulates.
 *
 * The must-hold scenarios are about a lookup that holds the object while
 * cache_remove() drops the cache's reference: their witness is a lookup
 * whose own cache_put() frees the object.  An execution where the lookup
 * missed, or finished before the remove, proves nothing about the rule.
 */
#include <stdbool.h>
#include <stddef.h>

#include "cache.h"
#include "race/scenario.h"

#define KEY	1

static bool lookup_freed;	/* a lookup's cache_put() freed the object */

/* The cache, holding key 1. */
static void setup(void)
{
	cache_init();
	cache_insert(KEY);
	lookup_freed = false;
}

/* Frees what is left: the object if T2 did not remove it. */
static void teardown(void)
{
	cache_destroy();
}

/* T1: the correct lookup, then its put (maybe the last one). */
static void lookup_locked(void)
{
	struct cache_obj *obj = cache_lookup(KEY);

	if (obj && cache_put(obj))
		lookup_freed = true;
}

/* T1: the broken lookup, then its put. */
static void lookup_unlocked(void)
{
	struct cache_obj *obj = cache_lookup_unlocked(KEY);

	if (obj)
		cache_put(obj);
}

/* T2: unlink key 1, drop the cache's reference. */
static void remove_key(void)
{
	cache_remove(KEY);
}

/* Whatever the interleaving, the key is gone once T2 has run. */
static const char *key_gone(void)
{
	struct cache_obj *obj = cache_lookup(KEY);

	if (!obj)
		return NULL;
	cache_put(obj);
	return "key 1 is still in the cache after cache_remove()";
}

/* The witness: the remove ran while a lookup held the object. */
static bool lookup_put_last(void)
{
	return lookup_freed;
}

/* Hint: it must fail: the reproducer must find the use-after-free of the
 * handout's table. It does once kref_get() increments and kref_put() frees
 * on the last put.
 */
RACE_SCENARIO(lookup_unlocked_vs_remove) = {
	.name = "lookup_unlocked_vs_remove",
	.summary = "cache_lookup_unlocked() takes its reference after the "
		   "unlock, while cache_remove() drops the last one",
	.expect = RACE_MUST_FAIL,
	.verdict = "use-after-free",
	.setup = setup,
	RACE_THREADS(lookup_unlocked, remove_key),
	.check = key_gone,
	.teardown = teardown,
	.bound = 2,
};

/* Hint: 'vacuous' means no interleaving ran your lookup to the end with the
 * key found: cache_lookup() must return the object. A use-after-free here
 * means the reference is taken after spin_unlock().
 */
RACE_SCENARIO(lookup_vs_remove) = {
	.name = "lookup_vs_remove",
	.summary = "cache_lookup() takes its reference under cache_lock: "
		   "correct in every interleaving",
	.expect = RACE_MUST_HOLD,
	.setup = setup,
	RACE_THREADS(lookup_locked, remove_key),
	.check = key_gone,
	.witness = lookup_put_last,
	.outcome = "cache_remove() runs while T1 holds the object, and "
		   "T1's cache_put() frees it",
	.teardown = teardown,
	.bound = 2,
};

/* Hint: as lookup_vs_remove, with two lookups: each takes its own reference
 * under cache_lock.
 */
RACE_SCENARIO(two_lookups_vs_remove) = {
	.name = "two_lookups_vs_remove",
	.summary = "two cache_lookup() callers and cache_remove(): correct "
		   "in every interleaving (a larger space, for dfs)",
	.expect = RACE_MUST_HOLD,
	.setup = setup,
	RACE_THREADS(lookup_locked, lookup_locked, remove_key),
	.check = key_gone,
	.witness = lookup_put_last,
	.outcome = "cache_remove() runs while a lookup holds the object, "
		   "and that lookup's cache_put() frees it",
	.teardown = teardown,
	.bound = 3,
};
