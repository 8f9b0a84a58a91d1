/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runtime.h - the bottom layer of the reproducer: the page a search shares
 * with its parent, the failure path, the record of an execution's steps
 * and the names in it, and the objects of an execution.
 *
 *   fail.c       the shared page, race_fail(), who watches the end
 *   trace.c      the steps of an execution, as recorded
 *   objects.c    the objects of an execution: ids, sizes, who freed them
 *   threads.c    the threads and their names (sched.h)
 *   token.c      token passing: who runs the next step (sched.h)
 *   carrier.c    what a thread runs on: a context or an OS thread (sched.h)
 *   placement.c  where the slab puts objects: addresses that hash the same
 *   vmem.c       the layers' large arrays, in memory mapped for them
 *
 * The layers above (docs/design.md, "The reproducer's layers"): the models
 * of the primitives (models/), the exploration (explore/), reporting
 * (report/), the front ends (front/).  Nothing here calls up: a higher
 * layer that must hear of something registers at start-up -- a scheduler
 * (struct race_scheduler), a model (RACE_MODEL), an observer (struct
 * race_observer).
 *
 * One search runs in a child process.  What the parent must know even when
 * the child dies (the steps of the execution in progress, the verdict, the
 * counters) lives in struct race_shared, mapped MAP_SHARED before the fork.
 *
 * Every name this directory exports starts with race_: the race binary
 * links student code too.
 */
#ifndef KIT_RACE_RUNTIME_H
#define KIT_RACE_RUNTIME_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "compiler.h"
#include "race/scenario.h"

/* T1..Tn, the RCU thread, then one interrupt thread per Tk (irq.c) */
#define RACE_NR_SLOTS		(2 * RACE_MAX_THREADS + 1)
#define RACE_DEFAULT_STEPS	10000
#define RACE_MAX_BOUNDS		16
#define RACE_LABEL_LEN		64
#define RACE_MSG_LEN		4096

/**
 * race_streq - whether @a and @b are the same string
 *
 * A loop, not strcmp(): the race binary links ASan, whose strcmp checks
 * the shadow of both strings, and the models compare a step's label with
 * another at most steps.
 */
static inline bool race_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

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
	bool placed;			/* a store that went before @newest in
					 * coherence order, right after @sees */
	long new_val, new_off;
	const volatile void *addr;	/* the address accessed (search process) */
};
#define RACE_SEES_NEWEST	(-1L)

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
	int bound_from;			/* dfs: the first bound explored */
	int bound_reached;		/* dfs: the last bound explored */
	int exhausted;			/* dfs: every execution within it */
	long max_choices;		/* most steps with a choice in one execution */
	long pruned;			/* dfs: executions cut short by sleep sets */
	long classes;			/* --count-classes: distinct partial orders */
	double exec_cpu_ms;		/* CPU time of the executions themselves */
	long exec_faults;		/* ... and their page faults */
	int nr_threads;			/* slots used: workers (+ RCU if seen) */
	long warns;			/* WARNs in the execution in progress */
	long nr_steps;
	long cap_steps;
	struct race_step steps[];	/* of the execution in progress */
};

extern struct race_shared *race_sh;

/* fail.c */
void race_shared_map(long cap_steps);
void __noreturn __printf(2, 3) race_fail(const char *kind, const char *fmt,
					 ...);

/**
 * struct race_observer - who watches an execution from above (a debugger's
 * stops, front/debug.c), registered at start-up with race_observe()
 * @step: step @nr (just recorded, accessing @addr) is about to be made
 * @end:  the execution or the search has ended (race_sh says how)
 */
struct race_observer {
	void (*step)(long nr, const volatile void *addr);
	void (*end)(void);
};
/* carrier.c */
double race_clock_ms(clockid_t clock);

void *race_vmem_resize(void *p, size_t old, size_t size);
void race_vmem_free(void *p, size_t size);
void *race_grow(void *a, long n, long *cap, size_t size);
void race_grow_free(void *a, long cap, size_t size);

void race_observe(const struct race_observer *o);
void race_observe_step(long nr, const volatile void *addr);
void race_end(void);

/* trace.c */
void race_trace_reset(void);
struct race_step *race_trace_add(int thread, const char *fn, const char *what,
				 const volatile void *addr);
void race_trace_value(struct race_step *s, long value);
void race_trace_stale(struct race_step *s, long sees, long newest,
		      bool known, long value);
void race_trace_placed(struct race_step *s, long after, long before,
		       bool known, long value);
long race_trace_nr(const struct race_step *s);

/* objects.c: the record of an execution's objects */
struct race_obj;
void race_objects_reset(void);
struct race_obj *race_obj_record(const void *obj, size_t size,
				 const char *cache, bool typesafe,
				 const char *fn);
const struct race_obj *race_obj_find(const volatile void *addr);
unsigned long race_obj_id(const struct race_obj *o);
long race_obj_offset(const struct race_obj *o, const volatile void *addr);
size_t race_obj_size(const struct race_obj *o);
const char *race_obj_cache(const struct race_obj *o);
bool race_obj_typesafe(const struct race_obj *o);
bool race_obj_is_freed(const struct race_obj *o);
bool race_obj_live(unsigned long id);
const void *race_obj_start(unsigned long id);
void race_obj_record_free(struct race_obj *o, int thread, long step,
			  const char *fn, const char *file, int line);
void race_obj_freed_by(const struct race_obj *o, char *buf, size_t len);
long race_objects_live(char *names, size_t len);

#endif /* KIT_RACE_RUNTIME_H */
