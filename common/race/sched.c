// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - token passing over real pthreads, and the models.
 *
 * Every scenario thread is a pthread with its own semaphore.  Exactly one
 * of them holds the token; at each scheduling point it asks the strategy
 * who runs the next step, posts that thread's semaphore and waits on its
 * own.  Code between two points therefore runs alone: an execution is
 * sequentially consistent and determined by the choices made.
 *
 * Threads are created once per search process and reused by every
 * execution.  Between executions they wait at the top of their loop.
 *
 * Models: a thread at spin_lock is runnable only while the lock is free;
 * at synchronize_rcu only once every reader that was inside a read-side
 * section when it arrived has left; at rcu_barrier only once the callbacks
 * queued before it have run.  call_rcu callbacks run on one more thread,
 * "RCU", runnable when its oldest callback's grace period has elapsed.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "race/race.h"
#include "race_hooks.h"
#include "rcupdate.h"
#include "slab.h"

enum { TS_IDLE, TS_POINT, TS_RUNNING, TS_DONE };
enum { OP_ACCESS, OP_FREE, OP_LOCK, OP_SYNC, OP_BARRIER, OP_INVOKE };

#define RACE_MAX_CALLBACKS	256

struct gp_snap {
	unsigned int mask;			/* readers inside at the snapshot */
	unsigned long seq[RACE_NR_SLOTS];	/* their section counts then */
};

struct rthread {
	int id;				/* 1-based; nr_workers + 1 is RCU */
	sem_t sem;
	pthread_t pt;
	int state, op;
	const char *fn, *what;
	const volatile void *addr;
	struct gp_snap gp;		/* OP_SYNC */
	long barrier_snap;		/* OP_BARRIER */
	int rcu_nesting;
	unsigned long rcu_seq;		/* outermost read sections left */
	struct race_step *step;		/* the step it is performing */
	void (*body)(void);
};

struct rcu_cb {
	struct rcu_head *head;
	void (*func)(struct rcu_head *head);
	struct gp_snap gp;
};

const struct race_scenario *race_sc;
static struct rthread threads[RACE_NR_SLOTS];
static int nr_workers;
static struct rthread *rcu_thread;
static sem_t main_sem;
static __thread struct rthread *self;
static int starting, start_idx;
static int first_choice;	/* nobody was running before: no preemption */
static struct rcu_cb callbacks[RACE_MAX_CALLBACKS];
static long cb_head, cb_tail;	/* popped, queued */
static long cb_done;		/* callbacks that have returned */

static void sem_wait_intr(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/**
 * race_fail - end the search with a verdict
 *
 * Guarantees: the verdict and the steps so far are in the shared page
 * before the search process exits; never returns.
 */
void race_fail(const char *kind, const char *fmt, ...)
{
	va_list ap;

	snprintf(race_sh->kind, sizeof(race_sh->kind), "%s", kind);
	va_start(ap, fmt);
	vsnprintf(race_sh->message, sizeof(race_sh->message), fmt, ap);
	va_end(ap);
	race_sh->executions++;
	__atomic_store_n(&race_sh->state, RUN_FAIL, __ATOMIC_SEQ_CST);
	_exit(0);
}

/** race_nr_workers - the scenario's thread count (the RCU thread excluded) */
int race_nr_workers(void)
{
	return nr_workers;
}

/* Snapshot the readers inside a read-side section now. */
static void gp_take(struct gp_snap *g)
{
	int i;

	g->mask = 0;
	for (i = 0; i < nr_workers; i++) {
		g->seq[i] = threads[i].rcu_seq;
		if (threads[i].rcu_nesting)
			g->mask |= 1u << i;
	}
}

/* Every reader inside at the snapshot has left that section. */
static int gp_elapsed(const struct gp_snap *g)
{
	int i;

	for (i = 0; i < nr_workers; i++)
		if (g->mask & (1u << i) && threads[i].rcu_seq == g->seq[i])
			return 0;
	return 1;
}

/* Whether @t may perform its next step now, as the models say. */
static int runnable(const struct rthread *t)
{
	if (t->state != TS_POINT)
		return 0;
	switch (t->op) {
	case OP_LOCK:
		return !__atomic_load_n((const int *)t->addr, __ATOMIC_RELAXED);
	case OP_SYNC:
		return gp_elapsed(&t->gp);
	case OP_BARRIER:
		return cb_done >= t->barrier_snap;
	case OP_INVOKE:
		return cb_head < cb_tail &&
		       gp_elapsed(&callbacks[cb_head % RACE_MAX_CALLBACKS].gp);
	}
	return 1;
}

/* Every scenario thread finished and every callback returned. */
static int all_done(void)
{
	int i;

	for (i = 0; i < nr_workers; i++)
		if (threads[i].state != TS_DONE)
			return 0;
	return cb_done == cb_tail;
}

/**
 * race_thread_runnable_label - "fn.what" of thread @id's next step
 *
 * Returns 1 if the thread is at a point (and fills @buf), 0 otherwise.
 */
int race_thread_runnable_label(int id, char *buf, size_t len)
{
	const struct rthread *t = &threads[id - 1];

	if (id < 1 || id > nr_workers + 1 || t->state != TS_POINT)
		return 0;
	snprintf(buf, len, "%s.%s", t->fn, t->what);
	return 1;
}

/* Why @t cannot run, for the deadlock verdict. */
static int blocked_reason(const struct rthread *t, char *buf, size_t len)
{
	char name[16];

	race_thread_name(t->id, name, sizeof(name));
	if (t->state == TS_DONE || (t == rcu_thread && t->op == OP_INVOKE &&
				    cb_head == cb_tail))
		return 0;
	switch (t->op) {
	case OP_LOCK:
		return snprintf(buf, len, "%s spins in %s.%s on a lock nobody "
				"will release; ", name, t->fn, t->what);
	case OP_SYNC:
		return snprintf(buf, len, "%s waits in %s.%s for a reader that "
				"never leaves its read-side section; ", name,
				t->fn, t->what);
	case OP_BARRIER:
		return snprintf(buf, len, "%s waits in %s.%s for callbacks "
				"that cannot run; ", name, t->fn, t->what);
	}
	return snprintf(buf, len, "%s waits at %s.%s; ", name, t->fn, t->what);
}

/* No thread can run: the verdict names who waits where. */
static void __noreturn deadlock(void)
{
	char msg[RACE_MSG_LEN];
	size_t n = 0;
	int i;

	msg[0] = 0;
	for (i = 0; i <= nr_workers && n < sizeof(msg); i++)
		n += blocked_reason(&threads[i], msg + n, sizeof(msg) - n);
	if (n >= 2 && n < sizeof(msg))
		msg[n - 2] = 0;
	race_fail("deadlock", "no thread can run: %s", msg);
}

/*
 * The thread that runs the next step, chosen among the runnable ones;
 * NULL when the execution is over.  @from just stopped at a point (or
 * finished).
 */
static struct rthread *choose(struct rthread *from)
{
	int ids[RACE_NR_SLOTS], nr = 0, i;

	for (i = 0; i <= nr_workers; i++)
		if (runnable(&threads[i]))
			ids[nr++] = i + 1;
	if (!nr) {
		if (all_done())
			return NULL;
		deadlock();
	}
	i = strategy_pick(from->id, !first_choice && runnable(from), ids, nr);
	first_choice = 0;
	return &threads[ids[i] - 1];
}

/* Give the token to @next (the end of the execution if NULL). */
static void hand_to(struct rthread *next)
{
	sem_post(next ? &next->sem : &main_sem);
}

/* @t is at a point: let the strategy decide, wait if another thread runs. */
static void switch_from(struct rthread *t)
{
	struct rthread *next;

	if (starting) {
		if (++start_idx < nr_workers) {
			hand_to(&threads[start_idx]);
			sem_wait_intr(&t->sem);
			return;
		}
		starting = 0;
		first_choice = 1;
	}
	next = choose(t);
	if (next == t)
		return;
	hand_to(next);
	sem_wait_intr(&t->sem);
}

/* Report an access to (or a second free of) an object the slab has freed. */
static void __noreturn use_after_free(struct rthread *t,
				      const struct slab_info *info)
{
	char who[16], obj[32];

	race_thread_name(info->free_thread, who, sizeof(who));
	snprintf(obj, sizeof(obj), "obj#%lu", info->id);
	if (t->op == OP_FREE)
		race_fail("double-free", "%s.%s frees %s (%s, %zu bytes) a second "
			  "time: freed by %s at step %ld in %s (%s:%d)", t->fn,
			  t->what, obj, info->cache, info->size, who,
			  info->free_step, info->free_fn, info->free_file,
			  info->free_line);
	race_fail("use-after-free", "%s.%s on %s (%s, %zu bytes, +%zu) freed "
		  "by %s at step %ld in %s (%s:%d)", t->fn, t->what, obj,
		  info->cache, info->size, info->offset, who, info->free_step,
		  info->free_fn, info->free_file, info->free_line);
}

/*
 * A scheduling point of the calling thread: returns when the thread may
 * perform its step, with the step recorded.
 */
static struct rthread *point(int op, const char *fn, const char *what,
			     const volatile void *addr)
{
	struct rthread *t = self;
	struct slab_info info;

	t->op = op;
	t->fn = fn;
	t->what = what;
	t->addr = addr;
	if (op == OP_SYNC)
		gp_take(&t->gp);
	if (op == OP_BARRIER)
		t->barrier_snap = cb_tail;
	t->state = TS_POINT;
	switch_from(t);
	t->state = TS_RUNNING;
	t->step = trace_add(t->id, fn, what, addr, &info);
	if (info.id && info.freed && (op == OP_ACCESS || op == OP_FREE))
		use_after_free(t, &info);
	return t;
}

/*
 * The hooks of race_hooks.h.  Each is a scheduling point for a scenario
 * thread and does nothing for any other thread (setup, teardown, the
 * parent): outside an execution there is nobody to interleave with.
 */

/* A point before an access; a freed object ends the search. */
void race_access(const char *fn, const char *what, const volatile void *addr)
{
	if (self)
		point(OP_ACCESS, fn, what, addr);
}

/* The value of this thread's current step. */
void race_seen(long value)
{
	if (self && self->step)
		trace_value(self->step, value);
}

/* A point with no access: "<fn>.<label>". */
void race_point_at(const char *fn, const char *label)
{
	if (self)
		point(OP_ACCESS, fn, label, NULL);
}

/* A point that is runnable only while *@lock is free. */
void race_spin_lock(const char *fn, void *lock)
{
	if (self)
		point(OP_LOCK, fn, "spin_lock", lock);
}

/* Enter a read-side section (nesting counted) at a point. */
void race_rcu_read_lock(const char *fn)
{
	if (self)
		point(OP_ACCESS, fn, "rcu_read_lock", NULL)->rcu_nesting++;
}

/* Leave a read-side section; the outermost exit ends it for grace periods. */
void race_rcu_read_unlock(const char *fn)
{
	struct rthread *t;

	if (!self)
		return;
	t = point(OP_ACCESS, fn, "rcu_read_unlock", NULL);
	if (t->rcu_nesting <= 0)
		race_fail("bug", "%s: rcu_read_unlock without rcu_read_lock", fn);
	if (--t->rcu_nesting == 0)
		t->rcu_seq++;
}

/* A point runnable once the readers inside at arrival have left. */
void race_synchronize_rcu(const char *fn)
{
	if (!self)
		return;
	if (self->rcu_nesting)
		race_fail("bug", "%s: synchronize_rcu inside a read-side "
			  "section waits for itself", fn);
	point(OP_SYNC, fn, "synchronize_rcu", NULL);
}

/* Queue @func(@head) for the RCU thread, after the current readers. */
void race_call_rcu(const char *fn, struct rcu_head *head,
		   void (*func)(struct rcu_head *head))
{
	struct rcu_cb *cb;

	if (!self) {
		func(head);	/* outside an execution: no reader exists */
		return;
	}
	point(OP_ACCESS, fn, "call_rcu", head);
	if (cb_tail - cb_head >= RACE_MAX_CALLBACKS)
		race_fail("bug", "%s: more than %d call_rcu callbacks pending",
			  fn, RACE_MAX_CALLBACKS);
	cb = &callbacks[cb_tail % RACE_MAX_CALLBACKS];
	cb->head = head;
	cb->func = func;
	gp_take(&cb->gp);
	cb_tail++;
}

/* Run every callback still queued: outside an execution nothing reads. */
static void run_all_callbacks(void)
{
	while (cb_head < cb_tail) {
		struct rcu_cb *cb = &callbacks[cb_head++ % RACE_MAX_CALLBACKS];

		cb->func(cb->head);
		cb_done++;
	}
}

/* A point runnable once the callbacks queued before it have returned. */
void race_rcu_barrier(const char *fn)
{
	if (self)
		point(OP_BARRIER, fn, "rcu_barrier", NULL);
	else
		run_all_callbacks();
}

/* A point before a free; freeing a freed object is a double-free. */
void race_free(const char *fn, const void *obj)
{
	if (self)
		point(OP_FREE, fn, "kfree", obj);
}

/**
 * race_report - a primitive found a bug: a WARN is noted and the thread
 * goes on; anything else ends the search with that verdict.
 */
void race_report(const char *kind, const char *message)
{
	if (!strcmp(kind, "warn")) {
		if (!race_sh->note[0]) {
			snprintf(race_sh->note, sizeof(race_sh->note), "%s",
				 message);
			race_sh->note_step = race_current_step();
		}
		return;
	}
	race_fail(kind, "%s", message);
}

/* 1-based number of the calling scenario thread (RCU: n+1); 0 outside. */
int race_current_thread(void)
{
	return self ? self->id : 0;
}

/* The step the calling thread is performing; -1 outside. */
long race_current_step(void)
{
	if (!self || !self->step)
		return -1;
	return self->step - race_sh->steps + 1;
}

/* The RCU thread: one step per callback, then back to its point. */
static void rcu_thread_loop(struct rthread *t)
{
	struct rthread *next;
	struct rcu_cb *cb;

	for (;;) {
		cb = &callbacks[cb_head % RACE_MAX_CALLBACKS];
		t->state = TS_RUNNING;
		t->step = trace_add(t->id, "rcu_do_batch", "invoke", cb->head,
				    NULL);
		cb_head++;
		cb->func(cb->head);
		cb_done++;
		t->step = NULL;
		/* a point inside the callback (its kfree) changed these */
		t->op = OP_INVOKE;
		t->fn = "rcu_do_batch";
		t->what = "invoke";
		t->state = TS_POINT;
		next = choose(t);
		if (next != t) {
			hand_to(next);
			return;
		}
	}
}

/* A thread finished its function: pass the token on. */
static void thread_done(struct rthread *t)
{
	t->state = TS_DONE;
	t->step = NULL;
	if (starting) {
		if (++start_idx < nr_workers) {
			hand_to(&threads[start_idx]);
			return;
		}
		starting = 0;
		first_choice = 1;
	}
	hand_to(choose(t));
}

/* A scenario thread (or RCU): one turn of the loop per execution. */
static void *thread_main(void *arg)
{
	struct rthread *t = arg;

	self = t;
	for (;;) {
		sem_wait_intr(&t->sem);
		if (t == rcu_thread)
			rcu_thread_loop(t);
		else {
			t->body();
			thread_done(t);
		}
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
	for (i = 0; i <= nr_workers; i++) {
		threads[i].id = i + 1;
		threads[i].body = i < nr_workers ? sc->threads[i] : NULL;
	}
	rcu_thread = &threads[nr_workers];
}

/**
 * race_sched_start - create the threads of the scenario and the RCU thread
 *
 * Call once in the search process; the threads serve every execution.
 */
void race_sched_start(void)
{
	int i;

	sem_init(&main_sem, 0, 0);
	for (i = 0; i <= nr_workers; i++)
		sem_init(&threads[i].sem, 0, 0);
	for (i = 0; i <= nr_workers; i++)
		if (pthread_create(&threads[i].pt, NULL, thread_main, &threads[i]))
			race_fail("crash", "pthread_create failed");
}

/* Every thread back to its start; no callback pending. */
static void reset_threads(void)
{
	int i;

	for (i = 0; i <= nr_workers; i++) {
		threads[i].state = TS_IDLE;
		threads[i].rcu_nesting = 0;
		threads[i].rcu_seq = 0;
		threads[i].step = NULL;
	}
	rcu_thread->state = TS_POINT;
	rcu_thread->op = OP_INVOKE;
	rcu_thread->fn = "rcu_do_batch";
	rcu_thread->what = "invoke";
	cb_head = cb_tail = cb_done = 0;
}

/**
 * race_run_execution - one execution of the scenario, start to finish
 *
 * Returns only if no oracle fired: every thread finished, no WARN, the
 * check held and teardown left as many live objects as there were before
 * setup.  Any verdict ends the search process (race_fail).
 */
void race_run_execution(void)
{
	const char *msg;
	long live0, live;

	trace_reset();
	reset_threads();
	slab_reset();
	race_sh->note[0] = 0;
	race_sh->note_step = -1;
	live0 = slab_objects_live();
	if (race_sc->setup)
		race_sc->setup();
	starting = 1;
	start_idx = 0;
	hand_to(&threads[0]);
	sem_wait_intr(&main_sem);
	if (race_sh->note[0])
		race_fail("warn", "%s", race_sh->note);
	msg = race_sc->check ? race_sc->check() : NULL;
	if (msg)
		race_fail("check", "%s", msg);
	if (race_sc->teardown)
		race_sc->teardown();
	run_all_callbacks();
	live = slab_objects_live();
	if (live != live0)
		race_fail("leak", "%ld object(s) still allocated after teardown "
			  "(every object must be freed exactly once)",
			  live - live0);
}
