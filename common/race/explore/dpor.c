// SPDX-License-Identifier: GPL-2.0
/*
 * dpor.c - partial-order reduction for dfs, within its preemption bound.
 *
 * Two steps of different threads are independent when they commute: run
 * in either order they leave the same state and neither enables or
 * disables the other (two loads, accesses to different locations, two
 * rcu_read_lock).  Executions that differ only in the order of adjacent
 * independent steps are equivalent (the same Mazurkiewicz trace, or
 * class); every oracle of the kit judges an execution by what depends on
 * the order of dependent steps only (the values loads see, which object a
 * free hits, who waits for whom, the final state), so one execution of
 * each class is enough.
 *
 * Two techniques, both dynamic (the footprint of a step is known once its
 * thread is at its point):
 *
 *  - DPOR, Flanagan and Godefroid (POPL 2005): a thread choice starts with
 *    one alternative, the default; whenever a thread p has a pending step
 *    and the last step i of another thread that is dependent with it, may
 *    be enabled beside it, and does not happen before p's last step
 *    exists, dfs must also try p at the choice before step i (every
 *    runnable thread there if p was not).  With a preemption bound, p may
 *    cost a preemption there that the bound forbids: then p is also tried
 *    at the last context switch before i, where switching to p costs no
 *    more than the path already paid (the conservative backtracking point
 *    of Coons, Musuvathi and McKinley, "Bounded Partial-Order Reduction",
 *    OOPSLA 2013).  Happens-before is a vector clock per step: a step
 *    happens after its thread's last step and after every earlier step
 *    dependent with it.
 *
 *  - Sleep sets (Godefroid 1996), made safe under the bound: after dfs has
 *    explored thread u at a choice and moves on to t, u "sleeps" below t
 *    until a step dependent with u's step runs; a sleeping thread is never
 *    chosen, and an execution whose every runnable thread sleeps is
 *    redundant: it runs to its end without further choices.  An execution
 *    that would have chosen u while it slept is equivalent to one that
 *    runs u first, at the choice it was put to sleep at, which dfs has
 *    explored -- but under a bound only if that one costs no more
 *    preemptions.  It does not whenever
 *        cost(u) + [u runnable after its step] <= cost(t)
 *    at that choice (cost: 1 if it is a preemption), which makes the rest
 *    of both executions cost the same; u is put to sleep only then.
 *
 * What the bound then means: every class of executions that contains an
 * execution with at most B preemptions is explored by at least one of its
 * executions.  tests/race/test_race.py checks it by counting the distinct
 * classes (--count-classes) with and without the reduction.
 *
 * What a step touches comes from the models: an access to one location,
 * a lock word, a freed object, RCU.  A point whose model does not say
 * (race_point(), a model added later) touches everything, so a new model
 * never makes the reduction unsound.  Steps that are never enabled
 * together do not race: spin_unlock and a spin_lock waiting for that
 * lock, call_rcu and the callback it queues.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "race/explore/dpor.h"
#include "race/models/weak.h"

#define NSLOT	(RACE_NR_SLOTS + 1)	/* indexed by thread id */
#define RING	1024			/* call_rcu steps remembered */
#define CLASSES	(1 << 20)		/* --count-classes: hash set size */

/*
 * A footprint.  An address in a slab object is also kept as obj#N and an
 * offset, as the trace names it: a sleeping thread's step was recorded in
 * an earlier execution, whose objects may have lain elsewhere; the prefix
 * up to the choice it sleeps from is the same, so obj#N is the same
 * object, and its address now is where obj#N lies now.
 */
struct fp {
	int kind;
	unsigned int flags;
	uintptr_t addr;
	size_t size;
	unsigned long obj;		/* N of obj#N; 0: not in the slab */
	long off;			/* addr - obj#N */
};

struct clock {
	unsigned int c[NSLOT];
};

/* One step of the execution in progress. */
struct event {
	int thread;
	struct fp fp;
	long node;		/* the choice node before it, -1 if none */
	long prev;		/* its thread's step before it, -1 if none */
	bool after;		/* its thread was runnable right after it */
	bool lifted;		/* a spinner's turn, nobody else able to run */
	struct clock clk;
};

/* What dfs's choice node N knows for the reduction. */
struct node {
	long event;			/* the step chosen there, this execution */
	unsigned int runnable;		/* threads runnable there (bit: id) */
	unsigned int want;		/* threads dfs must also try there */
	unsigned int sleep;		/* threads asleep there (bit: id) */
	unsigned int done;		/* threads explored there before */
	struct fp sfp[NSLOT];		/* the steps of those asleep */
	struct fp dfp[NSLOT];		/* the steps of those explored */
	bool dafter[NSLOT];		/* runnable after them */
};

bool race_dpor, race_dpor_reduce;

static struct event *ev;
static long nr_ev, cap_ev;
static struct node *nodes;
static long cap_nodes;
static long cur_node = -1;

/* Per thread id: what its pending step is. */
static struct fp pending[NSLOT];
static bool has_pending[NSLOT];
static struct clock pend_join[NSLOT];	/* dependent steps before it */
static long last[NSLOT];		/* its last step */
static unsigned int count[NSLOT];
/* The RCU thread's queue: the step of each call_rcu; queued, invoked. */
static long call_step[RING], calls, invokes;
/* The sleep set of the execution now, and whether it blocked it. */
static unsigned int sleep_now;
static struct fp sleep_fp[NSLOT];
static bool blocked;
static bool next_lifted;		/* the step chosen last is a lifted one */
static unsigned long long *classes;

static void join(struct clock *a, const struct clock *b)
{
	int i;

	for (i = 0; i < NSLOT; i++)
		if (b->c[i] > a->c[i])
			a->c[i] = b->c[i];
}

static int rcu_id(void)
{
	return race_nr_workers() + 1;
}

static bool is_mem(int k)
{
	return k == RACE_FP_LOAD || k == RACE_FP_STORE || k == RACE_FP_LOCK ||
	       k == RACE_FP_UNLOCK;
}

/* It takes a grace period's snapshot of the readers inside (its start). */
static bool gp_start(const struct fp *f)
{
	return f->kind == RACE_FP_RCU_CALL || (f->flags & RACE_FP_GP);
}

/* It waits for readers to leave (the end of a grace period, a callback). */
static bool gp_end(const struct fp *f)
{
	return f->kind == RACE_FP_RCU_W || f->kind == RACE_FP_RCU_INVOKE;
}

/*
 * RCU's steps commute unless one is a grace period's start or end: a
 * reader entering matters to a snapshot only, a reader leaving to a
 * snapshot and to the waits for it; starts and ends order each other.
 */
static bool rcu_dependent(const struct fp *a, const struct fp *b)
{
	if ((gp_start(a) || gp_end(a)) && (gp_start(b) || gp_end(b)))
		return true;
	if (a->kind == RACE_FP_RCU_LOCK || a->kind == RACE_FP_RCU_UNLOCK)
		return gp_start(b) || (gp_end(b) && a->kind == RACE_FP_RCU_UNLOCK);
	if (b->kind == RACE_FP_RCU_LOCK || b->kind == RACE_FP_RCU_UNLOCK)
		return rcu_dependent(b, a);
	return false;
}

static bool slab(const struct fp *f)
{
	return f->kind == RACE_FP_FREE || (f->flags & RACE_FP_SLAB);
}

/* Whether @g's address lies in what @f frees. */
static bool freed_by(const struct fp *g, const struct fp *f)
{
	return g->addr >= f->addr && g->addr < f->addr + f->size;
}

/* @f frees memory that @g touches. */
static bool frees(const struct fp *f, const struct fp *g)
{
	if (f->kind != RACE_FP_FREE)
		return false;
	if (g->kind == RACE_FP_FREE)
		return freed_by(g, f) || freed_by(f, g);
	return (is_mem(g->kind) || g->kind == RACE_FP_RCU_CALL) &&
	       freed_by(g, f);
}

/* Whether @a and @b may not commute. */
static bool dependent(const struct fp *a, const struct fp *b)
{
	/* the common case first: two accesses (RACE_FP_MB, _SLAB and _GP
	 * each make two steps dependent only when both carry it) */
	if (is_mem(a->kind) && is_mem(b->kind))
		return (a->flags & b->flags) || (a->addr == b->addr &&
			(a->kind != RACE_FP_LOAD || b->kind != RACE_FP_LOAD));
	if (a->kind == RACE_FP_ALL || b->kind == RACE_FP_ALL)
		return true;
	if (a->flags & b->flags & RACE_FP_MB)
		return true;
	if (slab(a) && slab(b))
		return true;
	if (rcu_dependent(a, b))
		return true;
	if (frees(a, b) || frees(b, a))
		return true;
	return is_mem(a->kind) && is_mem(b->kind) && a->addr == b->addr &&
	       (a->kind != RACE_FP_LOAD || b->kind != RACE_FP_LOAD);
}

/* Whether step @e and the pending step @p race: dependent, and possibly
 * both enabled (not an unlock and a lock of it, not call_rcu and a
 * callback). */
static bool racing(const struct fp *e, const struct fp *p)
{
	if ((e->kind == RACE_FP_UNLOCK && p->kind == RACE_FP_LOCK) ||
	    (e->kind == RACE_FP_LOCK && p->kind == RACE_FP_UNLOCK))
		return false;
	if (e->kind == RACE_FP_RCU_CALL && p->kind == RACE_FP_RCU_INVOKE)
		return false;
	return dependent(e, p);
}

/* The footprint a model gave for @t's pending step, or "everything". */
static struct fp footprint(const struct race_thread *t)
{
	const struct race_footprint *g = &t->fp;
	const struct race_obj *o;
	struct fp f;

	if (!g->given)
		return (struct fp){ .kind = RACE_FP_ALL };
	f = (struct fp){ g->kind, g->flags, (uintptr_t)g->addr, g->size, 0, 0 };
	if (g->addr && (o = race_obj_find(g->addr))) {
		f.obj = race_obj_id(o);
		f.off = race_obj_offset(o, g->addr);
	}
	return f;
}

/** race_dpor_reset - a new execution: no step, nothing pending, awake */
void race_dpor_reset(void)
{
	int i;

	if (!race_dpor)
		return;
	if (cap_ev < race_sh->cap_steps + 1) {
		cap_ev = race_sh->cap_steps + 1;
		ev = realloc(ev, cap_ev * sizeof(*ev));
		if (!ev)
			abort();
	}
	nr_ev = 0;
	cur_node = -1;
	calls = invokes = 0;
	sleep_now = 0;
	blocked = false;
	next_lifted = false;
	for (i = 0; i < NSLOT; i++) {
		has_pending[i] = false;
		last[i] = -1;
		count[i] = 0;
		memset(&pend_join[i], 0, sizeof(pend_join[i]));
	}
	pending[rcu_id()] = (struct fp){ .kind = RACE_FP_RCU_INVOKE,
		.flags = race_weak ? RACE_FP_MB : 0 };
	has_pending[rcu_id()] = true;	/* it waits for callbacks */
	for (i = rcu_id() + 1; i <= race_nr_slots(); i++)	/* interrupts */
		if (race_thread_get(i)->state == RACE_TS_POINT)
			race_dpor_arrive(race_thread_get(i));	/* at irq.enter */
}

/* The clock of thread @id's last step (all zero if none). */
static struct clock last_clock(int id)
{
	struct clock zero = { { 0 } };

	return last[id] >= 0 ? ev[last[id]].clk : zero;
}

/*
 * Thread @p must also be tried at choice @node (every runnable thread, if
 * it was not runnable there), unless it sleeps there: explored earlier, in
 * an equivalent order.  dfs takes it from there (race_dpor_wanted).
 */
static void want(long node, int p)
{
	struct node *n = &nodes[node];

	if (!(n->runnable & (1u << p)))
		n->want |= n->runnable;
	else if (!(n->sleep & (1u << p)))
		n->want |= 1u << p;
}

/** race_dpor_wanted - the threads dfs must also try at choice @node (bit: id) */
unsigned int race_dpor_wanted(long node)
{
	return nodes[node].want;
}

/*
 * Thread @p must also be tried before step @i: at its choice node, and at
 * the node of the last context switch before it, where switching to p
 * costs no preemption the path has not already paid (BPOR's conservative
 * point: without it a race whose reversal the bound forbids at @i would
 * stay unreversed even where it can be).
 */
static void backtrack(long i, int p)
{
	long j;

	if (ev[i].node >= 0)
		want(ev[i].node, p);
	if (!i)
		return;
	for (j = i - 1; j > 0 && ev[j - 1].thread == ev[j].thread; j--)
		;
	if (ev[j].node >= 0)
		want(ev[j].node, p);
}

/*
 * The steps from @from to @to (excluded) of threads other than @id that
 * are dependent with @f and do not happen before @c: joined into @join;
 * the last of them that races with @f is a backtracking point for @id.
 */
static void scan(int id, const struct fp *f, const struct clock *c,
		 long from, long to, struct clock *into)
{
	bool found = !race_dpor_reduce || blocked;
	long i;

	for (i = to - 1; i >= from; i--) {
		const struct event *e = &ev[i];

		if (e->thread == id || e->clk.c[e->thread] <= c->c[e->thread])
			continue;
		if (!dependent(&e->fp, f))
			continue;
		join(into, &e->clk);
		if (!found && racing(&e->fp, f)) {
			backtrack(i, id);
			found = true;
		}
	}
}

/* Whether the RCU thread has a callback to run. */
static bool rcu_work(void)
{
	return calls > invokes;
}

/* Whether thread @p has a pending step that may run (the RCU thread
 * waiting for a callback only once one is queued). */
static bool pending_now(int p)
{
	return has_pending[p] &&
	       (pending[p].kind != RACE_FP_RCU_INVOKE || rcu_work());
}

/* Step @i touched @f: wake the sleepers it depends on; it precedes the
 * pending steps it is dependent with, and races with some. */
static void against_pending(long i, const struct fp *f)
{
	int p;

	for (p = 1; p < NSLOT; p++)
		if ((sleep_now & (1u << p)) && dependent(f, &sleep_fp[p]))
			sleep_now &= ~(1u << p);
	for (p = 1; p <= race_nr_slots(); p++) {
		if (p == ev[i].thread || !pending_now(p) ||
		    !dependent(f, &pending[p]))
			continue;
		join(&pend_join[p], &ev[i].clk);
		if (race_dpor_reduce && !blocked && racing(f, &pending[p]))
			backtrack(i, p);
	}
}

/*
 * What thread @t's last step did after its point (allocated, started a
 * grace period): as if its footprint had said so.  Nothing has run since.
 */
static void finish_step(const struct race_thread *t)
{
	struct fp f = { .kind = RACE_FP_NONE, .flags = t->extra };
	struct clock before = { { 0 } };
	int id = t->id;
	struct event *e;

	if (!f.flags || last[id] < 0)
		return;
	e = &ev[last[id]];
	if (e->prev >= 0)
		before = ev[e->prev].clk;
	scan(id, &f, &before, 0, last[id], &e->clk);
	against_pending(last[id], &f);
	e->fp.flags |= f.flags;
}

/** race_dpor_arrive - thread @t is at a point: its pending step */
void race_dpor_arrive(struct race_thread *t)
{
	int id = t->id;
	struct clock c;
	long call;

	if (!race_dpor)
		return;
	finish_step(t);
	memset(&pend_join[id], 0, sizeof(pend_join[id]));
	has_pending[id] = !(t->wait && t->wait->final);
	if (!has_pending[id])
		return;
	pending[id] = footprint(t);
	c = last_clock(id);
	if (pending[id].kind != RACE_FP_RCU_INVOKE) {
		scan(id, &pending[id], &c, 0, nr_ev, &pend_join[id]);
	} else if (rcu_work()) {	/* enabled by its call_rcu, not before */
		call = call_step[invokes % RING];
		join(&pend_join[id], &ev[call].clk);
		scan(id, &pending[id], &c, call + 1, nr_ev, &pend_join[id]);
	}
}

/* A call_rcu step (@i) or a callback: the RCU thread's queue. */
static void rcu_queue(long i)
{
	int r = rcu_id();

	if (ev[i].fp.kind == RACE_FP_RCU_INVOKE) {
		invokes++;
		return;
	}
	if (ev[i].fp.kind != RACE_FP_RCU_CALL)
		return;
	call_step[calls++ % RING] = i;
	if (calls - invokes == 1 && has_pending[r]) {
		memset(&pend_join[r], 0, sizeof(pend_join[r]));
		join(&pend_join[r], &ev[i].clk);	/* its enabler */
	}
}

/** race_dpor_step - thread @thread performs its pending step */
void race_dpor_step(int thread)
{
	struct event *e;
	struct clock c;

	if (!race_dpor || nr_ev >= cap_ev)
		return;
	e = &ev[nr_ev];
	c = last_clock(thread);
	join(&c, &pend_join[thread]);
	c.c[thread] = ++count[thread];
	e->thread = thread;
	e->fp = pending[thread];
	e->node = cur_node;
	e->prev = last[thread];
	e->after = false;
	e->lifted = next_lifted;
	next_lifted = false;
	e->clk = c;
	if (cur_node >= 0)
		nodes[cur_node].event = nr_ev;
	cur_node = -1;
	last[thread] = nr_ev;
	has_pending[thread] = false;
	nr_ev++;
	against_pending(nr_ev - 1, &e->fp);
	rcu_queue(nr_ev - 1);
}

/** race_dpor_done - thread @t finished: nothing pending */
void race_dpor_done(struct race_thread *t)
{
	if (!race_dpor)
		return;
	finish_step(t);
	has_pending[t->id] = false;
}

/* The node @node's record, made room for. */
static struct node *node_at(long node)
{
	if (node >= cap_nodes) {
		cap_nodes = 2 * node + 64;
		nodes = realloc(nodes, cap_nodes * sizeof(*nodes));
		if (!nodes)
			abort();
	}
	return &nodes[node];
}

/* @f of an earlier execution, where its object lies in this one. */
static struct fp relocated(const struct fp *f)
{
	struct fp r = *f;

	if (r.obj)
		r.addr = (uintptr_t)race_obj_start(r.obj) + r.off;
	return r;
}

/* Thread @u sleeps from now on, its step being @f. */
static void sleep_add(int u, const struct fp *f)
{
	sleep_now |= 1u << u;
	sleep_fp[u] = relocated(f);
}

/* The sleep set recorded at a choice, in this execution. */
static void sleep_load(unsigned int set, const struct fp *fps)
{
	int u;

	sleep_now = 0;
	for (; set; set &= set - 1) {
		u = __builtin_ctz(set);
		sleep_add(u, &fps[u]);
	}
}

/* Cost of choosing @id at @c: 1 if it preempts. */
static int cost(const struct race_choice *c, int id)
{
	return c->from_runnable && id != c->from;
}

/** race_dpor_asleep - the threads asleep at choice @node (bit: id) */
unsigned int race_dpor_asleep(long node)
{
	return node >= 0 ? nodes[node].sleep : sleep_now;
}

/** race_dpor_blocked - every runnable thread slept: the rest is redundant */
bool race_dpor_blocked(void)
{
	return blocked;
}

/*
 * dfs chose @thread at choice @node (-1: the only runnable one; @fresh:
 * a new node).  The threads explored there before go to sleep, if the
 * bound allows; the last step learns whether its thread could go on.
 */
void race_dpor_chose(long node, const struct race_choice *c, int thread,
		     bool fresh)
{
	struct node *n = node >= 0 ? node_at(node) : NULL;
	unsigned int set;
	int u;

	if (!race_dpor)
		return;
	next_lifted = c->lifted;
	if (nr_ev && ev[nr_ev - 1].thread == c->from)
		ev[nr_ev - 1].after = c->from_runnable;
	if (!race_dpor_reduce || blocked)
		return;
	if (n && !fresh)
		sleep_load(n->sleep, n->sfp);
	if (sleep_now & (1u << thread)) {
		blocked = true;		/* nothing awake could run */
		return;
	}
	if (!n)
		return;
	if (fresh) {
		n->sleep = sleep_now;
		n->done = 0;
		n->want = 0;
		n->runnable = 0;
		for (u = 0; u < c->nr; u++)
			n->runnable |= 1u << c->ids[u];
		for (set = sleep_now; set; set &= set - 1)
			n->sfp[__builtin_ctz(set)] = sleep_fp[__builtin_ctz(set)];
	}
	for (set = n->done; set; set &= set - 1) {
		u = __builtin_ctz(set);
		if (cost(c, u) + (n->dafter[u] && u != thread) <= cost(c, thread))
			sleep_add(u, &n->dfp[u]);
	}
	cur_node = node;
}

/**
 * race_dpor_retire - dfs leaves @thread, explored at choice @node in the
 * execution just run, for another alternative: remember its step
 */
void race_dpor_retire(long node, int thread)
{
	struct node *n = &nodes[node];

	if (!race_dpor_reduce || n->event < 0 || n->event >= nr_ev)
		return;
	n->done |= 1u << thread;
	n->dfp[thread] = ev[n->event].fp;
	n->dafter[thread] = ev[n->event].after;
}

/* The first step of thread @t not placed yet, or -1. */
static long next_of(int t, const bool *placed)
{
	long i;

	for (i = 0; i < nr_ev; i++)
		if (ev[i].thread == t && !placed[i])
			return i;
	return -1;
}

/* Whether every step before @i that @i depends on is placed. */
static bool ready(long i, const bool *placed)
{
	long j;

	for (j = 0; j < i; j++)
		if (!placed[j] && dependent(&ev[j].fp, &ev[i].fp))
			return false;
	return true;
}

/* Fold step @i (its thread, label and kind) into @h.  Not its object:
 * obj#N and @N are numbered in the order of the execution, which differs
 * between equivalent executions. */
static unsigned long long fold(unsigned long long h, long i)
{
	const struct race_step *s = &race_sh->steps[i];
	unsigned long long v[] = { s->thread, (uintptr_t)s->fn,
		(uintptr_t)s->what, ev[i].fp.kind };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(v); k++)
		h = (h ^ v[k]) * 0x100000001b3ULL;
	return h;
}

/* FNV-1a of the execution's partial order, linearized canonically: each
 * time, the step of the lowest thread that waits for no step left.  A
 * spinner's lifted turns are left out: they repeat a turn that changed
 * nothing, and how many a spinner makes while nobody else can run
 * depends only on where the others' turns stood. */
static unsigned long long class_hash(void)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	bool *placed = calloc(nr_ev + 1, sizeof(*placed));
	long n, i = 0, left = nr_ev;
	int t;

	if (!placed)
		abort();
	for (i = 0; i < nr_ev; i++)
		if (ev[i].lifted) {
			placed[i] = true;
			left--;
		}
	for (n = 0; n < left; n++) {
		for (t = 1; t < NSLOT; t++)
			if ((i = next_of(t, placed)) >= 0 && ready(i, placed))
				break;
		if (t == NSLOT)
			break;		/* cannot happen: the first step waits for none */
		placed[i] = true;
		h = fold(h, i);
	}
	free(placed);
	return h | 1;
}

/** race_dpor_end - an execution ended: count its class (--count-classes) */
void race_dpor_end(void)
{
	unsigned long long h;
	unsigned long k;

	if (blocked)
		race_sh->pruned++;
	if (!race_opt.count_classes)
		return;
	if (!classes)
		classes = calloc(CLASSES, sizeof(*classes));
	h = class_hash();
	for (k = h % CLASSES; classes[k]; k = (k + 1) % CLASSES)
		if (classes[k] == h)
			return;
	classes[k] = h;
	race_sh->classes++;
}
