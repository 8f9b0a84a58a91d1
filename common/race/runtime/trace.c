// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - the steps of an execution, as recorded (report/timeline.c
 * shows them).
 *
 * Addresses are never printed: an address inside an object of the slab
 * becomes obj#N (+offset), N being its id in objects.c, which restarts at
 * 1 with every execution; any other address becomes @N, numbered in the
 * order the execution first touched it.  Values that point into a slab object are
 * shown the same way.  So the trace of one interleaving is the same text
 * in every run, whatever ASLR and malloc do.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "race/runtime/sched.h"

#define RACE_MAX_VARS	64

static const volatile void *vars[RACE_MAX_VARS];
static int nr_vars;

/** race_trace_reset - forget the steps and the @N numbering */
void race_trace_reset(void)
{
	race_sh->nr_steps = 0;
	nr_vars = 0;
}

/* @N of a non-slab address (numbered at first use if @add); 0 if none. */
static long var_id(const volatile void *addr, int add)
{
	int i;

	for (i = 0; i < nr_vars; i++)
		if (vars[i] == addr)
			return i + 1;
	if (!add || nr_vars == RACE_MAX_VARS)
		return 0;
	vars[nr_vars] = addr;
	return ++nr_vars;
}

/* Cap reached: name the label that repeats most in the last steps. */
static void __noreturn livelock(void)
{
	const struct race_step *s = race_sh->steps;
	long n = race_sh->nr_steps, from = n > 200 ? n - 200 : 0, i, j;
	long best = from, best_count = 0, count;
	char who[16];

	for (i = from; i < n; i++) {
		for (count = 0, j = from; j < n; j++)
			count += s[j].thread == s[i].thread &&
				 s[j].fn == s[i].fn && s[j].what == s[i].what;
		if (count > best_count) {
			best = i;
			best_count = count;
		}
	}
	race_thread_name(s[best].thread, who, sizeof(who));
	race_fail("livelock", "step cap %ld reached: %s repeats %s.%s (%ld of "
		  "the last %ld steps) -- a loop that changes shared state at "
		  "every turn and never ends (a loop that only waits, changing "
		  "nothing, waits for another thread's write and costs no "
		  "step); raise --max-steps if the scenario needs more",
		  race_sh->cap_steps, who, s[best].fn, s[best].what, best_count,
		  n - from);
}

/* Name @addr in @ref/@id/@off: obj#N+off, @N (numbered now if @add), or 0. */
static enum race_ref name_addr(const volatile void *addr, int add, long *id,
			       long *off)
{
	const struct race_obj *o = race_obj_find(addr);

	*off = 0;
	if (o) {
		*id = race_obj_id(o);
		*off = race_obj_offset(o, addr);
		return RACE_REF_OBJ;
	}
	*id = var_id(addr, add);
	return *id ? RACE_REF_VAR : RACE_REF_NONE;
}

/**
 * race_trace_add - record the step thread @thread is about to perform
 *
 * Guarantees: every field of the step is this step's, none left in its
 * slot by an earlier execution or search (a value not attached reads 0,
 * as in a fresh process); the step is visible to the parent process
 * before the access is made, so a crash during the access still shows it.
 */
struct race_step *race_trace_add(int thread, const char *fn, const char *what,
				 const volatile void *addr)
{
	struct race_step *s;

	if (race_sh->nr_steps >= race_sh->cap_steps)
		livelock();
	s = &race_sh->steps[race_sh->nr_steps];
	*s = (struct race_step){
		.thread = thread, .fn = fn, .what = what, .addr = addr,
		.val_ref = RACE_REF_NONE, .new_ref = RACE_REF_NONE,
		.sees = RACE_SEES_NEWEST,
	};
	s->obj_ref = addr ? name_addr(addr, 1, &s->obj, &s->obj_off) :
		RACE_REF_NONE;
	__atomic_store_n(&race_sh->nr_steps, race_sh->nr_steps + 1,
			 __ATOMIC_RELEASE);
	return s;
}

/* @value as a step shows it: a number, obj#N+off or @N. */
static enum race_ref name_value(long value, long *val, long *off)
{
	enum race_ref ref;
	long id;

	*val = value;
	*off = 0;
	if (value > -65536 && value < 65536)
		return RACE_REF_INT;
	ref = name_addr((const void *)(uintptr_t)value, 0, &id, off);
	if (ref == RACE_REF_NONE)
		return RACE_REF_INT;
	*val = id;
	return ref;
}

/** race_trace_nr - the number of step @s, 1-based */
long race_trace_nr(const struct race_step *s)
{
	return s - race_sh->steps + 1;
}

/** race_trace_value - attach the value the access of step @s saw or stored */
void race_trace_value(struct race_step *s, long value)
{
	s->val_ref = name_value(value, &s->val, &s->val_off);
}

/**
 * race_trace_stale - the load of step @s read the store of step @sees
 * (0: the initial value), not the newest, made at step @newest, whose
 * value is @value if @known
 */
void race_trace_stale(struct race_step *s, long sees, long newest, bool known,
		      long value)
{
	s->sees = sees;
	s->newest = newest;
	s->new_ref = known ? name_value(value, &s->new_val, &s->new_off) :
		RACE_REF_NONE;
}

/**
 * race_trace_placed - the store of step @s went right after the store of
 * step @after (0: the initial value) in its location's coherence order,
 * before the one made at step @before, whose value is @value if @known
 */
void race_trace_placed(struct race_step *s, long after, long before,
		       bool known, long value)
{
	race_trace_stale(s, after, before, known, value);
	s->placed = true;
}
