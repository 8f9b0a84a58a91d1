// SPDX-License-Identifier: GPL-2.0
/*
 * race_litmus.c - the kernel's litmus shapes, in the kit's own C, as race
 * scenarios under the weak memory model.
 *
 * The Linux kernel publishes litmus tests with the LKMM's answer
 * (tools/memory-model/litmus-tests/ and Documentation/litmus-tests/):
 * can the outcome in the "exists" clause happen, "Sometimes" or "Never"?
 * Each scenario below is one of those shapes, named in its summary.  A
 * "Sometimes" shape is a must-fail scenario: its check() names the
 * outcome, and the search must reach it.  A "Never" shape is a must-hold:
 * the check() names the forbidden outcome, dfs must exhaust every
 * execution (and every store each load may read) without reaching it, and
 * the witness shows the threads did communicate (the flag was seen), so
 * that holding proves something.  tests/litmus/test_litmus.py runs each
 * under the weak model, where it must give the kernel's answer, and under
 * sequential consistency, where the outcomes that need a reordering are
 * out of reach.
 *
 * Every shared variable is accessed through the primitives (READ_ONCE,
 * WRITE_ONCE, ...): this binary is built like common/, without the
 * callbacks through which the weak model hears a lab's plain accesses.
 */
#include <stdbool.h>
#include <stddef.h>

#include "barrier.h"
#include "litmus.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "spinlock.h"

static int buf, flag, x, y, z;
static int *ptr;
static int r0, r1;		/* what the threads read, kept for check() */
static DEFINE_SPINLOCK(mylock);

/* Every variable 0, every register -1 (nothing read yet). */
static void zero(void)
{
	buf = flag = x = y = 0;
	z = 1;
	ptr = NULL;
	r0 = r1 = -1;
	spin_lock_init(&mylock);
}

/* "r0 = 1 and r1 = 0": what the MP shapes forbid or allow. */
static const char *flag_without_buf(void)
{
	return r0 == 1 && r1 == 0 ?
	       "the reader saw flag = 1 but then buf = 0" : NULL;
}

/* The reader saw the flag: the message was passed at least once. */
static bool saw_flag(void)
{
	return r0 == 1;
}

/* --- MP: message passing ------------------------------------------------ */

static void mp_writer(void)
{
	WRITE_ONCE(buf, 1);
	WRITE_ONCE(flag, 1);
}

static void mp_reader(void)
{
	r0 = READ_ONCE(flag);
	r1 = READ_ONCE(buf);
}

LITMUS_SOMETIMES(mp,
	"MP+poonceonces: no barrier; the flag may pass the data (Sometimes)",
	zero, flag_without_buf, (mp_writer, mp_reader));

static void mp_writer_wmb(void)
{
	WRITE_ONCE(buf, 1);
	smp_wmb();
	WRITE_ONCE(flag, 1);
}

static void mp_reader_rmb(void)
{
	r0 = READ_ONCE(flag);
	smp_rmb();
	r1 = READ_ONCE(buf);
}

LITMUS_NEVER(mp_wmb_rmb,
	"MP+fencewmbonceonce+fencermbonceonce: smp_wmb pairs with smp_rmb (Never)",
	zero, flag_without_buf, (mp_writer_wmb, mp_reader_rmb),
	saw_flag, "the reader sees flag = 1");

LITMUS_SOMETIMES(mp_wmb_only,
	"MP with smp_wmb but no smp_rmb: the reader's loads may pass each other (Sometimes)",
	zero, flag_without_buf, (mp_writer_wmb, mp_reader));

LITMUS_SOMETIMES(mp_rmb_only,
	"MP with smp_rmb but no smp_wmb: the writer's stores may pass each other (Sometimes)",
	zero, flag_without_buf, (mp_writer, mp_reader_rmb));

static void mp_writer_release(void)
{
	WRITE_ONCE(buf, 1);
	smp_store_release(&flag, 1);
}

static void mp_reader_acquire(void)
{
	r0 = smp_load_acquire(&flag);
	r1 = READ_ONCE(buf);
}

LITMUS_NEVER(mp_release_acquire,
	"MP+pooncerelease+poacquireonce: smp_store_release/smp_load_acquire (Never)",
	zero, flag_without_buf, (mp_writer_release, mp_reader_acquire),
	saw_flag, "the reader sees flag = 1");

/* --- MP through a pointer: rcu_assign_pointer / rcu_dereference ---------- */

/* ptr starts at y (0); the writer sets x, then publishes &x. */
static void ptr_at_y(void)
{
	zero();
	ptr = &y;
}

static void assign_writer(void)
{
	WRITE_ONCE(x, 1);
	rcu_assign_pointer(ptr, &x);
}

/* Read the pointer and, through it, what it points to; r0: it was &x. */
static void deref_reader(void)
{
	int *p;

	rcu_read_lock();
	p = rcu_dereference(ptr);
	r0 = p == &x;
	r1 = READ_ONCE(*p);
	rcu_read_unlock();
}

LITMUS_NEVER(mp_rcu,
	"MP+onceassign+derefonce: rcu_assign_pointer/rcu_dereference, an address dependency (Never)",
	ptr_at_y, flag_without_buf, (assign_writer, deref_reader),
	saw_flag, "the reader gets the new pointer");

/* --- MP under a lock ---------------------------------------------------- */

static void lock_writer(void)
{
	WRITE_ONCE(buf, 1);
	spin_lock(&mylock);
	WRITE_ONCE(flag, 1);
	spin_unlock(&mylock);
}

static void lock_reader(void)
{
	spin_lock(&mylock);
	r0 = READ_ONCE(flag);
	spin_unlock(&mylock);
	r1 = READ_ONCE(buf);
}

LITMUS_NEVER(mp_locks,
	"MP+polocks: the flag written and read under one lock (Never)",
	zero, flag_without_buf, (lock_writer, lock_reader),
	saw_flag, "the reader sees flag = 1");

/* --- SB: store buffering ------------------------------------------------ */

static void sb_left(void)
{
	WRITE_ONCE(x, 1);
	r0 = READ_ONCE(y);
}

static void sb_right(void)
{
	WRITE_ONCE(y, 1);
	r1 = READ_ONCE(x);
}

static void sb_left_mb(void)
{
	WRITE_ONCE(x, 1);
	smp_mb();
	r0 = READ_ONCE(y);
}

static void sb_right_mb(void)
{
	WRITE_ONCE(y, 1);
	smp_mb();
	r1 = READ_ONCE(x);
}

/* "r0 = 0 and r1 = 0": each missed the other's store. */
static const char *both_missed(void)
{
	return r0 == 0 && r1 == 0 ? "both threads read 0" : NULL;
}

/* One of them saw the other's store. */
static bool one_saw(void)
{
	return r0 == 1 || r1 == 1;
}

LITMUS_SOMETIMES(sb,
	"SB+poonceonces: each thread's load may pass its store (Sometimes)",
	zero, both_missed, (sb_left, sb_right));

LITMUS_NEVER(sb_mb,
	"SB+fencembonceonces: smp_mb between each store and load (Never)",
	zero, both_missed, (sb_left_mb, sb_right_mb),
	one_saw, "a thread reads the other's store");

/* --- Coherence: one location ---------------------------------------------- */

static void store_x1(void)
{
	WRITE_ONCE(x, 1);
}

static void store_x2(void)
{
	WRITE_ONCE(x, 2);
}

static void read_x_twice(void)
{
	r0 = READ_ONCE(x);
	r1 = READ_ONCE(x);
}

static const char *corr_check(void)
{
	return r0 == 1 && r1 == 0 ? "read 1, then the older 0" : NULL;
}

LITMUS_NEVER(corr,
	"CoRR+poonceonce+Once: two reads of x never go back in time (Never)",
	zero, corr_check, (store_x1, read_x_twice),
	saw_flag, "the first read sees the store");

static void read_then_store_x1(void)
{
	r0 = READ_ONCE(x);
	WRITE_ONCE(x, 1);
}

static const char *corw_check(void)
{
	return r0 == 2 && READ_ONCE(x) == 2 ?
	       "read T2's 2, yet T1's later store of 1 is older" : NULL;
}

static bool read_2(void)
{
	return r0 == 2;
}

LITMUS_NEVER(corw,
	"CoRW+poonceonce+Once: a store after a read goes after what was read (Never)",
	zero, corw_check, (read_then_store_x1, store_x2),
	read_2, "T1 reads T2's store");

static void store_then_read_x(void)
{
	WRITE_ONCE(x, 1);
	r0 = READ_ONCE(x);
}

static const char *cowr_check(void)
{
	return r0 == 2 && READ_ONCE(x) == 1 ?
	       "read T2's 2 after storing 1, yet 1 is the newer" : NULL;
}

LITMUS_NEVER(cowr,
	"CoWR+poonceonce+Once: a read after a store sees it or a newer one (Never)",
	zero, cowr_check, (store_then_read_x, store_x2),
	read_2, "T1 reads T2's store");

static void store_x1_x2(void)
{
	WRITE_ONCE(x, 1);
	WRITE_ONCE(x, 2);
}

static const char *coww_check(void)
{
	if (READ_ONCE(x) != 2)
		return "x ends as 1: the second store is not the last";
	return r0 == 2 && r1 == 1 ? "an observer saw 2, then 1" : NULL;
}

static bool saw_1(void)
{
	return r0 == 1 || r1 == 1;
}

LITMUS_NEVER(coww,
	"CoWW+poonceonce: two stores to x keep their order, for everybody (Never)",
	zero, coww_check, (store_x1_x2, read_x_twice),
	saw_1, "the observer sees the first store");

/* --- 2+2W: coherence order is not the order of the stores ------------------ */

static void w2_left(void)
{
	WRITE_ONCE(x, 1);
	WRITE_ONCE(y, 2);
}

static void w2_right(void)
{
	WRITE_ONCE(y, 1);
	WRITE_ONCE(x, 2);
}

/* Each location ends with the value of the first store made to it: each
 * thread's second store went before the other thread's first. */
static const char *both_first(void)
{
	return x == 1 && y == 1 ? "x and y both end with their first store" : NULL;
}

LITMUS_SOMETIMES(w2,
	"2+2W+poonceonces: a store may go before one it has not seen (Sometimes)",
	zero, both_first, (w2_left, w2_right));

/* --- RCU grace periods ----------------------------------------------------- */

/* x = 1, ptr = &x, z = 1: the reader may still hold &x. */
static void ptr_at_x(void)
{
	zero();
	x = 1;
	ptr = &x;
}

static void gp_updater(void)
{
	rcu_assign_pointer(ptr, &z);
	synchronize_rcu();
	WRITE_ONCE(x, 0);
}

static const char *old_pointer_new_value(void)
{
	return r0 == 1 && r1 == 0 ?
	       "the reader got the old pointer, and the store after the grace period" : NULL;
}

LITMUS_NEVER(rcu_mp,
	"RCU+sync+free: a reader that got the old pointer never sees the store after synchronize_rcu (Never)",
	ptr_at_x, old_pointer_new_value, (deref_reader, gp_updater),
	saw_flag, "the reader gets the old pointer");

static void section_writer(void)
{
	rcu_read_lock();
	WRITE_ONCE(x, 1);
	WRITE_ONCE(y, 1);
	rcu_read_unlock();
}

static void sync_between_reads(void)
{
	r0 = READ_ONCE(x);
	synchronize_rcu();
	r1 = READ_ONCE(y);
}

static const char *x_without_y(void)
{
	return r0 == 1 && r1 == 0 ?
	       "x = 1 before the grace period, y = 0 after it" : NULL;
}

LITMUS_NEVER(rcu_sync_read,
	"RCU+sync+read: after a grace period, a reader section's stores are all seen (Never)",
	zero, x_without_y, (section_writer, sync_between_reads),
	saw_flag, "the updater sees x = 1 before its grace period");
