// SPDX-License-Identifier: GPL-2.0
/*
 * dfs.c - every execution, depth first, with the preemption bound raised
 * 0, 1, 2 ... up to the scenario's bound, so that the first counterexample
 * found has the fewest preemptions.  A preemption is a switch away from a
 * thread that could have gone on.
 *
 * The search is a stack of the choices made (only where two or more
 * threads were runnable).  Each execution replays the stack's prefix and
 * extends it with the default (no preemption); backtracking moves the
 * deepest choice to its next alternative within the bound.
 */
#include <stdlib.h>
#include <string.h>

#include "race/strategy.h"

struct dfs_choice {
	struct race_choice c;
	int idx;			/* the alternative taken */
	unsigned int tried;		/* alternatives taken so far */
	int preemptions;		/* before this choice */
};

static struct dfs_choice *stack;
static long depth, pos, stack_size;
static int bound;
static bool started;
static long bound_executions;

static void dfs_init(void)
{
	bound = race_opt.bound_min;
	stack_size = 1024;
	stack = calloc(stack_size, sizeof(*stack));
}

/* Cost of taking alternative @i at @d: 1 if it preempts. */
static int cost(const struct dfs_choice *d, int i)
{
	return d->c.from_runnable && d->c.ids[i] != d->c.from;
}

/* Move the deepest choice to its next alternative within the bound. */
static bool backtrack(void)
{
	while (depth > 0) {
		struct dfs_choice *d = &stack[depth - 1];
		int i;

		for (i = 0; i < d->c.nr; i++) {
			if (d->tried & (1u << i))
				continue;
			if (d->preemptions + cost(d, i) > bound)
				continue;
			d->idx = i;
			d->tried |= 1u << i;
			return true;
		}
		depth--;
	}
	return false;
}

/* Next execution of the search; false once the last bound is done. */
static bool dfs_begin(void)
{
	if (started && !backtrack()) {
		race_sh->per_bound[bound] = bound_executions;
		race_sh->bound_reached = bound;
		if (bound >= race_opt.bound || bound + 1 >= RACE_MAX_BOUNDS) {
			race_sh->exhausted = 1;
			return false;
		}
		bound++;
		bound_executions = 0;
	}
	started = true;
	race_sh->bound_reached = bound;
	bound_executions++;
	pos = 0;
	return true;
}

/* The same prefix of choices must meet the same runnable threads. */
static void check_same(const struct dfs_choice *d, const struct race_choice *c)
{
	if (d->c.nr != c->nr || memcmp(d->c.ids, c->ids, c->nr * sizeof(*c->ids)))
		race_fail("nondeterministic", "dfs: the same choices led to "
			  "different runnable threads at choice %ld: the "
			  "scenario depends on something outside the "
			  "reproducer", pos);
}

/* Push a new choice, taking the default (no preemption). */
static int extend(const struct race_choice *c)
{
	struct dfs_choice *d;

	if (depth == stack_size) {
		stack_size *= 2;
		stack = realloc(stack, stack_size * sizeof(*stack));
	}
	d = &stack[depth++];
	pos++;
	d->c = *c;
	d->preemptions = 0;
	if (depth > 1)
		d->preemptions = d[-1].preemptions + cost(&d[-1], d[-1].idx);
	d->idx = race_default_pick(c);
	d->tried = 1u << d->idx;
	return d->idx;
}

/*
 * Replay the recorded prefix of choices, then extend it with the default.
 */
static int dfs_pick(const struct race_choice *c)
{
	struct dfs_choice *d;

	if (c->nr == 1)
		return 0;
	if (pos < depth) {
		d = &stack[pos++];
		check_same(d, c);
		return d->idx;
	}
	return extend(c);
}

/* "dfs bound=1": the bound at which the schedule was found. */
static void dfs_describe(char *buf, size_t len)
{
	snprintf(buf, len, "dfs bound=%d", race_sh->bound_reached);
}

const struct race_strategy race_dfs = {
	.name		= "dfs",
	.init		= dfs_init,
	.begin		= dfs_begin,
	.pick		= dfs_pick,
	.describe	= dfs_describe,
	.exhaustive	= true,
};
