// SPDX-License-Identifier: GPL-2.0
/*
 * spinlock.c - spinlock_t: test-and-test-and-set, with the reproducer's
 * scheduling points (race_hooks.h) in front and lockdep (lockdep.h) told
 * of every acquisition and release.
 */
#include <sched.h>

#include "bug.h"
#include "race_hooks.h"
#include "spinlock.h"

#define SPINS_BEFORE_YIELD	128

static int try_acquire(spinlock_t *lock)
{
	if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		return 0;
	lock->nr_acquired++;
	return 1;
}

void __spin_lock(spinlock_t *lock, const char *fn)
{
	unsigned int spins = 0;

	race_spin_lock(fn, &lock->locked);	/* harness: returns with it free */
	while (!try_acquire(lock)) {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
			if (++spins % SPINS_BEFORE_YIELD == 0)
				sched_yield();
		}
	}
	lock_acquire(&lock->dep_map, lock, fn);
}

int __spin_trylock(spinlock_t *lock, const char *fn)
{
	int taken;

	race_access(fn, "spin_trylock", lock, RACE_RMW | RACE_ACQUIRE);
	taken = try_acquire(lock);
	if (taken)
		lock_acquire(&lock->dep_map, lock, fn);
	return race_seen(taken);
}

void __spin_unlock(spinlock_t *lock, const char *fn)
{
	race_access(fn, "spin_unlock", lock, RACE_RMW | RACE_RELEASE);
	if (!__atomic_exchange_n(&lock->locked, 0, __ATOMIC_RELEASE))
		kit_bug("bad-unlock", "spin_unlock of a free lock in %s", fn);
	lock_release(&lock->dep_map, lock);
	race_seen(0);
}
