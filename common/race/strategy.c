// SPDX-License-Identifier: GPL-2.0
/*
 * strategy.c - who runs the next step.
 *
 * dfs     every execution, depth first, with the preemption bound raised
 *         0, 1, 2 ... up to the scenario's bound, so that the first
 *         counterexample found has the fewest preemptions.  A preemption
 *         is a switch away from a thread that could have gone on.
 * pct     Burckhardt et al., "A Randomized Scheduler with Probabilistic
 *         Guarantees of Finding Bugs" (ASPLOS 2010), as shuttle does it:
 *         random distinct thread priorities, the highest runnable runs;
 *         DEPTH-1 change points, drawn among the steps of the longest run
 *         so far (the first run measures it), lower the running thread
 *         below every other.
 * random  a uniformly random runnable thread at every step.
 * script  the tokens of a schedule, then the non-preemptive default.
 *
 * A choice exists only where two or more threads are runnable; only those
 * are recorded by dfs.
 */
#include <stdlib.h>
#include <string.h>

#include "race/race.h"

struct choice {
	int nr, ids[RACE_NR_SLOTS];
	int idx;			/* the alternative taken */
	unsigned int tried;		/* alternatives taken so far */
	int from, from_runnable;
	int preemptions;		/* before this choice */
};

struct race_options race_opt;

static struct choice *stack;
static long depth, pos, stack_size;
static int bound, started;
static long bound_executions;

static unsigned long long rng;
static int prio[RACE_NR_SLOTS + 1];
static long change_points[64];
static int nr_change_points;
static long step_no;

static int token_idx;

/* xorshift64*: a small, fixed generator, so that a seed means one thing */
static unsigned long long next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/* A uniform number in [0, @n). */
static long random_below(long n)
{
	return (long)(next_random() % (unsigned long long)n);
}

/** strategy_init - prepare the strategy race_opt names */
void strategy_init(void)
{
	rng = race_opt.seed * 0x9e3779b97f4a7c15ULL + 1;
	bound = race_opt.bound_min;
	stack_size = 1024;
	stack = calloc(stack_size, sizeof(*stack));
}

/* Cost of taking alternative @i at @c: 1 if it preempts. */
static int cost(const struct choice *c, int i)
{
	return c->from_runnable && c->ids[i] != c->from;
}

/* Move the deepest choice to its next alternative within the bound. */
static int dfs_backtrack(void)
{
	while (depth > 0) {
		struct choice *c = &stack[depth - 1];
		int i;

		for (i = 0; i < c->nr; i++) {
			if (c->tried & (1u << i))
				continue;
			if (c->preemptions + cost(c, i) > bound)
				continue;
			c->idx = i;
			c->tried |= 1u << i;
			return 1;
		}
		depth--;
	}
	return 0;
}

/* Next execution of the depth-first search; 0 once the last bound is done. */
static int dfs_begin(void)
{
	if (started && !dfs_backtrack()) {
		race_sh->per_bound[bound] = bound_executions;
		race_sh->bound_reached = bound;
		if (bound >= race_opt.bound || bound + 1 >= RACE_MAX_BOUNDS) {
			race_sh->exhausted = 1;
			return 0;
		}
		bound++;
		bound_executions = 0;
	}
	started = 1;
	race_sh->bound_reached = bound;
	bound_executions++;
	pos = 0;
	return 1;
}

/*
 * Replay the recorded prefix of choices, then extend it with the default
 * (no preemption).  The same prefix must meet the same runnable sets.
 */
static int dfs_pick(int from, int from_runnable, const int *ids, int nr)
{
	struct choice *c;
	int i;

	if (pos < depth) {
		c = &stack[pos++];
		if (c->nr != nr || memcmp(c->ids, ids, nr * sizeof(*ids)))
			race_fail("nondeterministic", "dfs: the same choices led "
				  "to different runnable threads at choice %ld: "
				  "the scenario depends on something outside "
				  "the reproducer", pos);
		return c->idx;
	}
	if (depth == stack_size) {
		stack_size *= 2;
		stack = realloc(stack, stack_size * sizeof(*stack));
	}
	c = &stack[depth++];
	pos++;
	c->nr = nr;
	memcpy(c->ids, ids, nr * sizeof(*ids));
	c->from = from;
	c->from_runnable = from_runnable;
	c->preemptions = 0;
	if (depth > 1)
		c->preemptions = c[-1].preemptions + cost(&c[-1], c[-1].idx);
	c->idx = 0;
	for (i = 0; from_runnable && i < nr; i++)
		if (ids[i] == from)
			c->idx = i;
	c->tried = 1u << c->idx;
	return c->idx;
}

/* New random priorities and change points for the next execution. */
static int pct_begin(void)
{
	int slots = race_nr_workers() + 1, i, j, t;
	long k;

	for (i = 0; i < slots; i++)
		prio[i + 1] = i;
	for (i = slots - 1; i > 0; i--) {		/* Fisher-Yates */
		j = random_below(i + 1);
		t = prio[i + 1];
		prio[i + 1] = prio[j + 1];
		prio[j + 1] = t;
	}
	for (i = 1; i <= slots; i++)
		prio[i] += race_opt.depth;		/* above every change */
	nr_change_points = 0;
	for (i = 0; i < race_opt.depth - 1 && i < 64 && race_sh->max_len; i++) {
		k = 1 + random_below(race_sh->max_len);
		for (j = 0; j < nr_change_points; j++)
			if (change_points[j] == k)
				break;
		if (j == nr_change_points)
			change_points[nr_change_points++] = k;
	}
	step_no = 0;
	return 1;
}

/* The highest-priority runnable thread, after any change point. */
static int pct_pick(int from, const int *ids, int nr)
{
	int i, best = 0;

	step_no++;
	for (i = 0; i < nr_change_points; i++)
		if (change_points[i] == step_no)
			prio[from] = race_opt.depth - 1 - i;
	for (i = 1; i < nr; i++)
		if (prio[ids[i]] > prio[ids[best]])
			best = i;
	return best;
}

/* Index of thread @id in @ids, or -1. */
static int index_of(int id, const int *ids, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (ids[i] == id)
			return i;
	return -1;
}

/* The schedule asked for a step that cannot happen here: say which. */
static void __noreturn diverged(const struct race_token *tok,
				const char *expected, const int *ids, int nr)
{
	char who[16], set[128], name[16], cur[RACE_LABEL_LEN + 16];
	char at[RACE_LABEL_LEN + 48], line[32];
	size_t n = 0;
	int i;

	set[0] = 0;
	for (i = 0; i < nr; i++)
		n += snprintf(set + n, sizeof(set) - n, "%s%s", i ? ", " : "",
			      race_thread_name(ids[i], name, sizeof(name)));
	race_thread_name(tok->thread, who, sizeof(who));
	at[0] = 0;
	if (index_of(tok->thread, ids, nr) >= 0 &&
	    race_thread_runnable_label(tok->thread, cur, sizeof(cur)))
		snprintf(at, sizeof(at), "; %s is at %s", who, cur);
	line[0] = 0;
	if (tok->line)
		snprintf(line, sizeof(line), " (schedule line %d)", tok->line);
	race_fail("diverged", "diverged at step %ld: expected %s %s, runnable "
		  "{%s}%s%s", race_sh->nr_steps + 1, who, expected, set, at, line);
}

/* The default: stay with the current thread, else the lowest runnable. */
static int default_pick(int from, int from_runnable, const int *ids, int nr)
{
	int i = from_runnable ? index_of(from, ids, nr) : 0;

	return i < 0 ? 0 : i;
}

/* Follow the tokens; a step they cannot take is a divergence. */
static int script_pick(int from, int from_runnable, const int *ids, int nr)
{
	const struct race_token *tok;
	char label[RACE_LABEL_LEN + 16];
	int i;

	while (token_idx < race_opt.nr_tokens) {
		tok = &race_opt.tokens[token_idx];
		i = index_of(tok->thread, ids, nr);
		if (tok->mode == TOK_REST) {
			if (i >= 0)
				return i;
			token_idx++;
			continue;
		}
		if (!race_thread_runnable_label(tok->thread, label, sizeof(label)))
			label[0] = 0;
		if (i < 0 || (tok->label[0] && tok->mode == TOK_ONE &&
			      strcmp(label, tok->label)))
			diverged(tok, tok->label[0] ? tok->label : "to run",
				 ids, nr);
		if (tok->mode == TOK_ONE || !strcmp(label, tok->label))
			token_idx++;
		return i;
	}
	return default_pick(from, from_runnable, ids, nr);
}

/** strategy_begin - start an execution; 0 when the strategy is done */
int strategy_begin(void)
{
	if (race_opt.max_executions &&
	    race_sh->executions >= race_opt.max_executions)
		return 0;
	switch (race_opt.strategy) {
	case STRAT_DFS:
		return dfs_begin();
	case STRAT_PCT:
		return pct_begin();
	case STRAT_RANDOM:
		return 1;
	case STRAT_SCRIPT:
		token_idx = 0;
		return race_sh->executions == 0;
	}
	return 0;
}

/**
 * strategy_pick - index in @ids of the thread that runs the next step
 * @from: the thread that just stopped; @from_runnable: whether it may go on
 */
int strategy_pick(int from, int from_runnable, const int *ids, int nr)
{
	switch (race_opt.strategy) {
	case STRAT_DFS:
		return nr == 1 ? 0 : dfs_pick(from, from_runnable, ids, nr);
	case STRAT_PCT:
		return pct_pick(from, ids, nr);
	case STRAT_RANDOM:
		return nr == 1 ? 0 : random_below(nr);
	case STRAT_SCRIPT:
		return script_pick(from, from_runnable, ids, nr);
	}
	return 0;
}

/** strategy_end - an execution finished without a verdict */
void strategy_end(void)
{
	if (race_sh->nr_steps > race_sh->max_len)
		race_sh->max_len = race_sh->nr_steps;
}
