/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockdep.h - lockdep's irq-safety rule for the kit's spinlocks.
 *
 * A lock that an interrupt handler takes must never be held with
 * interrupts on anywhere else: if the interrupt comes while its own CPU
 * holds the lock, the handler spins on it forever.  Waiting for that
 * interrupt to land in the window is luck; the kernel's lockdep does not
 * wait.  It records, per lock class, two usages and where each was first
 * seen:
 *
 *   {IN-HARDIRQ-W}   the lock was taken in interrupt context
 *   {HARDIRQ-ON-W}   the lock was held with interrupts on: taken with them
 *                    on, or held while local_irq_restore() turned them on
 *
 * and reports "inconsistent {HARDIRQ-ON-W} -> {IN-HARDIRQ-W} usage" (or
 * the other way round: the usage seen first, then the new one) the first
 * time a class has both, whatever the timing.  The kit keeps that rule
 * only (no lock-order graph, no softirqs, no read locks).
 *
 * A lock class is one lock here: the kernel's rule for a lock defined
 * statically, as every lock of the labs is (an array of bucket locks is
 * as many classes as it has locks, so a test puts the interrupt handler's
 * count and the thread's in one bucket).
 *
 * Plain backends: the usage lives in the lock (struct lockdep_map, as the
 * kernel's spinlock_t carries its dep_map); interrupt context is what
 * irq_enter() ... irq_exit() bracket (irqflags.h); a report is a BUG
 * ("inconsistent-lock-state"): the process stops, and the grader has the
 * line as evidence.  Harness backend: the reproducer's lockdep model
 * (common/race/models/lockdep.c) keeps the same rule per execution, knows
 * interrupt context by its IRQ threads, and names the two steps; the
 * functions below then leave everything to it (race_hooks.h).
 *
 * Only spinlock.c and irqflags.c call these: lab code takes locks, it
 * does not annotate them.
 */
#ifndef KIT_LOCKDEP_H
#define KIT_LOCKDEP_H

#include "compiler.h"

/* The usages, bits of lockdep_map.usage. */
#define LOCK_USED_IN_HARDIRQ	0x1		/* {IN-HARDIRQ-W} */
#define LOCK_ENABLED_HARDIRQ	0x2		/* {HARDIRQ-ON-W} */

/**
 * struct lockdep_map - what lockdep knows of one lock (plain backends)
 * @usage: LOCK_USED_IN_HARDIRQ | LOCK_ENABLED_HARDIRQ, as seen so far
 * @where: the function that showed each usage first ([0]: in interrupt,
 *         [1]: with interrupts on)
 */
struct lockdep_map {
	unsigned int usage;
	const char *where[2];
};

#define __LOCKDEP_MAP_INIT	{ 0, { NULL, NULL } }

/**
 * lock_acquire - @fn has just taken the lock @map belongs to (at @lock)
 *
 * Guarantees: notes the usage the acquisition shows (in interrupt
 * context, or with interrupts on) and remembers the lock as held by this
 * thread; a usage inconsistent with one seen before is reported, now.
 */
void lock_acquire(struct lockdep_map *map, const volatile void *lock,
		  const char *fn);

/**
 * lock_release - this thread has just released the lock at @lock
 */
void lock_release(struct lockdep_map *map, const volatile void *lock);

/**
 * lockdep_hardirqs_on - @fn has just turned interrupts back on
 *
 * Guarantees: every lock this thread still holds is noted as held with
 * interrupts on, and checked as lock_acquire() checks.
 */
void lockdep_hardirqs_on(const char *fn);

/** lockdep_init_map - @map has seen no usage yet (spin_lock_init) */
static inline void lockdep_init_map(struct lockdep_map *map)
{
	map->usage = 0;
	map->where[0] = map->where[1] = NULL;
}

#endif /* KIT_LOCKDEP_H */
