// SPDX-License-Identifier: GPL-2.0
/*
 * race_lin.c - lab 3's operations and their sequential specification: the
 * generated scenarios "lincheck:objtable" (common/race/lin.h).
 *
 * The operations are the table's API as its users call it:
 *   insert(k)   objtable_insert         0, -EEXIST
 *   delete(k)   objtable_delete         0, -ENOENT
 *   lookup(k)   objtable_lookup, the reference kept by the thread: hit,
 *               miss, or another key's object (which no order explains)
 *   put(k)      object_put of the oldest reference the thread keeps of k:
 *               0 (whether it was the last is no result here: see
 *               lin_collection.h; the oracles see a wrong count)
 *   find(k)     objtable_lookup then object_put at once: hit, miss (also
 *               the final probe of each key)
 * from tables with flags 0 (memory quarantined, or reused at once once
 * its grace period is over) and SLAB_TYPESAFE_BY_RCU (reused at once,
 * without a grace period: the lookup's re-check is what keeps it right).
 *
 * The specification is the collection model of common/race/
 * lin_collection.h, lab 1's too: the same contract, another
 * implementation.
 */
#include "bug.h"
#include "objtable.h"
#include "race/lin_collection.h"

enum { PLAIN, PLAIN_REUSE, TYPESAFE };	/* lin_init.mode */

static struct objtable *t;

/* --- the code under test ---------------------------------------------------- */

static long run_insert(struct lin_ctx *ctx __maybe_unused, int key)
{
	return objtable_insert(t, key);
}

static long run_delete(struct lin_ctx *ctx __maybe_unused, int key)
{
	return objtable_delete(t, key);
}

static long run_lookup(struct lin_ctx *ctx, int key)
{
	struct object *obj = objtable_lookup(t, key);

	if (!obj)
		return 0;
	lin_hold(ctx, obj, key);		/* put later, or by teardown */
	return obj->key == key ? 1 : LIN_COLL_WRONG;
}

static long run_put(struct lin_ctx *ctx, int key)
{
	struct object *obj = lin_unhold(ctx, key);

	if (!obj)
		return LIN_NOTHING;
	object_put(obj);	/* whether it was the last: not a result (lin_collection.h) */
	return 0;
}

static long run_find(struct lin_ctx *ctx __maybe_unused, int key)
{
	struct object *obj = objtable_lookup(t, key);
	bool right;

	if (!obj)
		return 0;
	right = obj->key == key;
	object_put(obj);
	return right ? 1 : LIN_COLL_WRONG;
}

static const struct lin_op ops[] = LIN_COLL_OPS("delete", run_insert, run_delete,
						 run_lookup, run_put, run_find);

/* setup() inserts the keys in this order: keys123 is the list 1 -> 2 -> 3. */
static const struct lin_init inits[] = {
	{ "empty", "an empty table (flags 0)", .keys = { 0 }, .mode = PLAIN },
	{ "key1", "key 1 (flags 0)", .keys = { 1 }, .mode = PLAIN },
	{ "keys123", "keys 1, 2, 3 (flags 0), list 1 -> 2 -> 3",
	  .keys = { 3, 2, 1 }, .mode = PLAIN },
	{ "key1-reuse", "key 1 (flags 0), freed memory reused at once after "
	  "its grace period", .keys = { 1 }, .mode = PLAIN_REUSE },
	{ "typesafe1", "key 1, SLAB_TYPESAFE_BY_RCU (freed memory reused at "
	  "once, no grace period)", .keys = { 1 }, .mode = TYPESAFE },
	{ "typesafe123", "keys 1, 2, 3, SLAB_TYPESAFE_BY_RCU, list 1 -> 2 -> 3",
	  .keys = { 3, 2, 1 }, .mode = TYPESAFE },
};

static void setup(const struct lin_init *init, struct lin_ctx *ctx[] __maybe_unused)
{
	int i;

	t = objtable_create(init->mode == TYPESAFE ? SLAB_TYPESAFE_BY_RCU : 0);
	BUG_ON(!t);
	kmem_cache_set_reuse(t->cachep, init->mode == PLAIN ?
			     SLAB_REUSE_QUARANTINE : SLAB_REUSE_IMMEDIATE);
	for (i = 0; i < LIN_MAX_KEYS && init->keys[i]; i++)
		objtable_insert(t, init->keys[i]);
}

static void teardown(struct lin_ctx *ctx[], int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		while (ctx[i]->nr_held)
			object_put(lin_unhold(ctx[i], ctx[i]->held_key[0]));
	objtable_destroy(t);
}

LIN_SPEC(objtable_spec) = {
	.name		= "objtable",
	.summary	= "the table's insert, delete, lookup, put, find on keys 1-2, "
			  "from empty, key 1, keys 1-3 tables, plain, reused at "
			  "once and type-stable",
	.ops		= ops,
	.nr_ops		= ARRAY_SIZE(ops),
	.inits		= inits,
	.nr_inits	= ARRAY_SIZE(inits),
	.keys		= 2,
	.setup		= setup,
	.teardown	= teardown,
	.model_size	= sizeof(struct lin_coll_model),
	.model_init	= race_lin_coll_init,
	.random		= 48,		/* about a second more than the pairs alone */
};
