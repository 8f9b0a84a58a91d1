// SPDX-License-Identifier: GPL-2.0
/*
 * script.c - follow the tokens of a schedule (a file, or --script), then
 * run without preemption.
 *
 * One execution.  A token names a thread and, optionally, the label of
 * its step: a thread that cannot run there, or is at another label, is a
 * divergence, and the verdict says which thread is where.
 */
#include <string.h>

#include "race/explore/strategy.h"

static int token_idx;

static void script_init(void)
{
}

static bool script_begin(void)
{
	token_idx = 0;
	return race_sh->executions == 0;
}

/* "T1, T2": the runnable threads of @c. */
static void runnable_set(const struct race_choice *c, char *buf, size_t len)
{
	char name[16];
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < c->nr && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
			      race_thread_name(c->ids[i], name, sizeof(name)));
}

/* The schedule asked for a step that cannot happen here: say which. */
static void __noreturn diverged(const struct race_token *tok,
				const char *expected,
				const struct race_choice *c)
{
	char who[16], set[128], cur[RACE_LABEL_LEN + 16];
	char at[RACE_LABEL_LEN + 48], line[32];

	runnable_set(c, set, sizeof(set));
	race_thread_name(tok->thread, who, sizeof(who));
	at[0] = 0;
	if (race_choice_index(c, tok->thread) >= 0 &&
	    race_thread_runnable_label(tok->thread, cur, sizeof(cur)))
		snprintf(at, sizeof(at), "; %s is at %s", who, cur);
	line[0] = 0;
	if (tok->line)
		snprintf(line, sizeof(line), " (schedule line %d)", tok->line);
	race_fail("diverged", "diverged at step %ld: expected %s %s, runnable "
		  "{%s}%s%s", race_sh->nr_steps + 1, who, expected, set, at, line);
}

/* Follow the tokens; a step they cannot take is a divergence. */
static int script_pick(const struct race_choice *c)
{
	const struct race_token *tok;
	char label[RACE_LABEL_LEN + 16];
	int i;

	while (token_idx < race_opt.nr_tokens) {
		tok = &race_opt.tokens[token_idx];
		i = race_choice_index(c, tok->thread);
		if (tok->mode == RACE_TOK_REST) {
			if (i >= 0)
				return i;
			token_idx++;
			continue;
		}
		if (!race_thread_runnable_label(tok->thread, label, sizeof(label)))
			label[0] = 0;
		if (i < 0 || (tok->label[0] && tok->mode == RACE_TOK_ONE &&
			      strcmp(label, tok->label)))
			diverged(tok, tok->label[0] ? tok->label : "to run", c);
		if (tok->mode == RACE_TOK_ONE || !strcmp(label, tok->label))
			token_idx++;
		return i;
	}
	return race_default_pick(c);
}

/* "the store of step 9, ... and the initial value": the stores of @r. */
static void store_list(const struct race_read *r, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < r->nr && n < len; i++) {
		const char *sep = !i ? "" : i + 1 == r->nr ? " and " : ", ";

		if (r->steps[i])
			n += snprintf(buf + n, len - n, "%sthe store of step %ld",
				      sep, r->steps[i]);
		else
			n += snprintf(buf + n, len - n, "%sthe initial value",
				      sep);
	}
}

/*
 * The store the schedule says the load reads ('sees' lines), else the
 * newest.  A store it may not read is a divergence.
 */
static int script_pick_read(const struct race_read *r)
{
	char set[256], what[64];
	long want;
	int i;

	if (r->step >= race_opt.nr_sees || race_opt.sees[r->step] == RACE_SEES_NEWEST)
		return 0;
	want = race_opt.sees[r->step];
	for (i = 0; i < r->nr; i++)
		if (r->steps[i] == want)
			return i;
	store_list(r, set, sizeof(set));
	if (want)
		snprintf(what, sizeof(what), "the store of step %ld", want);
	else
		snprintf(what, sizeof(what), "the initial value");
	race_fail("diverged", "diverged at step %ld: the schedule says the load "
		  "reads %s, but it may read only %s", r->step, what, set);
}

static void script_describe(char *buf, size_t len)
{
	snprintf(buf, len, "script");
}

const struct race_strategy race_script = {
	.name		= "script",
	.init		= script_init,
	.begin		= script_begin,
	.pick		= script_pick,
	.pick_read	= script_pick_read,
	.describe	= script_describe,
};
