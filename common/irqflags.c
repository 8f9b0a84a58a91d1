// SPDX-License-Identifier: GPL-2.0
/*
 * irqflags.c - "interrupts off" as a per-thread count, the handlers that
 * play interrupts (request_irq), and interrupt context, for lockdep.
 *
 * Soft masking, as powerpc's kernel masks interrupts lazily: local_irq_save
 * only counts, with no system call.  An interrupt -- a signal whose handler
 * request_irq() installed -- that lands while the count is not 0 does not
 * run its handler: it is noted as pending, and local_irq_restore() raises
 * it again once the count is back to 0, so the handler runs there, before
 * the restore returns.  What the kernel guarantees holds: no handler runs
 * on a thread between its save and its restore.
 *
 * In a scenario thread of the reproducer "interrupts" are its own
 * (race_hooks.h): the nesting is counted where race_irq_depth() says, and
 * the reproducer delivers its interrupts only where the count is 0.
 */
#include <signal.h>
#include <string.h>

#include "barrier.h"
#include "bug.h"
#include "irqflags.h"
#include "lockdep.h"
#include "race_hooks.h"

/* Read by the handlers on the thread they interrupt: volatile, no more. */
static __thread volatile sig_atomic_t depth;
static __thread volatile sig_atomic_t pending[NSIG];
static __thread volatile sig_atomic_t any_pending;
static __thread int hardirq_count;

static void (*irq_handler[NSIG])(int);

unsigned long __local_irq_save(void)
{
	unsigned long *scenario = race_irq_depth();

	if (scenario) {
		BUG_ON(*scenario >= IRQ_SAVE_DEPTH);
		return (*scenario)++;
	}
	BUG_ON(depth >= IRQ_SAVE_DEPTH);
	depth = depth + 1;
	barrier();			/* off before the section's first access */
	return depth - 1;
}

/* Raise again, now that interrupts are on, each one held back while off. */
static void replay_pending(void)
{
	int sig;

	while (any_pending) {
		any_pending = 0;
		for (sig = 1; sig < NSIG; sig++) {
			if (!pending[sig])
				continue;
			pending[sig] = 0;
			raise(sig);	/* its handler runs before raise returns */
		}
	}
}

void __local_irq_restore(unsigned long flags, const char *fn)
{
	unsigned long *scenario = race_irq_depth();

	BUG_ON(flags + 1 != (scenario ? *scenario : (unsigned long)depth));
	if (scenario) {
		*scenario = flags;
		if (!flags)
			lockdep_hardirqs_on(fn);
		return;
	}
	barrier();			/* the section's last access before on */
	depth = flags;
	if (flags)
		return;
	lockdep_hardirqs_on(fn);	/* before a pending interrupt runs */
	replay_pending();
}

/* Every interrupt lands here: its handler runs now, or at the restore. */
static void irq_entry(int sig)
{
	if (depth) {
		pending[sig] = 1;
		any_pending = 1;
		return;
	}
	irq_handler[sig](sig);
}

int request_irq(int sig, void (*handler)(int))
{
	struct sigaction sa;

	if (sig <= 0 || sig >= NSIG || !handler)
		return -1;
	irq_handler[sig] = handler;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = irq_entry;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

int irqs_disabled(void)
{
	unsigned long *scenario = race_irq_depth();

	return (scenario ? *scenario : (unsigned long)depth) > 0;
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
