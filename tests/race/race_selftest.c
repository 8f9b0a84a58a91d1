// SPDX-License-Identifier: GPL-2.0
/*
 * race_selftest.c - scenarios with known answers, to test the reproducer.
 *
 *   three_each        2 threads x 3 writes: exactly C(6,3) = 20 interleavings
 *   lost_update       read, then write back +1, twice: the check fails
 *   lost_update_demo  the same as a demo: listed, runnable, never graded
 *   flag_window       a depth-2 bug: T2 must run inside T1's window, after
 *                     T1 has started (one PCT change point)
 *   pct_depth2        a depth-2 outcome behind 30 steps without a choice:
 *                     PCT's guarantee, measured (test_race.py)
 *   pct_depth3        the same with a depth-3 outcome
 *   unpublished       a must-hold whose witness never happens: vacuous
 *   abba              two locks taken in opposite orders: deadlock
 *   spin_on_flag      T1 waits for a flag with READ_ONCE: a wait, not a
 *                     livelock, even at bound 0 (models/spin.c)
 *   rcu_sync          reader vs unpublish + synchronize_rcu + kfree: holds
 *   rcu_call          the same with call_rcu: holds
 *   rcu_no_grace      the same, freed without a grace period: use-after-free
 *   leaky             a thread allocates and nobody frees: leak
 *   no_point_loop     a loop without any point: the watchdog ends it
 *   asan_plain_read   a plain read of freed memory: ASan reports it
 *   warn_on_zero      a WARN_ON that fires: the "warn" verdict
 *   commute_first     T2's read commutes with T1's first store, not its
 *                     second: without a preemption T2 may still run first
 *                     (the partial-order reduction must keep that order)
 */
#include <stdbool.h>
#include <stddef.h>

#include "bug.h"
#include "race/scenario.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"
#include "spinlock.h"

static int x, y, flag;
static int last_writer, writer_changes;	/* plain: written between points */

/* Every shared variable back to 0. */
static void zero(void)
{
	x = y = flag = 0;
	last_writer = writer_changes = 0;
}

/* Three steps, each writing the thread's own number @me. */
static void write_three_as(int me)
{
	int i;

	for (i = 0; i < 3; i++) {
		WRITE_ONCE(x, me);
		writer_changes += last_writer && last_writer != me;
		last_writer = me;
	}
}

static void write_three_1(void) { write_three_as(1); }
static void write_three_2(void) { write_three_as(2); }

/* Witness: the writers alternated at least twice (1 2 1 or 2 1 2). */
static bool interleaved(void)
{
	return writer_changes >= 2;
}

RACE_SCENARIO(three_each) = {
	.name = "three_each",
	.summary = "two threads, three writes each: 20 interleavings",
	.expect = RACE_MUST_HOLD,
	.setup = zero,
	RACE_THREADS(write_three_1, write_three_2),
	.witness = interleaved,
	.outcome = "the writes interleave: T1, T2, T1 or T2, T1, T2",
	.bound = 6,
};

/* A non-atomic increment: read, then write. */
static void add_one(void)
{
	int v = READ_ONCE(x);

	WRITE_ONCE(x, v + 1);
}

/* Both increments must be there. */
static const char *both_counted(void)
{
	return x == 2 ? NULL : "x != 2: an increment was lost";
}

RACE_SCENARIO(lost_update) = {
	.name = "lost_update",
	.summary = "READ_ONCE then WRITE_ONCE(+1) in two threads",
	.expect = RACE_MUST_FAIL,
	.verdict = "check",
	.setup = zero,
	RACE_THREADS(add_one, add_one),
	.check = both_counted,
};

RACE_SCENARIO(lost_update_demo) = {
	.name = "lost_update_demo",
	.summary = "the lost update again, as a demo of test code",
	.expect = RACE_DEMO,
	.verdict = "check",
	.setup = zero,
	RACE_THREADS(add_one, add_one),
	.check = both_counted,
};

/* T1 opens a window (flag = 1) for 4 steps and closes it; T2 looks once. */
static void window(void)
{
	int i;

	for (i = 0; i < 4; i++)
		race_point("before");
	WRITE_ONCE(flag, 1);
	for (i = 0; i < 4; i++)
		race_point("inside");
	WRITE_ONCE(flag, 0);
	for (i = 0; i < 4; i++)
		race_point("after");
}

/* One look at the flag, kept in y. */
static void look(void)
{
	WRITE_ONCE(y, READ_ONCE(flag));
}

/* T2 must never have seen the window open. */
static const char *never_inside(void)
{
	return y ? "T2 saw the window open" : NULL;
}

RACE_SCENARIO(flag_window) = {
	.name = "flag_window",
	.summary = "T2 looks while T1's window is open: a depth-2 bug",
	.expect = RACE_MUST_FAIL,
	.verdict = "check",
	.setup = zero,
	RACE_THREADS(window, look),
	.check = never_inside,
};

/*
 * PCT's guarantee, measured.  setup() holds the gate, so T2 waits at
 * spin_lock while T1 makes PCT_ALONE steps alone: steps without a choice,
 * which PCT must not count.  Then T1 opens the gate and writes flag
 * (1 then 0, or 1 then 2); T2 passes the gate and reads flag (once, or
 * twice).  After the gate opens there are at most 4 (depth 2: 2 + 3
 * steps) or 5 (depth 3: 2 + 4 steps) steps with a choice: k.
 *
 * pct_depth2's outcome, T2 reading 1, needs T1 to run first and to be
 * preempted right after its first write: depth 2.  pct_depth3's, T2
 * reading 1 then 2, needs one more preemption of T2 between its reads:
 * depth 3.  PCT must see them in at least 1/(n k^(d-1)) of its
 * executions: 1/(2*4) and 1/(2*5^2).
 */
#define PCT_ALONE	30

static DEFINE_SPINLOCK(gate);
static int r1, r2;		/* what T2 read, plain: for the witness */

/* Everything to 0, the gate shut. */
static void gate_shut(void)
{
	zero();
	r1 = r2 = -1;
	spin_lock_init(&gate);
	spin_lock(&gate);		/* setup() runs alone: no point */
}

/* PCT_ALONE steps while T2 waits at the gate, then open it. */
static void alone_then_open(void)
{
	int i;

	for (i = 0; i < PCT_ALONE; i++)
		race_point("alone");
	spin_unlock(&gate);
}

/* T1 of pct_depth2: the window flag = 1 .. flag = 0. */
static void opener_window(void)
{
	alone_then_open();
	WRITE_ONCE(flag, 1);
	WRITE_ONCE(flag, 0);
}

/* T1 of pct_depth3: flag = 1, then flag = 2. */
static void opener_twice(void)
{
	alone_then_open();
	WRITE_ONCE(flag, 1);
	WRITE_ONCE(flag, 2);
}

/* T2: through the gate, then one look at flag. */
static void gate_look_once(void)
{
	spin_lock(&gate);
	spin_unlock(&gate);
	r1 = READ_ONCE(flag);
}

/* T2: through the gate, then two looks at flag. */
static void gate_look_twice(void)
{
	gate_look_once();
	r2 = READ_ONCE(flag);
}

static bool saw_window(void)
{
	return r1 == 1;
}

static bool saw_both(void)
{
	return r1 == 1 && r2 == 2;
}

RACE_SCENARIO(pct_depth2) = {
	.name = "pct_depth2",
	.summary = "a depth-2 outcome after 30 steps without a choice",
	.expect = RACE_MUST_HOLD,
	.setup = gate_shut,
	RACE_THREADS(opener_window, gate_look_once),
	.witness = saw_window,
	.outcome = "T2 reads flag between T1's two writes",
};

RACE_SCENARIO(pct_depth3) = {
	.name = "pct_depth3",
	.summary = "a depth-3 outcome after 30 steps without a choice",
	.expect = RACE_MUST_HOLD,
	.setup = gate_shut,
	RACE_THREADS(opener_twice, gate_look_twice),
	.witness = saw_both,
	.outcome = "T2 reads 1, then 2: each look right after T1's write",
};

static DEFINE_SPINLOCK(lock_a);
static DEFINE_SPINLOCK(lock_b);

/* Both locks free. */
static void init_locks(void)
{
	spin_lock_init(&lock_a);
	spin_lock_init(&lock_b);
}

/* Lock A, then B. */
static void a_then_b(void)
{
	spin_lock(&lock_a);
	spin_lock(&lock_b);
	spin_unlock(&lock_b);
	spin_unlock(&lock_a);
}

/* Lock B, then A. */
static void b_then_a(void)
{
	spin_lock(&lock_b);
	spin_lock(&lock_a);
	spin_unlock(&lock_a);
	spin_unlock(&lock_b);
}

RACE_SCENARIO(abba) = {
	.name = "abba",
	.summary = "two locks taken in opposite orders",
	.expect = RACE_MUST_FAIL,
	.verdict = "deadlock",
	.setup = init_locks,
	RACE_THREADS(a_then_b, b_then_a),
};

/* Busy-wait for the flag: a point per look, no progress alone. */
static void wait_flag(void)
{
	while (!READ_ONCE(flag))
		;
	WRITE_ONCE(y, 1);
}

/* Set the flag. */
static void set_flag(void)
{
	WRITE_ONCE(flag, 1);
}

static bool flag_seen(void)
{
	return y == 1;
}

RACE_SCENARIO(spin_on_flag) = {
	.name = "spin_on_flag",
	.summary = "a busy wait: it waits for the write, at no preemption",
	.expect = RACE_MUST_HOLD,
	.setup = zero,
	RACE_THREADS(wait_flag, set_flag),
	.witness = flag_seen,
	.outcome = "T1 leaves its loop",
};

struct item {
	int val;
	struct rcu_head rcu;
};

static struct item *gp;

/* One item, published at gp; y cleared for the witness. */
static void publish(void)
{
	struct item *it = kmalloc(sizeof(*it), GFP_KERNEL);

	zero();
	it->val = 42;
	RCU_INIT_POINTER(gp, it);
}

/* Read the published item inside a read-side section. */
static void reader(void)
{
	struct item *it;

	rcu_read_lock();
	it = rcu_dereference(gp);
	if (it)
		WRITE_ONCE(y, READ_ONCE(it->val));
	rcu_read_unlock();
}

/* Unpublish, wait for the readers, free. */
static void unpublish_sync(void)
{
	struct item *it = READ_ONCE(gp);

	rcu_assign_pointer(gp, NULL);
	synchronize_rcu();
	kfree(it);
}

/* The call_rcu callback: free the item. */
static void free_item(struct rcu_head *head)
{
	kfree(container_of(head, struct item, rcu));
}

/* Unpublish, free after a grace period. */
static void unpublish_call(void)
{
	struct item *it = READ_ONCE(gp);

	rcu_assign_pointer(gp, NULL);
	call_rcu(&it->rcu, free_item);
}

/* Unpublish and free at once: the bug. */
static void unpublish_now(void)
{
	struct item *it = READ_ONCE(gp);

	rcu_assign_pointer(gp, NULL);
	kfree(it);
}

/* Witness: the reader read the item (y is 0 until then). */
static bool reader_saw_item(void)
{
	return y == 42;
}

RACE_SCENARIO(rcu_sync) = {
	.name = "rcu_sync",
	.summary = "unpublish, synchronize_rcu, kfree vs a reader",
	.expect = RACE_MUST_HOLD,
	.setup = publish,
	RACE_THREADS(reader, unpublish_sync),
	.witness = reader_saw_item,
	.outcome = "the reader reads the item",
	.bound = 3,
};

RACE_SCENARIO(rcu_call) = {
	.name = "rcu_call",
	.summary = "unpublish, call_rcu(kfree) vs a reader",
	.expect = RACE_MUST_HOLD,
	.setup = publish,
	RACE_THREADS(reader, unpublish_call),
	.witness = reader_saw_item,
	.outcome = "the reader reads the item",
	.bound = 3,
};

/* Nothing published: gp stays NULL. */
static void publish_nothing(void)
{
	zero();
	gp = NULL;
}

RACE_SCENARIO(unpublished) = {
	.name = "unpublished",
	.summary = "a reader of a pointer nobody publishes: vacuous",
	.expect = RACE_MUST_HOLD,
	.setup = publish_nothing,
	RACE_THREADS(reader, set_flag),
	.witness = reader_saw_item,
	.outcome = "the reader reads the item",
};

RACE_SCENARIO(rcu_no_grace) = {
	.name = "rcu_no_grace",
	.summary = "unpublish and kfree at once vs a reader",
	.expect = RACE_MUST_FAIL,
	.verdict = "use-after-free",
	.setup = publish,
	RACE_THREADS(reader, unpublish_now),
};

/* Allocate and keep: nobody frees it. */
static void allocate(void)
{
	WRITE_ONCE(gp, kmalloc(sizeof(struct item), GFP_KERNEL));
}

RACE_SCENARIO(leaky) = {
	.name = "leaky",
	.summary = "an object nobody frees",
	.expect = RACE_MUST_FAIL,
	.verdict = "leak",
	RACE_THREADS(allocate, set_flag),
};

static volatile int plain_flag;

/* A loop with no scheduling point: only the watchdog can end it. */
static void wait_plainly(void)
{
	race_point("start");
	while (!plain_flag)
		;
}

/* The plain flag back to 0. */
static void clear_plain(void)
{
	plain_flag = 0;
}

RACE_SCENARIO(no_point_loop) = {
	.name = "no_point_loop",
	.summary = "a loop that never reaches a scheduling point",
	.expect = RACE_MUST_FAIL,
	.verdict = "livelock",
	.setup = clear_plain,
	RACE_THREADS(wait_plainly, set_flag),
};

/* A plain C read of freed memory: ASan, not the slab registry, sees it. */
static void plain_reader(void)
{
	struct item *it = READ_ONCE(gp);

	race_point("got_it");
	if (it)
		WRITE_ONCE(y, it->val);
}

RACE_SCENARIO(asan_plain_read) = {
	.name = "asan_plain_read",
	.summary = "a plain read of an object freed meanwhile (ASan's report)",
	.expect = RACE_MUST_FAIL,
	.verdict = "use-after-free",
	.setup = publish,
	RACE_THREADS(plain_reader, unpublish_now),
};

/* kref_get's oracle in miniature: a WARN_ON on a count that reached 0. */
static void one(void)
{
	x = 1;
}

static void get_checked(void)
{
	WARN_ON(!READ_ONCE(x));
}

static void drop(void)
{
	WRITE_ONCE(x, 0);
}

RACE_SCENARIO(warn_on_zero) = {
	.name = "warn_on_zero",
	.summary = "a WARN_ON that sees the count at 0",
	.expect = RACE_MUST_FAIL,
	.verdict = "warn",
	.setup = one,
	RACE_THREADS(get_checked, drop),
};

/*
 * The partial-order reduction under a bound: T2's read of y commutes with
 * T1's store to x, not with its store to y.  Reading 0 needs T2 to run
 * before T1's second store: T2 first costs no preemption, T2 between
 * T1's stores costs one.  A reduction that counted the second as the
 * representative of the first (plain sleep sets) would miss the outcome
 * at bound 0.
 */
static void store_x_then_y(void)
{
	WRITE_ONCE(x, 1);
	WRITE_ONCE(y, 1);
}

static void read_y(void)
{
	WRITE_ONCE(flag, READ_ONCE(y) + 1);
}

/* T2 read y = 0: it ran before T1's second store. */
static bool read_y_early(void)
{
	return flag == 1;
}

RACE_SCENARIO(commute_first) = {
	.name = "commute_first",
	.summary = "a read that commutes with one store of T1 and not the other",
	.expect = RACE_MUST_HOLD,
	.setup = zero,
	RACE_THREADS(store_x_then_y, read_y),
	.witness = read_y_early,
	.outcome = "T2 reads y before T1 stores it",
};
