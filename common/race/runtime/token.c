// SPDX-License-Identifier: GPL-2.0
/*
 * token.c - token passing.
 *
 * Exactly one thread of an execution holds the token; at each scheduling
 * point it asks the scheduler (the exploration, registered with
 * race_sched_use()) who runs the next step, and if that is another thread
 * hands it the token and waits for it to come back (carrier.c).  Code
 * between two points therefore runs alone: an execution is determined by
 * the choices made (and under the weak memory model by the stores its
 * loads chose), and sequentially consistent under the default.
 *
 * Threads are created once per search process and reused by every
 * execution.  Between executions they wait at the top of their loop.  One
 * more thread, the RCU thread, runs call_rcu callbacks; it never
 * finishes, it waits at its point for the next callback.  A scenario with
 * interrupts has one more thread per handler, after the RCU thread:
 * choosing it delivers the interrupt.  Their bodies are models'
 * (threads.c).
 *
 * What a thread waits for at a point is the business of the models: a
 * thread is runnable when it is at a point, its struct race_wait, if any,
 * says ready, and no model holds it back (struct race_model's @holds).
 * When no thread is runnable and some thread still waits, that is a
 * deadlock -- unless a model only defers a thread that a CPU would keep
 * spinning (@yields: spin.c's busy waits): then its hold is lifted and
 * the spinner goes round again; RACE_SPIN_ALONE such steps in a row, with
 * no other thread able to run, are the verdict (stuck).
 */
#include <string.h>

#include "race/runtime/sched.h"

void race_carriers_init(bool os_threads);
void race_carrier_start(struct race_thread *t, void (*fn)(struct race_thread *t));
void race_carrier_switch(struct race_thread *from, struct race_thread *to);
double race_carriers_cpu_ms(void);

static const struct race_scheduler *sched;
static int starting, start_idx;
static int first_choice;	/* nobody was running before: no preemption */
static bool lifting;		/* yielding holds are lifted (no other way) */
static long alone;		/* steps in a row made only so */

/* The models' hooks, gathered once (threads.c finds the models). */
#define MAX_HOOKS	16
static const struct race_model *holders[MAX_HOOKS], *filters[MAX_HOOKS];
static const struct race_model *beginners[MAX_HOOKS], *exits[MAX_HOOKS];
static const struct race_model *arrivers[MAX_HOOKS];
static int nr_holders, nr_filters, nr_beginners, nr_exits, nr_arrivers;

/** race_sched_use - @s chooses from now on, and hears of every event */
void race_sched_use(const struct race_scheduler *s)
{
	sched = s;
}

/** race_sched_pick_read - the index in @r of the store a load reads */
int race_sched_pick_read(const struct race_read *r)
{
	return sched->pick_read ? sched->pick_read(r) : 0;
}

/**
 * race_sched_footprint - what the calling thread's next point touches
 * @size: for RACE_FP_FREE, the size of the object freed
 *
 * Guarantees: a point without a footprint touches everything (the
 * reduction then orders it against every step, which is always sound).
 */
void race_sched_footprint(int kind, const volatile void *addr, size_t size,
			  unsigned int flags)
{
	struct race_thread *t = race_self();

	if (t)
		t->fp = (struct race_footprint){ kind, flags, addr, size, true };
}

/** race_sched_extra - the calling thread's current step also does @flags */
void race_sched_extra(unsigned int flags)
{
	struct race_thread *t = race_self();

	if (t)
		t->extra |= flags;
}

/* Whether the touch @have already covers @kind at @addr (..+@size): the
 * same location, and a store covers a load. */
static bool covers(const struct race_footprint *have, int kind,
		   const volatile void *addr, size_t size)
{
	return have->addr == addr && have->size >= size &&
	       (have->kind == kind ||
		(have->kind == RACE_FP_STORE && kind == RACE_FP_LOAD));
}

/**
 * race_sched_touch - the calling thread's current step also touches @addr
 * (..+@size) as @kind, in code after its point that is no point itself (an
 * allocation, a plain access)
 *
 * Guarantees: the reduction orders the step against every step that
 * touches the same; a touch already recorded for the step is not counted
 * again (a load after a store of the same bytes), and more than
 * RACE_MAX_TOUCH different ones make the step touch everything.
 */
void race_sched_touch(int kind, const volatile void *addr, size_t size)
{
	struct race_thread *t = race_self();
	struct race_footprint *f;
	int i;

	if (!t || t->nr_touch > RACE_MAX_TOUCH)
		return;
	for (i = 0; i < t->nr_touch; i++) {
		f = &t->touch[i];
		if (covers(f, kind, addr, size))
			return;
		if (covers(&(struct race_footprint){ kind, 0, addr, size, true },
			   f->kind, f->addr, f->size)) {
			*f = (struct race_footprint){ kind, 0, addr, size, true };
			return;
		}
	}
	if (t->nr_touch < RACE_MAX_TOUCH)
		t->touch[t->nr_touch] = (struct race_footprint){ kind, 0, addr,
								 size, true };
	t->nr_touch++;
}

/* Whether a model holds @t back though its wait is over. */
static bool held_back(const struct race_thread *t)
{
	int i;

	for (i = 0; i < nr_holders; i++)
		if (!(lifting && holders[i]->yields) && holders[i]->holds(t))
			return true;
	return false;
}

/* Whether @t may perform its next step now, as its models say. */
static bool runnable(const struct race_thread *t)
{
	return t->state == RACE_TS_POINT && (!t->wait || t->wait->ready(t)) &&
	       !held_back(t);
}

/**
 * race_thread_runnable_label - "fn.what" of thread @id's next step
 *
 * Returns 1 if the thread is at a point (and fills @buf), 0 otherwise.
 */
int race_thread_runnable_label(int id, char *buf, size_t len)
{
	const struct race_thread *t;

	if (id < 1 || id > race_nr_slots())
		return 0;
	t = race_thread_get(id);
	if (t->state != RACE_TS_POINT)
		return 0;
	snprintf(buf, len, "%s.%s", t->fn, t->what);
	return 1;
}

/* Why @t cannot run: "T1 waits at f.x; " into @buf; 0 if it is not waiting. */
static int why_blocked(const struct race_thread *t, char *buf, size_t len)
{
	char name[16];
	int i;

	if (t->state == RACE_TS_DONE)
		return 0;
	for (i = 0; i < nr_holders; i++)
		if (holders[i]->holds(t))
			return holders[i]->why(t, buf, len);
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
	for (i = 1; i <= race_nr_slots() && n < sizeof(msg); i++)
		n += why_blocked(race_thread_get(i), msg + n, sizeof(msg) - n);
	if (!n)
		return;
	if (n >= 2 && n < sizeof(msg))
		msg[n - 2] = 0;
	race_fail("deadlock", "no thread can run: %s", msg);
}

/* Whether a yielding model (a spin wait) holds @t back. */
static bool yielding(const struct race_thread *t)
{
	int i;

	for (i = 0; i < nr_holders; i++)
		if (holders[i]->yields && holders[i]->holds(t))
			return true;
	return false;
}

/*
 * The verdict on spinners that nobody else can free:
 * "livelock" if every thread that waits spins, "deadlock" if some wait in
 * another model; each named with what it waits for.
 */
static void __noreturn stuck(void)
{
	char msg[RACE_MSG_LEN];
	size_t n = 0;
	int i, waiting = 0, spinning = 0, k;
	const struct race_thread *t;

	msg[0] = 0;
	for (i = 1; i <= race_nr_slots() && n < sizeof(msg); i++) {
		t = race_thread_get(i);
		k = why_blocked(t, msg + n, sizeof(msg) - n);
		waiting += k > 0;
		spinning += k > 0 && t->state == RACE_TS_POINT && yielding(t);
		n += k;
	}
	if (n >= 2 && n < sizeof(msg))
		msg[n - 2] = 0;
	if (spinning == waiting)
		race_fail("livelock", "every thread spins and none can make "
			  "progress (%ld steps with no other thread able to "
			  "run): %s", alone, msg);
	race_fail("deadlock", "no thread can run but to spin (%ld steps): %s",
		  alone, msg);
}

/* The runnable threads of @c, as the models allow them to @from. */
static void gather(struct race_choice *c, const struct race_thread *from)
{
	int i;

	c->nr = 0;
	for (i = 1; i <= race_nr_slots(); i++)
		if (runnable(race_thread_get(i)))
			c->ids[c->nr++] = i;
	for (i = 0; i < nr_filters; i++)
		filters[i]->filter(c, from);
}

/*
 * Spinners that run because nobody else can take one step each in turn,
 * the next after @from: no choice, so that no execution lets one spin on
 * alone while another would leave its loop by its own count.
 */
static void take_turns(struct race_choice *c, const struct race_thread *from)
{
	int i;

	for (i = 0; i < c->nr - 1 && c->ids[i] <= from->id; i++)
		;
	if (c->ids[i] <= from->id)
		i = 0;
	c->ids[0] = c->ids[i];
	c->nr = 1;
	c->lifted = true;
}

/*
 * The thread that runs the next step, chosen among the runnable ones;
 * NULL when the execution is over.  @from just stopped at a point (or
 * finished).  Spinners run only when nobody else can.
 */
static struct race_thread *choose(struct race_thread *from)
{
	struct race_choice c = { .from = from->id };

	gather(&c, from);
	if (!c.nr) {
		lifting = true;
		gather(&c, from);
		lifting = false;
		if (c.nr && ++alone > RACE_SPIN_ALONE)
			stuck();
		if (c.nr)
			take_turns(&c, from);
	} else {
		alone = 0;
	}
	if (!c.nr) {
		nobody_runnable();
		return NULL;
	}
	c.from_runnable = !first_choice && runnable(from);
	c.from_waits_dependent = !c.from_runnable && from->wait &&
				 from->wait->dependent_wakes && !yielding(from);
	first_choice = 0;
	return race_thread_get(c.ids[sched->pick(&c)]);
}

/*
 * At the start of an execution each worker runs alone to its first point,
 * T1 first; returns the next one to start, or NULL once all have.
 */
static struct race_thread *next_to_start(void)
{
	if (++start_idx < race_nr_workers())
		return race_thread_get(start_idx + 1);
	starting = 0;
	first_choice = 1;
	return NULL;
}

/* @t is at a point: let the scheduler decide, wait if another thread runs. */
static void switch_from(struct race_thread *t)
{
	struct race_thread *next;

	if (starting && (next = next_to_start())) {
		race_carrier_switch(t, next);
		return;
	}
	next = choose(t);
	if (next != t)
		race_carrier_switch(t, next);
}

/**
 * race_sched_wait - park @t at a point until the scheduler chooses it
 * @wait: what it waits for (NULL: nothing)
 *
 * Records no step: the caller does, once it knows what the step is.
 */
void race_sched_wait(struct race_thread *t, const struct race_wait *wait,
		     const char *fn, const char *what)
{
	int i;

	t->wait = wait;
	t->fn = fn;
	t->what = what;
	t->state = RACE_TS_POINT;
	for (i = 0; i < nr_arrivers; i++)
		arrivers[i]->arrive(t);
	if (sched->arrive)
		sched->arrive(t);
	t->fp.given = false;
	t->extra = 0;
	t->nr_touch = 0;
	switch_from(t);
	t->state = RACE_TS_RUNNING;
}

/**
 * race_sched_step - record the step @t performs now: "@fn.@what" on @addr
 *
 * Guarantees: the step is in the trace, and the scheduler and the
 * observer have heard of it, before the access is made.
 */
void race_sched_step(struct race_thread *t, const char *fn, const char *what,
		     const volatile void *addr)
{
	if (alone && race_sh->nr_steps >= race_sh->cap_steps)
		stuck();	/* the cap, reached by spinners alone */
	t->step = race_trace_add(t->id, fn, what, addr);
	if (sched->step)
		sched->step(t->id);
	race_observe_step(race_trace_nr(t->step), addr);
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
	struct race_thread *t = race_self();

	t->addr = addr;
	race_sched_wait(t, wait, fn, what);
	race_sched_step(t, fn, what, addr);
	return t;
}

/* A thread finished its function: pass the token on. */
static void thread_done(struct race_thread *t)
{
	struct race_thread *next;
	int i;

	for (i = 0; i < nr_exits; i++)
		exits[i]->exit(t);
	t->state = RACE_TS_DONE;
	t->step = NULL;
	if (sched->done)
		sched->done(t);
	t->extra = 0;
	t->nr_touch = 0;
	if (starting && (next = next_to_start()))
		race_carrier_switch(t, next);
	else
		race_carrier_switch(t, choose(t));
}

/* A thread's life: one turn of the loop per execution. */
static void thread_loop(struct race_thread *t)
{
	int i;

	for (;;) {
		for (i = 0; i < nr_beginners; i++)
			beginners[i]->begin(t);
		t->body();		/* the RCU thread's never returns */
		thread_done(t);
	}
}

/* The models' hooks, by kind. */
static void gather_hooks(void)
{
	const struct race_model *m;
	int i;

	nr_holders = nr_filters = nr_beginners = nr_exits = nr_arrivers = 0;
	for (i = 0; i < race_models_count() && i < MAX_HOOKS; i++) {
		m = race_model_at(i);
		if (m->applies && !m->applies(race_sc))
			continue;
		if (m->arrive)
			arrivers[nr_arrivers++] = m;
		if (m->holds)
			holders[nr_holders++] = m;
		if (m->filter)
			filters[nr_filters++] = m;
		if (m->begin)
			beginners[nr_beginners++] = m;
		if (m->exit)
			exits[nr_exits++] = m;
	}
}

/**
 * race_sched_start - give the threads of the scenario, the RCU thread and
 * the interrupt threads their carriers (@os_threads: OS threads)
 *
 * Call once in the search process; the threads serve every execution.
 */
void race_sched_start(bool os_threads)
{
	int i;

	gather_hooks();
	race_carriers_init(os_threads);
	for (i = 1; i <= race_nr_slots(); i++)
		if (race_thread_get(i)->body)
			race_carrier_start(race_thread_get(i), thread_loop);
}

/**
 * race_sched_cpu_ms - CPU time, in ms, that this OS thread and the threads'
 * carriers have used so far (race_carriers_cpu_ms)
 */
double race_sched_cpu_ms(void)
{
	return race_carriers_cpu_ms();
}

/** race_sched_reset - every worker back to its start, waiting for nothing */
void race_sched_reset(void)
{
	struct race_thread *t;
	int i;

	for (i = 1; i <= race_nr_workers(); i++) {
		t = race_thread_get(i);
		t->state = RACE_TS_IDLE;
		t->wait = NULL;
		t->step = NULL;
		t->fp.given = false;
		t->extra = 0;
		t->nr_touch = 0;
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
	alone = 0;
	starting = 1;
	start_idx = 0;
	race_carrier_switch(NULL, race_thread_get(1));
}
