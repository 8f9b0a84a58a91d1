/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strategy.h - who runs the next step: the interface every strategy
 * implements (dfs.c, pct.c, random.c, script.c), and the dispatch
 * (strategy.c).
 *
 * A choice exists only where two or more threads are runnable; the token
 * passer asks the strategy at every point all the same, so that a strategy
 * can count steps.  A strategy keeps its state in its own file; what the
 * parent must see goes into race_sh.
 */
#ifndef KIT_RACE_STRATEGY_H
#define KIT_RACE_STRATEGY_H

#include "race/race.h"

/**
 * struct race_choice - the threads that may run the next step
 * @from:          the thread that just stopped (at a point, or finished)
 * @from_runnable: whether it may go on (switching away is a preemption)
 * @ids:           the runnable threads, ascending (1-based; RCU is n+1)
 * @nr:            how many; at least 1
 */
struct race_choice {
	int from;
	bool from_runnable;
	int ids[RACE_NR_SLOTS];
	int nr;
};

/**
 * struct race_read - the stores a load of the weak memory model may read
 * @step:  the load's step (1-based)
 * @nr:    how many; at least 2.  Index 0 is the newest store (what a
 *         sequentially consistent execution reads), higher ones are older
 * @steps: the step that made each (0: the value before the threads ran)
 */
struct race_read {
	long step;
	int nr;
	const long *steps;
};

/**
 * struct race_strategy - one way of choosing
 * @name:     as the command line spells it
 * @init:     once per search, before the first execution
 * @begin:    before each execution; false when there is none left
 * @pick:     the index in @c->ids of the thread that runs next
 * @pick_read: the index in @r of the store a load reads (weak memory
 *            model); NULL: the newest
 * @end:      after an execution that ended without a verdict (may be NULL)
 * @describe: how the schedule was found, for schedule files ("dfs bound=1")
 * @exhaustive: true if a search without a verdict proves the scenario
 *            within its bound (dfs), false if it only samples
 */
struct race_strategy {
	const char *name;
	void (*init)(void);
	bool (*begin)(void);
	int (*pick)(const struct race_choice *c);
	int (*pick_read)(const struct race_read *r);
	void (*end)(void);
	void (*describe)(char *buf, size_t len);
	bool exhaustive;
};

extern const struct race_strategy race_dfs, race_pct, race_random,
	race_script;

const struct race_strategy *race_strategy_find(const char *name);
void race_strategy_init(void);
bool race_strategy_begin(void);
int race_strategy_pick(const struct race_choice *c);
int race_strategy_pick_read(const struct race_read *r);
void race_strategy_end(void);

/* The search's random numbers (xorshift64*, seeded by --seed). */
void race_random_seed(unsigned long seed);
long race_random_below(long n);

/* The default choice: stay with the current thread, else the lowest. */
int race_default_pick(const struct race_choice *c);
int race_choice_index(const struct race_choice *c, int id);

#endif /* KIT_RACE_STRATEGY_H */
