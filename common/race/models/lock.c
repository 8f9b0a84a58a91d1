// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c - the spinlock model: a thread at spin_lock is runnable only
 * while the lock is free.
 *
 * So the reproducer never runs a thread that would only spin, and when
 * the lock is free the acquisition that follows succeeds at once (nothing
 * else runs in between).  spin_trylock and spin_unlock are plain accesses.
 */
#include "race/models/models.h"
#include "race/models/weak.h"
#include "race_hooks.h"

/* The lock word at the thread's point is 0. */
static bool lock_free(const struct race_thread *t)
{
	return !__atomic_load_n((const int *)t->addr, __ATOMIC_RELAXED);
}

static int lock_why(const struct race_thread *t, char *buf, size_t len)
{
	char name[16];

	return snprintf(buf, len, "%s spins in %s.%s on a lock nobody will "
			"release; ", race_thread_name(t->id, name, sizeof(name)),
			t->fn, t->what);
}

static const struct race_wait lock_wait = {
	.ready	= lock_free,
	.why	= lock_why,
	.dependent_wakes = true,	/* a spin_unlock of the word */
};

/* A point that is runnable only while *@word is 0; under the weak model
 * the acquisition sees what the last spin_unlock released. */
void race_spin_lock(const char *fn, const int *word)
{
	struct race_thread *t = race_self();

	if (!t)
		return;
	race_sched_footprint(RACE_FP_LOCK, word, 0, 0);
	race_sched_point(&lock_wait, fn, "spin_lock", word);
	race_spin_before(t, word);
	if (race_weak)
		race_weak_lock_acquired(t, word);
}
