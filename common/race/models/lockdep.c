// SPDX-License-Identifier: GPL-2.0
/*
 * lockdep.c - lockdep's irq-safety rule (common/lockdep.h), checked at
 * every acquisition of every execution.
 *
 * The interrupt model (irq.c) delivers an interrupt only at a point where
 * its thread has interrupts on; a lock taken with interrupts on and
 * masked before the next point is never caught that way, however long
 * the search.  This model does not wait for the interrupt: per lock, per
 * execution, it notes the first step that took it in interrupt context
 * (an IRQ thread: {IN-HARDIRQ-W}) and the first that held it with
 * interrupts on ({HARDIRQ-ON-W}: a worker took it so, or turned them on
 * while holding it), and ends the execution with the verdict
 * "inconsistent-lock-state" the first time a lock has both, naming both
 * steps, in the kernel's words: "inconsistent {A} -> {B} usage", A the
 * usage seen first.
 *
 * A lock is a spinlock_t, as lockdep.c in common/ tells us of it; the
 * emulated atomics' hashed lock words are no spinlock_t, and not watched
 * (nor are an architecture's own locks in the kernel).  A scenario that
 * shows the deadlock the rule prevents sets .lockdep_off.
 */
#include <string.h>

#include "race/models/models.h"
#include "race_hooks.h"

#define LOCKDEP_MAX_CLASSES	64
#define LOCKDEP_MAX_HELD	8

enum { IN_HARDIRQ, HARDIRQ_ON };

/* Where a usage was first seen: the step, and what it did there. */
struct usage {
	long step;			/* 1-based; 0: not seen */
	int thread;
	const char *fn, *what;
};

static struct lock_class {
	const volatile void *lock;
	struct usage usage[2];
	const struct race_step *named;	/* a step on the lock, to name it */
} classes[LOCKDEP_MAX_CLASSES];
static int nr_classes;

/* The locks each thread holds (by id). */
static const volatile void *held[RACE_NR_SLOTS + 1][LOCKDEP_MAX_HELD];
static int nr_held[RACE_NR_SLOTS + 1];

static void lockdep_reset(void)
{
	memset(nr_held, 0, sizeof(nr_held));
	nr_classes = 0;
}

RACE_MODEL(lockdep_model) = {
	.name	= "lockdep",
	.reset	= lockdep_reset,
};

/* The class of @lock, made at its first acquisition; NULL if full. */
static struct lock_class *class_of(const volatile void *lock)
{
	int i;

	for (i = 0; i < nr_classes; i++)
		if (classes[i].lock == lock)
			return &classes[i];
	if (nr_classes == LOCKDEP_MAX_CLASSES)
		return NULL;
	memset(&classes[nr_classes], 0, sizeof(classes[0]));
	classes[nr_classes].lock = lock;
	return &classes[nr_classes++];
}

/* "took it with interrupts on at step 4 (refcount_get.spin_lock)" */
static void usage_where(const struct usage *u, int kind, char *buf, size_t len)
{
	if (!strcmp(u->what, "local_irq_restore"))
		snprintf(buf, len, "held it when %s turned interrupts back on "
			 "(local_irq_restore, after step %ld)", u->fn, u->step);
	else
		snprintf(buf, len, "took it%s at step %ld (%s.%s)",
			 kind == IN_HARDIRQ ? " in interrupt context" :
			 " with interrupts on", u->step, u->fn, u->what);
}

static const char *const usage_name[2] = { "IN-HARDIRQ-W", "HARDIRQ-ON-W" };

/* Both usages of @c are known, @now the newer: the verdict. */
static void __noreturn inconsistent(const struct lock_class *c, int now)
{
	const struct usage *on = &c->usage[HARDIRQ_ON], *in = &c->usage[IN_HARDIRQ];
	char lock[32], on_who[64], in_who[64], on_where[160], in_where[160];

	race_step_addr(c->named, lock, sizeof(lock));
	race_thread_who(on->thread, on_who, sizeof(on_who));
	race_thread_who(in->thread, in_who, sizeof(in_who));
	usage_where(on, HARDIRQ_ON, on_where, sizeof(on_where));
	usage_where(in, IN_HARDIRQ, in_where, sizeof(in_where));
	race_fail("inconsistent-lock-state", "inconsistent {%s} -> {%s} usage "
		  "of %s: %s %s, and %s %s -- had the interrupt come while %s "
		  "held it, the handler would have spun forever on a lock its "
		  "own CPU holds; a lock that an interrupt handler takes must be "
		  "taken with interrupts off (spin_lock_irqsave) everywhere else, "
		  "and released before they come back on", usage_name[!now],
		  usage_name[now], lock, on_who, on_where, in_who, in_where,
		  on_who);
}

/* Note usage @kind of @c by thread @t at its current step. */
static void mark(struct lock_class *c, int kind, const struct race_thread *t,
		 const char *fn, const char *what)
{
	struct usage *u = &c->usage[kind];

	if (u->step || race_sc->lockdep_off)
		return;
	u->step = t->step ? race_trace_nr(t->step) : 0;
	u->thread = t->id;
	u->fn = fn;
	u->what = what;
	if (!u->step)
		return;		/* no step yet: nothing to name */
	if (c->usage[!kind].step)
		inconsistent(c, kind);
}

/* @t took @lock at its current step (spin_lock or a spin_trylock that won). */
bool race_lock_acquire(const char *fn __maybe_unused, const volatile void *lock)
{
	struct race_thread *t = race_self();
	const struct race_step *s;
	struct lock_class *c;

	if (!t || !(s = t->step) || !(c = class_of(lock)))
		return true;
	if (!c->named)
		c->named = s;
	if (race_irq_owner(t->id))
		mark(c, IN_HARDIRQ, t, s->fn, s->what);
	else if (!race_irqs_off(t->id))
		mark(c, HARDIRQ_ON, t, s->fn, s->what);
	if (nr_held[t->id] < LOCKDEP_MAX_HELD)
		held[t->id][nr_held[t->id]++] = lock;
	return true;
}

/* @t released @lock. */
bool race_lock_release(const volatile void *lock)
{
	struct race_thread *t = race_self();
	int i, n;

	if (!t)
		return true;
	n = nr_held[t->id];
	for (i = n - 1; i >= 0 && held[t->id][i] != lock; i--)
		;
	if (i < 0)
		return true;	/* taken by another thread, or past the table */
	memmove(&held[t->id][i], &held[t->id][i + 1],
		(n - i - 1) * sizeof(held[0][0]));
	nr_held[t->id]--;
	return true;
}

/* @t turned interrupts back on in @fn: every lock it holds is held so. */
bool race_hardirqs_on(const char *fn)
{
	struct race_thread *t = race_self();
	struct lock_class *c;
	int i;

	if (!t || race_irq_owner(t->id))
		return true;
	for (i = 0; i < nr_held[t->id]; i++)
		if ((c = class_of(held[t->id][i])))
			mark(c, HARDIRQ_ON, t, fn, "local_irq_restore");
	return true;
}
