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
 *               1 if it was the last
 *   find(k)     objtable_lookup then object_put at once: hit, miss (also
 *               the final probe of each key)
 * from tables with flags 0 (memory quarantined, or reused at once once
 * its grace period is over) and SLAB_TYPESAFE_BY_RCU (reused at once,
 * without a grace period: the lookup's re-check is what keeps it right).
 *
 * The model: which object holds each key, each object's count (the
 * table's reference included), and the objects each thread holds.  As in
 * lab 1, delete() is one step of the model: unlink and drop the table's
 * reference.
 */
#include <errno.h>

#include "bug.h"
#include "objtable.h"
#include "race/lin.h"

#define NR_INIT_KEYS	3		/* keys of the initial states: 1..3 */
#define MAX_OBJS	24
#define WRONG_OBJECT	2		/* a lookup got another key's object */

enum { PLAIN, PLAIN_REUSE, TYPESAFE };	/* lin_init.mode */

static struct objtable *t;

struct table_model {
	int obj_of[NR_INIT_KEYS + 1];	/* key -> object in the table, 0: none */
	int count[MAX_OBJS], key_of[MAX_OBJS];
	int nr_objs;
	int held[RACE_MAX_THREADS + 1][LIN_MAX_HELD];
	int nr_held[RACE_MAX_THREADS + 1];
};

static const struct lin_name hit_names[] = {
	{ 1, "hit" }, { 0, "miss" }, { WRONG_OBJECT, "another key's object" },
	{ 0, NULL },
};

static const struct lin_name put_names[] = {
	{ 1, "1 (the last)" }, { 0, "0" }, { 0, NULL },
};

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
	return obj->key == key ? 1 : WRONG_OBJECT;
}

static long run_put(struct lin_ctx *ctx, int key)
{
	struct object *obj = lin_unhold(ctx, key);

	return obj ? object_put(obj) : LIN_NOTHING;
}

static long run_find(struct lin_ctx *ctx __maybe_unused, int key)
{
	struct object *obj = objtable_lookup(t, key);
	bool right;

	if (!obj)
		return 0;
	right = obj->key == key;
	object_put(obj);
	return right ? 1 : WRONG_OBJECT;
}

/* --- the specification -------------------------------------------------------- */

static long spec_insert(void *model, int thread __maybe_unused, int key)
{
	struct table_model *m = model;
	int o;

	if (m->obj_of[key])
		return -EEXIST;
	o = ++m->nr_objs;
	m->count[o] = 1;			/* the table's reference */
	m->key_of[o] = key;
	m->obj_of[key] = o;
	return 0;
}

static long spec_delete(void *model, int thread __maybe_unused, int key)
{
	struct table_model *m = model;
	int o = m->obj_of[key];

	if (!o)
		return -ENOENT;
	m->obj_of[key] = 0;
	m->count[o]--;				/* the table's reference */
	return 0;
}

static long spec_lookup(void *model, int thread, int key)
{
	struct table_model *m = model;
	int o = m->obj_of[key];

	if (!o)
		return 0;
	m->count[o]++;
	m->held[thread][m->nr_held[thread]++] = o;
	return 1;
}

static long spec_put(void *model, int thread, int key)
{
	struct table_model *m = model;
	int *held = m->held[thread], i, o;

	for (i = 0; i < m->nr_held[thread] && m->key_of[held[i]] != key; i++)
		;
	if (i == m->nr_held[thread])
		return LIN_NOTHING;
	o = held[i];
	for (; i + 1 < m->nr_held[thread]; i++)
		held[i] = held[i + 1];
	m->nr_held[thread]--;
	return --m->count[o] == 0;
}

static long spec_find(void *model, int thread __maybe_unused, int key)
{
	struct table_model *m = model;

	return m->obj_of[key] != 0;
}

static const struct lin_op ops[] = {
	{ "insert", LIN_KEYED, run_insert, spec_insert, NULL },
	{ "delete", LIN_KEYED, run_delete, spec_delete, NULL },
	{ "lookup", LIN_KEYED | LIN_TAKES, run_lookup, spec_lookup, hit_names },
	{ "put", LIN_KEYED | LIN_DROPS, run_put, spec_put, put_names },
	{ "find", LIN_KEYED | LIN_POST, run_find, spec_find, hit_names },
};

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

static void model_init(void *model, const struct lin_init *init)
{
	int i;

	for (i = 0; i < LIN_MAX_KEYS && init->keys[i]; i++)
		spec_insert(model, 0, init->keys[i]);
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
	.model_size	= sizeof(struct table_model),
	.model_init	= model_init,
};
