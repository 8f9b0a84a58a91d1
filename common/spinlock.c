// SPDX-License-Identifier: GPL-2.0
/*
 * spinlock.c - spinlock_t: test-and-test-and-set, with the reproducer's
 * scheduling points (race_hooks.h) in front.
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
}

int __spin_trylock(spinlock_t *lock, const char *fn)
{
	race_access(fn, "spin_trylock", lock, RACE_RMW | RACE_ACQUIRE);
	return race_seen(try_acquire(lock));
}

void __spin_unlock(spinlock_t *lock, const char *fn)
{
	race_access(fn, "spin_unlock", lock, RACE_RMW | RACE_RELEASE);
	if (!__atomic_exchange_n(&lock->locked, 0, __ATOMIC_RELEASE))
		kit_bug("bad-unlock", "spin_unlock of a free lock in %s", fn);
	race_seen(0);
}
