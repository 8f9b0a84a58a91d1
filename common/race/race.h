/* SPDX-License-Identifier: GPL-2.0 */
/*
 * race.h - the reproducer's insides, shared by the files of common/race/.
 *
 *   token.c      token passing: the threads, their points, who may run
 *   access.c     the memory hooks and reports; sequential consistency
 *   weak.c       the weak memory model (weak.h)
 *   dpor.c       partial-order reduction for dfs (dpor.h)
 *   lock.c       the spinlock model
 *   rcu.c        the RCU model and its callback thread
 *   objects.c    the objects of an execution: ids, frees, the leak count
 *   held.c       what a thread holds (sections, locks); the end-of-thread oracle
 *   placement.c  where the slab puts them: addresses that hash the same
 *   irq.c        interrupts: a handler per thread, delivered as a choice;
 *                one simulated CPU
 *   execution.c  one execution and its oracles
 *   strategy.c   the strategy interface; dfs.c pct.c random.c script.c
 *   trace.c      the steps of an execution and the timeline
 *   schedfile.c  schedule files: write, parse
 *   sees.c       their weak-memory lines: 'memory', 'sees'
 *   driver.c     searches in a child process; race_fail()
 *   scenarios.c  the registered scenarios: list, check, find
 *   lin_*.c      scenarios generated from a lab's operations, checked for
 *                linearizability (lin.h, lincheck.h)
 *   replay.c     replaying a schedule file
 *   report.c     the verdict lines, the result file
 *   main.c       the command line of the race binary
 *   debug.c      where a debugger stops: race_debug_step(), race_debug_stop()
 *
 * One search runs in a child process.  What the parent must know even when
 * the child dies (the steps of the execution in progress, the verdict, the
 * counters) lives in struct race_shared, mapped MAP_SHARED before the fork.
 *
 * Every name this directory exports starts with race_: the race binary
 * links student code too.
 */
#ifndef KIT_RACE_RACE_H
#define KIT_RACE_RACE_H

#include <stdbool.h>
#include <stdio.h>

#include "compiler.h"
#include "race/scenario.h"

/* T1..Tn, the RCU thread, then one interrupt thread per Tk (irq.c) */
#define RACE_NR_SLOTS		(2 * RACE_MAX_THREADS + 1)
#define RACE_DEFAULT_STEPS	10000
#define RACE_DEFAULT_BOUND	2
#define RACE_DEFAULT_DEPTH	2
#define RACE_MAX_BOUNDS		16
#define RACE_LABEL_LEN		64
#define RACE_MSG_LEN		4096

/* What a value or an address is, once the objects have been asked. */
enum race_ref {
	RACE_REF_NONE,	/* no value / no object */
	RACE_REF_INT,	/* a plain number */
	RACE_REF_OBJ,	/* obj#id (+offset): an object of the slab */
	RACE_REF_VAR,	/* @id: another address, numbered by first use */
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
	/* weak memory model: a load that did not read the newest store */
	long sees;			/* step of the store it read (0: the
					 * initial value); RACE_SEES_NEWEST */
	long newest;			/* step of the newest store */
	unsigned char new_ref;		/* its value, if known (RACE_REF_NONE) */
	long new_val, new_off;
	const volatile void *addr;	/* the address accessed (search process) */
};
#define RACE_SEES_NEWEST	(-1L)

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
	const struct race_strategy *strategy;
	unsigned long seed;
	int depth;			/* pct */
	int bound;			/* dfs: raise the preemption bound up to this */
	int bound_min;			/* dfs: start here (0) */
	long max_steps;
	long max_executions;
	struct race_token *tokens;	/* script */
	int nr_tokens;
	int memory;			/* RACE_OPT_MEMORY_*: what --memory said */
	int no_reduction;		/* dfs: --reduction off */
	int count_classes;		/* dfs: --count-classes */
	long *sees;			/* script: step -> store step it reads */
	long nr_sees;			/*   (RACE_SEES_NEWEST: the newest) */
};

/* race_opt.memory: not given (the scenario's .memory), sc, or weak. */
enum { RACE_OPT_MEMORY_SCENARIO, RACE_OPT_MEMORY_SC, RACE_OPT_MEMORY_WEAK };

enum race_state { RACE_RUN_NONE, RACE_RUN_OK, RACE_RUN_FAIL };

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
	long witnessed;			/* executions in which .witness held */
	long per_bound[RACE_MAX_BOUNDS];
	int bound_reached;		/* dfs: the last bound explored */
	int exhausted;			/* dfs: every execution within it */
	long max_choices;		/* most steps with a choice in one execution */
	long pruned;			/* dfs: executions cut short by sleep sets */
	long classes;			/* --count-classes: distinct partial orders */
	int nr_threads;			/* slots used: workers (+ RCU if seen) */
	long warns;			/* WARNs in the execution in progress */
	long nr_steps;
	long cap_steps;
	struct race_step steps[];	/* of the execution in progress */
};

extern struct race_shared *race_sh;
extern const struct race_scenario *race_sc;
extern struct race_options race_opt;

/* driver.c */
void race_shared_map(long cap_steps);
int race_search(void);
void __noreturn __printf(2, 3) race_fail(const char *kind, const char *fmt,
					 ...);

/* execution.c */
void race_run_execution(void);

/* trace.c */
void race_trace_reset(void);
void race_trace_stale(struct race_step *s, long sees, long newest,
		      bool known, long value);
struct race_step *race_trace_add(int thread, const char *fn, const char *what,
				 const volatile void *addr);
void race_trace_value(struct race_step *s, long value);
const char *race_thread_name(int id, char *buf, size_t len);
void race_step_line(const struct race_step *s, long nr, char *buf, size_t len);
void race_timeline_print(FILE *f, const struct race_shared *sh);

/* schedfile.c */
#define RACE_SCHED_MAX_BYTES	(16L << 20)	/* a bigger file is refused */
#define RACE_SCHED_MAX_TOKENS	1000000		/* steps and run tokens */
#define RACE_ERR_LEN		768		/* one error line */
#define RACE_TOK_RCU		(-1)		/* "RCU", before it is numbered */
#define RACE_TOK_IRQ(k)		(-100 - (k))	/* "IRQk", before it is numbered */

/**
 * struct race_schedfile - a schedule file as read, or the tokens of --script
 * @scenario_line, @lab: 0 when the file has no such line
 * @tokens:     the steps and run tokens, in order; thread numbers are
 *              concrete only after race_schedfile_threads()
 * @nr_threads: the scenario's, once race_schedfile_threads() numbered them
 * @step_lines: each "step" line as recorded (NULL if it names no object
 *              and value), compared with the replay's
 */
struct race_schedfile {
	char scenario[128];
	int scenario_line;
	char build[64];
	char result[32];
	int lab;
	int memory;			/* RACE_OPT_MEMORY_*: its 'memory' line */
	long *sees;			/* its 'sees' lines, by step */
	long nr_sees, cap_sees;
	int nr_threads;
	struct race_token *tokens;
	int nr_tokens, cap_tokens;
	char **step_lines;
	int nr_step_lines, cap_step_lines;
};
int race_schedfile_write(const char *path, const struct race_shared *sh,
			 int lab, const char *binary, const char *strategy_desc);
int race_schedfile_read(const char *path, struct race_schedfile *sf,
			char *err, size_t errlen);
int race_script_parse(const char *text, struct race_schedfile *sf,
		      char *err, size_t errlen);
int race_schedfile_threads(struct race_schedfile *sf, int nr_threads,
			   const char *where, char *err, size_t errlen);
void race_schedfile_free(struct race_schedfile *sf);
const char *race_build_id(void);

/* sees.c: the weak memory model's lines of a schedule file */
int race_sees_line(const struct race_step *s, long nr, char *buf, size_t len);
void race_sees_set(struct race_schedfile *sf, long load, long from);
void race_sees_from_steps(const struct race_step *steps, long n);
void race_memory_choose(int memory, const struct race_scenario *sc,
			long nr_sees, const char *where);

/* scenarios.c */
int race_scenarios_load(void);
int race_scenarios_count(void);
const struct race_scenario *race_scenario_at(int i);
const char *race_expect_name(const struct race_scenario *sc);
const struct race_scenario *race_scenario_select(const char *name);

/* report.c */
#define RACE_QUOTE_MAX		48	/* bytes of an offending text shown */
#define RACE_QUOTE_LEN		(RACE_QUOTE_MAX * 4 + 40)
char *race_escape(char *buf, size_t len, const char *src, size_t n);
char *race_quote(char *buf, size_t len, const char *src, size_t n);
void race_print_verdict(void);
int race_result_write(const char *path, ...);

/* replay.c */
int race_steps_compare(char **lines, long n, char *msg, size_t len);
void race_replay_check(void);
int race_cmd_replay(const char *file, const char *scenario, const char *expect,
		    long times, int quiet, const char *result_file);
const struct race_scenario *race_schedfile_load(const char *file,
						const char *scenario,
						struct race_schedfile *sf,
						char *err, size_t errlen);
int race_cmd_check(char **files, int nr, const char *scenario);

/* debug.c */
/**
 * struct race_debug - where the execution is, for a debugger
 * @enabled: --debug: the replay runs in this process, stopping at steps
 * @step:    the step at hand (race_debug_step's, or the last one)
 * @where:   that step as a schedule file records it
 * @addr:    the address it accesses (at a verdict: the failing access's)
 * @verdict: at race_debug_stop(): whether the execution failed
 */
struct race_debug {
	int enabled;
	long step;
	char where[256];
	const volatile void *addr;
	int verdict;
};
extern struct race_debug race_debug;
void race_debug_step(long nr);
void race_debug_stop(void);
void race_debug_at_step(long nr, const volatile void *addr);
void race_debug_at_end(void);
void race_debug_name_self(int id);

#endif /* KIT_RACE_RACE_H */
