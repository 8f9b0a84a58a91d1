// SPDX-License-Identifier: GPL-2.0
/*
 * strategy.c - the strategy of a search, and what the strategies share.
 *
 *   dfs     every execution, depth first, within a preemption bound (dfs.c)
 *   pct     probabilistic concurrency testing, as published (pct.c)
 *   random  a uniformly random runnable thread at every step (random.c)
 *   script  the tokens of a schedule, then no preemption (script.c)
 *
 * race_opt.strategy says which; the token passer calls it through the
 * functions below, which also apply --max-exec.
 */
#include <string.h>

#include "race/strategy.h"

struct race_options race_opt = { .strategy = &race_dfs };

static const struct race_strategy *const strategies[] = {
	&race_dfs, &race_pct, &race_random, &race_script,
};

static unsigned long long rng;

/**
 * race_strategy_find - the strategy called @name (empty: dfs), or NULL
 */
const struct race_strategy *race_strategy_find(const char *name)
{
	size_t i;

	if (!name || !*name)
		return &race_dfs;
	for (i = 0; i < ARRAY_SIZE(strategies); i++)
		if (!strcmp(strategies[i]->name, name))
			return strategies[i];
	return NULL;
}

/** race_random_seed - restart the search's random numbers from @seed */
void race_random_seed(unsigned long seed)
{
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
}

/* xorshift64*: a small, fixed generator, so that a seed means one thing */
static unsigned long long next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/** race_random_below - a uniform number in [0, @n); @n > 0 */
long race_random_below(long n)
{
	return (long)(next_random() % (unsigned long long)n);
}

/** race_choice_index - the index of thread @id in @c->ids, or -1 */
int race_choice_index(const struct race_choice *c, int id)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->ids[i] == id)
			return i;
	return -1;
}

/** race_default_pick - the current thread if it may go on, else the lowest */
int race_default_pick(const struct race_choice *c)
{
	int i = c->from_runnable ? race_choice_index(c, c->from) : 0;

	return i < 0 ? 0 : i;
}

/** race_strategy_init - prepare the strategy race_opt names */
void race_strategy_init(void)
{
	race_random_seed(race_opt.seed);
	race_opt.strategy->init();
}

/** race_strategy_begin - start an execution; false when the search is done */
bool race_strategy_begin(void)
{
	if (race_opt.max_executions &&
	    race_sh->executions >= race_opt.max_executions)
		return false;
	return race_opt.strategy->begin();
}

/** race_strategy_pick - index in @c->ids of the thread that runs next */
int race_strategy_pick(const struct race_choice *c)
{
	return race_opt.strategy->pick(c);
}

/** race_strategy_pick_read - index in @r of the store a load reads */
int race_strategy_pick_read(const struct race_read *r)
{
	return race_opt.strategy->pick_read ? race_opt.strategy->pick_read(r) : 0;
}

/** race_strategy_end - an execution finished without a verdict */
void race_strategy_end(void)
{
	if (race_opt.strategy->end)
		race_opt.strategy->end();
}
