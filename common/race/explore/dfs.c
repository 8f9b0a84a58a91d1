// SPDX-License-Identifier: GPL-2.0
/*
 * dfs.c - every execution, depth first, with the preemption bound raised
 * 0, 1, 2 ... up to the scenario's bound, so that the first counterexample
 * found has the fewest preemptions.  A preemption is a switch away from a
 * thread that could have gone on.  Each bound's search starts from the
 * beginning and explores the lower bounds' executions again, so a search
 * that only has to hold may start at the top (race_opt.bound_min:
 * race_search_top_first() in search.c).
 *
 * The search is a stack of the choices made: where two or more threads
 * were runnable, and where a load of the weak memory model could read two
 * or more stores.  Each execution replays the stack's prefix and extends
 * it with the default (no preemption; the newest store); then the deepest
 * choice moves to its next alternative within the bound.
 *
 * With the partial-order reduction (dpor.c; on unless --reduction off), a
 * thread choice starts with its default alternative only; dfs asks dpor.c
 * which threads must also be tried there (their order against an earlier
 * step matters: race_dpor_wanted), and threads asleep there (already
 * explored in an equivalent order) are not chosen;
 * without it, every runnable thread is an alternative.  Every store a
 * load may read is always an alternative.
 */
#include <stdlib.h>
#include <string.h>

#include "race/explore/dpor.h"

struct dfs_choice {
	struct race_choice c;		/* a thread choice: who could run */
	int nr_reads;			/* a load's choice: how many stores */
	int idx;			/* the alternative taken */
	unsigned int todo;		/* thread alternatives to take */
	unsigned int tried;		/* thread alternatives taken so far */
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
	race_sh->bound_from = bound;
	depth = pos = bound_executions = 0;
	started = false;
	if (!stack) {		/* else the last scenario's (race_search_many) */
		stack_size = 1024;
		stack = race_vmem_resize(NULL, 0, stack_size * sizeof(*stack));
	}
	race_dpor_reduce = !race_opt.no_reduction;
	race_dpor = race_dpor_reduce || race_opt.count_classes;
}

/* Cost of taking alternative @i at @d: 1 if it preempts. */
static int cost(const struct dfs_choice *d, int i)
{
	return !d->nr_reads && d->c.from_runnable && d->c.ids[i] != d->c.from;
}

/* The alternatives of @d (bit: index) that are the threads @ids (bit: id). */
static unsigned int wanted(const struct dfs_choice *d, unsigned int ids)
{
	unsigned int todo = 0;
	int i;

	for (i = 0; i < d->c.nr; i++)
		if (ids & (1u << d->c.ids[i]))
			todo |= 1u << i;
	return todo;
}

/* Move choice @n to its next alternative within the bound, if any. */
static bool next_alternative(long n)
{
	struct dfs_choice *d = &stack[n];
	unsigned int asleep;
	int i;

	if (d->nr_reads) {
		if (d->idx + 1 >= d->nr_reads)
			return false;
		d->idx++;
		return true;
	}
	asleep = race_dpor_reduce ? race_dpor_asleep(n) : 0;
	if (race_dpor_reduce)
		d->todo |= wanted(d, race_dpor_wanted(n));
	for (i = 0; i < d->c.nr; i++) {
		if (!(d->todo & ~d->tried & (1u << i)) ||
		    (asleep & (1u << d->c.ids[i])))
			continue;
		if (d->preemptions + cost(d, i) > bound) {
			race_dpor_refused();
			continue;
		}
		race_dpor_retire(n, d->c.ids[d->idx]);
		d->idx = i;
		d->tried |= 1u << i;
		return true;
	}
	return false;
}

/* Move the deepest choice that has one to its next alternative. */
static bool backtrack(void)
{
	while (depth > 0) {
		if (next_alternative(depth - 1))
			return true;
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

/*
 * Whether @a and @b offer the same threads, in the same order (a loop, not
 * memcmp: ASan intercepts that, and reads the shadow of both, at every
 * choice).
 */
static bool same_ids(const struct race_choice *a, const struct race_choice *b)
{
	int i;

	if (a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->ids[i] != b->ids[i])
			return false;
	return true;
}

/* The same prefix of choices must meet the same choices. */
static void check_same(const struct dfs_choice *d, const struct race_choice *c,
		       int nr_reads)
{
	if (d->nr_reads != nr_reads || (c && !same_ids(&d->c, c)))
		race_fail("nondeterministic", "dfs: the same choices led to "
			  "different runnable threads at choice %ld: the "
			  "scenario depends on something outside the "
			  "reproducer", pos);
}

/* Push a new choice; the caller sets what it chooses between. */
static struct dfs_choice *push(void)
{
	struct dfs_choice *d;

	if (depth == stack_size) {
		stack = race_vmem_resize(stack, stack_size * sizeof(*stack),
					 2 * stack_size * sizeof(*stack));
		stack_size *= 2;
	}
	d = memset(&stack[depth++], 0, sizeof(*stack));
	pos++;
	if (depth > 1)
		d->preemptions = d[-1].preemptions + cost(&d[-1], d[-1].idx);
	return d;
}

/* The default among the threads not asleep: the current one, else the
 * lowest, a drowsy one last; -1 if every one sleeps. */
static int awake_default(const struct race_choice *c, unsigned int asleep,
			 unsigned int drowsy)
{
	int i = race_default_pick(c);

	if (!((asleep | drowsy) & (1u << c->ids[i])))
		return i;
	for (i = 0; i < c->nr; i++)
		if (!((asleep | drowsy) & (1u << c->ids[i])))
			return i;
	for (i = 0; i < c->nr; i++)
		if (!(asleep & (1u << c->ids[i])))
			return i;
	return -1;
}

/*
 * Replay the recorded prefix of choices, then extend it with the default.
 */
static int dfs_pick(const struct race_choice *c)
{
	struct dfs_choice *d;
	int i;

	if (race_dpor_blocked() || c->nr == 1) {
		i = race_default_pick(c);
		race_dpor_chose(-1, c, c->ids[i], false);
		return i;
	}
	if (pos < depth) {
		d = &stack[pos];
		check_same(d, c, 0);
		race_dpor_chose(pos++, c, c->ids[d->idx], false);
		return d->idx;
	}
	i = race_dpor_reduce ? awake_default(c, race_dpor_asleep_now(c),
					     race_dpor_drowsy_now())
			     : race_default_pick(c);
	if (i < 0 || race_dpor_blocked()) {	/* redundant from here on */
		i = race_default_pick(c);
		race_dpor_chose(-1, c, c->ids[i], false);
		return i;
	}
	race_dpor_chose(pos, c, c->ids[i], true);
	d = push();
	d->c = *c;
	d->idx = i;
	d->tried = 1u << i;
	d->todo = race_dpor_reduce ? d->tried : (1u << c->nr) - 1;
	return i;
}

/* The same for the store a load reads: every one is tried, newest first. */
static int read_choice(const struct race_read *r)
{
	struct dfs_choice *d;

	if (r->nr == 1 || race_dpor_blocked())
		return 0;
	if (pos < depth) {
		d = &stack[pos++];
		check_same(d, NULL, r->nr);
		return d->idx;
	}
	d = push();
	d->nr_reads = r->nr;
	return 0;
}

/* ... and dpor.c hears which store it named (a class of its own). */
static int dfs_pick_read(const struct race_read *r)
{
	int i = read_choice(r);

	race_dpor_read(r->step, r->steps[i]);
	return i;
}

/* An execution ended without a verdict. */
static void dfs_end(void)
{
	race_dpor_end();
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
	.pick_read	= dfs_pick_read,
	.end		= dfs_end,
	.describe	= dfs_describe,
	.exhaustive	= true,
};
