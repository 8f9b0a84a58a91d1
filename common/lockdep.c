// SPDX-License-Identifier: GPL-2.0
/*
 * lockdep.c - lockdep's irq-safety rule (lockdep.h) in the plain backends:
 * each lock's usage in its lockdep_map, each thread's held locks on a
 * small stack of its own.
 *
 * Under the reproducer every function here hands over to its model at
 * once (race_lock_acquire() and its kin return true): the model keeps the
 * rule per execution and names steps, where the usage kept in a lock
 * would outlive the execution that showed it.
 */
#include "bug.h"
#include "irqflags.h"
#include "lockdep.h"
#include "race_hooks.h"

#define LOCKDEP_MAX_HELD	16	/* deeper nesting is not tracked */

static const char *const usage_name[2] = { "IN-HARDIRQ-W", "HARDIRQ-ON-W" };
static const char *const usage_how[2] = {
	"taken in interrupt context", "held with interrupts on",
};

static __thread struct {
	struct lockdep_map *map;
	const volatile void *lock;
} held[LOCKDEP_MAX_HELD];
static __thread int nr_held;

/*
 * Note usage @bit (LOCK_USED_IN_HARDIRQ or LOCK_ENABLED_HARDIRQ) of @map,
 * shown by @fn; a BUG if the lock has the other usage already.
 */
static void mark_usage(struct lockdep_map *map, unsigned int bit,
		       const char *fn)
{
	int now = bit == LOCK_ENABLED_HARDIRQ, before = !now;
	unsigned int old;

	if (__atomic_load_n(&map->usage, __ATOMIC_RELAXED) & bit)
		return;
	__atomic_store_n(&map->where[now], fn, __ATOMIC_RELAXED);
	old = __atomic_fetch_or(&map->usage, bit, __ATOMIC_RELEASE);
	if (!(old & (LOCK_USED_IN_HARDIRQ | LOCK_ENABLED_HARDIRQ) & ~bit))
		return;
	kit_bug("inconsistent-lock-state", "inconsistent {%s} -> {%s} usage: "
		"a lock %s in %s is %s in %s: had the interrupt come while its "
		"own CPU held the lock, the handler would spin on it forever; "
		"take it with spin_lock_irqsave() wherever a handler takes it too",
		usage_name[before], usage_name[now], usage_how[before],
		__atomic_load_n(&map->where[before], __ATOMIC_ACQUIRE) ?: "?",
		usage_how[now], fn);
}

void lock_acquire(struct lockdep_map *map, const volatile void *lock,
		  const char *fn)
{
	if (race_lock_acquire(fn, lock))
		return;
	if (in_hardirq())
		mark_usage(map, LOCK_USED_IN_HARDIRQ, fn);
	else if (!irqs_disabled())
		mark_usage(map, LOCK_ENABLED_HARDIRQ, fn);
	if (nr_held < LOCKDEP_MAX_HELD) {
		held[nr_held].map = map;
		held[nr_held].lock = lock;
	}
	nr_held++;
}

void lock_release(struct lockdep_map *map __maybe_unused,
		  const volatile void *lock)
{
	int i;

	if (race_lock_release(lock) || !nr_held)
		return;
	for (i = (nr_held < LOCKDEP_MAX_HELD ? nr_held : LOCKDEP_MAX_HELD) - 1;
	     i >= 0 && held[i].lock != lock; i--)
		;
	if (i < 0) {
		if (nr_held > LOCKDEP_MAX_HELD)
			nr_held--;	/* one of those past the stack */
		return;		/* (or one another thread took) */
	}
	for (; i + 1 < nr_held && i + 1 < LOCKDEP_MAX_HELD; i++)
		held[i] = held[i + 1];
	nr_held--;
}

void lockdep_hardirqs_on(const char *fn)
{
	int i;

	if (race_hardirqs_on(fn) || in_hardirq())
		return;
	for (i = 0; i < nr_held && i < LOCKDEP_MAX_HELD; i++)
		mark_usage(held[i].map, LOCK_ENABLED_HARDIRQ, fn);
}
