// SPDX-License-Identifier: GPL-2.0
/*
 * held.c - what a thread holds, read from the trace, and the end-of-thread
 * oracle.
 *
 * A scenario thread that returns inside an RCU read-side section, or with
 * a spinlock it took still held, has broken a rule whose cost shows only
 * later and elsewhere: a grace period that never ends, a lock nobody will
 * release.  race_thread_exit_check() says so when the thread returns,
 * naming the step that took what is still held.
 *
 * A thread's sections: its rcu_read_lock and rcu_read_unlock steps.  Its
 * locks: its spin_lock steps and the spin_trylock steps that returned 1,
 * less its spin_unlock steps on the same address (lock and unlock name one
 * address: spinlock_t's first field is the lock word).
 */
#include <string.h>

#include "race/held.h"
#include "race/sched.h"

/* Whether @s is a step of thread @id labelled "*.@what". */
static bool step_is(const struct race_step *s, int id, const char *what)
{
	return s->thread == id && !strcmp(s->what, what);
}

/* Whether steps @a and @b accessed the same address. */
static bool same_address(const struct race_step *a, const struct race_step *b)
{
	return a->obj_ref == b->obj_ref && a->obj == b->obj &&
	       a->obj_off == b->obj_off;
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

/* Whether step @s of thread @id took a lock. */
static bool takes_lock(const struct race_step *s, int id)
{
	return step_is(s, id, "spin_lock") ||
	       (step_is(s, id, "spin_trylock") && s->val_ref == RACE_REF_INT &&
		s->val == 1);
}

/*
 * The step at which thread @id took a lock it still holds -- the lock
 * accessed at step @only if not NULL -- or NULL.
 */
static const struct race_step *held_lock_step(int id,
					      const struct race_step *only)
{
	const struct race_step *steps = race_sh->steps;
	long i, j;

	for (i = race_sh->nr_steps - 1; i >= 0; i--) {
		if (!takes_lock(&steps[i], id) ||
		    (only && !same_address(&steps[i], only)))
			continue;
		for (j = i + 1; j < race_sh->nr_steps; j++)
			if (step_is(&steps[j], id, "spin_unlock") &&
			    same_address(&steps[j], &steps[i]))
				break;
		if (j == race_sh->nr_steps)
			return &steps[i];
	}
	return NULL;
}

/**
 * race_held_lock - whether thread @id holds @lock (a spinlock_t *): it took
 * it at one of its steps, and has not released it since
 */
bool race_held_lock(int id, const volatile void *lock)
{
	struct race_step probe;

	if (!race_trace_names(lock, &probe))
		return false;		/* never accessed in this execution */
	return held_lock_step(id, &probe) != NULL;
}

/* "T1 (lookup)": the thread's name as timelines show it. */
static void who(const struct race_thread *t, char *buf, size_t len)
{
	char name[16];
	const char *fn = t->id <= RACE_MAX_THREADS ? race_sc->names[t->id - 1] : NULL;

	race_thread_name(t->id, name, sizeof(name));
	if (fn)
		snprintf(buf, len, "%s (%s)", name, fn);
	else
		snprintf(buf, len, "%s", name);
}

/**
 * race_thread_exit_check - thread @t has returned: end the search with the
 * verdict "held-at-exit" if it is still inside an RCU read-side section
 * or still holds a spinlock it took
 */
void race_thread_exit_check(const struct race_thread *t)
{
	const struct race_step *s;
	char name[64];
	int depth;

	who(t, name, sizeof(name));
	s = open_section(t->id, &depth);
	if (s)
		race_fail("held-at-exit", "%s returned inside an RCU read-side "
			  "section: the rcu_read_lock of step %ld in %s has no "
			  "rcu_read_unlock (every grace period now waits for "
			  "it forever)", name, (long)(s - race_sh->steps) + 1,
			  s->fn);
	s = held_lock_step(t->id, NULL);
	if (s)
		race_fail("held-at-exit", "%s returned holding the lock it took "
			  "at step %ld in %s.%s: every path out of a function "
			  "that takes a lock must release it (or say in its "
			  "contract that it returns with it held)", name,
			  (long)(s - race_sh->steps) + 1, s->fn, s->what);
}
