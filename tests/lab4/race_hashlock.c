// SPDX-License-Identifier: GPL-2.0
/*
 * race_hashlock.c - lab 4's race scenarios (see common/race/scenario.h);
 * lab 2's run too (lab.tests), against this back end.
 *
 *   irq_put_same_bucket  must hold: T1 gets and puts a count while its
 *                        interrupt handler puts another count of the same
 *                        bucket: with spin_lock_irqsave the handler never
 *                        runs while T1 holds the bucket lock
 *   irq_plain_spin_lock  must fail (deadlock): the same handler, but T1
 *                        holds the bucket lock taken with plain spin_lock:
 *                        the handler spins on the lock its own thread holds
 *   mixing               must fail (check): refcount_get/put against the
 *                        seed's generic refcount_put (atomic_dec_and_test,
 *                        under the arch's own hashed lock): one count, two
 *                        locks, a lost update
 *   dec_get_get_rcu      must hold: refcount_dec, refcount_get and
 *                        refcount_get_rcu on one count lose nothing
 *   up_one_cpu           must hold: the UP build (interrupts off, no lock)
 *                        on one simulated CPU, with an interrupt
 *   up_code_on_smp       must fail (check): the same UP code, a CPU per
 *                        thread: interrupts off excludes nobody
 *   irq_every_op         must hold: T1 calls every operation on a count of
 *                        the bucket its interrupt handler uses -- under
 *                        lockdep's irq-safety rule (common/lockdep.h) a
 *                        bucket lock any of them holds with interrupts on
 *                        is the verdict "inconsistent-lock-state", whether
 *                        or not the interrupt lands in the window
 *
 * Counts live at fixed offsets of an aligned block (lab4_count), so their
 * buckets, and so every schedule, are the same in every run; lab 2's
 * scenarios, in this binary too, get their objects from the slab, which
 * RACE_HASHED_ADDRESSES() makes start on 2 KiB boundaries.
 */
#include <stdbool.h>

#include "configs.h"
#include "race/scenario.h"
#include "rwonce.h"

RACE_HASHED_ADDRESSES();

#define OFF_A	(256 + 16)	/* a and b share bucket 1 ... */
#define OFF_B	(256 + 128)
#define OFF_C	(512 + 16)	/* ... c is in bucket 2 */

static refcount_t *a, *b, *c;
static bool handled, t1_holds, handled_while_held;
static const struct lab4_config *cfg;	/* the build T1 and IRQ1 call */

static void setup(void)
{
	cfg = &lab4_configs[LAB4_SMP];
	a = lab4_count(OFF_A);
	b = lab4_count(OFF_B);
	c = lab4_count(OFF_C);
	refcount_init(a);
	refcount_init(b);
	refcount_get(b);		/* the handler's put leaves b at 1 */
	refcount_init(c);
	refcount_watch(&a->count);	/* 0 is final (refcount_watch.h) */
	refcount_watch(&b->count);
	refcount_watch(&c->count);
	handled = t1_holds = handled_while_held = false;
}

/* T1: take a reference to a, work with it, drop it. */
static void get_work_put(void)
{
	cfg->get(a);
	t1_holds = true;
	race_point("work");
	t1_holds = false;
	cfg->put(a);
}

/* T2: another CPU busy with another bucket. */
static void other_bucket(void)
{
	if (refcount_get_rcu(c))
		refcount_put(c);
}

/* IRQ1: T1's interrupt handler puts b, which shares a's bucket. */
static void put_in_irq(void)
{
	handled_while_held = t1_holds;
	cfg->put(b);
	handled = true;
}

static const char *counts_back(void)
{
	if (refcount_read(a) != 1 || refcount_read(c) != 1)
		return "a get/put pair did not leave its count where it was";
	if (refcount_read(b) != 2 - handled)
		return "the handler's put of b was lost";
	return NULL;
}

static bool irq_while_held(void)
{
	return handled_while_held;
}

RACE_SCENARIO(irq_put_same_bucket) = {
	.name     = "irq_put_same_bucket",
	.summary  = "T1's interrupt puts a count of the bucket T1 uses "
		    "(spin_lock_irqsave)",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup,
	RACE_THREADS(get_work_put, other_bucket),
	RACE_IRQ(1, put_in_irq),
	.check    = counts_back,
	.witness  = irq_while_held,
	.outcome  = "IRQ1 puts b while T1 holds its reference to a",
};

/* T1: a caller that takes a's bucket lock with plain spin_lock. */
static void bucket_by_spin_lock(void)
{
	spinlock_t *bucket = &cfg->locks[lab4_bucket(cfg, a)];

	spin_lock(bucket);		/* interrupts still on */
	race_point("holds");
	spin_unlock(bucket);
}

RACE_SCENARIO(irq_plain_spin_lock) = {
	.name     = "irq_plain_spin_lock",
	.summary  = "T1 holds a's bucket lock with interrupts on; its "
		    "interrupt puts b, of the same bucket",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "deadlock",
	.setup    = setup,
	RACE_THREADS(bucket_by_spin_lock, other_bucket),
	RACE_IRQ(1, put_in_irq),
	.check    = counts_back,
	.lockdep_off = true,	/* the harm itself, which lockdep foresees */
};

/* T1: every operation, on a, whose bucket IRQ1's put of b takes. */
static DEFINE_SPINLOCK(a_lock);		/* what put_and_lock takes on the last */
static bool a_released;

static void every_op(void)
{
	cfg->get(a);				/* 2 */
	t1_holds = true;
	race_point("work");			/* interrupts on: IRQ1 may come */
	if (cfg->get_rcu(a))			/* 3 */
		cfg->dec(a);			/* 2 */
	cfg->put(a);				/* 1 */
	cfg->get(a);				/* 2 */
	cfg->put_and_lock(a, &a_lock);		/* 1: the fast path */
	t1_holds = false;
	a_released = cfg->put_and_lock(a, &a_lock);	/* 0: the slow path */
	if (a_released)
		spin_unlock(&a_lock);
}

static void every_op_setup(void)
{
	setup();
	spin_lock_init(&a_lock);
	a_released = false;
}

static const char *a_released_once(void)
{
	if (!a_released || refcount_read(a) != 0)
		return "the last put_and_lock of a did not return 1 with a at 0";
	if (refcount_read(b) != 2 - handled)
		return "the handler's put of b was lost";
	return NULL;
}

RACE_SCENARIO(irq_every_op) = {
	.name     = "irq_every_op",
	.summary  = "every operation on a count of the bucket T1's interrupt "
		    "uses, under lockdep's irq-safety rule",
	.expect   = RACE_MUST_HOLD,
	.setup    = every_op_setup,
	RACE_THREADS(every_op, other_bucket),
	RACE_IRQ(1, put_in_irq),
	.check    = a_released_once,
	.witness  = irq_while_held,
	.outcome  = "IRQ1 puts b while T1 holds its reference to a",
	.bound    = 1,
};

/* T2: the seed's generic refcount_put: the arch's atomic_dec_and_test. */
static void generic_put(void)
{
	if (atomic_dec_and_test(&b->count))
		WRITE_ONCE(handled, true);	/* never: b stays above 0 */
}

/* T1: get and put b through lab 4's back end. */
static void get_put_b(void)
{
	refcount_get(b);
	refcount_put(b);
}

static const char *b_is_one(void)
{
	if (refcount_read(b) != 1)
		return "b went 2 -> (get, put, atomic_dec_and_test) -> not 1: an "
		       "update was lost -- the get and put hold b's bucket lock, "
		       "atomic_dec_and_test the arch's own hashed lock: one "
		       "count, two locks";
	return NULL;
}

RACE_SCENARIO(mixing) = {
	.name     = "mixing",
	.summary  = "refcount_get/put against atomic_dec_and_test on one "
		    "count: two locks",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "check",
	.setup    = setup,
	RACE_THREADS(get_put_b, generic_put),
	.check    = b_is_one,
};

static int found;		/* what T3's get_rcu found */

static void dec_a(void)		{ refcount_dec(a); }
static void get_a(void)		{ refcount_get(a); }
static void get_rcu_a(void)	{ found = refcount_get_rcu(a); }

static void three_setup(void)
{
	setup();
	refcount_get(a);		/* 2: dec leaves a reference */
	found = 0;
}

static const char *a_is_three(void)
{
	if (refcount_read(a) != 3)
		return "a went 2 -> (dec, get, get_rcu) -> not 3: an update was "
		       "lost";
	if (found != 1 && found != 2 && found != 3)
		return "get_rcu returned a count a never had";
	return NULL;
}

/* Witness: get_rcu ran between the other two (found 1 or 3). */
static bool get_rcu_between(void)
{
	return found == 1 || found == 3;
}

RACE_SCENARIO(dec_get_get_rcu) = {
	.name     = "dec_get_get_rcu",
	.summary  = "refcount_dec, refcount_get and refcount_get_rcu on one count",
	.expect   = RACE_MUST_HOLD,
	.setup    = three_setup,
	RACE_THREADS(dec_a, get_a, get_rcu_a),
	.check    = a_is_three,
	.witness  = get_rcu_between,
	.outcome  = "T3's get_rcu runs between T1's dec and T2's get",
	.bound    = 1,
};

/* The UP build (configs.h): interrupts off, no bucket lock. */
static bool preempted;		/* T2 ran inside T1's get ... put */

/* T2: get and put a, noting whether T1 held it meanwhile. */
static void up_other(void)
{
	preempted |= t1_holds;
	cfg->get(a);
	cfg->put(a);
}

static void up_setup(void)
{
	setup();
	cfg = &lab4_configs[LAB4_UP];
	preempted = false;
}

static bool up_interleaved(void)
{
	return preempted && handled;
}

RACE_SCENARIO(up_one_cpu) = {
	.name     = "up_one_cpu",
	.summary  = "the UP build on one CPU: get/put from two threads and an "
		    "interrupt",
	.expect   = RACE_MUST_HOLD,
	.setup    = up_setup,
	RACE_THREADS(get_work_put, up_other),
	RACE_IRQ(1, put_in_irq),
	.check    = counts_back,
	.witness  = up_interleaved,
	.outcome  = "T2 and IRQ1 both run while T1 holds its reference",
	.up       = true,
};

RACE_SCENARIO(up_code_on_smp) = {
	.name     = "up_code_on_smp",
	.summary  = "the same UP build with a CPU per thread",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "check",
	.setup    = up_setup,
	RACE_THREADS(get_work_put, up_other),
	.check    = counts_back,
};
