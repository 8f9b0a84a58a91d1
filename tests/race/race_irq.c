// SPDX-License-Identifier: GPL-2.0
/*
 * race_irq.c - scenarios with known answers for the interrupt model
 * (common/race/irq.c); test_irq.py runs them.
 *
 *   irq_spin_lock      T1 holds a lock taken with plain spin_lock; its
 *                      interrupt handler takes the same lock: deadlock
 *   irq_irqsave        the same with spin_lock_irqsave in T1: the handler
 *                      runs before or after the critical section, never
 *                      inside; holds
 *   irq_off_smp        two threads update a counter with interrupts off
 *                      but no lock, a CPU each: an update is lost
 *   irq_off_up         the same on one simulated CPU: interrupts off is a
 *                      critical section there; holds
 *   irq_up_handler     one CPU, and T1's handler updates the counter too:
 *                      it can run only where T1 has interrupts on; holds
 *
 * lockdep's irq-safety rule (models/lockdep.c):
 *   irq_lockdep_spin_lock  irq_spin_lock with lockdep on: the verdict
 *                          inconsistent-lock-state, in the first
 *                          execution where both usages happen
 *   irq_lock_then_mask     T1 takes the lock, then turns interrupts off:
 *                          no point lies in the window, so no interrupt
 *                          lands there; lockdep reports it all the same
 *   irq_window_unseen      the same code, lockdep off: it "holds" -- the
 *                          blind spot the rule exists for
 *   irq_restore_held       T1 turns interrupts back on while it holds the
 *                          lock, and off again before the next point:
 *                          {HARDIRQ-ON-W} at the local_irq_restore
 */
#include <stdbool.h>

#include "irqflags.h"
#include "race/scenario.h"
#include "rwonce.h"
#include "spinlock.h"

static DEFINE_SPINLOCK(lock);
static int counter;
static bool handled, inside, overlapped;

static void reset(void)
{
	spin_lock_init(&lock);
	counter = 0;
	handled = inside = overlapped = false;
}

/* T1: a critical section under plain spin_lock, interrupts on. */
static void holder_spin_lock(void)
{
	spin_lock(&lock);
	WRITE_ONCE(counter, READ_ONCE(counter) + 1);
	spin_unlock(&lock);
}

/* T1: the same section with interrupts off. */
static void holder_irqsave(void)
{
	unsigned long flags;

	spin_lock_irqsave(&lock, flags);
	inside = true;
	WRITE_ONCE(counter, READ_ONCE(counter) + 1);
	inside = false;
	spin_unlock_irqrestore(&lock, flags);
	race_point("after");
}

/* T2: only there to make the scenario two threads. */
static void bystander(void)
{
	race_point("idle");
}

/* IRQ1: the handler takes the lock T1 may hold. */
static void lock_in_irq(void)
{
	unsigned long flags;

	overlapped = inside;	/* true would mean: delivered inside */
	spin_lock_irqsave(&lock, flags);
	WRITE_ONCE(counter, READ_ONCE(counter) + 1);
	spin_unlock_irqrestore(&lock, flags);
	handled = true;
}

static const char *both_counted(void)
{
	if (overlapped)
		return "the handler ran inside T1's irqsave section";
	if (counter != 1 + handled)
		return "an update of the counter was lost";
	return NULL;
}

static bool was_handled(void)
{
	return handled;
}

RACE_SCENARIO(irq_spin_lock) = {
	.name     = "irq_spin_lock",
	.summary  = "a handler takes the lock its thread holds (plain spin_lock)",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "deadlock",
	.setup    = reset,
	RACE_THREADS(holder_spin_lock, bystander),
	RACE_IRQ(1, lock_in_irq),
	.check    = both_counted,
	.lockdep_off = true,	/* the deadlock itself, not lockdep's foresight */
};

RACE_SCENARIO(irq_irqsave) = {
	.name     = "irq_irqsave",
	.summary  = "a handler takes the lock its thread holds with irqsave",
	.expect   = RACE_MUST_HOLD,
	.setup    = reset,
	RACE_THREADS(holder_irqsave, bystander),
	RACE_IRQ(1, lock_in_irq),
	.check    = both_counted,
	.witness  = was_handled,
	.outcome  = "IRQ1 is delivered and its handler takes the lock",
};

RACE_SCENARIO(irq_lockdep_spin_lock) = {
	.name     = "irq_lockdep_spin_lock",
	.summary  = "irq_spin_lock under lockdep's irq-safety rule",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "inconsistent-lock-state",
	.setup    = reset,
	RACE_THREADS(holder_spin_lock, bystander),
	RACE_IRQ(1, lock_in_irq),
	.check    = both_counted,
};

/* T1: the lock first, then interrupts off: a window with no point in it. */
static void lock_then_mask(void)
{
	unsigned long flags;

	spin_lock(&lock);
	local_irq_save(flags);
	inside = true;
	WRITE_ONCE(counter, READ_ONCE(counter) + 1);
	inside = false;
	spin_unlock(&lock);
	local_irq_restore(flags);
}

RACE_SCENARIO(irq_lock_then_mask) = {
	.name     = "irq_lock_then_mask",
	.summary  = "T1 takes the lock, then turns interrupts off; its handler "
		    "takes the lock",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "inconsistent-lock-state",
	.setup    = reset,
	RACE_THREADS(lock_then_mask, bystander),
	RACE_IRQ(1, lock_in_irq),
	.check    = both_counted,
};

RACE_SCENARIO(irq_window_unseen) = {
	.name     = "irq_window_unseen",
	.summary  = "the same without lockdep: no interrupt lands in the window",
	.expect   = RACE_MUST_HOLD,
	.setup    = reset,
	RACE_THREADS(lock_then_mask, bystander),
	RACE_IRQ(1, lock_in_irq),
	.check    = both_counted,
	.witness  = was_handled,
	.outcome  = "IRQ1 is delivered and its handler takes the lock",
	.lockdep_off = true,
};

/* T1: interrupts on for a moment while it still holds the lock. */
static void restore_while_held(void)
{
	unsigned long flags;

	local_irq_save(flags);
	spin_lock(&lock);
	WRITE_ONCE(counter, READ_ONCE(counter) + 1);
	local_irq_restore(flags);
	local_irq_save(flags);
	spin_unlock(&lock);
	local_irq_restore(flags);
	race_point("after");		/* where IRQ1 can come */
}

RACE_SCENARIO(irq_restore_held) = {
	.name     = "irq_restore_held",
	.summary  = "T1 turns interrupts on while it holds the lock its "
		    "handler takes",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "inconsistent-lock-state",
	.setup    = reset,
	RACE_THREADS(restore_while_held, bystander),
	RACE_IRQ(1, lock_in_irq),
	.check    = both_counted,
};

/* Add 1 to the counter with interrupts off and no lock: two steps. */
static void irq_off_add(void)
{
	unsigned long flags;

	local_irq_save(flags);
	WRITE_ONCE(counter, READ_ONCE(counter) + 1);
	local_irq_restore(flags);
}

/* T1, T2: two updates each, with a point between them (interrupts on). */
static void adder(void)
{
	irq_off_add();
	race_point("between");
	irq_off_add();
}

/* IRQ1: one more update, from T1's handler. */
static void add_in_irq(void)
{
	irq_off_add();
	handled = true;
}

static const char *all_counted(void)
{
	if (counter != 4 + handled)
		return "an update of the counter was lost";
	return NULL;
}

/* Witness: somebody else's update came between T1's two. */
static int seen_between;
static void adder_watching(void)
{
	int mid;

	irq_off_add();
	mid = READ_ONCE(counter);
	race_point("between");
	seen_between = READ_ONCE(counter) != mid;
	irq_off_add();
}

static void reset_watch(void)
{
	reset();
	seen_between = 0;
}

static bool interleaved(void)
{
	return seen_between;
}

RACE_SCENARIO(irq_off_smp) = {
	.name     = "irq_off_smp",
	.summary  = "interrupts off, no lock, a CPU per thread: updates are lost",
	.expect   = RACE_MUST_FAIL,
	.verdict  = "check",
	.setup    = reset,
	RACE_THREADS(adder, adder),
	.check    = all_counted,
};

RACE_SCENARIO(irq_off_up) = {
	.name     = "irq_off_up",
	.summary  = "the same on one CPU: interrupts off is a critical section",
	.expect   = RACE_MUST_HOLD,
	.setup    = reset_watch,
	RACE_THREADS(adder_watching, adder),
	.check    = all_counted,
	.witness  = interleaved,
	.outcome  = "T2 updates the counter between T1's two updates",
	.up       = true,
};

RACE_SCENARIO(irq_up_handler) = {
	.name     = "irq_up_handler",
	.summary  = "one CPU, T1's handler updates the counter too",
	.expect   = RACE_MUST_HOLD,
	.setup    = reset,
	RACE_THREADS(adder, adder),
	RACE_IRQ(1, add_in_irq),
	.check    = all_counted,
	.witness  = was_handled,
	.outcome  = "IRQ1 is delivered and its handler's update counts",
	.up       = true,
};
