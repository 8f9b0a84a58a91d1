/* SPDX-License-Identifier: GPL-2.0 */
/*
 * race.h - the reproducer's insides, shared by the files of common/race/.
 *
 *   sched.c     token passing: the threads, the points, the models
 *   strategy.c  who runs next: dfs, pct, random, script
 *   trace.c     the steps of an execution: object ids, values, timeline
 *   schedfile.c schedule files: write, parse
 *   driver.c    searches and replays in a child process; the verdicts
 *   main.c      the command line of the race binary
 *
 * One search runs in a child process.  What the parent must know even when
 * the child dies (the steps of the execution in progress, the verdict, the
 * counters) lives in struct race_shared, mapped MAP_SHARED before the fork.
 */
#ifndef KIT_RACE_RACE_H
#define KIT_RACE_RACE_H

#include <stdio.h>

#include "compiler.h"
#include "race/scenario.h"

#define RACE_NR_SLOTS		(RACE_MAX_THREADS + 1)	/* + the RCU thread */
#define RACE_DEFAULT_STEPS	10000
#define RACE_DEFAULT_BOUND	2
#define RACE_MAX_BOUNDS		16
#define RACE_LABEL_LEN		64
#define RACE_MSG_LEN		1024

/* What a value or an address is, once the slab has been asked. */
enum race_ref {
	REF_NONE,	/* no value / no object */
	REF_INT,	/* a plain number */
	REF_OBJ,	/* obj#id (+offset): a slab object */
	REF_VAR,	/* @id: another address, numbered by first use */
};

/**
 * struct race_step - one step: a thread performed one access
 *
 * The strings are the caller's __func__ and a literal: they live in the
 * binary, so their addresses mean the same in parent and child.
 */
struct race_step {
	unsigned char thread;		/* 1..n, n+1 is the RCU thread */
	unsigned char obj_ref, val_ref;
	const char *fn, *what;
	long obj, obj_off;
	long val, val_off;
};

enum race_strategy_kind {
	STRAT_DFS,
	STRAT_PCT,
	STRAT_RANDOM,
	STRAT_SCRIPT,
};

/* A script token: run thread @thread for one step, or until @label. */
struct race_token {
	int thread;			/* 1-based; RCU is n+1 */
	int mode;			/* TOK_ONE, TOK_UNTIL, TOK_REST */
	char label[RACE_LABEL_LEN];	/* TOK_UNTIL, or TOK_ONE's expectation */
	int line;			/* in the schedule file, for messages */
};
enum { TOK_ONE, TOK_UNTIL, TOK_REST };

/**
 * struct race_options - one search or replay, as the command line asked
 */
struct race_options {
	enum race_strategy_kind strategy;
	unsigned long seed;
	int depth;			/* pct */
	int bound;			/* dfs: raise the preemption bound up to this */
	int bound_min;			/* dfs: start here (0) */
	long max_steps;
	long max_executions;
	struct race_token *tokens;	/* script */
	int nr_tokens;
	int verbose;
};

enum race_state { RUN_NONE, RUN_OK, RUN_FAIL };

/**
 * struct race_shared - what the search child leaves for its parent
 */
struct race_shared {
	int state;			/* enum race_state */
	char kind[32];			/* verdict kind */
	char message[RACE_MSG_LEN];
	char note[RACE_MSG_LEN];	/* first WARN of the failing execution */
	long note_step;
	long executions;		/* executions finished or failed */
	long per_bound[RACE_MAX_BOUNDS];
	int bound_reached;		/* dfs: the last bound explored */
	int exhausted;			/* dfs: every execution within it */
	long max_len;			/* longest execution, in steps */
	int nr_threads;			/* slots used: workers (+ RCU if seen) */
	long nr_steps;
	long cap_steps;
	struct race_step steps[];	/* of the execution in progress */
};

extern struct race_shared *race_sh;
extern const struct race_scenario *race_sc;
extern struct race_options race_opt;

/* sched.c */
void race_sched_init(const struct race_scenario *sc);
void race_sched_start(void);
void race_run_execution(void);
int race_nr_workers(void);
int race_thread_runnable_label(int id, char *buf, size_t len);
void __noreturn race_fail(const char *kind, const char *fmt, ...) __printf(2, 3);

/* strategy.c: pick who runs the next step among @nr runnable @ids (ascending) */
void strategy_init(void);
int strategy_begin(void);		/* 0: no execution left */
int strategy_pick(int from, int from_runnable, const int *ids, int nr);
void strategy_end(void);

/* trace.c */
void trace_reset(void);
struct slab_info;
struct race_step *trace_add(int thread, const char *fn, const char *what,
			    const volatile void *addr, struct slab_info *info);
void trace_value(struct race_step *s, long value);
const char *race_thread_name(int id, char *buf, size_t len);
void step_cell(const struct race_step *s, char *buf, size_t len);
void step_line(const struct race_step *s, long nr, char *buf, size_t len);
void ref_name(int ref, long id, long off, char *buf, size_t len);
void timeline_print(FILE *f, const struct race_shared *sh);

/* schedfile.c */
struct race_schedfile {
	char scenario[128];
	char binary[512];
	char build[64];
	char result[32];
	int lab;
	struct race_token *tokens;
	int nr_tokens;
	char **step_lines;		/* "step ..." lines, for the comparison */
	int nr_step_lines;
};
int schedfile_write(const char *path, const struct race_shared *sh,
		    const char *argv0, const char *strategy_desc);
int schedfile_read(const char *path, struct race_schedfile *sf, int nr_threads,
		   char *err, size_t errlen);
int script_parse(const char *text, struct race_token **tokens, int *nr,
		 int nr_threads, int line, char *err, size_t errlen);
const char *race_build_id(void);

#endif /* KIT_RACE_RACE_H */
