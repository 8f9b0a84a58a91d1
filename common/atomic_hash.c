// SPDX-License-Identifier: GPL-2.0
/*
 * atomic_hash.c - atomic_inc() and its kin on a CPU without
 * compare-and-exchange (CONFIG_NO_CMPXCHG, see atomic.h).
 *
 * The kernel emulates them on such CPUs with a small array of spinlocks of
 * the architecture's own, picked by hashing the counter's address -- the
 * same (addr >> 8) & (N - 1) that the 2004 refcount fallback uses for its
 * __refcount_hash, but a different array (sparc32: __atomic_hash in
 * arch/sparc/lib/atomic32.c).  Here likewise: ATOMIC_HASH_SIZE lock words,
 * interrupts off while one is held.
 *
 * The update reads the counter with a plain load and stores the result
 * with atomic_set()'s store.  Under this file's lock nothing else writes
 * the counter -- unless somebody updates it under another lock.  Then the
 * plain load races with that writer, and ThreadSanitizer says so: that is
 * how lab 4's TSan program sees a count guarded by two locks.
 *
 * Under the reproducer an update is two steps: "<fn>.spin_lock" (the
 * thread waits there while the lock word is held; then it takes it and
 * loads the counter) and "<fn>.<op>" (the store; the lock is released
 * with it).  Whatever runs between the two steps under another lock is
 * overwritten by the store: a lost update the reproducer can show.
 */
#include <sched.h>

#include "atomic.h"
#include "irqflags.h"
#include "race_hooks.h"

#define ATOMIC_HASH_SIZE	4

static int atomic_hash_lock[ATOMIC_HASH_SIZE];	/* 0 free, 1 held */

/* The lock word that guards @counter. */
static int *atomic_hash(const int *counter)
{
	return &atomic_hash_lock[((unsigned long)counter >> 8) &
				 (ATOMIC_HASH_SIZE - 1)];
}

/**
 * atomic_hash_fetch_add - add @delta to *@counter under its hashed lock
 * @fn, @what: the caller and the operation, for the reproducer's labels
 *
 * Returns the value before the update.  Guarantees: atomic with respect
 * to every other atomic_hash_fetch_add() on @counter, and ordered like a
 * lock (acquire before the load, release after the store); no signal
 * handler runs on this thread while the lock is held.
 */
int atomic_hash_fetch_add(int *counter, int delta, const char *fn,
			  const char *what)
{
	int *lock = atomic_hash(counter);
	unsigned long flags;
	int old;

	local_irq_save(flags);
	race_spin_lock(fn, lock);	/* harness: returns with it free */
	while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	old = *counter;			/* plain: only this lock's holder writes */
	race_touch(counter, RACE_LOAD);
	race_access(fn, what, counter, RACE_STORE);
	__atomic_store_n(counter, old + delta, __ATOMIC_RELAXED);
	race_seen(old + delta);
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
	race_touch(lock, RACE_STORE);
	local_irq_restore(flags);
	if (unlikely(!old && delta > 0))
		refcount_from_zero(counter, delta, fn, what);
	return old;
}
