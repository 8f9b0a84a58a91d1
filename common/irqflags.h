/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irqflags.h - "interrupts off" for user space: interrupts held back.
 *
 * In the kit a signal handler plays the part of an interrupt handler: one
 * installed with request_irq().  local_irq_save() turns interrupts off for
 * the calling thread and returns the nesting it found; local_irq_restore()
 * goes back to it.  As in the kernel, @flags is an unsigned long the caller
 * keeps on its stack, and saves nest.  It costs no system call: like
 * powerpc's lazy masking, "off" is a per-thread count, and an interrupt
 * that lands while it is not 0 is held back and runs at the restore that
 * brings it to 0 (irqflags.c).
 */
#ifndef KIT_IRQFLAGS_H
#define KIT_IRQFLAGS_H

#include "compiler.h"

unsigned long __local_irq_save(void);
void __local_irq_restore(unsigned long flags, const char *fn);

/**
 * local_irq_save - turn this thread's interrupts off, saving the nesting
 *
 * Guarantees: until the matching local_irq_restore(), no handler installed
 * with request_irq() runs on this thread; one that lands meanwhile runs
 * at the restore that turns interrupts back on.  Nests up to
 * IRQ_SAVE_DEPTH deep; deeper is a BUG.
 */
#define local_irq_save(flags)		((flags) = __local_irq_save())

/**
 * local_irq_restore - go back to the nesting of the matching local_irq_save
 *
 * Restores must come in the reverse order of the saves (a BUG otherwise).
 * The one that turns interrupts back on runs, before it returns, the
 * handler of each interrupt held back while they were off (once, however
 * often it landed, as a pending signal is delivered once).
 */
#define local_irq_restore(flags)	__local_irq_restore((flags), __func__)

/**
 * irqs_disabled - true between local_irq_save and its local_irq_restore
 */
int irqs_disabled(void);

/**
 * request_irq - make @handler the interrupt handler of signal @sig
 *
 * Guarantees: from now on @sig, delivered to a thread, runs @handler there
 * at once if that thread has interrupts on, else at its restore.  0, or -1
 * (as sigaction(); @sig out of range, or no @handler).  A handler installed
 * with sigaction() itself is no interrupt: it runs whenever its signal lands.
 */
int request_irq(int sig, void (*handler)(int));

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
