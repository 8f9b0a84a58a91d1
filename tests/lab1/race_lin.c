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
 *               1 if it freed the object, else 0
 *   find(k)     cache_lookup then cache_put at once: hit, miss (also the
 *               final probe of each key)
 * A lookup that returns an object whose key is not k returns "another
 * key's object", which no specification returns.
 *
 * The model: which object holds each key, each object's count (the
 * cache's reference included), and the objects each thread holds a
 * reference to.  remove() is one step in the model -- unlink and drop the
 * cache's reference -- though the code unlinks under cache_lock and puts
 * after: an order of the operations must explain the results all the
 * same, and one does whenever the code is right.
 */
#include <errno.h>

#include "cache.h"
#include "race/lin.h"

#define NR_INIT_KEYS	3		/* keys of the initial states: 1..3 */
#define MAX_OBJS	24
#define WRONG_OBJECT	2		/* a lookup got another key's object */

struct cache_model {
	int obj_of[NR_INIT_KEYS + 1];	/* key -> object in the cache, 0: none */
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
	{ 1, "1 (freed it)" }, { 0, "0" }, { 0, NULL },
};

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
	return obj->key == key ? 1 : WRONG_OBJECT;
}

static long run_put(struct lin_ctx *ctx, int key)
{
	struct cache_obj *obj = lin_unhold(ctx, key);

	return obj ? cache_put(obj) : LIN_NOTHING;
}

static long run_find(struct lin_ctx *ctx __maybe_unused, int key)
{
	struct cache_obj *obj = cache_lookup(key);
	bool right;

	if (!obj)
		return 0;
	right = obj->key == key;
	cache_put(obj);
	return right ? 1 : WRONG_OBJECT;
}

/* --- the specification -------------------------------------------------------- */

static long spec_insert(void *model, int thread __maybe_unused, int key)
{
	struct cache_model *m = model;
	int o;

	if (m->obj_of[key])
		return -EEXIST;
	o = ++m->nr_objs;
	m->count[o] = 1;			/* the cache's reference */
	m->key_of[o] = key;
	m->obj_of[key] = o;
	return 0;
}

static long spec_remove(void *model, int thread __maybe_unused, int key)
{
	struct cache_model *m = model;
	int o = m->obj_of[key];

	if (!o)
		return -ENOENT;
	m->obj_of[key] = 0;
	m->count[o]--;				/* the cache's reference */
	return 0;
}

static long spec_lookup(void *model, int thread, int key)
{
	struct cache_model *m = model;
	int o = m->obj_of[key];

	if (!o)
		return 0;
	m->count[o]++;
	m->held[thread][m->nr_held[thread]++] = o;
	return 1;
}

static long spec_put(void *model, int thread, int key)
{
	struct cache_model *m = model;
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
	struct cache_model *m = model;

	return m->obj_of[key] != 0;
}

static const struct lin_op ops[] = {
	{ "insert", LIN_KEYED, run_insert, spec_insert, NULL },
	{ "remove", LIN_KEYED, run_remove, spec_remove, NULL },
	{ "lookup", LIN_KEYED | LIN_TAKES, run_lookup, spec_lookup, hit_names },
	{ "put", LIN_KEYED | LIN_DROPS, run_put, spec_put, put_names },
	{ "find", LIN_KEYED | LIN_POST, run_find, spec_find, hit_names },
};

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

static void model_init(void *model, const struct lin_init *init)
{
	int i;

	for (i = 0; i < LIN_MAX_KEYS && init->keys[i]; i++)
		spec_insert(model, 0, init->keys[i]);
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
	.model_size	= sizeof(struct cache_model),
	.model_init	= model_init,
};
