// SPDX-License-Identifier: GPL-2.0
/*
 * timeline.c - the steps of an execution as people and schedule files read
 * them: the timeline, one column per thread (the table the 2004 article
 * draws by hand), and the "step" line of a schedule file.
 *
 * The names come from the record (runtime/trace.c): obj#N (+offset) for an
 * address in a slab object, @N for any other, numbers for values.
 */
#include <string.h>

#include "race/report/report.h"

#define CELL_MAX	60

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
