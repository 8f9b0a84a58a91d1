/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lincheck.h - the generated scenarios' insides, shared by
 *   lin_gen.c    generating scenarios from a spec, and their names
 *   lin_check.c  the linearizability check of one execution's history
 *   lin_run.c    a generated scenario as the reproducer runs it; the suite
 * (the API for labs is lin.h).
 */
#ifndef KIT_RACE_LINCHECK_H
#define KIT_RACE_LINCHECK_H

#include <stdio.h>

#include "race/front/front.h"
#include "race/lin.h"

#define LIN_NAME_LEN	128
#define LIN_MAX_CALLS	((RACE_MAX_THREADS + 1) * LIN_MAX_PER_THREAD + 2 * LIN_MAX_OPS)

/* One operation of a generated thread: op index, key (0: none). */
struct lin_call_desc {
	unsigned char op, key;
};

/**
 * struct lin_scenario - one generated scenario
 * @bound: the preemption bound dfs explores it within
 */
struct lin_scenario {
	const struct lin_spec *spec;
	const struct lin_init *init;
	int nr_threads;
	int nr_ops[RACE_MAX_THREADS];
	struct lin_call_desc ops[RACE_MAX_THREADS][LIN_MAX_PER_THREAD];
	int nr_irq;			/* operations of T1's interrupt */
	struct lin_call_desc irq[LIN_MAX_PER_THREAD];
	int bound;
	char name[LIN_NAME_LEN];
};

/**
 * struct lin_call - one operation as it happened in an execution
 * @thread: 1..n, or 0 for a final probe (after every thread), LIN_IRQ
 * @sched:  the reproducer's id of the thread that ran it
 * @inv, @resp: steps made before it was called, and when it returned
 * @first: the index of its first step (-1: it made none), for reports
 */
struct lin_call {
	int thread, sched, op, key;
	long result;
	long inv, resp, first;
};

struct lin_history {
	int n;
	struct lin_call c[LIN_MAX_CALLS];
};

/* lin_gen.c */
int race_lin_specs_count(void);
const struct lin_spec *race_lin_spec_at(int i);
const struct lin_spec *race_lin_spec_find(const char *name, size_t len);
int race_lin_generate(const struct lin_spec *spec, struct lin_scenario *out, int max);
void race_lin_name(struct lin_scenario *s);
int race_lin_parse(const char *name, struct lin_scenario *s);
void race_lin_call_text(const struct lin_spec *spec, int op, int key, char *buf,
		   size_t len);
void race_lin_result_text(const struct lin_op *op, long result, char *buf,
		     size_t len);

/* lin_check.c */
bool race_lin_linearizable(const struct lin_spec *spec, const struct lin_init *init,
		      const struct lin_history *h);
void race_lin_explain(const struct lin_spec *spec, const struct lin_init *init,
		 const struct lin_history *h, char *buf, size_t len);

/* lin_run.c: what the rest of the reproducer calls */
struct race_scenario;
const struct race_scenario *race_lin_find(const char *name);
const struct lin_spec *race_lin_suite(const char *name);
int race_lin_list(const char *suite);
int race_lin_cmd_run(const char *name, int lab, const char *out,
		     const char *result, const char *binary);

#endif /* KIT_RACE_LINCHECK_H */
