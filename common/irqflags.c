// SPDX-License-Identifier: GPL-2.0
/*
 * irqflags.c - the per-thread stack of signal masks behind local_irq_save(),
 * and interrupt context, for lockdep.
 *
 * In a scenario thread of the reproducer "interrupts" are its own
 * (race_hooks.h): the nesting is counted where race_irq_depth() says, and
 * no signal is blocked (the reproducer delivers its interrupts only where
 * the count is 0, and its watchdog is a signal).
 */
#include <signal.h>
#include <pthread.h>

#include "bug.h"
#include "irqflags.h"
#include "lockdep.h"
#include "race_hooks.h"

static __thread sigset_t saved_mask[IRQ_SAVE_DEPTH];
static __thread unsigned long depth;
static __thread int hardirq_count;

unsigned long __local_irq_save(void)
{
	unsigned long *scenario = race_irq_depth();
	sigset_t all;

	if (scenario) {
		BUG_ON(*scenario >= IRQ_SAVE_DEPTH);
		return (*scenario)++;
	}
	BUG_ON(depth >= IRQ_SAVE_DEPTH);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved_mask[depth]);
	return depth++;
}

void __local_irq_restore(unsigned long flags, const char *fn)
{
	unsigned long *scenario = race_irq_depth();

	BUG_ON(flags + 1 != (scenario ? *scenario : depth));
	if (scenario)
		*scenario = flags;
	else
		depth = flags;
	if (!flags)
		lockdep_hardirqs_on(fn);	/* before a pending signal runs */
	if (!scenario)
		pthread_sigmask(SIG_SETMASK, &saved_mask[flags], NULL);
}

int irqs_disabled(void)
{
	unsigned long *scenario = race_irq_depth();

	return (scenario ? *scenario : depth) > 0;
}

void irq_enter(void)
{
	hardirq_count++;
}

void irq_exit(void)
{
	BUG_ON(hardirq_count <= 0);
	hardirq_count--;
}

int in_hardirq(void)
{
	return hardirq_count > 0;
}
