// SPDX-License-Identifier: GPL-2.0
/*
 * held.c - what a thread holds, read from the trace, and the end-of-thread
 * oracle.
 *
 * A scenario thread that returns inside an RCU read-side section, or with
 * a spinlock it took still held, has broken a rule whose cost shows only
 * later and elsewhere: a grace period that never ends, a lock nobody will
 * release.  its exit hook says so when the thread returns,
 * naming the step that took what is still held.
 *
 * A thread's sections: its rcu_read_lock and rcu_read_unlock steps.  Its
 * locks: the lock words still held whose last acquisition -- a spin_lock
 * step, or a spin_trylock step that returned 1 -- was its own (however the
 * lock was released: an emulated atomic releases its hashed lock without a
 * step of its own).  spinlock_t's first field is the lock word, so lock,
 * trylock and unlock steps name one address.
 */

#include "race/models/models.h"

/* Whether @s is labelled "*.@what" (the first byte first: most are not). */
static bool label_is(const struct race_step *s, const char *what)
{
	return race_streq(s->what, what);
}

/* Whether @s is a step of thread @id labelled "*.@what". */
static bool step_is(const struct race_step *s, int id, const char *what)
{
	return s->thread == id && label_is(s, what);
}

/*
 * The step at which thread @id entered the read-side section it is still
 * inside (the outermost), or NULL; *@depth: its nesting now.
 */
static const struct race_step *open_section(int id, int *depth)
{
	const struct race_step *s = race_sh->steps, *outer = NULL;
	long i;

	*depth = 0;
	for (i = 0; i < race_sh->nr_steps; i++, s++) {
		if (step_is(s, id, "rcu_read_lock") && !(*depth)++)
			outer = s;
		else if (step_is(s, id, "rcu_read_unlock") && *depth > 0)
			--*depth;
	}
	return *depth ? outer : NULL;
}

/** race_held_rcu - how deep thread @id is inside read-side sections now */
int race_held_rcu(int id)
{
	int depth;

	open_section(id, &depth);
	return depth;
}

/* Whether step @s took a lock (any thread's). */
static bool takes_lock(const struct race_step *s)
{
	return label_is(s, "spin_lock") ||
	       (label_is(s, "spin_trylock") && s->val_ref == RACE_REF_INT &&
		s->val == 1);
}

/* Whether the lock word at @addr is held now (a lock in memory freed since,
 * a fork's copy of a table, is held by nobody). */
static bool word_held(const volatile void *addr)
{
	const struct race_obj *o = addr ? race_obj_find(addr) : NULL;

	if (!addr || (o && race_obj_is_freed(o)))
		return false;
	return __atomic_load_n((const int *)addr, __ATOMIC_RELAXED);
}

#define MAX_LOCKS	64	/* lock words told apart in one execution */

/*
 * Whether a step after step @i took the lock word step @i took: @seen
 * holds the @n words met so far, going back from the last step (past
 * MAX_LOCKS words, the steps after @i are searched).
 */
static bool taken_later(long i, const volatile void **seen, int *n)
{
	const struct race_step *steps = race_sh->steps;
	long j;
	int k;

	for (k = 0; k < *n; k++)
		if (seen[k] == steps[i].addr)
			return true;
	if (*n < MAX_LOCKS) {
		seen[(*n)++] = steps[i].addr;
		return false;
	}
	for (j = i + 1; j < race_sh->nr_steps; j++)
		if (takes_lock(&steps[j]) && steps[j].addr == steps[i].addr)
			return true;
	return false;
}

/*
 * The step at which thread @id took a lock it still holds -- @only, if not
 * NULL -- or NULL: a held lock word whose last acquisition was @id's.
 * One pass from the last step back: the first acquisition met of a word
 * is its last.
 */
static const struct race_step *held_lock_step(int id, const volatile void *only)
{
	const struct race_step *steps = race_sh->steps;
	const volatile void *seen[MAX_LOCKS];
	int nr_seen = 0;
	long i;

	for (i = race_sh->nr_steps - 1; i >= 0; i--) {
		if (!takes_lock(&steps[i]) || (only && steps[i].addr != only) ||
		    taken_later(i, seen, &nr_seen))
			continue;
		if (steps[i].thread == id && word_held(steps[i].addr))
			return &steps[i];	/* its last acquisition, still held */
	}
	return NULL;
}

/**
 * race_held_lock - whether thread @id holds @lock (a spinlock_t *): the
 * lock is held, and its last acquisition was @id's
 */
bool race_held_lock(int id, const volatile void *lock)
{
	return held_lock_step(id, lock) != NULL;
}

/**
 * race_thread_who - "T1 (get_work_put)", "IRQ1 (put_in_irq)", "RCU": a
 * thread as a verdict names it
 */
void race_thread_who(int id, char *buf, size_t len)
{
	char name[16];
	int k = race_irq_owner(id);
	const char *fn = k ? race_sc->irq_names[k - 1] :
		id <= race_nr_workers() ? race_sc->names[id - 1] : NULL;

	race_thread_name(id, name, sizeof(name));
	if (fn)
		snprintf(buf, len, "%s (%s)", name, fn);
	else
		snprintf(buf, len, "%s", name);
}

/*
 * Thread @t has returned: end the search with the verdict "held-at-exit"
 * if it is still inside an RCU read-side section or still holds a
 * spinlock it took.
 */
static void exit_check(const struct race_thread *t)
{
	const struct race_step *s;
	char name[64];
	int depth;

	s = open_section(t->id, &depth);
	if (s) {
		race_thread_who(t->id, name, sizeof(name));
		race_fail("held-at-exit", "%s returned inside an RCU read-side "
			  "section: the rcu_read_lock of step %ld in %s has no "
			  "rcu_read_unlock (every grace period now waits for "
			  "it forever)", name, race_trace_nr(s), s->fn);
	}
	s = held_lock_step(t->id, NULL);
	if (s) {
		race_thread_who(t->id, name, sizeof(name));
		race_fail("held-at-exit", "%s returned holding the lock it took "
			  "at step %ld in %s.%s: every path out of a function "
			  "that takes a lock must release it (or say in its "
			  "contract that it returns with it held)", name,
			  race_trace_nr(s), s->fn, s->what);
	}
}

RACE_MODEL(held_model) = {
	.name	= "held",
	.exit	= exit_check,
};
