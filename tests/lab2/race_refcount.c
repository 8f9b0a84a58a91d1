// SPDX-License-Identifier: GPL-2.0
/*
 * race_refcount.c - lab 2's race scenarios (see common/race/scenario.h).
 *
 *   get_rcu_vs_last_put     must hold: a reader's refcount_get_rcu against
 *                           the owner's last put; in no interleaving may the
 *                           count leave 0 again or freed memory be touched.
 *                           Witness: the reader's get succeeds and its put
 *                           is the last (it kept the object alive)
 *   lookup_vs_put_and_lock  must hold: a lookup that takes its reference
 *                           under the lock against refcount_put_and_lock;
 *                           the lookup never sees 0 (no "addition on 0").
 *                           Witness: the lookup finds the object and its
 *                           put is the last
 *   read_then_inc           demo: lab 1's check-then-increment, written in
 *                           this file, against the last put: it shows the
 *                           interleaving get_rcu closes (a second release,
 *                           hence a double free), and grades nothing
 *   two_gets_on_zero        must hold: two refcount_get on a count of 0 (a
 *                           bug of the caller's, which the WARN exists to
 *                           show): exactly one increment is from 0, so
 *                           exactly one WARN fires (.warns = 1)
 *   put_and_lock_fast_path  must hold: two refcount_put_and_lock while a
 *                           third reference stays: the count never drops
 *                           to 1 within either call, so neither may take
 *                           the lock
 * The generated scenarios (race_lin.c) check the rest of the API against
 * its specification.
 */
#include <stdbool.h>
#include <stdio.h>

#include "bug.h"
#include "race/scenario.h"
#include "rcupdate.h"
#include "refcount.h"
#include "rwonce.h"
#include "slab.h"
#include "spinlock.h"

struct robj {
	refcount_t ref;
	int payload;
	struct rcu_head rcu;
};

static struct kmem_cache *robj_cachep;
static struct robj *obj;
static struct robj *published;	/* how a reader finds obj (RCU) */
static atomic_t releases;	/* puts that brought the count to 0 */
static DEFINE_SPINLOCK(lock);
static struct robj *slot;	/* under lock */
static bool reader_released;	/* the reader's put was the last */

static void robj_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(robj_cachep, container_of(head, struct robj, rcu));
}

/* Drop a reference; the last one frees after a grace period.  True if last. */
static bool robj_put(struct robj *o)
{
	if (!refcount_put(&o->ref))
		return false;
	atomic_inc(&releases);
	call_rcu(&o->rcu, robj_free_rcu);
	return true;
}

static void setup(void)
{
	robj_cachep = kmem_cache_create("robj", sizeof(struct robj), 0, 0, NULL);
	obj = kmem_cache_alloc(robj_cachep, GFP_KERNEL);
	refcount_init(&obj->ref);		/* the owner's reference */
	refcount_watch(&obj->ref.count);	/* 0 is final: refcount_watch.h */
	obj->payload = 42;
	RCU_INIT_POINTER(published, obj);
	atomic_set(&releases, 0);
	spin_lock_init(&lock);
	slot = NULL;
	reader_released = false;
}

static void teardown(void)
{
	rcu_barrier();
	kmem_cache_destroy(robj_cachep);
}

/* T1: find the object without a lock (under RCU); take a reference, use it. */
static void reader_get_rcu(void)
{
	struct robj *o;

	rcu_read_lock();
	o = rcu_dereference(published);
	if (o && !refcount_get_rcu(&o->ref))
		o = NULL;		/* a miss: it is being freed */
	rcu_read_unlock();
	if (!o)
		return;
	(void)READ_ONCE(o->payload);	/* ours until we put it */
	reader_released = robj_put(o);
}

/* T2: the owner unpublishes the object, then drops its reference. */
static void owner_put(void)
{
	rcu_assign_pointer(published, NULL);
	robj_put(obj);
}

static const char *one_release(void)
{
	if (atomic_read(&releases) != 1)
		return "the count reached 0 more than once: a get took a reference "
		       "to an object whose count was already 0";
	return NULL;
}

/* The witness: the last reference, and the release, were the reader's. */
static bool reader_put_last(void)
{
	return reader_released;
}

RACE_SCENARIO(get_rcu_vs_last_put) = {
	.name     = "get_rcu_vs_last_put",
	.summary  = "refcount_get_rcu under RCU against the owner's last put",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup,
	RACE_THREADS(reader_get_rcu, owner_put),
	.check    = one_release,
	.witness  = reader_put_last,
	.outcome  = "T1's refcount_get_rcu takes a reference, the owner puts "
		    "its own, and T1's put is the last",
	.teardown = teardown,
	.bound    = 2,
};

/* Lab 1's get: check, then increment: two steps. */
static int racy_get(refcount_t *rc)
{
	if (!atomic_read(&rc->count))
		return 0;
	atomic_inc(&rc->count);
	return 1;
}

static void reader_read_then_inc(void)
{
	struct robj *o;

	rcu_read_lock();
	o = rcu_dereference(published);
	if (o && !racy_get(&o->ref))
		o = NULL;
	rcu_read_unlock();
	if (!o)
		return;
	(void)READ_ONCE(o->payload);
	robj_put(o);
}

RACE_SCENARIO(read_then_inc) = {
	.name     = "read_then_inc",
	.summary  = "lab 1's check-then-increment get (test code) against the "
		    "last put",
	.expect   = RACE_DEMO,
	.verdict  = "double-free",
	.setup    = setup,
	RACE_THREADS(reader_read_then_inc, owner_put),
	.check    = one_release,
	.teardown = teardown,
	.bound    = 2,
};

/*
 * The object lives in a slot found under the lock; the slot owns no
 * reference.  Whoever drops the last reference unlinks it under the lock
 * that put_and_lock returns with, then frees it at once: no lookup can
 * find it any more.
 */
static void slot_setup(void)
{
	setup();
	refcount_get(&obj->ref);	/* T1's and T2's references */
	slot = obj;
}

/* Drop a reference; the last one unlinks and frees.  True if last. */
static bool slot_put(struct robj *o)
{
	if (!refcount_put_and_lock(&o->ref, &lock))
		return false;
	WRITE_ONCE(slot, NULL);
	spin_unlock(&lock);
	atomic_inc(&releases);
	kmem_cache_free(robj_cachep, o);
	return true;
}

/* T1, T2: drop the reference they own (obj is never published). */
static void slot_owner(void)
{
	slot_put(obj);
}

/* T3: look the object up under the lock, use it, drop it. */
static void slot_lookup(void)
{
	struct robj *o;

	spin_lock(&lock);
	o = READ_ONCE(slot);
	if (o)
		refcount_get(&o->ref);	/* WARNs if it saw 0 */
	spin_unlock(&lock);
	if (!o)
		return;
	(void)READ_ONCE(o->payload);
	reader_released = slot_put(o);
}

static void slot_teardown(void)
{
	teardown();
}

static const char *slot_check(void)
{
	if (atomic_read(&releases) != 1)
		return "the object was not released exactly once";
	return NULL;
}

RACE_SCENARIO(lookup_vs_put_and_lock) = {
	.name     = "lookup_vs_put_and_lock",
	.summary  = "a lookup under the lock against two refcount_put_and_lock",
	.expect   = RACE_MUST_HOLD,
	.setup    = slot_setup,
	RACE_THREADS(slot_lookup, slot_owner, slot_owner),
	.check    = slot_check,
	.witness  = reader_put_last,
	.outcome  = "T3 finds the object under the lock, takes a reference, "
		    "and its put is the last",
	.teardown = slot_teardown,
	.bound    = 2,
};

/* --- an increment from 0 WARNs, exactly once ------------------------------- */

static refcount_t zero;		/* a count of 0, in memory nobody frees */

static void zero_setup(void)
{
	atomic_set(&zero.count, 0);
}

static void get_zero(void)
{
	refcount_get(&zero);
}

static const char *both_counted(void)
{
	if (refcount_read(&zero) != 2)
		return "two refcount_get calls on a count of 0 did not leave 2";
	return NULL;
}

static bool both_done(void)
{
	return refcount_read(&zero) == 2;
}

RACE_SCENARIO(two_gets_on_zero) = {
	.name     = "two_gets_on_zero",
	.summary  = "two refcount_get on a count of 0: exactly one increment is "
		    "from 0, so exactly one WARN",
	.expect   = RACE_MUST_HOLD,
	.setup    = zero_setup,
	RACE_THREADS(get_zero, get_zero),
	.check    = both_counted,
	.witness  = both_done,
	.outcome  = "both gets increment the count",
	.bound    = 2,
	.warns    = 1,
};

/* --- put_and_lock's fast path takes no lock --------------------------------- */

static refcount_t three;		/* T1's, T2's and an owner's reference */
static DEFINE_SPINLOCK(fast_lock);
static int fast_last;			/* put_and_lock calls that returned 1 */

static void fast_setup(void)
{
	atomic_set(&three.count, 3);
	spin_lock_init(&fast_lock);
	fast_last = 0;
}

static void put_and_lock_one(void)
{
	if (refcount_put_and_lock(&three, &fast_lock)) {
		fast_last++;
		spin_unlock(&fast_lock);
	}
}

static const char *no_lock_taken(void)
{
	static char msg[160];

	if (fast_last)
		return "refcount_put_and_lock returned 1 though the count never "
		       "dropped below 1";
	if (fast_lock.nr_acquired) {
		snprintf(msg, sizeof(msg), "the lock was taken %lu times, though "
			 "the count stayed above 1 in both calls: the fast path "
			 "must not touch the lock", fast_lock.nr_acquired);
		return msg;
	}
	if (refcount_read(&three) != 1)
		return "two puts from 3 did not leave 1";
	return NULL;
}

static bool both_put(void)
{
	return refcount_read(&three) == 1;
}

RACE_SCENARIO(put_and_lock_fast_path) = {
	.name     = "put_and_lock_fast_path",
	.summary  = "two refcount_put_and_lock from 3: the count stays above 1, "
		    "so the lock is never taken",
	.expect   = RACE_MUST_HOLD,
	.setup    = fast_setup,
	RACE_THREADS(put_and_lock_one, put_and_lock_one),
	.check    = no_lock_taken,
	.witness  = both_put,
	.outcome  = "both puts decrement the count",
	.bound    = 2,
};
