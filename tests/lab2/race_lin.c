// SPDX-License-Identifier: GPL-2.0
/*
 * race_lin.c - lab 2's operations and their sequential specification: the
 * generated scenarios "lincheck:refcount" (common/race/lin.h).
 *
 * One object with a refcount_t, reachable through one pointer, slot:
 * published with rcu_assign_pointer and changed under a spinlock, so that
 * it can be found both ways the 2004 patch names.  Two protocols share it,
 * chosen by the initial state:
 *   collection   the slot holds a reference; unlink() takes the object out
 *                of the slot, and the slot's reference with it; every
 *                reference, that one too, goes with put()
 *   slot owners  the slot holds none; the threads own the references and
 *                drop them with put_and_lock(): whoever drops the last
 *                unlinks the object under the lock it returns with
 * The operations:
 *   get_rcu     under rcu_read_lock: refcount_get_rcu on what slot points
 *               to; success keeps the reference: 1, or 0 (a miss)
 *   lookup      under the lock: refcount_get on what slot points to (a
 *               count of 0 there WARNs: the oracle of every execution)
 *   get         refcount_get on an object the thread holds: 1
 *   put         refcount_put of a reference the thread holds: 1 if last
 *   put_and_lock  refcount_put_and_lock of one: 1 if last (and then the
 *               lock must be held by this thread), 0 (and then it must not)
 *   unlink      take it out of the slot under the lock; the slot's
 *               reference passes to the thread (a later put drops it):
 *               0, or -ENOENT.  (An unlink that also put would be two
 *               steps the model cannot show as one: another thread's miss
 *               and put can come between them.)
 *   count       final probe: the count, or 0 once the object is released
 * In the "dying" state the count is already 0 while a reader can still
 * find the object (as between a last put and the grace period): every
 * get_rcu must miss -- a dead count meeting two or three gets.
 */
#include <errno.h>

#include "race/lin.h"
#include "rcupdate.h"
#include "refcount.h"
#include "slab.h"
#include "spinlock.h"

#define ONE_WITHOUT_LOCK	2	/* put_and_lock: 1, lock not held */
#define ZERO_WITH_LOCK		3	/* put_and_lock: 0, lock held */

enum { COLLECTION, SLOT_OWNERS, DYING };		/* lin_init.mode */

struct lobj {
	refcount_t ref;
	struct rcu_head rcu;
};

static struct kmem_cache *lobj_cachep;
static struct lobj *obj;		/* the object, for teardown and probes */
static struct lobj *slot;		/* RCU-published, changed under lock */
static DEFINE_SPINLOCK(lock);
static bool slot_ref;			/* the slot holds a reference (under lock) */
static bool released;			/* the last reference went */

struct rc_model {
	int count;
	bool linked, slot_ref, released;
	int held[RACE_MAX_THREADS + 1];
};

static const struct lin_name got_names[] = {
	{ 1, "1 (a reference)" }, { 0, "0 (a miss)" }, { 0, NULL },
};

static const struct lin_name last_names[] = {
	{ 1, "1 (the last)" }, { 0, "0" }, { -ENOENT, "-ENOENT" },
	{ ONE_WITHOUT_LOCK, "1 without the lock held" },
	{ ZERO_WITH_LOCK, "0 with the lock still held" }, { 0, NULL },
};

/* --- the code under test, and the test's own protocol ----------------------- */

static void lobj_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(lobj_cachep, container_of(head, struct lobj, rcu));
}

/* The last reference went: the object, unlinked, is freed after a grace period. */
static void release(struct lobj *o)
{
	released = true;
	call_rcu(&o->rcu, lobj_free_rcu);
}

static long run_get_rcu(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o;
	int found = 0;

	rcu_read_lock();
	o = rcu_dereference(slot);
	if (o)
		found = refcount_get_rcu(&o->ref);
	rcu_read_unlock();
	if (found)
		lin_hold(ctx, o, 0);
	return found != 0;
}

static long run_lookup(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o;

	spin_lock(&lock);
	o = rcu_dereference_protected(slot, 1);
	if (o)
		refcount_get(&o->ref);	/* never on 0: the slot's rule */
	spin_unlock(&lock);
	if (o)
		lin_hold(ctx, o, 0);
	return o != NULL;
}

static long run_get(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o = lin_unhold(ctx, 0);

	if (!o)
		return LIN_NOTHING;
	refcount_get(&o->ref);
	lin_hold(ctx, o, 0);
	lin_hold(ctx, o, 0);
	return 1;
}

static long run_put(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o = lin_unhold(ctx, 0);

	if (!o)
		return LIN_NOTHING;
	if (!refcount_put(&o->ref))
		return 0;
	release(o);			/* unlinked already: the slot held one */
	return 1;
}

static long run_put_and_lock(struct lin_ctx *ctx, int key __maybe_unused)
{
	struct lobj *o = lin_unhold(ctx, 0);

	if (!o)
		return LIN_NOTHING;
	if (!refcount_put_and_lock(&o->ref, &lock)) {
		if (!race_holds_lock(&lock))
			return 0;
		spin_unlock(&lock);
		return ZERO_WITH_LOCK;
	}
	if (!race_holds_lock(&lock))
		return ONE_WITHOUT_LOCK;
	rcu_assign_pointer(slot, NULL);	/* unlinked under the lock */
	spin_unlock(&lock);
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
	return released ? 0 : refcount_read(&obj->ref);
}

/* --- the specification -------------------------------------------------------- */

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

static long spec_lookup(void *model, int thread, int key __maybe_unused)
{
	struct rc_model *m = model;

	return m->linked ? take(m, thread) : 0;
}

static long spec_get(void *model, int thread, int key __maybe_unused)
{
	struct rc_model *m = model;

	return m->held[thread] ? take(m, thread) : LIN_NOTHING;
}

/* Drop one reference of @thread's; 1 if it was the last. */
static long drop(struct rc_model *m, int thread)
{
	if (!m->held[thread])
		return LIN_NOTHING;
	m->held[thread]--;
	if (--m->count)
		return 0;
	m->linked = false;
	m->released = true;
	return 1;
}

static long spec_put(void *model, int thread, int key __maybe_unused)
{
	return drop(model, thread);
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

static const struct lin_op ops[] = {
	{ "get_rcu", LIN_TAKES, run_get_rcu, spec_get_rcu, got_names },
	{ "lookup", LIN_TAKES, run_lookup, spec_lookup, got_names },
	{ "get", LIN_NEEDS | LIN_TAKES, run_get, spec_get, NULL },
	{ "put", LIN_DROPS, run_put, spec_put, last_names },
	{ "put_and_lock", LIN_DROPS, run_put_and_lock, spec_put, last_names },
	{ "unlink", LIN_TAKES, run_unlink, spec_unlink, NULL },
	{ "count", LIN_POST, run_count, spec_count, NULL },
};

#define OP(name)	(1u << (name))
enum { GET_RCU, LOOKUP, GET, PUT, PUT_AND_LOCK, UNLINK, COUNT };

static const struct lin_init inits[] = {
	{ "coll", "in the slot, which holds the only reference", .keys = { 0 },
	  .mode = COLLECTION,
	  .ops = OP(GET_RCU) | OP(LOOKUP) | OP(GET) | OP(PUT) | OP(UNLINK) },
	{ "coll+2", "in the slot, which holds a reference; T1 and T2 hold one each",
	  .mode = COLLECTION, .held = { 1, 1 },
	  .ops = OP(GET_RCU) | OP(LOOKUP) | OP(GET) | OP(PUT) | OP(UNLINK) },
	{ "owner1", "in the slot, which holds none; T1 owns the only reference",
	  .mode = SLOT_OWNERS, .held = { 1 },
	  .ops = OP(GET_RCU) | OP(LOOKUP) | OP(GET) | OP(PUT_AND_LOCK) },
	{ "owners2", "in the slot, which holds none; T1 and T2 own one each",
	  .mode = SLOT_OWNERS, .held = { 1, 1 },
	  .ops = OP(GET_RCU) | OP(LOOKUP) | OP(GET) | OP(PUT_AND_LOCK) },
	{ "owners3", "in the slot, which holds none; T1, T2 and T3 own one each",
	  .mode = SLOT_OWNERS, .held = { 1, 1, 1 },
	  .ops = OP(GET_RCU) | OP(LOOKUP) | OP(GET) | OP(PUT_AND_LOCK) },
	{ "dying", "count 0, still reachable under RCU (before its grace period)",
	  .mode = DYING, .ops = OP(GET_RCU) },
};

static void setup(const struct lin_init *init, struct lin_ctx *ctx[])
{
	int t, i;

	lobj_cachep = kmem_cache_create("lobj", sizeof(struct lobj), 0, 0, NULL);
	obj = kmem_cache_alloc(lobj_cachep, GFP_KERNEL);
	spin_lock_init(&lock);
	slot_ref = init->mode == COLLECTION;
	released = false;
	atomic_set(&obj->ref.count, slot_ref);	/* the slot's, or none */
	for (t = 0; t < RACE_MAX_THREADS; t++)
		for (i = 0; i < init->held[t]; i++) {
			atomic_inc(&obj->ref.count);
			lin_hold(ctx[t + 1], obj, 0);
		}
	refcount_watch(&obj->ref.count);	/* 0 is final, dying too */
	RCU_INIT_POINTER(slot, obj);
}

/* Drop every reference left; free the object once none is (else a leak). */
static void teardown(struct lin_ctx *ctx[], int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		while (lin_unhold(ctx[i], 0))
			if (refcount_put(&obj->ref))
				release(obj);
	if (slot_ref && refcount_put(&obj->ref))
		release(obj);
	if (!released && !refcount_read(&obj->ref))
		release(obj);		/* dying from the start */
	rcu_barrier();
	kmem_cache_destroy(lobj_cachep);
}

static void model_init(void *model, const struct lin_init *init)
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

LIN_SPEC(refcount_spec) = {
	.name		= "refcount",
	.summary	= "get_rcu, lookup under the lock, get, put, put_and_lock, "
			  "unlink on one object in a slot that holds a reference, "
			  "or none, or whose count is already 0",
	.ops		= ops,
	.nr_ops		= ARRAY_SIZE(ops),
	.inits		= inits,
	.nr_inits	= ARRAY_SIZE(inits),
	.setup		= setup,
	.teardown	= teardown,
	.model_size	= sizeof(struct rc_model),
	.model_init	= model_init,
	.random		= 48,		/* cheap: a second each, with the pairs */
};
