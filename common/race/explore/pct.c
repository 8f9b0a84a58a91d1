// SPDX-License-Identifier: GPL-2.0
/*
 * pct.c - probabilistic concurrency testing: Burckhardt, Kothari,
 * Musuvathi, Nagarakatte, "A Randomized Scheduler with Probabilistic
 * Guarantees of Finding Bugs" (ASPLOS 2010), as the paper gives it.
 *
 * Per execution, with n threads and depth d:
 *   - the threads get distinct random priorities d .. d+n-1, and at every
 *     step the highest-priority runnable thread runs;
 *   - d-1 distinct change points k_1 .. k_{d-1} are drawn uniformly from
 *     1..k; when step k_i is about to run, the thread chosen to run it
 *     drops to priority i (below every initial priority), and the step
 *     goes to whoever is highest then.
 *
 * Steps are counted as the paper's section 4.1 ("Identifying sequential
 * execution") and shuttle's pct.rs count them: only a step at which two
 * or more threads are runnable is a step (a change point where one thread
 * can run would change nothing).  k is the most such steps one execution
 * has had so far; the first execution, with random priorities and no
 * change point, measures it (as Coyote and shuttle do), and later ones
 * raise it if they are longer.
 *
 * The guarantee: a bug of depth d (d ordering constraints between steps)
 * is hit by one execution with probability at least 1/(n k^(d-1)).
 * tests/race/test_race.py measures it on scenarios of known depth.
 */
#include "race/explore/strategy.h"

#define PCT_MAX_DEPTH	32

static int prio[RACE_NR_SLOTS + 1];		/* by thread id */
static long change_points[PCT_MAX_DEPTH];	/* k_1 .. k_{d-1} */
static int nr_change_points;
static long steps;				/* with a choice, so far */

static void pct_init(void)
{
	if (race_opt.depth > PCT_MAX_DEPTH)
		race_opt.depth = PCT_MAX_DEPTH;
	if (race_opt.depth < 1)
		race_opt.depth = 1;
}

/* Distinct random priorities d .. d+n-1 for the n thread slots. */
static void shuffle_priorities(void)
{
	int n = race_nr_slots(), i, j, t;

	for (i = 1; i <= n; i++)
		prio[i] = race_opt.depth + i - 1;
	for (i = n; i > 1; i--) {			/* Fisher-Yates */
		j = 1 + race_random_below(i);
		t = prio[i];
		prio[i] = prio[j];
		prio[j] = t;
	}
}

/* Whether @k is already one of the change points. */
static bool is_change_point(long k)
{
	int i;

	for (i = 0; i < nr_change_points; i++)
		if (change_points[i] == k)
			return true;
	return false;
}

/* d-1 distinct change points, uniform in 1..k (fewer if k is smaller). */
static void draw_change_points(void)
{
	long k = race_sh->max_choices, p;

	nr_change_points = 0;
	while (nr_change_points < race_opt.depth - 1 && nr_change_points < k) {
		p = 1 + race_random_below(k);
		if (!is_change_point(p))
			change_points[nr_change_points++] = p;
	}
}

static bool pct_begin(void)
{
	shuffle_priorities();
	draw_change_points();
	steps = 0;
	return true;
}

/* Index in @c of the runnable thread with the highest priority. */
static int highest(const struct race_choice *c)
{
	int i, best = 0;

	for (i = 1; i < c->nr; i++)
		if (prio[c->ids[i]] > prio[c->ids[best]])
			best = i;
	return best;
}

/* The highest-priority runnable thread, after change point i lowers it. */
static int pct_pick(const struct race_choice *c)
{
	int best = highest(c), i;

	if (c->nr < 2)
		return best;
	steps++;
	for (i = 0; i < nr_change_points; i++) {
		if (change_points[i] == steps) {
			prio[c->ids[best]] = i + 1;
			return highest(c);
		}
	}
	return best;
}

/*
 * Under the weak memory model: a uniformly random store among those the
 * load may read.  PCT's guarantee is about the order of steps; which
 * store a load reads is drawn apart from it (the paper has no weak memory;
 * PCTWM, Gao et al., ASPLOS 2023, bounds that too, and is not this).
 */
static int pct_pick_read(const struct race_read *r)
{
	return race_random_below(r->nr);
}

/* k: the most steps with a choice in one execution so far. */
static void pct_end(void)
{
	if (steps > race_sh->max_choices)
		race_sh->max_choices = steps;
}

static void pct_describe(char *buf, size_t len)
{
	snprintf(buf, len, "pct seed=%lu depth=%d", race_opt.seed,
		 race_opt.depth);
}

const struct race_strategy race_pct = {
	.name		= "pct",
	.init		= pct_init,
	.begin		= pct_begin,
	.pick		= pct_pick,
	.pick_read	= pct_pick_read,
	.end		= pct_end,
	.describe	= pct_describe,
};
