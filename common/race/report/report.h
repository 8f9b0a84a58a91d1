/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - how the reproducer reports: timelines and step lines
 * (timeline.c), verdict lines and result files (report.c), schedule files
 * (schedfile.c) and their weak-memory lines (sees.c).
 */
#ifndef KIT_RACE_REPORT_H
#define KIT_RACE_REPORT_H

#include "race/explore/strategy.h"

/* timeline.c */
void race_step_line(const struct race_step *s, long nr, char *buf, size_t len);
void race_timeline_print(FILE *f, const struct race_shared *sh);

/* report.c */
#define RACE_QUOTE_MAX		48	/* bytes of an offending text shown */
#define RACE_QUOTE_LEN		(RACE_QUOTE_MAX * 4 + 40)
char *race_escape(char *buf, size_t len, const char *src, size_t n);
char *race_quote(char *buf, size_t len, const char *src, size_t n);
void race_print_verdict(void);
int race_result_write(const char *path, ...);

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
	int nr_tokens;
	long cap_tokens;
	char **step_lines;
	int nr_step_lines;
	long cap_step_lines;
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

#endif /* KIT_RACE_REPORT_H */
