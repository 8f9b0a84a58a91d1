/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - the threads of an execution and token passing (threads.c,
 * token.c, carrier.c), as the models and the exploration see them.
 *
 * Every scenario thread, the RCU thread and each interrupt thread is a
 * struct race_thread.  A thread at a scheduling point may wait for
 * something (a free lock, a grace period): a model says what with a
 * struct race_wait, and the token passer never chooses a thread whose wait
 * is not over.  Before a point a model also says what the step there will
 * touch (race_sched_footprint): the partial-order reduction reads it.
 *
 * Two interfaces face up, both registered, never called by name:
 *  - struct race_scheduler: who runs the next step, which store a load
 *    reads, and the events of an execution -- the exploration's (one
 *    interface, as shuttle's runtime calls its scheduler);
 *  - struct race_model: what a model adds to token passing (a thread that
 *    may not run though its wait is over, one simulated CPU, the check of
 *    a thread that returns, a reset per execution) -- one per model file,
 *    registered with RACE_MODEL().
 */
#ifndef KIT_RACE_SCHED_H
#define KIT_RACE_SCHED_H

#include <stddef.h>

#include "race/runtime/runtime.h"

/* Steps in a row that only spinners make, nobody else able to run, before
 * the verdict (token.c, models/spin.c). */
#define RACE_SPIN_ALONE	1000

enum race_thread_state { RACE_TS_IDLE, RACE_TS_POINT, RACE_TS_RUNNING,
			 RACE_TS_DONE };

struct race_thread;

/**
 * struct race_wait - what a thread at a point waits for
 * @ready: true when the thread may perform its step now
 * @why:   for the deadlock verdict: writes "T1 spins in ...; " into @buf
 *         and returns its length, or returns 0 if the thread is not
 *         really waiting (the RCU thread with nothing queued)
 * @final: never ready again in this execution: no pending step
 * @dependent_wakes: only a step dependent with the point's footprint can
 *         make it ready (a release of the lock word); the partial-order
 *         reduction relies on it
 */
struct race_wait {
	bool (*ready)(const struct race_thread *t);
	int (*why)(const struct race_thread *t, char *buf, size_t len);
	bool final;
	bool dependent_wakes;
};

/* What a step touches, as its model says before the point (its footprint). */
enum race_fp_kind {
	RACE_FP_ALL,		/* anything: race_point(), unknown points */
	RACE_FP_NONE,		/* nothing shared (smp_wmb, smp_rmb) */
	RACE_FP_LOAD,		/* reads addr */
	RACE_FP_STORE,		/* writes addr (a store, an update) */
	RACE_FP_LOCK,		/* spin_lock of the lock word at addr */
	RACE_FP_UNLOCK,		/* spin_unlock of the lock word at addr */
	RACE_FP_FREE,		/* frees addr..+size */
	RACE_FP_RCU_LOCK,	/* rcu_read_lock */
	RACE_FP_RCU_UNLOCK,	/* rcu_read_unlock */
	RACE_FP_RCU_W,		/* the end of a grace period, rcu_barrier */
	RACE_FP_RCU_CALL,	/* call_rcu of the rcu_head at addr */
	RACE_FP_RCU_INVOKE,	/* the RCU thread runs a callback */
	RACE_FP_ALLOC,		/* the slab hands out addr..+size */
};
#define RACE_FP_MB	0x01	/* a full fence of the weak model */
#define RACE_FP_SLAB	0x02	/* allocates (what: its RACE_FP_ALLOC touch) */
#define RACE_FP_GP	0x04	/* starts a grace period */

/* What one step may touch besides its point's footprint (race_sched_touch). */
#define RACE_MAX_TOUCH	6

/**
 * struct race_footprint - what a pending step touches
 * @given: a model said so before this point (otherwise: everything)
 */
struct race_footprint {
	int kind;			/* enum race_fp_kind */
	unsigned int flags;		/* RACE_FP_MB, ... */
	const volatile void *addr;
	size_t size;			/* RACE_FP_FREE: the object's size */
	bool given;
};

struct race_carrier;

/**
 * struct race_thread - a scenario thread (T1..Tn), the RCU thread or an
 * interrupt thread
 * @fn, @what, @addr: its point: label and address
 * @wait: what it waits for there (NULL: nothing)
 * @step: the step it is performing, once chosen (NULL between steps)
 * @fp:   what its pending step touches (race_sched_footprint)
 * @extra: what its current step did after its point (race_sched_extra)
 * @touch: what else its current step touched after its point, in code
 *         that is no point (race_sched_touch); @nr_touch of them, or
 *         RACE_MAX_TOUCH + 1 if more: then the step touched everything
 */
struct race_thread {
	int id;				/* 1-based; nr_workers + 1 is RCU */
	enum race_thread_state state;
	const struct race_wait *wait;
	const char *fn, *what;
	const volatile void *addr;
	struct race_step *step;
	struct race_footprint fp;
	unsigned int extra;
	struct race_footprint touch[RACE_MAX_TOUCH];
	int nr_touch;
	void (*body)(void);
	struct race_carrier *carrier;
};

/**
 * struct race_choice - the threads that may run the next step
 * @from:          the thread that just stopped (at a point, or finished)
 * @from_runnable: whether it may go on (switching away is a preemption)
 * @ids:           the runnable threads, ascending (1-based; RCU is n+1)
 * @nr:            how many; at least 1
 * @lifted:        the one runs only because nobody else can: a spinner
 *                 taking its turn (models/spin.c), a turn that changes
 *                 nothing
 * @from_waits_dependent: @from waits at a point whose wait only a step
 *                 dependent with its footprint ends (a lock), and does
 *                 not spin
 */
struct race_choice {
	int from;
	bool from_runnable;
	bool from_waits_dependent;
	int ids[RACE_NR_SLOTS];
	int nr;
	bool lifted;
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
 * struct race_scheduler - the exploration, as token passing calls it
 * @pick:      the index in @c->ids of the thread that runs next
 * @pick_read: the index in @r of the store a load reads (weak model)
 * @arrive:    @t is at a point, its footprint given (may be NULL)
 * @step:      thread @id performs its pending step, just recorded
 * @done:      @t returned from its function
 */
struct race_scheduler {
	int (*pick)(const struct race_choice *c);
	int (*pick_read)(const struct race_read *r);
	void (*arrive)(struct race_thread *t);
	void (*step)(int id);
	void (*done)(struct race_thread *t);
};

/* What a model's extra thread is: none, the RCU thread, or IRQk. */
enum race_slot { RACE_SLOT_NONE, RACE_SLOT_RCU, RACE_SLOT_IRQ };

/**
 * struct race_model - what one model adds to token passing (all optional)
 * @applies: whether its hooks below matter to scenario @sc (NULL: always)
 * @reset:  before every execution
 * @arrive: @t is at a point, its footprint given, before any other
 *          thread runs (its last step is complete)
 * @holds:  true if @t may not run now although its wait is over (a
 *          worker whose interrupt handler runs)
 * @why:    for the deadlock verdict, when @holds said so
 * @yields: @holds only defers the thread (it spins, as a CPU would):
 *          when no thread could run otherwise, token passing lifts it
 * @filter: cut down the runnable threads (one simulated CPU)
 * @begin:  @t starts its function, before any of its code
 * @exit:   @t returned from its function (the end-of-thread oracle)
 * @slot, @body: the extra thread the model runs (the RCU thread, IRQk)
 */
struct race_model {
	const char *name;
	bool (*applies)(const struct race_scenario *sc);
	void (*reset)(void);
	void (*arrive)(struct race_thread *t);
	bool (*holds)(const struct race_thread *t);
	int (*why)(const struct race_thread *t, char *buf, size_t len);
	bool yields;
	void (*filter)(struct race_choice *c, const struct race_thread *from);
	void (*begin)(struct race_thread *t);
	void (*exit)(const struct race_thread *t);
	enum race_slot slot;
	void (*body)(void);
};

/**
 * RACE_MODEL - define and register a model (section "race_models"): a new
 * model is one file of models/, nothing else changes
 */
#define RACE_MODEL(ident)						\
	static const struct race_model ident;				\
	static const struct race_model *const __race_model_##ident	\
	__attribute__((used, section("race_models"),			\
		       aligned(sizeof(void *)))) = &ident;		\
	static const struct race_model ident

/* threads.c: the threads, read at every step (inline) */
extern const struct race_scenario *race_sc;
extern struct race_thread race_threads[RACE_NR_SLOTS];
extern int race_workers, race_slots;
extern __thread struct race_thread *race_current;

/** race_self - the calling scenario (or RCU, or IRQ) thread; NULL outside */
static inline struct race_thread *race_self(void)
{
	return race_current;
}

/** race_thread_get - thread @id (1-based; race_nr_workers() + 1 is RCU) */
static inline struct race_thread *race_thread_get(int id)
{
	return &race_threads[id - 1];
}

/** race_nr_workers - the scenario's thread count (the RCU thread excluded) */
static inline int race_nr_workers(void)
{
	return race_workers;
}

/** race_nr_slots - thread ids in use: 1 .. race_nr_slots() */
static inline int race_nr_slots(void)
{
	return race_slots;
}

void race_set_self(struct race_thread *t);
int race_irq_owner(int id);
const char *race_thread_name(int id, char *buf, size_t len);
void race_sched_init(const struct race_scenario *sc);
void race_models_reset(void);
int race_models_count(void);
const struct race_model *race_model_at(int i);

/* choices: the default, and where a thread is in one */
int race_default_pick(const struct race_choice *c);
int race_choice_index(const struct race_choice *c, int id);

/* token.c */
void race_sched_use(const struct race_scheduler *s);
void race_sched_footprint(int kind, const volatile void *addr, size_t size,
			  unsigned int flags);
void race_sched_extra(unsigned int flags);
void race_sched_touch(int kind, const volatile void *addr, size_t size);
struct race_thread *race_sched_point(const struct race_wait *wait,
				     const char *fn, const char *what,
				     const volatile void *addr);
void race_sched_wait(struct race_thread *t, const struct race_wait *wait,
		     const char *fn, const char *what);
void race_sched_step(struct race_thread *t, const char *fn, const char *what,
		     const volatile void *addr);
int race_sched_pick_read(const struct race_read *r);
int race_thread_runnable_label(int id, char *buf, size_t len);
void race_sched_start(bool os_threads);
double race_sched_cpu_ms(void);
void race_sched_reset(void);
void race_sched_run(void);

#endif /* KIT_RACE_SCHED_H */
