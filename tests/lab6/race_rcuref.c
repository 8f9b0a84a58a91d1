// SPDX-License-Identifier: GPL-2.0
/*
 * race_rcuref.c - lab 6's race scenarios (see common/race/scenario.h).
 *
 * The count's own races, each started where it happens: an object with
 * one reference whose owner drops it while readers take theirs, and
 * counts set by the scenario next to a zone's edge (MAXREF, the dead
 * zone) -- the reproducer never counts to 2^31.
 *
 *   mark_dead_race      must hold: the owner's last put against a reader's
 *                       get and put.  The reader's get may land after the
 *                       owner's subtraction (NOREF) and before its
 *                       compare-and-exchange: then the owner's mark-dead
 *                       fails and the reader's put is the one that frees.
 *                       Exactly one put returns true, nothing WARNs (the
 *                       2023 slow path, which read the count again, WARNed
 *                       "imbalanced put" here), and nothing is touched
 *                       after its grace period (the put's preempt_disable
 *                       holds it off).  Witness: the reader's put is the
 *                       last
 *   get_in_dead_zone    must hold: the owner's last put against two readers;
 *                       a get that lands after the mark-dead moves the count
 *                       to DEAD + 1 (+ 2), fails, and puts DEAD back: when
 *                       the object is freed its count is DEAD exactly.
 *                       Witness: both readers' gets fail
 *   saturation_vs_puts  must hold: a count one short of MAXREF, two gets and
 *                       a put: either the put comes in time and the count
 *                       ends at MAXREF without a WARN, or it saturates:
 *                       SATURATED, with a WARN per get that saw it, and no
 *                       put brings it back.  Witness: it saturates
 *   imbalanced_put      must hold: one reference put twice.  Exactly one
 *                       WARN, the count ends DEAD, at most one put returns
 *                       true.  Witness: neither does -- the second put lands
 *                       between the first one's subtraction and its
 *                       mark-dead, and the object leaks (as the kernel's does)
 *   put_orders_accesses must hold, weak memory: two holders each write
 *                       their own field, then put; the put that returns true
 *                       reads both.  It must see both writes: release on
 *                       every put, acquire on the last.  Witness: T1's put
 *                       is the last
 *
 * And the two races themselves, as demos (test-local broken puts, shown by
 * make race-6 with their timelines, never graded):
 *
 *   deconstruction_race the owner's put without preempt_disable(): the
 *                       reader's get and put mark the count dead between
 *                       its subtraction and its mark-dead, the grace period
 *                       ends, the free runs, and the owner's
 *                       compare-and-exchange writes freed memory
 *   mark_dead_store     the owner's put marks the count dead with a store:
 *                       the reader's get that came in after its subtraction,
 *                       and that get's put, which found NOREF and marked it
 *                       dead first, are overwritten; both puts return true
 *                       and the object is freed twice
 */
#include <stdbool.h>
#include <stdio.h>

#include "bug.h"
#include "preempt.h"
#include "race/scenario.h"
#include "rcupdate.h"
#include "rcuref.h"
#include "rwonce.h"
#include "slab.h"

struct robj {
	rcuref_t ref;
	int payload;
	struct rcu_head rcu;
};

static struct kmem_cache *robj_cachep;
static struct robj *obj;
static struct robj *published;	/* how readers find obj (RCU) */
static int releases;		/* puts that returned true */
static bool reader_released;	/* a reader's put was the last */
static int failed_gets;		/* readers' gets that failed */
static unsigned int count_at_free;

static unsigned int raw(rcuref_t *ref)
{
	return (unsigned int)__atomic_load_n(&ref->refcnt.counter, __ATOMIC_RELAXED);
}

/* After the grace period: note the count the object dies with, free it. */
static void robj_free_rcu(struct rcu_head *head)
{
	struct robj *o = container_of(head, struct robj, rcu);

	count_at_free = raw(&o->ref);
	kmem_cache_free(robj_cachep, o);
}

/* Drop a reference; the put that returns true frees through call_rcu. */
static bool robj_put(struct robj *o)
{
	if (!rcuref_put(&o->ref))
		return false;
	releases++;
	call_rcu(&o->rcu, robj_free_rcu);
	return true;
}

static void setup(void)
{
	robj_cachep = kmem_cache_create("robj", sizeof(struct robj), 0, 0, NULL);
	obj = kmem_cache_alloc(robj_cachep, GFP_KERNEL);
	rcuref_init(&obj->ref, 1);		/* the owner's reference */
	obj->payload = 42;
	RCU_INIT_POINTER(published, obj);
	releases = 0;
	reader_released = false;
	failed_gets = 0;
	count_at_free = 0;
}

static void teardown(void)
{
	rcu_barrier();
	kmem_cache_destroy(robj_cachep);
}

/* T1: the owner unpublishes the object, then drops its reference. */
static void owner_put(void)
{
	rcu_assign_pointer(published, NULL);
	robj_put(obj);
}

/* A reader: find the object under RCU, take a reference, use it, drop it. */
static void reader(void)
{
	struct robj *o;
	bool got = false;

	rcu_read_lock();
	o = rcu_dereference(published);
	if (o)
		got = rcuref_get(&o->ref);
	rcu_read_unlock();
	if (!o)
		return;
	if (!got) {
		failed_gets++;
		return;
	}
	(void)READ_ONCE(o->payload);	/* ours until we put it */
	if (robj_put(o))
		reader_released = true;
}

static const char *one_release(void)
{
	static char msg[128];

	if (releases != 1) {
		snprintf(msg, sizeof(msg), "%d puts returned true: exactly one "
			 "must, the one that marks the count DEAD", releases);
		return msg;
	}
	return NULL;
}

static bool reader_put_last(void)
{
	return reader_released;
}

/* Hint: Exactly one put returns true, the one whose compare-and-exchange found
 * NOREF, and the put keeps its object alive until it returns (rcuref.h,
 * rcuref_put; the handout's "The mark-dead race" and "the deconstruction
 * race").
 */
RACE_SCENARIO(mark_dead_race) = {
	.name     = "mark_dead_race",
	.summary  = "the owner's last rcuref_put against a reader's rcuref_get "
		    "and rcuref_put",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup,
	RACE_THREADS(owner_put, reader),
	.check    = one_release,
	.witness  = reader_put_last,
	.outcome  = "T2's get takes a reference and T2's put is the one that "
		    "returns true",
	.teardown = teardown,
	.bound    = 2,
};

/*
 * rcuref_put() without its preempt_disable(): the student's slow path,
 * called from outside any read-side section.
 */
static bool put_preemptible(rcuref_t *ref)
{
	int cnt = atomic_sub_return_release(1, &ref->refcnt);

	if (cnt >= 0)
		return false;
	return rcuref_put_slowpath(ref, (unsigned int)cnt);
}

/*
 * rcuref_put() whose slow path marks the count dead with a plain store: a
 * get that came in after the subtraction is overwritten.
 */
static bool put_store_dead(rcuref_t *ref)
{
	bool released = false;

	preempt_disable();
	if (atomic_sub_return_release(1, &ref->refcnt) == (int)RCUREF_NOREF) {
		atomic_set(&ref->refcnt, (int)RCUREF_DEAD);
		released = true;
	}
	preempt_enable();
	return released;
}

/* The demos' free: the kit's slab, not this file, notices a second one. */
static void robj_free_plain(struct rcu_head *head)
{
	kmem_cache_free(robj_cachep, container_of(head, struct robj, rcu));
}

/* T1 of the demos: the owner's put is one of the broken ones above. */
static void owner_put_with(bool (*put)(rcuref_t *ref))
{
	rcu_assign_pointer(published, NULL);
	if (!put(&obj->ref))
		return;
	releases++;
	call_rcu(&obj->rcu, robj_free_plain);
}

static void owner_put_preemptible(void)
{
	owner_put_with(put_preemptible);
}

static void owner_put_store_dead(void)
{
	owner_put_with(put_store_dead);
}

/* Hint: A demo, not graded: the test's own put, without preempt_disable(),
 * reaches your slow path after the reader's get and put have freed the object
 * (the handout's "Why the put disables preemption").
 */
RACE_SCENARIO(deconstruction_race) = {
	.name     = "deconstruction_race",
	.summary  = "the owner's put without preempt_disable: the reader's get "
		    "and put free the object under its mark-dead",
	.expect   = RACE_DEMO,
	.verdict  = "use-after-free",
	.setup    = setup,
	RACE_THREADS(owner_put_preemptible, reader),
	.check    = one_release,
	.teardown = teardown,
	.bound    = 2,
};

/* Hint: A demo, not graded: the test's own put marks the count dead with a
 * plain store over the reader's get, and the object is freed twice (the
 * handout, end of "Why the put disables preemption").
 */
RACE_SCENARIO(mark_dead_store) = {
	.name     = "mark_dead_store",
	.summary  = "the owner's put marks the count dead with a store, over "
		    "the reader's get and put: two frees",
	.expect   = RACE_DEMO,
	.verdict  = "double-free",
	.setup    = setup,
	RACE_THREADS(owner_put_store_dead, reader),
	.check    = one_release,
	.teardown = teardown,
	.bound    = 2,
};

static const char *dead_at_free(void)
{
	static char msg[160];
	const char *wrong = one_release();

	if (wrong)
		return wrong;
	rcu_barrier();			/* the free has run: count_at_free */
	if (count_at_free != RCUREF_DEAD) {
		snprintf(msg, sizeof(msg), "the object was freed with its count "
			 "at %#x, not DEAD (%#x): a failed get must put DEAD "
			 "back", count_at_free, RCUREF_DEAD);
		return msg;
	}
	return NULL;
}

static bool both_failed(void)
{
	return failed_gets == 2;
}

/* Hint: Gets that land in the dead zone must fail and put DEAD back, so the
 * object is freed at DEAD: look at rcuref_get_slowpath()'s dead-zone branch
 * (rcuref.h, rcuref_get's Guarantees).
 */
RACE_SCENARIO(get_in_dead_zone) = {
	.name     = "get_in_dead_zone",
	.summary  = "the owner's last rcuref_put against two readers: gets that "
		    "land in the dead zone",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup,
	RACE_THREADS(owner_put, reader, reader),
	.check    = dead_at_free,
	.witness  = both_failed,
	.outcome  = "both readers find the object and both gets fail",
	.teardown = teardown,
	.bound    = 2,
};

/* --- a count next to MAXREF: saturation ------------------------------------- */

static rcuref_t big;			/* nobody frees it */
static int gets_failed, puts_true;

static void big_setup(void)
{
	/* MAXREF references: stored MAXREF - 1.  Two gets cross the edge. */
	atomic_set(&big.refcnt, (int)(RCUREF_MAXREF - 1));
	gets_failed = 0;
	puts_true = 0;
}

static void big_get(void)
{
	if (!rcuref_get(&big))
		gets_failed++;
}

static void big_put(void)
{
	if (rcuref_put(&big))
		puts_true++;
}

static const char *saturated_or_counted(void)
{
	static char msg[200];
	unsigned int c = raw(&big);
	long warns = race_warn_count();

	if (gets_failed || puts_true) {
		snprintf(msg, sizeof(msg), "%d get(s) failed and %d put(s) "
			 "returned true on a count near MAXREF: every get must "
			 "succeed, no put may", gets_failed, puts_true);
		return msg;
	}
	if (c == RCUREF_MAXREF && !warns)
		return NULL;		/* the put came in time: still counted */
	if (c == RCUREF_SATURATED && warns >= 1 && warns <= 2)
		return NULL;		/* saturated, and said so */
	snprintf(msg, sizeof(msg), "the count ended at %#x with %ld WARN(s): "
		 "expected MAXREF (%#x) without a WARN, or SATURATED (%#x) with "
		 "one WARN per get that saw it past MAXREF", c, warns,
		 RCUREF_MAXREF, RCUREF_SATURATED);
	return msg;
}

static bool saturated(void)
{
	return raw(&big) == RCUREF_SATURATED;
}

/* Hint: Around MAXREF a get whose slow path finds the count back in the valid
 * zone succeeds and changes nothing; one that finds it saturated WARNs and
 * stores SATURATED. Look at both slow paths' saturation branches (rcuref.h).
 */
RACE_SCENARIO(saturation_vs_puts) = {
	.name     = "saturation_vs_puts",
	.summary  = "two rcuref_get and an rcuref_put on a count one short of "
		    "MAXREF",
	.expect   = RACE_MUST_HOLD,
	.setup    = big_setup,
	RACE_THREADS(big_get, big_get, big_put),
	.check    = saturated_or_counted,
	.witness  = saturated,
	.outcome  = "the count saturates",
	.bound    = 2,
	.warns    = RACE_WARNS_CHECKED,
};

/* --- one reference put twice ------------------------------------------------- */

static rcuref_t once;			/* nobody frees it: the leak is the point */

static void once_setup(void)
{
	rcuref_init(&once, 1);
	puts_true = 0;
}

static void once_put(void)
{
	if (rcuref_put(&once))
		puts_true++;
}

static const char *one_warn_dead(void)
{
	static char msg[160];

	if (puts_true > 1)
		return "both puts of one reference returned true: the object "
		       "would be freed twice";
	if (raw(&once) != RCUREF_DEAD) {
		snprintf(msg, sizeof(msg), "the count ended at %#x, not DEAD "
			 "(%#x)", raw(&once), RCUREF_DEAD);
		return msg;
	}
	return NULL;
}

static bool neither_released(void)
{
	return puts_true == 0;
}

/* Hint: One reference put twice, the second maybe before the first's
 * mark-dead: exactly one WARN, nobody frees twice, the count ends DEAD.
 * rcuref_put_slowpath() decides on @cnt (rcuref.h).
 */
RACE_SCENARIO(imbalanced_put) = {
	.name     = "imbalanced_put",
	.summary  = "one reference put twice: exactly one WARN, the count "
		    "ends DEAD",
	.expect   = RACE_MUST_HOLD,
	.setup    = once_setup,
	RACE_THREADS(once_put, once_put),
	.check    = one_warn_dead,
	.witness  = neither_released,
	.outcome  = "neither put returns true: the second lands between the "
		    "first's subtraction and its mark-dead",
	.bound    = 2,
	.warns    = 1,
};

/* --- ordering: release on every put, acquire on the last --------------------- */

static struct {
	rcuref_t ref;
	int wrote[2];
} pair;
static int last_put;			/* 1 or 2: whose put returned true */
static int seen_other;			/* what that thread read of the other's */

static void pair_setup(void)
{
	rcuref_init(&pair.ref, 2);
	pair.wrote[0] = pair.wrote[1] = 0;
	last_put = 0;
	seen_other = -1;
}

static void holder(int me)
{
	WRITE_ONCE(pair.wrote[me - 1], 1);	/* while holding a reference */
	if (!rcuref_put(&pair.ref))
		return;
	last_put = me;
	seen_other = READ_ONCE(pair.wrote[2 - me]);	/* as a free would */
}

static void holder1(void) { holder(1); }
static void holder2(void) { holder(2); }

static const char *last_sees_all(void)
{
	static char msg[200];

	if (!last_put)
		return "no put returned true";
	if (seen_other != 1) {
		snprintf(msg, sizeof(msg), "T%d's put returned true, then T%d "
			 "read %d where T%d wrote 1 before its put: the other "
			 "put's release, or this one's acquire, is missing",
			 last_put, last_put, seen_other, 3 - last_put);
		return msg;
	}
	return NULL;
}

static bool t1_last(void)
{
	return last_put == 1;
}

/* Hint: Weak memory: the put that returns true must see every holder's writes.
 * Check the ordering of the subtraction and of the put that wins (the
 * handout's "The ordering argument").
 */
RACE_SCENARIO(put_orders_accesses) = {
	.name     = "put_orders_accesses",
	.summary  = "two holders write, then put; the last put must see both "
		    "writes (weak memory)",
	.expect   = RACE_MUST_HOLD,
	.memory   = RACE_MEMORY_WEAK,
	.setup    = pair_setup,
	RACE_THREADS(holder1, holder2),
	.check    = last_sees_all,
	.witness  = t1_last,
	.outcome  = "T1's put is the last",
	.bound    = 2,
};
