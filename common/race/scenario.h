/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario.h - how a lab declares a race scenario for the reproducer.
 *
 * A scenario is a small concurrent program: a setup, two to four thread
 * functions, a final check and a teardown.  The reproducer runs it many
 * times, one thread at a time, switching threads only at the scheduling
 * points of common/ (atomics, READ_ONCE/WRITE_ONCE, spin_lock, RCU, kfree):
 * every run is one interleaving, chosen by a strategy (dfs, pct, random,
 * or a script), and every run starts from a fresh setup.
 *
 * Declaring one (tests/labN/race_*.c):
 *
 *	static void setup(void)    { cache_init(); cache_insert(1); freed = 0; }
 *	static void lookup(void)   { ... freed = cache_put(obj); ... }
 *	static void remove(void)   { cache_remove(1); }
 *	static const char *check(void) { return NULL; }  (NULL: it holds)
 *	static bool hit(void)      { return freed; }
 *	static void teardown(void) { cache_destroy(); }
 *
 *	RACE_SCENARIO(lookup_vs_remove) = {
 *		.name     = "lookup_vs_remove",
 *		.summary  = "cache_lookup and cache_remove of the same key",
 *		.expect   = RACE_MUST_HOLD,
 *		.setup    = setup,
 *		RACE_THREADS(lookup, remove),	(or .threads = { ... })
 *		.check    = check,
 *		.witness  = hit,
 *		.outcome  = "T1's cache_put frees the object",
 *		.teardown = teardown,
 *		.bound    = 2,
 *	};
 *
 * Rules for the functions:
 *  - threads touch shared state only through common/ primitives, so that
 *    every access is a point the reproducer can switch at;
 *  - setup(), check(), witness() and teardown() run alone, outside any
 *    interleaving; objects that teardown() leaves allocated are a leak;
 *  - keep all state in static variables that setup() re-initialises: the
 *    same process runs thousands of executions in a row.
 *
 * Interrupts.  In user space an interrupt is a signal handler running on
 * the interrupted thread.  RACE_IRQ(1, put_in_irq) in the initializer
 * makes put_in_irq() an interrupt of T1: it runs at most once per
 * execution, at a point where T1 has interrupts on (no local_irq_save,
 * spin_lock_irqsave in force); T1 is not runnable until it returns.  When
 * it is delivered is one more choice of the strategy, shown as thread
 * "IRQ1" in timelines and schedule files.  A handler that waits for a lock
 * T1 holds leaves nothing runnable: the verdict "deadlock".  lockdep's
 * rule does not wait for that: a lock the handler takes that T1 holds
 * with interrupts on, at any time of the execution, is the verdict
 * "inconsistent-lock-state" (.lockdep_off turns it off).
 * .up = true simulates one CPU: while the thread (or handler) at the CPU
 * has interrupts off, nothing else runs -- local_irq_save() alone is a
 * critical section there, as on a uniprocessor kernel.
 *
 * Expectations:
 *  - RACE_MUST_HOLD: correct code.  No verdict in any execution explored
 *    (dfs must exhaust the space within .bound preemptions), and .witness
 *    must see .outcome in at least one of them -- else the result is the
 *    verdict "vacuous": a scenario whose interesting case never happens
 *    (a lookup that never hits, a get that always fails) proves nothing.
 *  - RACE_MUST_FAIL: a bug the code under test must show (the race that
 *    lab 1's kref rule forbids): some execution must end in .verdict.
 *  - RACE_DEMO: broken code that lives in the test itself, kept to show a
 *    race (lab 2's check-then-increment): listed as "demo", runnable with
 *    `race run`, never graded.  Meets its expectation like a must-fail.
 * A must-fail or a demo without .verdict, or a must-hold without .witness
 * and .outcome, is refused when the binary starts.
 *
 * Verdict kinds: "use-after-free", "warn" (WARN_ON fired, e.g. kref_get's
 * increment from 0, or a watched reference count left 0: refcount_watch.h),
 * "underflow", "double-free", "leak", "deadlock", "livelock",
 * "inconsistent-lock-state" (lockdep's irq-safety rule: lockdep.h),
 * "held-at-exit", "check" (the scenario's check failed), "bug" (BUG_ON), any
 * other kind a kit_bug() names, "crash" (a signal or a sanitizer report
 * that is not a use-after-free or double free), and "vacuous" (see
 * above).  Replays add "diverged" and "nondeterministic".
 * docs/reproducer.md explains each.
 */
#ifndef KIT_RACE_SCENARIO_H
#define KIT_RACE_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#define RACE_MAX_THREADS	4

enum race_expect {
	RACE_MUST_HOLD,
	RACE_MUST_FAIL,
	RACE_DEMO,
};

/*
 * The memory model a scenario runs under (.memory), unless the command
 * line says otherwise (race run --memory sc|weak, make race-N MEMORY=):
 * sequentially consistent (the default: every store seen at once), or the
 * weak model (docs/reproducer.md, "The weak memory model"), which a
 * barrier bug needs in order to show.
 */
enum race_memory {
	RACE_MEMORY_SC,
	RACE_MEMORY_WEAK,
};

/**
 * struct race_scenario - one concurrent program and what it must show
 * @name:      identifier, unique in the lab; names the schedule file
 * @summary:   one line for listings and timelines
 * @expect:    RACE_MUST_HOLD, RACE_MUST_FAIL or RACE_DEMO
 * @verdict:   for RACE_MUST_FAIL and RACE_DEMO (required), the verdict
 *             kind that counts as "shown"
 * @setup:     builds the shared state, alone; may be NULL
 * @threads:   the thread functions, T1 first; unused slots are NULL
 * @names:     their names for timelines ("T1 lookup"); RACE_THREADS()
 *             fills both; NULL names show as plain "T1"
 * @check:     after every thread has finished: NULL if the invariant holds,
 *             else a message saying what is wrong; may be NULL
 * @witness:   for RACE_MUST_HOLD (required): after every execution whose
 *             check held, true if the interesting outcome happened in it
 * @outcome:   what @witness looks for, for the "vacuous" verdict
 *             ("T1's refcount_get_rcu takes a reference")
 * @teardown:  frees everything setup() and the threads left; may be NULL
 * @irqs:      interrupt handlers: @irqs[k] interrupts thread T(k+1)
 *             (RACE_IRQ() fills it and @irq_names); NULL: none
 * @irq_names: their names for timelines
 * @up:        one simulated CPU (see "Interrupts" above); false: a CPU
 *             per thread
 * @bound:     preemption bound dfs raises to (0 means the default, 2)
 * @max_steps: step cap of one execution (0: 10000), the livelock oracle
 * @memory:    RACE_MEMORY_SC (the default) or RACE_MEMORY_WEAK
 * @lockdep_off: lockdep's irq-safety rule stands aside (a scenario that
 *             shows the deadlock the rule prevents); otherwise a lock
 *             taken in interrupt context and held with interrupts on
 *             elsewhere in one execution is the verdict
 *             "inconsistent-lock-state" (common/lockdep.h)
 * @warns:     WARNs an execution must fire: 0 (the default) means none, a
 *             WARN is the verdict "warn"; N > 0 means exactly N in every
 *             execution ("an increment from 0 WARNs, exactly once");
 *             RACE_WARNS_CHECKED lets @check judge (race_warn_count())
 */
struct race_scenario {
	const char *name;
	const char *summary;
	enum race_expect expect;
	const char *verdict;
	void (*setup)(void);
	void (*threads[RACE_MAX_THREADS])(void);
	const char *names[RACE_MAX_THREADS];
	const char *(*check)(void);
	bool (*witness)(void);
	const char *outcome;
	void (*teardown)(void);
	void (*irqs[RACE_MAX_THREADS])(void);
	const char *irq_names[RACE_MAX_THREADS];
	bool up;
	int bound;
	long max_steps;
	enum race_memory memory;
	bool lockdep_off;
	int warns;
};

#define RACE_WARNS_CHECKED	(-1)

/**
 * race_warn_count - the WARNs fired so far in this execution (for a
 * scenario's check() when its .warns is RACE_WARNS_CHECKED)
 */
long race_warn_count(void);

/**
 * race_holds_lock - whether the calling scenario thread holds @lock (a
 * spinlock_t *): it took it, and has not released it since
 */
bool race_holds_lock(const void *lock);

#define __RACE_STR1(a)			#a
#define __RACE_STR2(a, b)		#a, #b
#define __RACE_STR3(a, b, c)		#a, #b, #c
#define __RACE_STR4(a, b, c, d)		#a, #b, #c, #d
#define __RACE_PICK(_1, _2, _3, _4, name, ...)	name

/**
 * RACE_THREADS - the thread functions of a scenario, and their names
 *
 * In a scenario's initializer, RACE_THREADS(lookup, remove) sets .threads
 * to { lookup, remove } and .names to { "lookup", "remove" }.
 */
#define RACE_THREADS(...)						\
	.threads = { __VA_ARGS__ },					\
	.names = { __RACE_PICK(__VA_ARGS__, __RACE_STR4, __RACE_STR3,	\
			       __RACE_STR2, __RACE_STR1)(__VA_ARGS__) }

/**
 * RACE_IRQ - thread @n's interrupt handler, and its name
 *
 * In a scenario's initializer, RACE_IRQ(1, put_in_irq) makes put_in_irq()
 * an interrupt of T1 ("Interrupts" above).
 */
#define RACE_IRQ(n, fn)	.irqs[(n) - 1] = (fn), .irq_names[(n) - 1] = #fn

/**
 * RACE_HASHED_ADDRESSES - once in a race binary whose code under test
 * computes with addresses (lab 4's bucket lock, (addr >> 8) & (N - 1))
 *
 * The slab then starts every object on a RACE_HASHED_ALIGN boundary under
 * the reproducer, so that the low bits of a field's address are its offset
 * in the object: the hash gives the same answer in every execution and in
 * every process, and schedules replay byte for byte (placement.c).
 */
#define RACE_HASHED_ALIGN	2048
#define RACE_HASHED_ADDRESSES()						\
	static void __attribute__((constructor)) race_hashed_addresses(void) \
	{								\
		race_align_objects(RACE_HASHED_ALIGN);			\
	}

void race_align_objects(size_t align);

/**
 * struct race_registration - a scenario, and where it is declared
 */
struct race_registration {
	const struct race_scenario *scenario;
	const char *file;
	int line;
};

/**
 * RACE_SCENARIO - define and register a scenario
 *
 * Puts a pointer to its registration into the "race_scenarios" section;
 * the reproducer walks the section, so a scenario file needs no other
 * registration.  Scenarios are listed sorted by name (compilers order a
 * section differently).
 */
#define RACE_SCENARIO(ident)						\
	static const struct race_scenario ident;			\
	static const struct race_registration __race_reg_##ident = {	\
		&ident, __FILE__, __LINE__ };				\
	static const struct race_registration *const __race_ptr_##ident	\
	__attribute__((used, section("race_scenarios"),			\
		       aligned(sizeof(void *)))) = &__race_reg_##ident;	\
	static const struct race_scenario ident

/**
 * race_scenario_find - the registered scenario called @name, or NULL
 */
const struct race_scenario *race_scenario_find(const char *name);

#endif /* KIT_RACE_SCENARIO_H */
