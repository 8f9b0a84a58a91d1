// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - the steps of an execution, and the timeline that shows them.
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

#include "race/dpor.h"
#include "race/sched.h"

#define RACE_MAX_VARS	64
#define CELL_MAX	60

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
		  "the last %ld steps) -- a loop that waits for another thread "
		  "without a point that lets it run; wait with spin_lock or "
		  "add race_point() in the loop, or raise --max-steps",
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
 * Guarantees: the step is visible to the parent process before the access
 * is made, so a crash during the access still shows it.
 */
struct race_step *race_trace_add(int thread, const char *fn, const char *what,
				 const volatile void *addr)
{
	struct race_step *s;

	if (race_sh->nr_steps >= race_sh->cap_steps)
		livelock();
	s = &race_sh->steps[race_sh->nr_steps];
	s->thread = thread;
	s->fn = fn;
	s->what = what;
	s->addr = addr;
	s->val_ref = RACE_REF_NONE;
	s->obj_off = 0;
	s->obj_ref = addr ? name_addr(addr, 1, &s->obj, &s->obj_off) :
		RACE_REF_NONE;
	s->sees = RACE_SEES_NEWEST;
	__atomic_store_n(&race_sh->nr_steps, race_sh->nr_steps + 1,
			 __ATOMIC_RELEASE);
	race_dpor_step(thread);
	race_debug_at_step(race_sh->nr_steps, addr);
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

/** race_thread_name - "T1".."T4", "RCU" for the callback thread, "IRQ1"
 * for the interrupt thread of T1 */
const char *race_thread_name(int id, char *buf, size_t len)
{
	if (id > 0 && id == race_nr_workers() + 1)
		snprintf(buf, len, "RCU");
	else if (race_irq_owner(id))
		snprintf(buf, len, "IRQ%d", race_irq_owner(id));
	else
		snprintf(buf, len, "T%d", id);
	return buf;
}

/* "obj#3", "obj#3+8", "@2", a number, or "-" */
static void ref_name(int ref, long id, long off, char *buf, size_t len)
{
	switch (ref) {
	case RACE_REF_OBJ:
		if (off)
			snprintf(buf, len, "obj#%ld+%ld", id, off);
		else
			snprintf(buf, len, "obj#%ld", id);
		break;
	case RACE_REF_VAR:
		snprintf(buf, len, "@%ld", id);
		break;
	case RACE_REF_INT:
		snprintf(buf, len, "%ld", id);
		break;
	default:
		snprintf(buf, len, "-");
	}
}

/* A step as the timeline shows it: "kref_get.read(obj#1) = 1" */
static void step_cell(const struct race_step *s, char *buf, size_t len)
{
	char obj[32], val[32];
	int n;

	ref_name(s->obj_ref, s->obj, s->obj_off, obj, sizeof(obj));
	ref_name(s->val_ref, s->val, s->val_off, val, sizeof(val));
	n = snprintf(buf, len, "%s.%s", s->fn, s->what);
	if (s->obj_ref != RACE_REF_NONE && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "(%s)", obj);
	if (s->val_ref != RACE_REF_NONE && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " = %s", val);
}

/** race_step_line - a step as a schedule file records it */
void race_step_line(const struct race_step *s, long nr, char *buf, size_t len)
{
	char who[16], obj[32], val[32];

	race_thread_name(s->thread, who, sizeof(who));
	ref_name(s->obj_ref, s->obj, s->obj_off, obj, sizeof(obj));
	ref_name(s->val_ref, s->val, s->val_off, val, sizeof(val));
	snprintf(buf, len, "step %ld %s %s.%s %s %s", nr, who, s->fn, s->what,
		 obj, val);
}

/* " (stale: T2 wrote 64 at step 9)" after a load that read an older store
 * than the newest, or "". */
static void stale_note(const struct race_shared *sh, const struct race_step *s,
		       char *buf, size_t len)
{
	char who[16], val[32];

	buf[0] = 0;
	if (s->sees == RACE_SEES_NEWEST || s->newest < 1 || s->newest > sh->nr_steps)
		return;
	race_thread_name(sh->steps[s->newest - 1].thread, who, sizeof(who));
	if (s->new_ref == RACE_REF_NONE) {
		snprintf(buf, len, " (stale: %s stored at step %ld)", who, s->newest);
		return;
	}
	ref_name(s->new_ref, s->new_val, s->new_off, val, sizeof(val));
	snprintf(buf, len, " (stale: %s wrote %s at step %ld)", who, val, s->newest);
}

/* "T1 lookup_unlocked" (the scenario's name for it), or "T1", "RCU". */
static void column_title(int id, char *buf, size_t len)
{
	const char *name = NULL;
	char who[16];

	race_thread_name(id, who, sizeof(who));
	if (id <= race_nr_workers() && race_sc && id <= RACE_MAX_THREADS)
		name = race_sc->names[id - 1];
	else if (race_irq_owner(id) && race_sc)
		name = race_sc->irq_names[race_irq_owner(id) - 1];
	if (name)
		snprintf(buf, len, "%s %s", who, name);
	else
		snprintf(buf, len, "%s", who);
}

/**
 * race_timeline_print - the execution in @sh, one column per thread
 *
 * The table the 2004 article draws by hand, generated: a row per step,
 * the step in the column of the thread that made it.
 */
void race_timeline_print(FILE *f, const struct race_shared *sh)
{
	int width[RACE_NR_SLOTS + 1] = { 0 }, cols = race_nr_workers(), c, w;
	char cell[128], name[64];
	long i;

	for (i = 0; i < sh->nr_steps; i++) {
		c = sh->steps[i].thread;
		if (c > cols)
			cols = c;
		step_cell(&sh->steps[i], cell, sizeof(cell));
		w = strlen(cell);
		if (w > width[c])
			width[c] = w > CELL_MAX ? CELL_MAX : w;
	}
	fprintf(f, "step");
	for (c = 1; c <= cols; c++) {
		column_title(c, name, sizeof(name));
		w = strlen(name);
		if (width[c] < w)
			width[c] = w;
		if (c == cols)
			fprintf(f, " | %s", name);
		else
			fprintf(f, " | %-*s", width[c], name);
	}
	fprintf(f, "\n----");
	for (c = 1; c <= cols; c++)
		fprintf(f, "-+-%.*s", width[c],
			"------------------------------------------------");
	fprintf(f, "\n");
	for (i = 0; i < sh->nr_steps; i++) {
		const struct race_step *s = &sh->steps[i];
		char row[512];
		size_t n;

		step_cell(s, cell, sizeof(cell));
		n = snprintf(row, sizeof(row), "%4ld", i + 1);
		for (c = 1; c <= s->thread && n < sizeof(row); c++)
			n += snprintf(row + n, sizeof(row) - n, " | %-*.*s",
				      width[c], CELL_MAX, c == s->thread ? cell : "");
		while (n > 0 && n < sizeof(row) && row[n - 1] == ' ')
			row[--n] = 0;
		stale_note(sh, s, cell, sizeof(cell));
		fprintf(f, "%s%s%s\n", row, cell,
			i + 1 == sh->note_step ? "   <- WARN" : "");
	}
}
