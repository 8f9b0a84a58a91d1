// SPDX-License-Identifier: GPL-2.0
/*
 * irqflags.c - the per-thread stack of signal masks behind local_irq_save(),
 * told to the reproducer (race_hooks.h), which delivers its interrupts only
 * where they are on; and interrupt context, for lockdep.
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
	sigset_t all;

	BUG_ON(depth >= IRQ_SAVE_DEPTH);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved_mask[depth]);
	race_irq_save();
	return depth++;
}

void __local_irq_restore(unsigned long flags, const char *fn)
{
	BUG_ON(flags + 1 != depth);
	depth = flags;
	race_irq_restore();
	if (!depth)
		lockdep_hardirqs_on(fn);
	pthread_sigmask(SIG_SETMASK, &saved_mask[flags], NULL);
}

int irqs_disabled(void)
{
	return depth > 0;
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
