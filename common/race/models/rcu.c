// SPDX-License-Identifier: GPL-2.0
/*
 * rcu.c - the RCU model: read-side sections, grace periods, callbacks.
 *
 * A grace period that starts now must wait for the readers that are inside
 * a read-side section now, and for no other: a snapshot records who is
 * inside (and how many sections each has left so far); it has elapsed once
 * each of them has left that section.
 *
 *   synchronize_rcu  a point runnable once the grace period it snapshots
 *                    on arrival has elapsed
 *   call_rcu         queues the callback with such a snapshot
 *   the RCU thread   runs the oldest callback, one step per callback, when
 *                    its grace period has elapsed: when a callback runs is
 *                    one more choice of the strategy
 *   rcu_barrier      a point runnable once the callbacks queued before it
 *                    have returned
 */
#include "race/models/models.h"
#include "race/models/weak.h"
#include "race_hooks.h"
#include "rcupdate.h"

#define RACE_MAX_CALLBACKS	256

struct gp_snap {
	unsigned int mask;			/* readers inside at the snapshot */
	unsigned long seq[RACE_NR_SLOTS + 1];	/* their sections left then */
};

struct rcu_cb {
	struct rcu_head *head;
	void (*func)(struct rcu_head *head);
	struct gp_snap gp;
};

/* Per thread id: read-side nesting, outermost sections left, waits;
 * preempt_disable() nesting (preempt.c keeps its section here). */
static int nesting[RACE_NR_SLOTS + 1];
static int preempt_depth[RACE_NR_SLOTS + 1];
static unsigned long sections[RACE_NR_SLOTS + 1];
static struct gp_snap sync_gp[RACE_NR_SLOTS + 1];
static long barrier_snap[RACE_NR_SLOTS + 1];

static struct rcu_cb callbacks[RACE_MAX_CALLBACKS];
static long cb_head, cb_tail;	/* popped, queued */
static long cb_done;		/* callbacks that have returned */

/* Snapshot the readers inside a read-side section now. */
static void gp_take(struct gp_snap *g)
{
	int id;

	g->mask = 0;
	for (id = 1; id <= race_nr_slots(); id++) {
		g->seq[id] = sections[id];
		if (nesting[id])
			g->mask |= 1u << id;
	}
}

/* Every reader inside at the snapshot has left that section. */
static bool gp_elapsed(const struct gp_snap *g)
{
	int id;

	for (id = 1; id <= race_nr_slots(); id++)
		if (g->mask & (1u << id) && sections[id] == g->seq[id])
			return false;
	return true;
}

/* Whether @g waits for section @sect of thread @reader. */
static bool gp_waits_for(const struct gp_snap *g, int reader, long sect)
{
	return (g->mask & (1u << reader)) && g->seq[reader] == (unsigned long)sect;
}

/**
 * race_rcu_section_ending - the read-side section that thread @id's
 * rcu_read_unlock, at its point now, ends: its number, or -1 where the
 * unlock only leaves a nested one
 */
long race_rcu_section_ending(int id)
{
	return nesting[id] == 1 ? (long)sections[id] : -1;
}

/**
 * race_rcu_waits_for - whether thread @waiter, at its point, waits for
 * section @sect of thread @reader (race_rcu_section_ending) to end: the
 * grace period of its synchronize_rcu, or for the RCU thread the one of
 * the callback it runs next, started while that section was open
 *
 * Guarantees: where true, the waiter's step cannot run before that
 * section's rcu_read_unlock, in any order of the steps since the grace
 * period started: the two are never enabled together.
 */
bool race_rcu_waits_for(int waiter, int reader, long sect)
{
	if (sect < 0 || reader < 1 || reader > RACE_NR_SLOTS)
		return false;
	if (waiter == race_nr_workers() + 1)	/* the RCU thread */
		return cb_head < cb_tail &&
		       gp_waits_for(&callbacks[cb_head % RACE_MAX_CALLBACKS].gp,
				    reader, sect);
	return waiter >= 1 && waiter <= RACE_NR_SLOTS &&
	       gp_waits_for(&sync_gp[waiter], reader, sect);
}

/* "T1 waits in f.synchronize_rcu for ...; " */
static int waits(const struct race_thread *t, const char *what, char *buf,
		 size_t len)
{
	char name[16];

	return snprintf(buf, len, "%s waits in %s.%s for %s; ",
			race_thread_name(t->id, name, sizeof(name)), t->fn,
			t->what, what);
}

static bool sync_ready(const struct race_thread *t)
{
	return gp_elapsed(&sync_gp[t->id]);
}

static int sync_why(const struct race_thread *t, char *buf, size_t len)
{
	return waits(t, "a reader that never leaves its read-side section",
		     buf, len);
}

static const struct race_wait sync_wait = {
	.ready	= sync_ready,
	.why	= sync_why,
};

static bool barrier_ready(const struct race_thread *t)
{
	return cb_done >= barrier_snap[t->id];
}

static int barrier_why(const struct race_thread *t, char *buf, size_t len)
{
	return waits(t, "callbacks that cannot run", buf, len);
}

static const struct race_wait barrier_wait = {
	.ready	= barrier_ready,
	.why	= barrier_why,
};

/* The RCU thread may run the oldest callback. */
static bool invoke_ready(const struct race_thread *t __maybe_unused)
{
	return cb_head < cb_tail &&
	       gp_elapsed(&callbacks[cb_head % RACE_MAX_CALLBACKS].gp);
}

static int invoke_why(const struct race_thread *t, char *buf, size_t len)
{
	char name[16];

	if (cb_head == cb_tail)
		return 0;	/* nothing queued: not waiting */
	return snprintf(buf, len, "%s waits at %s.%s; ",
			race_thread_name(t->id, name, sizeof(name)), t->fn,
			t->what);
}

static const struct race_wait invoke_wait = {
	.ready	= invoke_ready,
	.why	= invoke_why,
};

/* The weak model's grace periods are full fences: ordered against smp_mb. */
static unsigned int fence(void)
{
	return race_weak ? RACE_FP_MB : 0;
}

/* Enter a read-side section (nesting counted) at a point. */
bool race_rcu_read_lock(const char *fn)
{
	struct race_thread *t = race_self();

	if (t) {
		race_sched_footprint(RACE_FP_RCU_LOCK, NULL, 0, 0);
		race_sched_point(NULL, fn, "rcu_read_lock", NULL);
		nesting[t->id]++;
		if (race_weak)
			race_weak_rcu_read_lock(t);
	}
	return true;
}

/* Leave a read-side section; the outermost exit ends it for grace periods. */
bool race_rcu_read_unlock(const char *fn)
{
	struct race_thread *t = race_self();

	if (!t)
		return true;
	race_sched_footprint(RACE_FP_RCU_UNLOCK, NULL, 0, 0);
	race_sched_point(NULL, fn, "rcu_read_unlock", NULL);
	if (nesting[t->id] <= 0)
		race_fail("bug", "%s: rcu_read_unlock without rcu_read_lock", fn);
	if (--nesting[t->id] == 0) {
		sections[t->id]++;
		if (race_weak)
			race_weak_rcu_read_unlock(t);
	}
	return true;
}

/* A point runnable once the readers inside at arrival have left. */
bool race_synchronize_rcu(const char *fn)
{
	struct race_thread *t = race_self();

	if (!t)
		return true;
	if (nesting[t->id])
		race_fail("bug", "%s: synchronize_rcu inside a read-side "
			  "section waits for itself", fn);
	gp_take(&sync_gp[t->id]);
	race_sched_extra(RACE_FP_GP | fence());	/* the step it starts in */
	if (race_weak)
		race_weak_gp_start(t);
	race_sched_footprint(RACE_FP_RCU_W, NULL, 0, fence());
	race_sched_point(&sync_wait, fn, "synchronize_rcu", NULL);
	sync_gp[t->id].mask = 0;	/* elapsed: it waits for nobody now */
	if (race_weak)
		race_weak_gp_end(t);
	return true;
}

/* Queue @func(@head) for the RCU thread, after the current readers. */
bool race_call_rcu(const char *fn, struct rcu_head *head,
		   void (*func)(struct rcu_head *head))
{
	struct race_thread *t = race_self();
	struct rcu_cb *cb;

	if (!t) {
		func(head);	/* outside an execution: no reader exists */
		return true;
	}
	race_sched_footprint(RACE_FP_RCU_CALL, head, 0, fence());
	race_sched_point(NULL, fn, "call_rcu", head);
	race_obj_check_access(t, head);
	if (race_weak)
		race_weak_call_rcu(t, cb_tail);
	if (cb_tail - cb_head >= RACE_MAX_CALLBACKS)
		race_fail("bug", "%s: more than %d call_rcu callbacks pending",
			  fn, RACE_MAX_CALLBACKS);
	cb = &callbacks[cb_tail % RACE_MAX_CALLBACKS];
	cb->head = head;
	cb->func = func;
	gp_take(&cb->gp);
	cb_tail++;
	return true;
}

/**
 * race_rcu_flush - run every callback still queued
 *
 * After teardown, outside the interleaving: nothing reads any more.
 */
void race_rcu_flush(void)
{
	while (cb_head < cb_tail) {
		struct rcu_cb *cb = &callbacks[cb_head++ % RACE_MAX_CALLBACKS];

		cb->func(cb->head);
		cb_done++;
	}
}

/* A point runnable once the callbacks queued before it have returned. */
bool race_rcu_barrier(const char *fn)
{
	struct race_thread *t = race_self();

	if (!t) {
		race_rcu_flush();
		return true;
	}
	barrier_snap[t->id] = cb_tail;
	race_sched_footprint(RACE_FP_RCU_W, NULL, 0, fence());
	race_sched_point(&barrier_wait, fn, "rcu_barrier", NULL);
	if (race_weak)
		race_weak_barrier_done(t);
	return true;
}

/*
 * The body of the RCU thread: one step per callback.  Runs when the
 * strategy first chooses it, then parks at its point after every callback
 * until chosen again.  Never returns.
 */
static void rcu_thread(void)
{
	struct race_thread *t = race_self();
	struct rcu_cb *cb;

	for (;;) {
		cb = &callbacks[cb_head % RACE_MAX_CALLBACKS];
		race_sched_step(t, "rcu_do_batch", "invoke", cb->head);
		if (race_weak)
			race_weak_invoke(t, cb_head);
		cb_head++;
		cb->func(cb->head);
		cb_done++;
		if (race_weak)
			race_weak_invoked(t);
		t->step = NULL;
		race_sched_footprint(RACE_FP_RCU_INVOKE, NULL, 0, fence());
		race_sched_wait(t, &invoke_wait, "rcu_do_batch", "invoke");
	}
}

/* Where the calling scenario thread counts its preempt_disable()s. */
int *race_preempt_depth(void)
{
	struct race_thread *t = race_self();

	return t ? &preempt_depth[t->id] : NULL;
}

/* A new execution: no reader inside, no callback queued. */
static void rcu_reset(void)
{
	struct race_thread *rcu = race_thread_get(race_nr_workers() + 1);
	int id;

	for (id = 0; id <= RACE_NR_SLOTS; id++) {
		nesting[id] = 0;
		preempt_depth[id] = 0;
		sections[id] = 0;
		sync_gp[id].mask = 0;
	}
	cb_head = cb_tail = cb_done = 0;
	rcu->state = RACE_TS_POINT;
	rcu->wait = &invoke_wait;
	rcu->fn = "rcu_do_batch";
	rcu->what = "invoke";
	rcu->step = NULL;
}

RACE_MODEL(rcu_model) = {
	.name	= "rcu",
	.reset	= rcu_reset,
	.slot	= RACE_SLOT_RCU,
	.body	= rcu_thread,
};
