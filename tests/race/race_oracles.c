// SPDX-License-Identifier: GPL-2.0
/*
 * race_oracles.c - self-test scenarios of the oracles issue 8 added:
 * type-stable memory, WARNs counted per execution, the end-of-thread
 * oracle, and a spec of generated scenarios (test_race.py, Oracles, runs
 * them; every must-hold here must hold, every must-fail fail as pinned).
 *
 *   typesafe_read_inside    must hold: a reader inside rcu_read_lock reads
 *                           a type-stable object freed meanwhile, and a
 *                           get on it fails: both legal
 *   typesafe_read_outside   must fail (use-after-free): the same read after
 *                           rcu_read_unlock
 *   typesafe_write_inside   must fail (use-after-free): a WRITE_ONCE to the
 *                           freed object, inside the section
 *   warn_exactly_once       must hold, .warns = 1: one WARN per execution
 *   warn_twice_not_once     must fail (warn): two WARNs, .warns = 1
 *   ends_in_section         must fail (held-at-exit): rcu_read_lock, return
 *   ends_holding_lock       must fail (held-at-exit): spin_lock, return
 *   zero_inc_then_undo      must fail (warn): a get that increments a
 *                           watched count (refcount_watch.h) and takes the
 *                           increment back when it was 0, against the put
 *                           that brings it to 0: "0 is final"
 *   zero_unwatched          must hold: the same on a count nobody watches
 *                           (no oracle without a watch)
 *   lincheck:counter        generated: an atomic counter (holds) and a
 *                           read-then-set one (its scenarios fail:
 *                           test_race.py runs them by name)
 */
#include <stdbool.h>

#include "atomic.h"
#include "bug.h"
#include "race/lin.h"
#include "race/scenario.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"
#include "spinlock.h"

struct ts_obj {
	atomic_t count;
	int key;
};

static struct kmem_cache *ts_cachep;
static struct ts_obj *ts_published;
static bool ts_read_freed;

static void ts_setup(void)
{
	struct ts_obj *o;

	ts_cachep = kmem_cache_create("ts_obj", sizeof(struct ts_obj), 0,
				      SLAB_TYPESAFE_BY_RCU, NULL);
	o = kmem_cache_alloc(ts_cachep, GFP_KERNEL);
	atomic_set(&o->count, 1);
	o->key = 1;
	RCU_INIT_POINTER(ts_published, o);
	ts_read_freed = false;
}

static void ts_teardown(void)
{
	kmem_cache_destroy(ts_cachep);
}

/* T2: unpublish, put, free at once (type-stable: no grace period). */
static void ts_free(void)
{
	struct ts_obj *o = rcu_dereference_protected(ts_published, 1);

	rcu_assign_pointer(ts_published, NULL);
	if (atomic_dec_and_test(&o->count))
		kmem_cache_free(ts_cachep, o);
}

/*
 * T1: inside one section, read the object, try a compare-and-exchange
 * that cannot succeed, then a get; put what the get took.
 */
static void ts_reader_inside(void)
{
	struct ts_obj *o;

	rcu_read_lock();
	o = rcu_dereference(ts_published);
	if (o) {
		bool gone = !rcu_dereference(ts_published);
		int key = READ_ONCE(o->key);

		(void)atomic_cmpxchg(&o->count, 5, 6);	/* an update that fails */
		if (!atomic_inc_not_zero(&o->count))
			ts_read_freed = gone && key == 1;
		else if (atomic_dec_and_test(&o->count))
			kmem_cache_free(ts_cachep, o);
	}
	rcu_read_unlock();
}

static bool ts_witness(void)
{
	return ts_read_freed;
}

RACE_SCENARIO(typesafe_read_inside) = {
	.name     = "typesafe_read_inside",
	.summary  = "a type-stable object freed under a reader: its reads and a failed get are legal",
	.expect   = RACE_MUST_HOLD,
	.setup    = ts_setup,
	RACE_THREADS(ts_reader_inside, ts_free),
	.witness  = ts_witness,
	.outcome  = "T1 reads the object after T2 freed it, and its get fails",
	.teardown = ts_teardown,
};

/* T1: find it inside a section, read it after leaving the section. */
static void ts_reader_outside(void)
{
	struct ts_obj *o;

	rcu_read_lock();
	o = rcu_dereference(ts_published);
	rcu_read_unlock();
	if (o)
		(void)READ_ONCE(o->key);
}

RACE_SCENARIO(typesafe_read_outside) = {
	.name     = "typesafe_read_outside",
	.summary  = "a freed type-stable object read outside any read-side section",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "use-after-free",
	.setup    = ts_setup,
	RACE_THREADS(ts_reader_outside, ts_free),
	.teardown = ts_teardown,
};

/* T1: inside a section, write the object it found. */
static void ts_writer_inside(void)
{
	struct ts_obj *o;

	rcu_read_lock();
	o = rcu_dereference(ts_published);
	if (o)
		WRITE_ONCE(o->key, 2);
	rcu_read_unlock();
}

RACE_SCENARIO(typesafe_write_inside) = {
	.name     = "typesafe_write_inside",
	.summary  = "a freed type-stable object written inside a read-side section",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "use-after-free",
	.setup    = ts_setup,
	RACE_THREADS(ts_writer_inside, ts_free),
	.teardown = ts_teardown,
};

/* --- WARNs counted per execution ------------------------------------------- */

static atomic_t warned;

static void warn_setup(void)
{
	atomic_set(&warned, 0);
	warn_set_quiet(1);
}

static void warn_once(void)
{
	WARN_ON(atomic_inc_return(&warned) == 1);
}

static void warn_always(void)
{
	atomic_inc(&warned);
	WARN_ON(1);
}

static bool warned_twice(void)
{
	return atomic_read(&warned) == 2;
}

RACE_SCENARIO(warn_exactly_once) = {
	.name     = "warn_exactly_once",
	.summary  = "of two threads exactly one WARNs: .warns = 1 holds",
	.expect   = RACE_MUST_HOLD,
	.setup    = warn_setup,
	RACE_THREADS(warn_once, warn_once),
	.witness  = warned_twice,
	.outcome  = "both threads ran",
	.warns    = 1,
};

RACE_SCENARIO(warn_twice_not_once) = {
	.name     = "warn_twice_not_once",
	.summary  = "both threads WARN, the scenario expects one",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "warn",
	.setup    = warn_setup,
	RACE_THREADS(warn_always, warn_always),
	.warns    = 1,
};

/* --- the end-of-thread oracle ------------------------------------------------- */

static DEFINE_SPINLOCK(left_lock);
static atomic_t left_count;

static void left_setup(void)
{
	spin_lock_init(&left_lock);
	atomic_set(&left_count, 0);
}

static void stays_in_section(void)
{
	rcu_read_lock();
	atomic_inc(&left_count);
}

static void stays_holding(void)
{
	spin_lock(&left_lock);
	atomic_inc(&left_count);
}

static void just_counts(void)
{
	atomic_inc(&left_count);
}

static void unlock_left(void)
{
	if (spin_is_locked(&left_lock))
		spin_unlock(&left_lock);
}

RACE_SCENARIO(ends_in_section) = {
	.name     = "ends_in_section",
	.summary  = "T1 returns inside an RCU read-side section",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "held-at-exit",
	.setup    = left_setup,
	RACE_THREADS(stays_in_section, just_counts),
};

RACE_SCENARIO(ends_holding_lock) = {
	.name     = "ends_holding_lock",
	.summary  = "T1 returns holding a spinlock",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "held-at-exit",
	.setup    = left_setup,
	RACE_THREADS(stays_holding, just_counts),
	.teardown = unlock_left,
};

/* --- 0 is final: a watched count never leaves 0 -------------------------------- */

static atomic_t zcount;
static bool zwatch, zrevived;

static void zero_setup(void)
{
	atomic_set(&zcount, 1);
	if (zwatch)
		refcount_watch(&zcount);
	zrevived = false;
}

static void zero_watched_setup(void)
{
	zwatch = true;
	zero_setup();
}

static void zero_unwatched_setup(void)
{
	zwatch = false;
	zero_setup();
}

/* T1: the last put. */
static void zero_put(void)
{
	atomic_dec_and_test(&zcount);
}

/* T2: a get that adds first and takes it back when the count was 0. */
static void zero_get_undo(void)
{
	if (atomic_inc_return(&zcount) == 1) {
		zrevived = true;
		atomic_dec(&zcount);
	}
}

static bool zero_was_revived(void)
{
	return zrevived;
}

RACE_SCENARIO(zero_inc_then_undo) = {
	.name     = "zero_inc_then_undo",
	.summary  = "an increment of a watched count from 0, taken back at once",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "warn",
	.setup    = zero_watched_setup,
	RACE_THREADS(zero_put, zero_get_undo),
};

RACE_SCENARIO(zero_unwatched) = {
	.name     = "zero_unwatched",
	.summary  = "the same on a count nobody watches",
	.expect   = RACE_MUST_HOLD,
	.setup    = zero_unwatched_setup,
	RACE_THREADS(zero_put, zero_get_undo),
	.witness  = zero_was_revived,
	.outcome  = "T2 increments the count from 0",
};

/* --- a spec: a counter, atomic or read-then-set --------------------------------- */

static atomic_t counter;

static long run_inc(struct lin_ctx *ctx __maybe_unused, int key __maybe_unused)
{
	int old = atomic_read(&counter), seen;

	/* a cmpxchg loop: two steps or more, one atomic update */
	while ((seen = atomic_cmpxchg(&counter, old, old + 1)) != old)
		old = seen;
	return old;				/* the value it replaced */
}

static long run_racy_inc(struct lin_ctx *ctx __maybe_unused, int key __maybe_unused)
{
	int old = atomic_read(&counter);

	atomic_set(&counter, old + 1);			/* a lost update, maybe */
	return old;
}

static long run_read(struct lin_ctx *ctx __maybe_unused, int key __maybe_unused)
{
	return atomic_read(&counter);
}

static long spec_inc(void *model, int thread __maybe_unused, int key __maybe_unused)
{
	return (*(long *)model)++;
}

static long spec_read(void *model, int thread __maybe_unused, int key __maybe_unused)
{
	return *(long *)model;
}

static const struct lin_op counter_ops[] = {
	{ "inc", 0, run_inc, spec_inc, NULL },
	{ "racy_inc", 0, run_racy_inc, spec_inc, NULL },
	{ "read", LIN_POST, run_read, spec_read, NULL },
};

static const struct lin_init counter_inits[] = {
	{ "atomic", "0, incremented atomically", .ops = 1u << 0 | 1u << 2 },
	{ "racy", "0, incremented by a read and a set", .ops = 1u << 1 | 1u << 2 },
};

static void counter_setup(const struct lin_init *init __maybe_unused,
			  struct lin_ctx *ctx[] __maybe_unused)
{
	atomic_set(&counter, 0);
}

static void counter_teardown(struct lin_ctx *ctx[] __maybe_unused,
			     int nr __maybe_unused)
{
}

static void counter_model(void *model __maybe_unused,
			  const struct lin_init *init __maybe_unused)
{
}

LIN_SPEC(counter_spec) = {
	.name		= "counter",
	.summary	= "an atomic counter and a read-then-set one (the self-test "
			  "of the linearizability check)",
	.ops		= counter_ops,
	.nr_ops		= ARRAY_SIZE(counter_ops),
	.inits		= counter_inits,
	.nr_inits	= ARRAY_SIZE(counter_inits),
	.setup		= counter_setup,
	.teardown	= counter_teardown,
	.model_size	= sizeof(long),
	.model_init	= counter_model,
	.random		= 6,
};
