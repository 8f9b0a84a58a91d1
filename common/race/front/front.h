/* SPDX-License-Identifier: GPL-2.0 */
/*
 * front.h - the front ends of the reproducer, as they call one another:
 *
 *   main.c       the command line of a race binary
 *   scenarios.c  the scenarios registered in the binary: list, check, find
 *   replay.c     race replay FILE, race check FILE...
 *   each.c       race run-each: several runs, a process forked for each
 *   recheck.c    the immediate replay of a failure just found
 *   debug.c      where a debugger stops: race_debug_step(), race_debug_stop()
 *   lin_*.c      scenarios generated from a lab's operations, checked for
 *                linearizability (lin.h, lincheck.h)
 *
 * common/litmus/ is one more front end, in a binary of its own.
 */
#ifndef KIT_RACE_FRONT_H
#define KIT_RACE_FRONT_H

#include "race/report/report.h"

/* scenarios.c */
int race_scenarios_load(void);
int race_scenarios_count(void);
const struct race_scenario *race_scenario_at(int i);
const char *race_expect_name(const struct race_scenario *sc);
const struct race_scenario *race_scenario_select(const char *name);

/* recheck.c */
int race_steps_compare(char **lines, long n, char *msg, size_t len);
void race_replay_check(void);

/* replay.c */
int race_cmd_replay(const char *file, const char *scenario, const char *expect,
		    long times, int quiet, const char *result_file);
const struct race_scenario *race_schedfile_load(const char *file,
						const char *scenario,
						struct race_schedfile *sf,
						char *err, size_t errlen);
int race_cmd_check(char **files, int nr, const char *scenario);

/* each.c */
int race_run_each(const char *prefix, char **names, int nr, long timeout_s,
		  bool first_failure,
		  int (*run)(const char *name, const char *result));

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
void race_debug_attach(bool enabled);

#endif /* KIT_RACE_FRONT_H */
