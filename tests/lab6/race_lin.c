// SPDX-License-Identifier: GPL-2.0
/*
 * race_lin.c - lab 6's operations and their sequential specifications: the
 * generated scenarios "lincheck:rcuref" and "lincheck:objtable"
 * (common/race/lin.h).
 *
 * lincheck:rcuref -- the count itself.  One object with an rcuref_t,
 * reachable through one pointer, slot, published with rcu_assign_pointer
 * and cleared under a spinlock.  Two protocols share it, chosen by the
 * initial state:
 *   collection  the slot holds a reference; unlink() takes the object out
 *               of the slot, and the slot's reference with it
 *   owners      the slot holds none (lib/rcuref.c's own example): the
 *               threads own the references, and the put that returns
 *               true clears the slot itself, then frees -- a reader may
 *               find the object dead in between, and its get must fail
 * The operations:
 *   get_rcu   under rcu_read_lock: rcuref_get on what slot points to; 1
 *             (the thread keeps the reference), or 0 (a miss)
 *   get       rcuref_get on an object the thread holds: 1
 *   put       rcuref_put of a reference the thread holds: 1 if it returned
 *             true (then the object is unlinked and freed through
 *             call_rcu), else 0
 *   unlink    take the object out of the slot; the slot's reference passes
 *             to the thread: 0, or -ENOENT
 *   count     final probe: rcuref_read, or 0 once the object was released
 * In the "dying" state the count is already DEAD while readers can still
 * find the object, as between a last put and the end of its grace period:
 * every get_rcu must miss, and two or three of them move the count inside
 * the dead zone (DEAD + 1, DEAD + 2) before their slow paths put it back.
 * The specification is the count's: references, 0 is dead for good.
 *
 * lincheck:objtable -- the table of objtable.h, against the collection
 * model of common/race/lin_collection.h (labs 1 and 3 share it): insert,
 * delete, lookup, put, find on keys 1-2.
 */
#include <errno.h>

#include "bug.h"
#include "objtable.h"
#include "race/lin.h"
#include "race/lin_collection.h"
#include "rcupdate.h"
#include "rcuref.h"
#include "slab.h"
#include "spinlock.h"

/* --- lincheck:rcuref ---------------------------------------------------------- */

enum { COLLECTION, OWNERS, DYING };		/* lin_init.mode */

struct lobj {
	rcuref_t ref;
	struct rcu_head rcu;
};

static struct kmem_cache *lobj_cachep;
static struct lobj *obj;		/* the object, for teardown and probes */
static struct lobj *slot;		/* RCU-published, cleared under lock */
static DEFINE_SPINLOCK(lock);
static bool slot_ref;			/* the slot holds a reference (under lock) */
static bool released;			/* a put returned true */

struct rc_model {
	long count;
	bool linked, slot_ref, released;
	int held[RACE_MAX_THREADS + 1];
};

static const struct lin_name got_names[] = {
	{ 1, "1 (a reference)" }, { 0, "0 (a miss)" }, { 0, NULL },
};

static const struct lin_name last_names[] = {
	{ 1, "1 (true: the last)" }, { 0, "0 (false)" }, { 0, NULL },
};

static void lobj_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(lobj_cachep, container_of(head, struct lobj, rcu));
}

/* The put that returned true: unlink the object if the slot still shows
 * it, then free it after a grace period. */
static void release(struct lobj *o)
{
	spin_lock(&lock);
	if (rcu_dereference_protected(slot, 1) == o)
		rcu_assign_pointer(slot, NULL);
	spin_unlock(&lock);
	released = true;
	call_rcu(&o->rcu, lobj_free_rcu);
}

static long run_get_rcu(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o;
	bool got = false;

	rcu_read_lock();
	o = rcu_dereference(slot);
	if (o)
		got = rcuref_get(&o->ref);
	rcu_read_unlock();
	if (got)
		lin_hold(ctx, o, 0);
	return got;
}

static long run_get(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o = lin_unhold(ctx, 0);
	bool got;

	if (!o)
		return LIN_NOTHING;
	got = rcuref_get(&o->ref);
	lin_hold(ctx, o, 0);
	if (got)
		lin_hold(ctx, o, 0);
	return got;
}

static long run_put(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o = lin_unhold(ctx, 0);

	if (!o)
		return LIN_NOTHING;
	if (!rcuref_put(&o->ref))
		return 0;
	release(o);
	return 1;
}

static long run_unlink(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o;

	spin_lock(&lock);
	o = rcu_dereference_protected(slot, 1);
	if (!slot_ref) {
		spin_unlock(&lock);
		return -ENOENT;
	}
	slot_ref = false;
	rcu_assign_pointer(slot, NULL);
	spin_unlock(&lock);
	lin_hold(ctx, o, 0);		/* the slot's reference: a put drops it */
	return 0;
}

static long run_count(struct lin_ctx *ctx __maybe_unused, int key __maybe_unused)
{
	return released ? 0 : rcuref_read(&obj->ref);
}

/* @thread takes one more reference: 1. */
static long take(struct rc_model *m, int thread)
{
	m->count++;
	m->held[thread]++;
	return 1;
}

static long spec_get_rcu(void *model, int thread, int key __maybe_unused)
{
	struct rc_model *m = model;

	return m->linked && m->count ? take(m, thread) : 0;
}

static long spec_get(void *model, int thread, int key __maybe_unused)
{
	struct rc_model *m = model;

	return m->held[thread] ? take(m, thread) : LIN_NOTHING;
}

static long spec_put(void *model, int thread, int key __maybe_unused)
{
	struct rc_model *m = model;

	if (!m->held[thread])
		return LIN_NOTHING;
	m->held[thread]--;
	if (--m->count)
		return 0;
	m->linked = false;
	m->released = true;
	return 1;
}

static long spec_unlink(void *model, int thread, int key __maybe_unused)
{
	struct rc_model *m = model;

	if (!m->slot_ref)
		return -ENOENT;
	m->slot_ref = false;
	m->linked = false;
	m->held[thread]++;		/* the slot's reference, now the thread's */
	return 0;
}

static long spec_count(void *model, int thread __maybe_unused,
		       int key __maybe_unused)
{
	struct rc_model *m = model;

	return m->released ? 0 : m->count;
}

static const struct lin_op rc_ops[] = {
	{ "get_rcu", LIN_TAKES, run_get_rcu, spec_get_rcu, got_names },
	{ "get", LIN_NEEDS | LIN_TAKES, run_get, spec_get, got_names },
	{ "put", LIN_DROPS, run_put, spec_put, last_names },
	{ "unlink", LIN_TAKES, run_unlink, spec_unlink, NULL },
	{ "count", LIN_POST, run_count, spec_count, NULL },
};

#define OP(name)	(1u << (name))
enum { GET_RCU, GET, PUT, UNLINK, COUNT };

static const struct lin_init rc_inits[] = {
	{ "coll", "in the slot, which holds the only reference", .keys = { 0 },
	  .mode = COLLECTION, .ops = OP(GET_RCU) | OP(GET) | OP(PUT) | OP(UNLINK) },
	{ "coll+2", "in the slot, which holds a reference; T1 and T2 hold one each",
	  .mode = COLLECTION, .held = { 1, 1 },
	  .ops = OP(GET_RCU) | OP(GET) | OP(PUT) | OP(UNLINK) },
	{ "owner1", "in the slot, which holds none; T1 owns the only reference",
	  .mode = OWNERS, .held = { 1 }, .ops = OP(GET_RCU) | OP(GET) | OP(PUT) },
	{ "owners2", "in the slot, which holds none; T1 and T2 own one each",
	  .mode = OWNERS, .held = { 1, 1 }, .ops = OP(GET_RCU) | OP(GET) | OP(PUT) },
	{ "owners3", "in the slot, which holds none; T1, T2 and T3 own one each",
	  .mode = OWNERS, .held = { 1, 1, 1 }, .ops = OP(GET_RCU) | OP(GET) | OP(PUT) },
	{ "dying", "count DEAD, still reachable under RCU (before its grace period)",
	  .mode = DYING, .ops = OP(GET_RCU) },
};

static void rc_setup(const struct lin_init *init, struct lin_ctx *ctx[])
{
	int t, i, n;

	lobj_cachep = kmem_cache_create("lobj", sizeof(struct lobj), 0, 0, NULL);
	obj = kmem_cache_alloc(lobj_cachep, GFP_KERNEL);
	spin_lock_init(&lock);
	slot_ref = init->mode == COLLECTION;
	released = false;
	for (n = slot_ref, t = 0; t < RACE_MAX_THREADS; t++)
		for (i = 0; i < init->held[t]; i++, n++)
			lin_hold(ctx[t + 1], obj, 0);
	if (init->mode == DYING)
		atomic_set(&obj->ref.refcnt, (int)RCUREF_DEAD);
	else
		rcuref_init(&obj->ref, n);
	RCU_INIT_POINTER(slot, obj);
}

/* Drop every reference left; free the object once none is (else a leak). */
static void rc_teardown(struct lin_ctx *ctx[], int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		while (lin_unhold(ctx[i], 0))
			if (rcuref_put(&obj->ref))
				release(obj);
	if (slot_ref && rcuref_put(&obj->ref))
		release(obj);
	if (!released && !rcuref_read(&obj->ref))
		release(obj);		/* dying from the start */
	rcu_barrier();
	kmem_cache_destroy(lobj_cachep);
}

static void rc_model_init(void *model, const struct lin_init *init)
{
	struct rc_model *m = model;
	int t;

	m->linked = true;
	m->slot_ref = init->mode == COLLECTION;
	m->count = m->slot_ref;
	for (t = 0; t < RACE_MAX_THREADS; t++) {
		m->held[t + 1] = init->held[t];
		m->count += init->held[t];
	}
}

LIN_SPEC(rcuref_spec) = {
	.name		= "rcuref",
	.summary	= "get_rcu, get, put, unlink on one object in a slot that "
			  "holds a reference, or none, or whose count is already DEAD",
	.ops		= rc_ops,
	.nr_ops		= ARRAY_SIZE(rc_ops),
	.inits		= rc_inits,
	.nr_inits	= ARRAY_SIZE(rc_inits),
	.setup		= rc_setup,
	.teardown	= rc_teardown,
	.model_size	= sizeof(struct rc_model),
	.model_init	= rc_model_init,
	.random		= 48,
};

/* --- lincheck:objtable ------------------------------------------------------- */

enum { QUARANTINE, REUSE };			/* lin_init.mode */

static struct objtable *t;

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
	struct object *o = objtable_lookup(t, key);

	if (!o)
		return 0;
	lin_hold(ctx, o, key);		/* put later, or by teardown */
	return o->key == key ? 1 : LIN_COLL_WRONG;
}

static long run_table_put(struct lin_ctx *ctx, int key)
{
	struct object *o = lin_unhold(ctx, key);

	if (!o)
		return LIN_NOTHING;
	object_put(o);		/* whether it was the last: not a result */
	return 0;
}

static long run_find(struct lin_ctx *ctx __maybe_unused, int key)
{
	struct object *o = objtable_lookup(t, key);
	bool right;

	if (!o)
		return 0;
	right = o->key == key;
	object_put(o);
	return right ? 1 : LIN_COLL_WRONG;
}

static const struct lin_op table_ops[] = LIN_COLL_OPS("delete", run_insert,
	run_delete, run_lookup, run_table_put, run_find);

/* Lab 3 explores longer lists; here the count is what changed. */
static const struct lin_init table_inits[] = {
	{ "empty", "an empty table", .keys = { 0 }, .mode = QUARANTINE },
	{ "key1", "key 1", .keys = { 1 }, .mode = QUARANTINE },
	{ "key1-reuse", "key 1, freed memory reused at once after its grace "
	  "period", .keys = { 1 }, .mode = REUSE },
};

static void table_setup(const struct lin_init *init,
			struct lin_ctx *ctx[] __maybe_unused)
{
	int i;

	t = objtable_create();
	BUG_ON(!t);
	kmem_cache_set_reuse(t->cachep, init->mode == QUARANTINE ?
			     SLAB_REUSE_QUARANTINE : SLAB_REUSE_IMMEDIATE);
	for (i = 0; i < LIN_MAX_KEYS && init->keys[i]; i++)
		objtable_insert(t, init->keys[i]);
}

static void table_teardown(struct lin_ctx *ctx[], int nr)
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
			  "from empty and key 1 tables, memory kept or reused",
	.ops		= table_ops,
	.nr_ops		= ARRAY_SIZE(table_ops),
	.inits		= table_inits,
	.nr_inits	= ARRAY_SIZE(table_inits),
	.keys		= 2,
	.setup		= table_setup,
	.teardown	= table_teardown,
	.model_size	= sizeof(struct lin_coll_model),
	.model_init	= race_lin_coll_init,
	.random		= 16,
};
