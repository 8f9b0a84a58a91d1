/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strategy.h - the exploration: who runs the next step, as every strategy
 * implements it (dfs.c, pct.c, random.c, script.c), the options of a
 * search (options.c), one execution (execution.c) and a search
 * (search.c).
 *
 * A choice exists only where two or more threads are runnable; the token
 * passer asks at every point all the same, so that a strategy can count
 * steps.  A strategy keeps its state in its own file; what the parent must
 * see goes into race_sh.  The reduction (dpor.c) is a service dfs calls;
 * it never calls a strategy.
 */
#ifndef KIT_RACE_STRATEGY_H
#define KIT_RACE_STRATEGY_H

#include "race/runtime/sched.h"

#define RACE_DEFAULT_BOUND	2
#define RACE_DEFAULT_DEPTH	2

/* A script token: run thread @thread for one step, or until @label. */
struct race_token {
	int thread;			/* 1-based; RCU is n+1 */
	int mode;			/* RACE_TOK_* */
	char label[RACE_LABEL_LEN];	/* TOK_UNTIL, or TOK_ONE's expectation */
	int line;			/* in the schedule file, for messages */
};
enum { RACE_TOK_ONE, RACE_TOK_UNTIL, RACE_TOK_REST };

struct race_strategy;

/**
 * struct race_options - one search or replay, as the command line asked
 */
struct race_options {
	const struct race_strategy *strategy;	/* NULL: dfs */
	unsigned long seed;
	int depth;			/* pct */
	int bound;			/* dfs: raise the preemption bound up to this */
	int bound_min;			/* dfs: start here (0; the bound:
					 * race_search_top_first) */
	long max_steps;
	long max_executions;
	struct race_token *tokens;	/* script */
	int nr_tokens;
	int memory;			/* RACE_OPT_MEMORY_*: what --memory said */
	int no_reduction;		/* dfs: --reduction off */
	int count_classes;		/* dfs: --count-classes */
	long *sees;			/* script: step -> store step it reads */
	long nr_sees;			/*   (RACE_SEES_NEWEST: the newest) */
	bool in_process;		/* --debug: no child, no watchdog */
	bool os_threads;		/* every thread on an OS thread of its own */
	long hang_ms;			/* CPU ms with no point: a livelock (0: 3000) */
};

/* race_opt.memory: not given (the scenario's .memory), sc, or weak. */
enum { RACE_OPT_MEMORY_SCENARIO, RACE_OPT_MEMORY_SC, RACE_OPT_MEMORY_WEAK };

extern struct race_options race_opt;

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

/* strategy.c */
const struct race_strategy *race_strategy_find(const char *name);
const struct race_strategy *race_strategy(void);
void race_strategy_init(void);
bool race_strategy_begin(void);
int race_strategy_pick(const struct race_choice *c);
int race_strategy_pick_read(const struct race_read *r);
void race_strategy_end(void);

/* random.c: the search's random numbers (xorshift64*, seeded by --seed) */
void race_random_seed(unsigned long seed);
long race_random_below(long n);

/* execution.c */
void race_run_execution(void);

/* search.c */
extern double race_search_cpu_ms;
int race_search(void);
int race_search_top_first(bool need_witness);
int race_search_many(int from, int n, void (*prepare)(int i), bool (*held)(int i));
void *race_shared_alloc(size_t size);

#endif /* KIT_RACE_STRATEGY_H */
