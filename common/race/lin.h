/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lin.h - generated scenarios checked for linearizability: how a lab
 * declares its operations and their sequential specification.
 *
 * The method is Lincheck's (JetBrains, for JVM data structures), in C on
 * the kit's reproducer.  A lab lists its operations -- each one call of
 * its API as a user would make it, returning a number -- and writes, for
 * each, what it does to a small model of the collection or count (the
 * sequential specification).  From that table the reproducer generates
 * scenarios: an initial state, then 2 or 3 threads that each run 1 to 3
 * operations on 1 or 2 keys.  It explores each within its preemption bound,
 * and after every execution checks
 *   - the primitives' oracles (use-after-free, double free, leak, WARNs,
 *     a thread that returns holding a lock or inside a read-side section);
 *   - linearizability: the results the operations returned are those of
 *     some sequential order of them that respects their real-time order
 *     in that execution (an operation that returned before another began
 *     comes first), run on the model.
 * A violation prints the timeline, every operation with its result and
 * the steps it spanned, and why no order explains the results.
 *
 * Declaring one (tests/labN/race_lin.c; docs/reproducer.md, "Generated
 * scenarios", walks lab 1's):
 *
 *	static const struct lin_op ops[] = {
 *		{ "insert", LIN_KEYED, run_insert, spec_insert, errno_names },
 *		{ "lookup", LIN_KEYED | LIN_TAKES, run_lookup, spec_lookup,
 *		  hit_names },
 *		{ "put",    LIN_KEYED | LIN_DROPS, run_put, spec_put, NULL },
 *		...
 *	};
 *	static const struct lin_init inits[] = {
 *		{ "empty" }, { "key1", .keys = { 1 } }, ...
 *	};
 *	LIN_SPEC(cache) = {
 *		.name = "cache", .ops = ops, .nr_ops = ARRAY_SIZE(ops), ...
 *	};
 *
 * The suite of a spec is the pseudo-scenario "lincheck:<name>" of the race
 * binary (race list shows it, race run runs every generated scenario of
 * it); one generated scenario is named
 *   lin:<spec>:<init>:<T1 ops>|<T2 ops>[|<T3 ops>]   e.g.
 *   lin:cache:key1:remove(1)|remove(1)
 * and can be run or replayed by that name like any scenario.
 *
 * Interrupts.  A spec whose .irq_ops names operations also gets
 * scenarios in which an interrupt of T1 runs some of them (generated and
 * checked as the operations of one more thread, "IRQ1", delivered where
 * T1 has interrupts on: scenario.h): every operation of T1 against every
 * one of the interrupt's, and drawn ones; their names end in
 * "!<interrupt's ops>", e.g. lin:hashlock:smp:get_rcu(1)!put(2).
 * Shapes.  A spec's .shapes names scenarios generated whatever is drawn:
 * the three-thread shapes whose contract involves two other operations
 * (an fget against a close and the open that reuses the fd).
 */
#ifndef KIT_RACE_LIN_H
#define KIT_RACE_LIN_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler.h"
#include "race/scenario.h"

#define LIN_MAX_OPS		12	/* operations in a table */
#define LIN_MAX_KEYS		4	/* keys of an initial state */
#define LIN_MAX_PER_THREAD	3	/* operations per generated thread */
#define LIN_MAX_HELD		8	/* references one thread holds */
#define LIN_IRQ			RACE_MAX_THREADS	/* lin_ctx.thread of IRQ1 */
#define LIN_MAX_MODEL		512	/* bytes of a model */

/* A result that no specification returns: the operation saw nonsense. */
#define LIN_NOTHING		(-1000)	/* nothing to do (put without a get) */

/* lin_op.flags */
#define LIN_KEYED		0x01	/* takes a key, 1 .. spec->keys */
#define LIN_TAKES		0x02	/* may leave the thread holding a reference */
#define LIN_DROPS		0x04	/* drops one: generated only where the
					   thread may hold one (of that key) */
#define LIN_POST		0x08	/* also probes the final state, alone */
#define LIN_NEEDS		0x10	/* uses one: generated where LIN_DROPS is */

/**
 * struct lin_ctx - what one generated thread holds between its operations
 * @thread:   1..n (0 for the final probes, which run alone; LIN_IRQ for
 *            T1's interrupt)
 * @held:     objects it holds a reference to, oldest first
 * @held_key: their keys
 *
 * An operation that takes a reference pushes it (lin_hold); the one that
 * drops it pops the oldest of that key (lin_unhold).  The lab's teardown
 * drops whatever is left.
 */
struct lin_ctx {
	int thread;
	int nr_held;
	void *held[LIN_MAX_HELD];
	int held_key[LIN_MAX_HELD];
};

/**
 * struct lin_name - how a result reads: @value is shown as @text
 */
struct lin_name {
	long value;
	const char *text;
};

/**
 * struct lin_op - one operation
 * @name:  as scenario names and reports spell it ("insert")
 * @flags: LIN_KEYED, LIN_TAKES, LIN_DROPS, LIN_NEEDS, LIN_POST
 * @run:   performs it with the lab's code, in a scenario thread (or alone,
 *         for a final probe); returns its result
 * @spec:  what it returns when run alone on @model, which it updates;
 *         @thread says whose references it takes or drops
 * @names: how its results read (ending with a NULL text), or NULL:
 *         numbers, errno values by name
 */
struct lin_op {
	const char *name;
	unsigned int flags;
	long (*run)(struct lin_ctx *ctx, int key);
	long (*spec)(void *model, int thread, int key);
	const struct lin_name *names;
};

/**
 * struct lin_init - an initial state
 * @name:  short, as scenario names spell it ("key1", "keys123")
 * @about: one line for reports ("key 1 in the cache")
 * @keys:  the keys present (0 ends the list)
 * @mode:  the lab's own variant (plain or type-stable table, reuse ...)
 * @held:  references each thread holds at the start (T1 first)
 * @ops:   the operations usable from here, as a bit mask (0: all)
 * @up:    one simulated CPU (scenario.h's .up)
 */
struct lin_init {
	const char *name;
	const char *about;
	int keys[LIN_MAX_KEYS];
	unsigned long mode;
	int held[RACE_MAX_THREADS];
	unsigned int ops;
	bool up;
};

/**
 * struct lin_spec - a lab's operations, their specification, and how
 * many scenarios to generate from them
 * @name, @summary: the suite is "lincheck:<name>"
 * @ops, @nr_ops, @inits, @nr_inits: the table
 * @keys:        keys the operations take: 1 .. @keys (1 or 2)
 * @setup:       builds @init's state with the lab's code, alone; gives
 *               each thread the references @init->held says (ctx[1..])
 * @teardown:    drops what the threads still hold, frees everything
 * @model_size:  bytes of the model (at most LIN_MAX_MODEL)
 * @model_init:  the model of @init (it is zeroed first)
 * @pairs_bound: preemption bound of the scenarios of two threads with one
 *               operation each, all of them (0: 2)
 * @random:      how many scenarios of 2-3 threads with 1-3 operations,
 *               drawn with a fixed seed (0: 24; -1: none)
 * @random_bound: their preemption bound (0: 1)
 * @max_exec:    executions explored per scenario at most (0: 20000)
 * @irq_ops:     the operations an interrupt of T1 may run, as a bit mask
 *               (0: no interrupts)
 * @shapes:      scenarios always generated, by name without "lin:<spec>:"
 *               ("fds012:fget(1)|close(1)|reserve+install"); NULL-ended
 */
struct lin_spec {
	const char *name;
	const char *summary;
	const struct lin_op *ops;
	int nr_ops;
	const struct lin_init *inits;
	int nr_inits;
	int keys;
	void (*setup)(const struct lin_init *init, struct lin_ctx *ctx[]);
	void (*teardown)(struct lin_ctx *ctx[], int nr);
	size_t model_size;
	void (*model_init)(void *model, const struct lin_init *init);
	int pairs_bound;
	int random;
	int random_bound;
	long max_exec;
	unsigned int irq_ops;
	const char *const *shapes;
};

/**
 * LIN_SPEC - define and register a spec (section "race_lin_specs")
 */
#define LIN_SPEC(ident)							\
	static const struct lin_spec ident;				\
	static const struct lin_spec *const __lin_ptr_##ident		\
	__attribute__((used, section("race_lin_specs"),			\
		       aligned(sizeof(void *)))) = &ident;		\
	static const struct lin_spec ident

void race_lin_hold(struct lin_ctx *ctx, void *obj, int key);
void *race_lin_unhold(struct lin_ctx *ctx, int key);

/** lin_hold - @ctx now holds a reference to @obj, of @key */
#define lin_hold(ctx, obj, key)	race_lin_hold(ctx, obj, key)

/** lin_unhold - the oldest object of @key @ctx holds, forgotten; or NULL */
#define lin_unhold(ctx, key)	race_lin_unhold(ctx, key)

/** race_lin_errno_names - 0 and the errno values the kit's APIs return */
extern const struct lin_name race_lin_errno_names[];

#endif /* KIT_RACE_LIN_H */
