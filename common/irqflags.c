// SPDX-License-Identifier: GPL-2.0
/*
 * irqflags.c - the per-thread stack of signal masks behind local_irq_save(),
 * told to the reproducer (race_hooks.h), which delivers its interrupts only
 * where they are on.
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
	sigset_t all;

	BUG_ON(depth >= IRQ_SAVE_DEPTH);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved_mask[depth]);
	race_irq_save();
	return depth++;
}

void __local_irq_restore(unsigned long flags)
{
	BUG_ON(flags + 1 != depth);
	depth = flags;
	race_irq_restore();
	pthread_sigmask(SIG_SETMASK, &saved_mask[flags], NULL);
}

int irqs_disabled(void)
{
	return depth > 0;
}
