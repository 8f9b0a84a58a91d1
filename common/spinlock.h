/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spinlock.h - spinlock_t under the kernel's names.
 *
 * Real backend: a test-and-test-and-set lock on __atomic builtins (acquire
 * on lock, release on unlock) that yields the CPU after a while spinning,
 * since the kit's machines may run more threads than cores.
 *
 * Harness backend: spin_lock is a scheduling point at which the thread is
 * not runnable while the lock is held; trylock and unlock are plain points.
 *
 * Every lock counts its acquisitions (nr_acquired), so a test can check
 * that a fast path took no lock.
 *
 * Every acquisition and release is told to lockdep (lockdep.h): a lock
 * that an interrupt handler takes and that is held with interrupts on
 * elsewhere is reported the first time both have happened, whether or
 * not the interrupt ever came at the wrong moment.
 */
#ifndef KIT_SPINLOCK_H
#define KIT_SPINLOCK_H

#include "compiler.h"
#include "irqflags.h"
#include "lockdep.h"

typedef struct {
	int locked;			/* first: lock and unlock name one address */
	unsigned long nr_acquired;	/* updated only by the holder */
	struct lockdep_map dep_map;	/* its usage, for lockdep */
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED	{ 0, 0, __LOCKDEP_MAP_INIT }
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED

void __spin_lock(spinlock_t *lock, const char *fn);
int __spin_trylock(spinlock_t *lock, const char *fn);
void __spin_unlock(spinlock_t *lock, const char *fn);

/** spin_lock_init - make @lock an unlocked lock with no acquisitions */
static inline void spin_lock_init(spinlock_t *lock)
{
	lock->locked = 0;
	lock->nr_acquired = 0;
	lockdep_init_map(&lock->dep_map);
}

/**
 * spin_lock - acquire @lock, spinning until it is free
 *
 * Guarantees: mutual exclusion; acquire ordering (nothing after it moves
 * before it).
 */
#define spin_lock(lock)		__spin_lock((lock), __func__)

/**
 * spin_trylock - acquire @lock if it is free; 1 if it was acquired
 */
#define spin_trylock(lock)	__spin_trylock((lock), __func__)

/**
 * spin_unlock - release @lock, which the caller holds
 *
 * Guarantees: release ordering.  Unlocking a free lock is a BUG.
 */
#define spin_unlock(lock)	__spin_unlock((lock), __func__)

/**
 * spin_lock_irqsave - block signals ("interrupts"), then acquire @lock
 *
 * A counter that a signal handler also updates must be locked this way, or
 * the handler can spin on the lock its own thread holds, forever.
 * Guarantees: interrupts are off before the lock is taken, so lockdep
 * never sees it held with them on.
 */
#define spin_lock_irqsave(lock, flags) do {				\
	local_irq_save(flags);						\
	__spin_lock((lock), __func__);					\
} while (0)

/**
 * spin_unlock_irqrestore - release @lock, then restore the signal mask
 *
 * Guarantees: the lock is released before interrupts come back on.
 */
#define spin_unlock_irqrestore(lock, flags) do {			\
	__spin_unlock((lock), __func__);				\
	local_irq_restore(flags);					\
} while (0)

/** spin_is_locked - true if somebody holds @lock at this instant */
static inline int spin_is_locked(spinlock_t *lock)
{
	return __atomic_load_n(&lock->locked, __ATOMIC_RELAXED);
}

#endif /* KIT_SPINLOCK_H */
