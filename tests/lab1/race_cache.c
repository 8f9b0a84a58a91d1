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
 */
#include <stddef.h>

#include "cache.h"
#include "race/scenario.h"

#define KEY	1

/* The cache, holding key 1. */
static void setup(void)
{
	cache_init();
	cache_insert(KEY);
}

/* Frees what is left: the object if T2 did not remove it. */
static void teardown(void)
{
	cache_destroy();
}

/* T1: the correct lookup, then its put. */
static void lookup_locked(void)
{
	struct cache_obj *obj = cache_lookup(KEY);

	if (obj)
		cache_put(obj);
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

RACE_SCENARIO(lookup_vs_remove) = {
	.name = "lookup_vs_remove",
	.summary = "cache_lookup() takes its reference under cache_lock: "
		   "correct in every interleaving",
	.expect = RACE_MUST_HOLD,
	.setup = setup,
	RACE_THREADS(lookup_locked, remove_key),
	.check = key_gone,
	.teardown = teardown,
	.bound = 2,
};

RACE_SCENARIO(two_lookups_vs_remove) = {
	.name = "two_lookups_vs_remove",
	.summary = "two cache_lookup() callers and cache_remove(): correct "
		   "in every interleaving (a larger space, for dfs)",
	.expect = RACE_MUST_HOLD,
	.setup = setup,
	RACE_THREADS(lookup_locked, lookup_locked, remove_key),
	.check = key_gone,
	.teardown = teardown,
	.bound = 3,
};
