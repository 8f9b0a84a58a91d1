/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irqflags.h - "interrupts off" for user space: signals blocked.
 *
 * In the kit a signal handler plays the part of an interrupt handler.
 * local_irq_save() blocks every blockable signal for the calling thread and
 * remembers the previous mask; local_irq_restore() puts it back.  As in the
 * kernel, @flags is an unsigned long the caller keeps on its stack: here it
 * names a slot of a small per-thread stack of saved masks, so saves nest.
 */
#ifndef KIT_IRQFLAGS_H
#define KIT_IRQFLAGS_H

#include "compiler.h"

unsigned long __local_irq_save(void);
void __local_irq_restore(unsigned long flags, const char *fn);

/**
 * local_irq_save - block all signals for this thread, saving the old mask
 *
 * Guarantees: until the matching local_irq_restore(), no signal handler runs
 * on this thread.  Nests up to IRQ_SAVE_DEPTH deep; deeper is a BUG.
 */
#define local_irq_save(flags)		((flags) = __local_irq_save())

/**
 * local_irq_restore - restore the mask saved by the matching local_irq_save
 *
 * Restores must come in the reverse order of the saves (a BUG otherwise).
 */
#define local_irq_restore(flags)	__local_irq_restore((flags), __func__)

/**
 * irqs_disabled - true between local_irq_save and its local_irq_restore
 */
int irqs_disabled(void);

/**
 * irq_enter - the calling thread enters interrupt context: a signal
 * handler that plays an interrupt handler calls it first
 *
 * irq_exit - ... and this last.  Between them in_hardirq() is true, and
 * lockdep (lockdep.h) notes every lock taken as taken in interrupt
 * context.  (The reproducer knows its interrupt threads without them.)
 */
void irq_enter(void);
void irq_exit(void);

/** in_hardirq - true between irq_enter() and irq_exit() on this thread */
int in_hardirq(void);

#define IRQ_SAVE_DEPTH	8

#endif /* KIT_IRQFLAGS_H */
