// SPDX-License-Identifier: GPL-2.0
/*
 * race_lin.c - lab 1's operations and their sequential specification: the
 * generated scenarios "lincheck:cache" (common/race/lin.h).
 *
 * The operations are the cache's API as its users call it:
 *   insert(k)   cache_insert            0, -EEXIST
 *   remove(k)   cache_remove            0, -ENOENT
 *   lookup(k)   cache_lookup, the reference kept by the thread: hit, miss
 *   put(k)      cache_put of the oldest reference the thread keeps of k:
 *               0 (whether it freed the object is no result here: see
 *               lin_collection.h; the oracles see a wrong count)
 *   find(k)     cache_lookup then cache_put at once: hit, miss (also the
 *               final probe of each key)
 * A lookup that returns an object whose key is not k returns "another
 * key's object", which no specification returns.
 *
 * The specification is the collection model of common/race/
 * lin_collection.h (lab 3's too): which object holds each key, each
 * object's count (the cache's reference included), and the objects each
 * thread holds.  remove() is one step in the model -- unlink and drop the
 * cache's reference -- though the code unlinks under cache_lock and puts
 * after: the results compared (inserts, removes, hits and misses) are the
 * ones an order of atomic operations explains whenever the code is right.
 */
#include "cache.h"
#include "race/lin_collection.h"

/* --- the code under test ---------------------------------------------------- */

static long run_insert(struct lin_ctx *ctx __maybe_unused, int key)
{
	return cache_insert(key);
}

static long run_remove(struct lin_ctx *ctx __maybe_unused, int key)
{
	return cache_remove(key);
}

static long run_lookup(struct lin_ctx *ctx, int key)
{
	struct cache_obj *obj = cache_lookup(key);

	if (!obj)
		return 0;
	lin_hold(ctx, obj, key);		/* put later, or by teardown */
	return obj->key == key ? 1 : LIN_COLL_WRONG;
}

static long run_put(struct lin_ctx *ctx, int key)
{
	struct cache_obj *obj = lin_unhold(ctx, key);

	if (!obj)
		return LIN_NOTHING;
	cache_put(obj);		/* whether it freed: not a result (lin_collection.h) */
	return 0;
}

static long run_find(struct lin_ctx *ctx __maybe_unused, int key)
{
	struct cache_obj *obj = cache_lookup(key);
	bool right;

	if (!obj)
		return 0;
	right = obj->key == key;
	cache_put(obj);
	return right ? 1 : LIN_COLL_WRONG;
}

static const struct lin_op ops[] = LIN_COLL_OPS("remove", run_insert, run_remove,
						 run_lookup, run_put, run_find);

/* The initial states: setup() inserts the keys in this order, so in
 * keys123 the list is 1 -> 2 -> 3 (key 2 has a neighbour on each side). */
static const struct lin_init inits[] = {
	{ "empty", "an empty cache", .keys = { 0 } },
	{ "key1", "key 1 in the cache", .keys = { 1 } },
	{ "keys123", "keys 1, 2, 3 in the cache, list 1 -> 2 -> 3",
	  .keys = { 3, 2, 1 } },
};

static void setup(const struct lin_init *init, struct lin_ctx *ctx[] __maybe_unused)
{
	int i;

	cache_init();
	for (i = 0; i < LIN_MAX_KEYS && init->keys[i]; i++)
		cache_insert(init->keys[i]);
}

static void teardown(struct lin_ctx *ctx[], int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		while (ctx[i]->nr_held)
			cache_put(lin_unhold(ctx[i], ctx[i]->held_key[0]));
	cache_destroy();
}

LIN_SPEC(cache_spec) = {
	.name		= "cache",
	.summary	= "the cache's insert, remove, lookup, put, find on keys "
			  "1-2, from an empty cache, key 1, keys 1-3",
	.ops		= ops,
	.nr_ops		= ARRAY_SIZE(ops),
	.inits		= inits,
	.nr_inits	= ARRAY_SIZE(inits),
	.keys		= 2,
	.setup		= setup,
	.teardown	= teardown,
	.model_size	= sizeof(struct lin_coll_model),
	.model_init	= race_lin_coll_init,
	.random		= 48,		/* cheap: a second each, with the pairs */
};
