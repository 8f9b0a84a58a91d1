// SPDX-License-Identifier: GPL-2.0
/*
 * spinlock.c - the two backends of spinlock_t.
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

void __spin_lock(spinlock_t *lock, const char *fn __maybe_unused)
{
#ifdef CONFIG_RACE_HARNESS
	race_spin_lock(fn, lock);	/* returns with the lock free */
	BUG_ON(!try_acquire(lock));
#else
	unsigned int spins = 0;

	while (!try_acquire(lock)) {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
			if (++spins % SPINS_BEFORE_YIELD == 0)
				sched_yield();
		}
	}
#endif
}

int __spin_trylock(spinlock_t *lock, const char *fn __maybe_unused)
{
	int ok;

	race_access(fn, "spin_trylock", lock);
	ok = try_acquire(lock);
	race_seen(ok);
	return ok;
}

void __spin_unlock(spinlock_t *lock, const char *fn __maybe_unused)
{
	race_access(fn, "spin_unlock", lock);
	if (!__atomic_exchange_n(&lock->locked, 0, __ATOMIC_RELEASE))
		kit_bug("bad-unlock", "spin_unlock of a free lock in %s", fn);
	race_seen(0);
}
