// SPDX-License-Identifier: GPL-2.0
/*
 * irqflags.c - the per-thread stack of signal masks behind local_irq_save().
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
#include "race_hooks.h"

static __thread sigset_t saved_mask[IRQ_SAVE_DEPTH];
static __thread unsigned long depth;

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

void __local_irq_restore(unsigned long flags)
{
	unsigned long *scenario = race_irq_depth();

	BUG_ON(flags + 1 != (scenario ? *scenario : depth));
	if (scenario) {
		*scenario = flags;
		return;
	}
	depth = flags;
	pthread_sigmask(SIG_SETMASK, &saved_mask[flags], NULL);
}

int irqs_disabled(void)
{
	unsigned long *scenario = race_irq_depth();

	return (scenario ? *scenario : depth) > 0;
}
