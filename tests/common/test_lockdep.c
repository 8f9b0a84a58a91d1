// SPDX-License-Identifier: GPL-2.0
/*
 * test_lockdep.c - lockdep's irq-safety rule in the plain backend
 * (common/lockdep.h): a lock taken in interrupt context and held with
 * interrupts on elsewhere is a BUG the first time both have happened,
 * whatever the order; consistent usage never is.
 *
 * "Interrupt context" is what irq_enter() ... irq_exit() bracket; no
 * signal is needed to show the rule (test_irq.c of lab 4 sends real ones).
 */
#include <signal.h>

#include <criterion/criterion.h>

#include "irqflags.h"
#include "spinlock.h"

static DEFINE_SPINLOCK(lock);

/* What a handler does: take the lock in interrupt context. */
static void in_interrupt(void)
{
	unsigned long flags;

	irq_enter();
	spin_lock_irqsave(&lock, flags);
	spin_unlock_irqrestore(&lock, flags);
	irq_exit();
}

Test(lockdep, irqsave_everywhere_is_consistent)
{
	unsigned long flags;

	in_interrupt();
	spin_lock_irqsave(&lock, flags);
	spin_unlock_irqrestore(&lock, flags);
	local_irq_save(flags);		/* interrupts off first, plain lock inside */
	spin_lock(&lock);
	spin_unlock(&lock);
	local_irq_restore(flags);
	in_interrupt();
	cr_assert(!in_hardirq());
}

Test(lockdep, a_lock_no_handler_takes_may_be_held_with_interrupts_on)
{
	spin_lock(&lock);
	spin_unlock(&lock);
	cr_assert(spin_trylock(&lock));
	spin_unlock(&lock);
}

Test(lockdep, handler_lock_taken_with_interrupts_on_is_a_bug, .signal = SIGABRT)
{
	in_interrupt();
	spin_lock(&lock);		/* {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} */
}

Test(lockdep, held_with_interrupts_on_then_taken_in_handler_is_a_bug,
     .signal = SIGABRT)
{
	spin_lock(&lock);		/* {HARDIRQ-ON-W}: no interrupt yet */
	spin_unlock(&lock);
	in_interrupt();			/* -> {IN-HARDIRQ-W} */
}

Test(lockdep, lock_then_mask_is_a_bug, .signal = SIGABRT)
{
	unsigned long flags;

	in_interrupt();
	spin_lock(&lock);		/* the window before the mask */
	local_irq_save(flags);
	spin_unlock(&lock);
	local_irq_restore(flags);
}

Test(lockdep, trylock_with_interrupts_on_is_a_bug, .signal = SIGABRT)
{
	in_interrupt();
	cr_assert(spin_trylock(&lock));
}

Test(lockdep, interrupts_on_while_held_is_a_bug, .signal = SIGABRT)
{
	unsigned long flags;

	in_interrupt();
	local_irq_save(flags);
	spin_lock(&lock);
	local_irq_restore(flags);	/* {HARDIRQ-ON-W}: held, interrupts on */
	spin_unlock(&lock);
}

Test(lockdep, released_before_interrupts_on_is_consistent)
{
	unsigned long flags;

	in_interrupt();
	local_irq_save(flags);
	spin_lock(&lock);
	spin_unlock(&lock);
	local_irq_restore(flags);
}
