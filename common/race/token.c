// SPDX-License-Identifier: GPL-2.0
/*
 * token.c - token passing over real pthreads.
 *
 * Every scenario thread is a pthread with its own semaphore.  Exactly one
 * of them holds the token; at each scheduling point it asks the strategy
 * who runs the next step, posts that thread's semaphore and waits on its
 * own.  Code between two points therefore runs alone: an execution is
 * determined by the choices made (and under the weak memory model by the
 * stores its loads chose), and sequentially consistent under the default.
 *
 * Threads are created once per search process and reused by every
 * execution.  Between executions they wait at the top of their loop.  One
 * more thread, the RCU thread (rcu.c), runs call_rcu callbacks; it never
 * finishes, it waits at its point for the next callback.  A scenario with
 * interrupts has one more thread per handler (irq.c), after the RCU
 * thread: choosing it delivers the interrupt.
 *
 * What a thread waits for at a point is the business of the models: a
 * thread is runnable when it is at a point and its struct race_wait, if
 * any, says ready.  When no thread is runnable and some thread still
 * waits, that is a deadlock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "race/dpor.h"
#include "race/held.h"
#include "race/sched.h"
#include "race/strategy.h"

const struct race_scenario *race_sc;
static struct race_thread threads[RACE_NR_SLOTS];
static int nr_workers;
static int nr_slots;		/* workers, RCU, interrupt threads */
static sem_t main_sem;
static __thread struct race_thread *self;
static int starting, start_idx;
static int first_choice;	/* nobody was running before: no preemption */

static void sem_wait_intr(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/** race_self - the calling scenario (or RCU) thread; NULL outside them */
struct race_thread *race_self(void)
{
	return self;
}

/** race_thread_get - thread @id (1-based; nr_workers + 1 is RCU) */
struct race_thread *race_thread_get(int id)
{
	return &threads[id - 1];
}

/** race_nr_workers - the scenario's thread count (the RCU thread excluded) */
int race_nr_workers(void)
{
	return nr_workers;
}

/** race_nr_slots - thread ids in use: 1 .. race_nr_slots() */
int race_nr_slots(void)
{
	return nr_slots;
}

/* Whether @t may perform its next step now, as its model says. */
static bool runnable(const struct race_thread *t)
{
	return t->state == RACE_TS_POINT && (!t->wait || t->wait->ready(t)) &&
	       !race_irq_interrupted(t);
}

/**
 * race_thread_runnable_label - "fn.what" of thread @id's next step
 *
 * Returns 1 if the thread is at a point (and fills @buf), 0 otherwise.
 */
int race_thread_runnable_label(int id, char *buf, size_t len)
{
	const struct race_thread *t;

	if (id < 1 || id > nr_slots)
		return 0;
	t = &threads[id - 1];
	if (t->state != RACE_TS_POINT)
		return 0;
	snprintf(buf, len, "%s.%s", t->fn, t->what);
	return 1;
}

/* Why @t cannot run: "T1 waits at f.x; " into @buf; 0 if it is not waiting. */
static int why_blocked(const struct race_thread *t, char *buf, size_t len)
{
	char name[16];

	if (t->state == RACE_TS_DONE)
		return 0;
	if (race_irq_interrupted(t))
		return race_irq_why(t, buf, len);
	if (t->wait)
		return t->wait->why(t, buf, len);
	return snprintf(buf, len, "%s waits at %s.%s; ",
			race_thread_name(t->id, name, sizeof(name)), t->fn,
			t->what);
}

/*
 * No thread can run.  If nobody waits, the execution is over (returns);
 * otherwise the deadlock verdict names who waits where.
 */
static void nobody_runnable(void)
{
	char msg[RACE_MSG_LEN];
	size_t n = 0;
	int i;

	msg[0] = 0;
	for (i = 0; i < nr_slots && n < sizeof(msg); i++)
		n += why_blocked(&threads[i], msg + n, sizeof(msg) - n);
	if (!n)
		return;
	if (n >= 2 && n < sizeof(msg))
		msg[n - 2] = 0;
	race_fail("deadlock", "no thread can run: %s", msg);
}

/*
 * The thread that runs the next step, chosen among the runnable ones;
 * NULL when the execution is over.  @from just stopped at a point (or
 * finished).
 */
static struct race_thread *choose(struct race_thread *from)
{
	struct race_choice c = { .from = from->id };
	int i;

	for (i = 0; i < nr_slots; i++)
		if (runnable(&threads[i]))
			c.ids[c.nr++] = i + 1;
	race_irq_filter(&c, from);
	if (!c.nr) {
		nobody_runnable();
		return NULL;
	}
	c.from_runnable = !first_choice && runnable(from);
	first_choice = 0;
	return &threads[c.ids[race_strategy_pick(&c)] - 1];
}

/* Give the token to @next (the end of the execution if NULL). */
static void hand_to(struct race_thread *next)
{
	sem_post(next ? &next->sem : &main_sem);
}

/*
 * At the start of an execution each worker runs alone to its first point,
 * T1 first; returns the next one to start, or NULL once all have.
 */
static struct race_thread *next_to_start(void)
{
	if (++start_idx < nr_workers)
		return &threads[start_idx];
	starting = 0;
	first_choice = 1;
	return NULL;
}

/* @t is at a point: let the strategy decide, wait if another thread runs. */
static void switch_from(struct race_thread *t)
{
	struct race_thread *next;

	if (starting && (next = next_to_start())) {
		hand_to(next);
		sem_wait_intr(&t->sem);
		return;
	}
	next = choose(t);
	if (next == t)
		return;
	hand_to(next);
	sem_wait_intr(&t->sem);
}

/**
 * race_sched_wait - park @t at a point until the strategy chooses it
 * @wait: what it waits for (NULL: nothing)
 *
 * Records no step: the caller does, once it knows what the step is.
 */
void race_sched_wait(struct race_thread *t, const struct race_wait *wait,
		     const char *fn, const char *what)
{
	t->wait = wait;
	t->fn = fn;
	t->what = what;
	t->state = RACE_TS_POINT;
	race_dpor_arrive(t);
	switch_from(t);
	t->state = RACE_TS_RUNNING;
}

/**
 * race_sched_point - a scheduling point of the calling thread
 * @wait: what it waits for there (NULL: nothing)
 *
 * Returns when the thread may perform its step, with the step recorded
 * in the trace (self->step).  Call only from a scenario thread.
 */
struct race_thread *race_sched_point(const struct race_wait *wait,
				     const char *fn, const char *what,
				     const volatile void *addr)
{
	struct race_thread *t = self;

	t->addr = addr;
	race_sched_wait(t, wait, fn, what);
	t->step = race_trace_add(t->id, fn, what, addr);
	return t;
}

/* A thread finished its function: pass the token on. */
static void thread_done(struct race_thread *t)
{
	struct race_thread *next;

	race_thread_exit_check(t);
	t->state = RACE_TS_DONE;
	t->step = NULL;
	race_dpor_done(t);
	if (starting && (next = next_to_start())) {
		hand_to(next);
		return;
	}
	hand_to(choose(t));
}

/* A scenario thread (or RCU): one turn of the loop per execution. */
static void *thread_main(void *arg)
{
	struct race_thread *t = arg;

	self = t;
	race_debug_name_self(t->id);	/* "T1", "RCU": for gdb, rr, ps */
	for (;;) {
		sem_wait_intr(&t->sem);
		race_irq_begin(t);
		t->body();		/* the RCU thread's never returns */
		thread_done(t);
	}
	return NULL;
}

/**
 * race_sched_init - make @sc the scenario: count its threads
 *
 * Starts nothing: the parent calls it to name threads, the search process
 * then calls race_sched_start().
 */
void race_sched_init(const struct race_scenario *sc)
{
	int i;

	race_sc = sc;
	for (nr_workers = 0; nr_workers < RACE_MAX_THREADS &&
	     sc->threads[nr_workers]; nr_workers++)
		;
	nr_slots = nr_workers + 1;
	for (i = 0; i < nr_workers; i++)
		if (sc->irqs[i])
			nr_slots = 2 * nr_workers + 1;
	for (i = 0; i < nr_slots; i++) {
		threads[i].id = i + 1;
		threads[i].state = RACE_TS_DONE;
		threads[i].body = i < nr_workers ? sc->threads[i] :
			i == nr_workers ? race_rcu_thread :
			sc->irqs[i - nr_workers - 1] ? race_irq_thread : NULL;
	}
}

/**
 * race_sched_start - create the threads of the scenario, the RCU thread
 * and the interrupt threads
 *
 * Call once in the search process; the threads serve every execution.
 */
void race_sched_start(void)
{
	int i;

	sem_init(&main_sem, 0, 0);
	for (i = 0; i < nr_slots; i++)
		sem_init(&threads[i].sem, 0, 0);
	for (i = 0; i < nr_slots; i++)
		if (threads[i].body &&
		    pthread_create(&threads[i].pt, NULL, thread_main, &threads[i]))
			race_fail("crash", "pthread_create failed");
}

/** race_sched_reset - every worker back to its start, waiting for nothing */
void race_sched_reset(void)
{
	int i;

	for (i = 0; i < nr_workers; i++) {
		threads[i].state = RACE_TS_IDLE;
		threads[i].wait = NULL;
		threads[i].step = NULL;
	}
}

/**
 * race_sched_run - run the threads of one execution until none can run
 *
 * Returns when every worker has finished and nothing waits; a deadlock,
 * like any verdict, ends the search process instead.
 */
void race_sched_run(void)
{
	starting = 1;
	start_idx = 0;
	hand_to(&threads[0]);
	sem_wait_intr(&main_sem);
}
