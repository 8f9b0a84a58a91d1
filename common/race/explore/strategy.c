// SPDX-License-Identifier: GPL-2.0
/*
 * strategy.c - the strategy of a search, and the dispatch to it.
 *
 *   dfs     every execution, depth first, within a preemption bound (dfs.c)
 *   pct     probabilistic concurrency testing, as published (pct.c)
 *   random  a uniformly random runnable thread at every step (random.c)
 *   script  the tokens of a schedule, then no preemption (script.c)
 *
 * race_opt.strategy says which (NULL: dfs); the search calls it through
 * the functions below, which also apply --max-exec.
 */
#include <string.h>

#include "race/explore/strategy.h"

static const struct race_strategy *const strategies[] = {
	&race_dfs, &race_pct, &race_random, &race_script,
};

/**
 * race_strategy_find - the strategy called @name (NULL or empty: dfs), or
 * NULL if there is none
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

/** race_strategy - the strategy of the search at hand */
const struct race_strategy *race_strategy(void)
{
	return race_opt.strategy ? race_opt.strategy : &race_dfs;
}

/** race_strategy_init - prepare the strategy race_opt names */
void race_strategy_init(void)
{
	race_random_seed(race_opt.seed);
	race_strategy()->init();
}

/** race_strategy_begin - start an execution; false when the search is done */
bool race_strategy_begin(void)
{
	if (race_opt.max_executions &&
	    race_sh->executions >= race_opt.max_executions)
		return false;
	return race_strategy()->begin();
}

/** race_strategy_pick - index in @c->ids of the thread that runs next */
int race_strategy_pick(const struct race_choice *c)
{
	return race_strategy()->pick(c);
}

/** race_strategy_pick_read - index in @r of the store a load reads */
int race_strategy_pick_read(const struct race_read *r)
{
	return race_strategy()->pick_read ? race_strategy()->pick_read(r) : 0;
}

/** race_strategy_end - an execution finished without a verdict */
void race_strategy_end(void)
{
	if (race_strategy()->end)
		race_strategy()->end();
}
