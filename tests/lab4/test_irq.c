// SPDX-License-Identifier: GPL-2.0
/*
 * test_irq.c - lab 4, one thread and a real signal handler playing its
 * interrupt: lockdep's irq-safety rule (common/lockdep.h) in the plain
 * builds.
 *
 * The handler (between irq_enter() and irq_exit()) updates a count of one
 * bucket; then the thread calls every operation on another count of the
 * same bucket.  Nothing here waits for a signal to land at the wrong
 * moment: lockdep notes that the handler took the bucket lock, and the
 * first time the thread holds it with interrupts on -- taken before they
 * went off, or kept while they came back on -- it reports the
 * inconsistency and stops the test ("BUG: inconsistent-lock-state").
 */
#include <signal.h>

#include <criterion/criterion.h>

#include "bug.h"
#include "configs.h"
#include "irqflags.h"

#define OFF_IRQ		(512 + 32)	/* the handler's count ... */
#define OFF_THREAD	(512 + 96)	/* ... and the thread's: one bucket */

static const struct lab4_config *cfg;
static int handled;

/* The "interrupt": every operation a handler may make on its count. */
static void handler(int sig __maybe_unused)
{
	refcount_t *rc = lab4_count(OFF_IRQ);

	irq_enter();
	cfg->get(rc);
	if (cfg->get_rcu(rc))
		cfg->dec(rc);
	cfg->put(rc);
	irq_exit();
	handled++;
}

/* Deliver the interrupt now, on this thread (interrupts are on). */
static void interrupt(void)
{
	cr_assert_eq(request_irq(SIGUSR1, handler), 0,
		     "the test could not install its SIGUSR1 handler (the kit's fault, not yours)");
	raise(SIGUSR1);			/* delivered before it returns */
}

/* Every operation of @c in thread context, with the handler's bucket. */
static void every_op_after_an_interrupt(const struct lab4_config *c)
{
	refcount_t *rc = lab4_count(OFF_THREAD);
	DEFINE_SPINLOCK(lock);
	int before = handled;

	cfg = c;
	cr_assert_eq(lab4_bucket(c, rc), lab4_bucket(c, lab4_count(OFF_IRQ)),
		     "the test's two counts must share a bucket (the kit's layout, not your code)");
	c->init(lab4_count(OFF_IRQ));
	refcount_watch(&lab4_count(OFF_IRQ)->count);	/* 0 is final */
	interrupt();
	cr_assert_eq(handled, before + 1, "the signal was not delivered");
	c->init(rc);
	refcount_watch(&rc->count);
	c->get(rc);
	if (c->get_rcu(rc))
		c->dec(rc);
	c->put(rc);
	c->get(rc);
	cr_assert_eq(c->put_and_lock(rc, &lock), 0, "%s: put_and_lock of 2",
		     c->name);
	cr_assert_eq(c->put_and_lock(rc, &lock), 1, "%s: put_and_lock of 1",
		     c->name);
	spin_unlock(&lock);
	interrupt();			/* and the handler once more, after */
	cr_assert_eq(c->read(lab4_count(OFF_IRQ)), 1, "%s: the handler's "
		     "get/put pairs did not leave its count at 1", c->name);
}

/* Hint: lockdep saw a bucket lock held with interrupts on: take it with
 * spin_lock_irqsave() and release it with spin_unlock_irqrestore(), in every
 * call that takes it (refcount_hash.h, the last paragraph).
 */
Test(irq, smp_build_masks_interrupts_around_every_bucket_lock)
{
	every_op_after_an_interrupt(&lab4_configs[LAB4_SMP]);
}

/* Hint: As the SMP build: every bucket lock is taken after interrupts go off
 * and released before they come back on, in the 8-lock build too.
 */
Test(irq, n8_build_masks_interrupts_around_every_bucket_lock)
{
	every_op_after_an_interrupt(&lab4_configs[LAB4_N8]);
}

/* Hint: The UP build with an interrupt handler: interrupts off with
 * local_irq_save() around each update, restored afterwards, and the counts
 * must come out right.
 */
Test(irq, up_build_runs_with_the_handler)
{
	every_op_after_an_interrupt(&lab4_configs[LAB4_UP]);
}
