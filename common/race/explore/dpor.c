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
 *    OOPSLA 2013).  Where the reversal at i is a new alternative that
 *    leaves the path below the bound, that point is held back until dfs
 *    comes back to its choice, and tried only if the bound refused an
 *    alternative meanwhile: the reversal's subtree, explored in between,
 *    had the preemptions it needed.  That is a judgement, not a proof: a
 *    class reached only by a chain of reversals that starts at the point
 *    held back is lost.  Over the must-hold scenarios of the labs and the
 *    self-tests at bounds 1 to 3, under both memory models, it reaches
 *    the same 83,781 classes as trying every point; two_lookups_vs_delete
 *    at bound 5 reaches 197 of the 198 (of 204, without the reduction).
 *    It saves the points that only repeat their reversal's class:
 *    lookup_vs_delete_reuse ran 29 executions for 19 classes, now 28.
 *    Happens-before is a vector clock per step: a step happens after its
 *    thread's last step and after every earlier step dependent with it.
 *    Under sequential consistency, what is tried is one of the race's
 *    initials -- a thread whose first step among those that must move
 *    before step i waits for none of them -- unless one is tried there
 *    already (source sets, Abdulla, Aronis, Jonsson and Sagonas, POPL
 *    2014).  Under the weak model p is tried as well: a load there has
 *    several outcomes, and an initial explored with one of them does not
 *    stand for p's (dup_files_vs_expand missed a class).
 *    A reversal that preempts a thread holding a lock the tried thread
 *    takes later is also tried right after the acquisition, where the
 *    switch back is free once the tried thread waits for the lock.  An
 *    interrupt is not tried before a step of its own thread at whose
 *    choice it could not be delivered (irq_stays_off).
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
 *    of both executions cost the same; u is put to sleep then.  Where
 *    only cost(u) <= cost(t) holds, the execution that runs u's whole run
 *    first costs no more (u stops there in both): u is drowsy below t
 *    (drowsy_add), or, where its run is fixed by the prefix, asleep for
 *    its whole run (whole_run).  A switch away from a thread waiting for
 *    a lock keeps the sleepers its point does not depend on, drowsy
 *    (switch_from_waiter).
 *
 * What the bound then means: a class of executions that contains an
 * execution with at most B preemptions is explored, by one of its
 * executions, where the reversals reach it -- at a race's own choice and
 * at BPOR's conservative one where that is tried; a class that needs a
 * preemption elsewhere too can be missed.  tests/race/test_reduction.py
 * checks, at each scenario's own bound, that the reduced search reaches
 * every class the full one does (--count-classes), and that no lab's
 * must-hold scenario takes more than 1.5 executions per class.
 *
 * What a step touches comes from the models: an access to one location,
 * a lock word, a freed object, RCU -- its point's footprint -- and what
 * its code did after the point that is no point (race_sched_touch: an
 * allocation, a plain access others race with), up to RACE_MAX_TOUCH of
 * them, then everything.  A sleeping thread's step was recorded in an
 * earlier execution: an allocation in it, or an object that does not
 * exist yet, lies anywhere (the slab hands out other memory each time).
 * A point whose model does not say (race_point(), a model added later)
 * touches everything, so a new model never makes the reduction unsound.
 * Steps that are never enabled together do not race: spin_unlock and a
 * spin_lock waiting for that lock, call_rcu and the callback it queues,
 * an rcu_read_unlock and the end of a grace period that waits for the
 * section it ends (without it, two_lookups_vs_delete ran 181 executions
 * for 119 classes, 13 of them cut short: the reversal wanted the RCU
 * thread before the unlock, where it cannot run, so every other thread
 * was tried there instead).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "race/explore/dpor.h"
#include "race/models/models.h"
#include "race/models/weak.h"

#define NSLOT	(RACE_NR_SLOTS + 1)	/* indexed by thread id */
#define RING	1024			/* call_rcu steps remembered */
#define CLASSES	(1 << 20)		/* --count-classes: hash set size */
/* A whole run's footprints: at 16, dup_files_vs_expand's dup_files()
 * (two locks, two arrays, a reference to each of nine files) did not fit,
 * and its run was drowsy instead of asleep: 26 executions cut short. */
#define RUN_FP	32
#define LAZY	4			/* conservative points a node holds back */

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

/* A step's footprints: its point's, then what its code touched after it. */
struct fpset {
	int n;
	struct fp f[1 + RACE_MAX_TOUCH];
};

/* A thread's whole run from a choice: its steps' footprints, together. */
struct fprun {
	int n;
	struct fp f[RUN_FP];
};

/*
 * Copy @s's footprints into @d, the ones it has only: most steps have one.
 * (Assigning the whole set is a call of memcpy, which the AddressSanitizer
 * of the binary intercepts and checks, a few dozen times an execution:
 * two_lookups_vs_delete --bound 10 ran 39,140 executions/s with them,
 * 46,329 without.)
 */
static inline void fpset_copy(struct fpset *d, const struct fpset *s)
{
	int i;

	d->n = s->n;
	for (i = 0; i < s->n; i++)
		d->f[i] = s->f[i];
}

/* ... a whole run's, likewise. */
static inline void fprun_copy(struct fprun *d, const struct fprun *s)
{
	int i;

	d->n = s->n;
	for (i = 0; i < s->n; i++)
		d->f[i] = s->f[i];
}

struct clock {
	unsigned int c[NSLOT];
};

/* One step of the execution in progress. */
struct event {
	int thread;
	struct fpset fp;
	long node;		/* the choice node before it, -1 if none */
	long prev;		/* its thread's step before it, -1 if none */
	bool after;		/* its thread was runnable right after it */
	bool lifted;		/* a spinner's turn, nobody else able to run */
	long sect;		/* the read-side section its unlock ends, or -1 */
	unsigned long long rf;	/* the stores its weak-model choices named */
	struct clock clk;
};

/* What dfs's choice node N knows for the reduction. */
struct node {
	long event;			/* the step chosen there, this execution */
	unsigned int runnable;		/* threads runnable there (bit: id) */
	unsigned int want;		/* threads dfs must also try there */
	unsigned int sleep;		/* threads asleep there (bit: id) */
	int runner;			/* a drowsy thread's run, -1: none */
	unsigned int done;		/* threads explored there before */
	int from;			/* the thread that stopped there */
	bool from_runnable;		/*   could go on: others preempt it */
	int wthread;			/* whose run wfp is, -1: none yet */
	bool wwhole;			/*   whole, and then: */
	int nr_lazy;			/* conservative points held back: */
	unsigned int lazy[LAZY];	/*   their threads (want's @q) */
	unsigned long lazy_since;	/*   refusals when the first came */
	struct fprun wfp;		/*   its footprints (note_whole_runs) */
};

/*
 * What a choice keeps of the threads explored there (race_dpor_retire), in
 * an array beside the nodes: its pages are touched only at choices that
 * dfs went back to, not by every choice of the first execution.
 */
struct retired {
	struct fpset dfp[NSLOT];	/* the steps of those explored */
	bool dafter[NSLOT];		/* runnable after them */
	long drun[NSLOT];		/* their whole run in runs[], or -1 */
};

bool race_dpor, race_dpor_reduce;

static struct event *ev;
static long nr_ev, cap_ev;
static struct node *nodes;
static struct retired *retired;		/* per node, nodes[]'s capacity */
static long cap_nodes;
static long cur_node = -1;
static long nr_path;			/* the choice nodes of this execution */
static unsigned long refusals;		/* alternatives the bound refused */

/* Per thread id: what its pending step is. */
static struct fpset pending[NSLOT];
static bool has_pending[NSLOT];
static struct clock pend_join[NSLOT];	/* dependent steps before it */
static long last[NSLOT];		/* its last step */
static bool finished[NSLOT];		/* it returned */
static unsigned int count[NSLOT];
/* The RCU thread's queue: the step of each call_rcu; queued, invoked. */
static long call_step[RING], calls, invokes;
/* The sleep set of the execution now, and whether it blocked it. */
static unsigned int sleep_now;
static struct fpset sleep_fp[NSLOT];	/* a sleeping or drowsy thread's step */
static bool blocked;
/*
 * The threads drowsy now (bit: id): each may run, but an execution that
 * runs it is redundant unless its run turns dependent (drowsy_add); since:
 * the first step of the others that its run must commute with.
 */
static unsigned int drowsy_now;
static long since_now[NSLOT];
static int slack_now[NSLOT];		/* cost(t) - cost(u) where it was put */
/* Of the sleepers, those asleep for their whole run (whole_sleep_add). */
static unsigned int whole_now;
static struct fprun sleep_wfp[NSLOT];
/*
 * The whole runs of threads retired at the choices of the path, deepest
 * last: a choice's own go when dfs moves above it (runs_above).
 */
static struct retired_run {
	long node;
	struct fprun r;
} *runs;
static long nr_runs, cap_runs;

/* Forget the whole runs retired at choice @node or deeper. */
static void runs_above(long node)
{
	while (nr_runs && runs[nr_runs - 1].node >= node)
		nr_runs--;
}

/* Keep @r, retired at choice @node, the deepest of the path: its index. */
static long run_keep(long node, const struct fprun *r)
{
	runs_above(node + 1);
	runs = race_grow(runs, nr_runs, &cap_runs, sizeof(*runs));
	runs[nr_runs].node = node;
	fprun_copy(&runs[nr_runs].r, r);
	return nr_runs++;
}

/*
 * A drowsy thread chosen: while each step of its run commutes with every
 * step of the others from @since to @from (its run's first step), no
 * other thread is chosen, and its end makes the execution redundant.
 */
static struct run {
	int thread;			/* -1: none */
	long since, from;
	int slack, debt;		/* (run_step_done) */
} run = { -1, 0, 0, 0, 0 };
/*
 * The pending steps of the threads switched away from while they waited
 * (a lock), and where: a run must commute with them too.
 */
struct waited {
	long pos;			/* nr_ev then */
	bool hit;			/* the run in progress may end the wait */
	struct fpset fp;
};
static struct waited *waits;
static long nr_waits, cap_waits;
static bool next_lifted;		/* the step chosen last is a lifted one */
static unsigned long long *classes;
/*
 * Reversals that cost a preemption at their node, kept until the
 * execution's end: there the thread's later steps are known.
 */
struct preempting {
	long i;				/* the step it goes before */
	int q;				/* the thread tried there */
};
static struct preempting *preempt;
static long nr_preempt, cap_preempt;

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

/* Whether @f lies anywhere the slab may hand out (relocate). */
static bool anywhere(const struct fp *f)
{
	return !f->addr && f->size == SIZE_MAX;
}

/*
 * Whether two footprints touch a byte in common (size 0: the one at addr,
 * a point's access; a plain access's or copy's size otherwise).  What
 * lies anywhere is memory the slab may hand out: not an object that lives
 * now -- a sleeper's allocation, or its access to an object it allocated,
 * lands elsewhere: no allocation or free ran since it was put to sleep
 * (that would have woken it), so the object lived then too.
 */
static bool overlap(const struct fp *a, const struct fp *b)
{
	if ((anywhere(a) && b->obj && race_obj_live(b->obj)) ||
	    (anywhere(b) && a->obj && race_obj_live(a->obj)))
		return false;
	return a->addr < b->addr + (b->size ? b->size : 1) &&
	       b->addr < a->addr + (a->size ? a->size : 1);
}

/* @f frees or allocates memory that @g touches: a free and an access
 * after it is a use-after-free, an allocation and an access before it
 * too; the slab hands out what was freed, so every allocation and free is
 * ordered against every other. */
static bool slab_dependent(const struct fp *f, const struct fp *g)
{
	if (f->kind != RACE_FP_FREE && f->kind != RACE_FP_ALLOC)
		return false;
	if (g->kind == RACE_FP_FREE || g->kind == RACE_FP_ALLOC)
		return true;
	return (is_mem(g->kind) || g->kind == RACE_FP_RCU_CALL) && overlap(g, f);
}

/* Whether @a and @b may not commute. */
static bool dependent(const struct fp *a, const struct fp *b)
{
	/* the common case first: two accesses (RACE_FP_MB and _GP each
	 * make two steps dependent only when both carry it) */
	if (is_mem(a->kind) && is_mem(b->kind))
		return (a->flags & b->flags) || (overlap(a, b) &&
			(a->kind != RACE_FP_LOAD || b->kind != RACE_FP_LOAD));
	if (a->kind == RACE_FP_ALL || b->kind == RACE_FP_ALL)
		return true;
	if (a->flags & b->flags & RACE_FP_MB)
		return true;
	if (rcu_dependent(a, b))
		return true;
	return slab_dependent(a, b) || slab_dependent(b, a);
}

/* Whether @pred holds of some footprint of @a (@na of them) and some of
 * @b (@nb). */
static inline bool any_pair(const struct fp *a, int na, const struct fp *b,
			    int nb,
			    bool (*pred)(const struct fp *, const struct fp *))
{
	int i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (pred(&a[i], &b[j]))
				return true;
	return false;
}

/* Whether some footprint of @a and some of @b may not commute. */
static bool dependent_set(const struct fpset *a, const struct fpset *b)
{
	return any_pair(a->f, a->n, b->f, b->n, dependent);
}

/* ... of a step and of a whole run. */
static bool dependent_run(const struct fpset *a, const struct fprun *r)
{
	return any_pair(a->f, a->n, r->f, r->n, dependent);
}

/* Whether @e and @p race: dependent, and possibly both enabled (not an
 * unlock and a lock of the same word: the lock waits for the unlock). */
static bool racing(const struct fp *e, const struct fp *p)
{
	if ((e->kind == RACE_FP_UNLOCK && p->kind == RACE_FP_LOCK) ||
	    (e->kind == RACE_FP_LOCK && p->kind == RACE_FP_UNLOCK))
		return false;
	return dependent(e, p);
}

/* The same for two steps: some footprint of each. */
static bool racing_set(const struct fpset *e, const struct fpset *p)
{
	return any_pair(e->f, e->n, p->f, p->n, racing);
}

/*
 * The same for a step @u of event @e and thread @w's step @g, where an
 * rcu_read_unlock of @u and the end of a grace period in @g do not race
 * if that grace period waits for the section the unlock ends: the unlock
 * enables it (race_rcu_waits_for), as a spin_unlock does a spin_lock.
 */
static bool racing_unlock(const struct event *e, const struct fpset *u,
			  int w, const struct fpset *g)
{
	int a, b;

	if (!racing_set(u, g))
		return false;
	if (e->sect < 0 || !race_rcu_waits_for(w, e->thread, e->sect))
		return true;
	for (a = 0; a < u->n; a++)
		for (b = 0; b < g->n; b++)
			if (!(u->f[a].kind == RACE_FP_RCU_UNLOCK && gp_end(&g->f[b])) &&
			    racing(&u->f[a], &g->f[b]))
				return true;
	return false;
}

/*
 * A footprint a model gave, with its object named as the trace names it --
 * but for an allocation: the object it hands out is numbered in the order
 * of the execution, and a sleeping thread's allocation, replayed later,
 * would get another number; it gets the same memory, as long as nothing
 * else allocated or freed since (which wakes the thread).
 */
static struct fp fp_of(const struct race_footprint *g)
{
	const struct race_obj *o;
	struct fp f;

	f = (struct fp){ g->kind, g->flags, (uintptr_t)g->addr, g->size, 0, 0 };
	if (g->addr && g->kind != RACE_FP_ALLOC &&
	    (o = race_obj_find(g->addr))) {
		f.obj = race_obj_id(o);
		f.off = race_obj_offset(o, g->addr);
	}
	return f;
}

/* The footprint a model gave for @t's pending step, or "everything". */
static void footprint(struct fpset *s, const struct race_thread *t)
{
	s->n = 1;
	s->f[0] = t->fp.given ? fp_of(&t->fp) : (struct fp){ .kind = RACE_FP_ALL };
}

/* What @t's step touched after its point (race_sched_extra, _touch). */
static void touched(struct fpset *s, const struct race_thread *t)
{
	int i;

	s->n = 0;
	if (t->nr_touch > RACE_MAX_TOUCH) {
		s->f[s->n++] = (struct fp){ .kind = RACE_FP_ALL };
		return;
	}
	if (t->extra)
		s->f[s->n++] = (struct fp){ .kind = RACE_FP_NONE, .flags = t->extra };
	for (i = 0; i < t->nr_touch && s->n < 1 + RACE_MAX_TOUCH; i++)
		s->f[s->n++] = fp_of(&t->touch[i]);
}

/* @s gains @add's footprints (all of them, or "everything"). */
static void fp_merge(struct fpset *s, const struct fpset *add)
{
	int i;

	for (i = 0; i < add->n; i++) {
		if (add->f[i].kind == RACE_FP_NONE) {
			s->f[0].flags |= add->f[i].flags;
		} else if (s->n < 1 + RACE_MAX_TOUCH) {
			s->f[s->n++] = add->f[i];
		} else {
			s->n = 1;
			s->f[0] = (struct fp){ .kind = RACE_FP_ALL };
			return;
		}
	}
}

/** race_dpor_reset - a new execution: no step, nothing pending, awake */
void race_dpor_reset(void)
{
	int i;

	if (!race_dpor)
		return;
	if (cap_ev < race_sh->cap_steps + 1) {
		ev = race_vmem_resize(ev, cap_ev * sizeof(*ev),
				      (race_sh->cap_steps + 1) * sizeof(*ev));
		cap_ev = race_sh->cap_steps + 1;
	}
	nr_ev = 0;
	nr_preempt = 0;
	cur_node = -1;
	nr_path = 0;
	calls = invokes = 0;
	sleep_now = 0;
	drowsy_now = 0;
	whole_now = 0;
	run.thread = -1;
	nr_waits = 0;
	blocked = false;
	next_lifted = false;
	for (i = 0; i < NSLOT; i++) {
		has_pending[i] = false;
		finished[i] = false;
		last[i] = -1;
		count[i] = 0;
		memset(&pend_join[i], 0, sizeof(pend_join[i]));
	}
	pending[rcu_id()].n = 1;
	pending[rcu_id()].f[0] = (struct fp){ .kind = RACE_FP_RCU_INVOKE,
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

/* The threads a run of @runner (-1: none) leaves asleep: every other. */
static unsigned int run_asleep(int runner)
{
	return runner >= 0 ? ~(1u << runner) : 0;
}

/* The threads never chosen at choice @n (bit: id). */
static unsigned int node_asleep(const struct node *n)
{
	return n->sleep | run_asleep(n->runner);
}

/*
 * One of the threads @q must also be tried at choice @node (every
 * runnable thread, if none is runnable there), unless one of them is
 * tried or wanted there already, or sleeps there: explored earlier, in an
 * equivalent order.  dfs takes it from there (race_dpor_wanted).  Whether
 * a thread was added.
 */
static bool want(long node, unsigned int q)
{
	struct node *n = &nodes[node];
	unsigned int cur = n->event >= 0 && n->event < nr_ev ?
			   1u << ev[n->event].thread : 0;
	unsigned int was = n->want;

	if (!(q & n->runnable)) {
		n->want |= n->runnable;
		return n->want != was;
	}
	q &= n->runnable;
	if (q & (n->want | n->done | cur | node_asleep(n)))
		return false;
	n->want |= 1u << __builtin_ctz(q);
	return true;
}

/*
 * BPOR's conservative point at choice @node for the threads @q, held back
 * while the reversal it backs up is explored (dfs explores all of its
 * subtree before it comes back to @node): race_dpor_wanted() adds it only
 * if the bound refused an alternative meanwhile (race_dpor_refused).  A
 * node that cannot hold one more takes it at once.
 */
static void want_later(long node, unsigned int q)
{
	struct node *n = &nodes[node];

	if (n->nr_lazy == LAZY) {
		want(node, q);
		return;
	}
	if (!n->nr_lazy)
		n->lazy_since = refusals;
	n->lazy[n->nr_lazy++] = q;
}

/* Remember that thread @q, tried before step @i, preempts there. */
static void note_preempting(long i, unsigned int q)
{
	const struct node *n = &nodes[ev[i].node];
	int t = __builtin_ctz(q & n->runnable ? q & n->runnable : q);

	if (!n->from_runnable || t == n->from)
		return;
	preempt = race_grow(preempt, nr_preempt, &cap_preempt,
			       sizeof(*preempt));
	preempt[nr_preempt++] = (struct preempting){ i, t };
}

/**
 * race_dpor_wanted - the threads dfs must also try at choice @node (bit:
 * id), now that it has explored the subtree of the last one: the
 * conservative points held back there too if the bound refused an
 * alternative since the first of them came (want_later)
 */
unsigned int race_dpor_wanted(long node)
{
	struct node *n = &nodes[node];
	int k;

	if (n->nr_lazy && refusals > n->lazy_since)
		for (k = 0; k < n->nr_lazy; k++)
			want(node, n->lazy[k]);
	n->nr_lazy = 0;
	return n->want;
}

/** race_dpor_refused - dfs left out an alternative it was to try, for the
 * bound */
void race_dpor_refused(void)
{
	refusals++;
}

/* Whether step @a happens before a step whose clock is @c. */
static bool before(long a, const struct clock *c)
{
	return ev[a].clk.c[ev[a].thread] <= c->c[ev[a].thread];
}

/*
 * The initials of the steps that must be reordered to reverse the race of
 * step @i with thread @p's step (clock @pc): the steps after @i that do
 * not happen after it, then p's; a thread is an initial if its first step
 * among them waits for none of them (source sets, Abdulla, Aronis,
 * Jonsson and Sagonas, POPL 2014).  Bit: thread id.
 */
static unsigned int initials(long i, int p, const struct clock *pc)
{
	unsigned int first[NSLOT], seen = 0, init = 0;
	long j;
	int t, u;

	for (j = i + 1; j < nr_ev; j++) {
		t = ev[j].thread;
		if (before(i, &ev[j].clk) || (seen & (1u << t)))
			continue;
		for (u = 1; u < NSLOT; u++)
			if ((seen & (1u << u)) && ev[j].clk.c[u] >= first[u])
				break;
		if (u == NSLOT)
			init |= 1u << t;
		seen |= 1u << t;
		first[t] = ev[j].clk.c[t];
	}
	if (!(seen & (1u << p))) {
		for (u = 1; u < NSLOT; u++)
			if ((seen & (1u << u)) && pc->c[u] >= first[u])
				break;
		if (u == NSLOT)
			init |= 1u << p;
	}
	return init ? init : 1u << p;
}

/*
 * Whether @p is the interrupt of step @i's thread and could not be
 * delivered where step @i was chosen (its thread had interrupts off, or
 * was the only thread that could run).  Then no order delivers it before
 * step @i: only that thread's own steps turn its interrupts on, and its
 * next step is @i.  Delivering it before the step that turned them off is
 * the reversal of a race of its own, with that step.  (Without this, the
 * fallback of want() tried every other thread there, before each step of
 * a section with interrupts off, and each of those executions was cut
 * short by the sleep sets: 30 of irq_every_op's 50.)
 */
static bool irq_stays_off(long i, int p)
{
	int k = race_irq_owner(p);

	return k && ev[i].thread == k &&
	       (ev[i].node < 0 || !(nodes[ev[i].node].runnable & (1u << p)));
}

/*
 * Whether the path to choice @node, with one of @q chosen there, leaves at
 * least one preemption of the bound: the subtree of that reversal can
 * still reorder what it needs to (a conservative point held back for a
 * reversal that used up the bound cost two_lookups_vs_delete a class at
 * bound 4).
 */
static bool slack_after(long node, unsigned int q)
{
	const struct node *n;
	int paid = 0, t;
	long k;

	for (k = 0; k < node; k++) {
		n = &nodes[k];
		if (n->event >= 0 && n->event < nr_ev && n->from_runnable &&
		    ev[n->event].thread != n->from)
			paid++;
	}
	n = &nodes[node];
	t = __builtin_ctz(q & n->runnable ? q & n->runnable : q);
	paid += n->from_runnable && t != n->from;
	return paid < race_sh->bound_reached;
}

/*
 * Reversing the race of step @i with thread @p's step (clock @pc): one of
 * its initials must also be tried before step @i -- at its choice node,
 * and at the node of the last context switch before it, where switching
 * costs no preemption the path has not already paid (BPOR's conservative
 * point: without it a race whose reversal the bound forbids at @i would
 * stay unreversed even where it can be).
 */
static void backtrack(long i, int p, const struct clock *pc)
{
	bool added = false;
	unsigned int q;
	long j;

	if (irq_stays_off(i, p))
		return;
	q = initials(i, p, pc);
	if (ev[i].node >= 0) {
		added = want(ev[i].node, q);
		if (race_weak)
			added |= want(ev[i].node, 1u << p);
		note_preempting(i, q);
	}
	if (!i)
		return;
	for (j = i - 1; j > 0 && ev[j - 1].thread == ev[j].thread; j--)
		;
	if (ev[j].node < 0 || irq_stays_off(j, p))
		return;
	if (added && slack_after(ev[i].node, q)) {	/* still to explore */
		want_later(ev[j].node, q);
		if (race_weak)
			want_later(ev[j].node, 1u << p);
	} else {
		want(ev[j].node, q);
		if (race_weak)
			want(ev[j].node, 1u << p);
	}
}

/*
 * The steps from @from to @to (excluded) of threads other than @id that
 * are dependent with @f and do not happen before @c: joined into @join;
 * the last of them that races with @f is a backtracking point for @id.
 */
static void scan(int id, const struct fpset *f, const struct clock *c,
		 long from, long to, struct clock *into)
{
	bool found = !race_dpor_reduce || blocked;
	long i;

	for (i = to - 1; i >= from; i--) {
		const struct event *e = &ev[i];

		if (e->thread == id || e->clk.c[e->thread] <= c->c[e->thread])
			continue;
		if (!dependent_set(&e->fp, f))
			continue;
		join(into, &e->clk);
		if (!found && racing_unlock(e, &e->fp, id, f)) {
			struct clock pc = *c;

			join(&pc, into);
			backtrack(i, id, &pc);
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
	       (pending[p].f[0].kind != RACE_FP_RCU_INVOKE || rcu_work());
}

static void drowsy_add(int u, const struct fpset *f, long since);
static void wake(int u);

/* Step @i touched @f: wake the sleepers it depends on; it precedes the
 * pending steps it is dependent with, and races with some. */
static void against_pending(long i, const struct fpset *f)
{
	int p;

	for (p = 1; p < NSLOT; p++) {
		if ((whole_now & (1u << p)) && dependent_run(f, &sleep_wfp[p]) &&
		    !dependent_set(f, &sleep_fp[p]))
			drowsy_add(p, NULL, since_now[p]);	/* its step commutes */
		else if (((sleep_now | drowsy_now) & (1u << p)) &&
			 dependent_set(f, &sleep_fp[p]))
			wake(p);
	}
	for (p = 1; p <= race_nr_slots(); p++) {
		if (p == ev[i].thread || !pending_now(p) ||
		    !dependent_set(f, &pending[p]))
			continue;
		join(&pend_join[p], &ev[i].clk);
		if (race_dpor_reduce && !blocked &&
		    racing_unlock(&ev[i], f, p, &pending[p])) {
			struct clock pc = last_clock(p);

			join(&pc, &pend_join[p]);
			backtrack(i, p, &pc);
		}
	}
}

/*
 * What thread @t's last step did after its point (allocated, started a
 * grace period, a plain access): as if its footprint had said so.
 * Nothing has run since.
 */
static void finish_step(const struct race_thread *t)
{
	struct fpset f;
	struct clock before = { { 0 } };
	int id = t->id;
	struct event *e;

	touched(&f, t);
	if (!f.n || last[id] < 0)
		return;
	e = &ev[last[id]];
	if (e->prev >= 0)
		before = ev[e->prev].clk;
	scan(id, &f, &before, 0, last[id], &e->clk);
	against_pending(last[id], &f);
	fp_merge(&e->fp, &f);
}

/* Whether step @i commutes with every step of the others from run.since
 * up to the run's first. */
static bool run_commutes(long i)
{
	long j;

	for (j = run.since; j < run.from; j++)
		if (ev[j].thread != ev[i].thread &&
		    dependent_set(&ev[j].fp, &ev[i].fp))
			return false;
	return true;
}

/*
 * Step @i of the run may end waits that were switched away from between
 * run.since and the run's start (struct waited): each such switch cost no
 * preemption, but where the run goes first the waiting thread could go
 * on there.  run.debt counts them.
 */
static void run_waits(long i)
{
	long j;

	for (j = 0; j < nr_waits; j++)
		if (!waits[j].hit && waits[j].pos >= run.since &&
		    waits[j].pos <= run.from &&
		    dependent_set(&waits[j].fp, &ev[i].fp)) {
			waits[j].hit = true;
			run.debt++;
		}
}

/*
 * The runner stops at a waiting point (@c): where that point commutes
 * with every step of the others in the window, the runner would wait
 * there too in the execution that runs the run first, so that one costs
 * no more preemptions than this one (drowsy_add): this is redundant.
 * Only where a step dependent with the point is what ends the wait.
 */
static bool run_stops_alike(const struct race_choice *c)
{
	long j;

	if (!c->from_waits_dependent)
		return false;
	for (j = run.since; j < run.from; j++)
		if (ev[j].thread != c->from &&
		    dependent_set(&ev[j].fp, &pending[c->from]))
			return false;
	return true;
}

/* Drowsy thread @thread is chosen: its run starts. */
static void run_start(int thread)
{
	long j;

	drowsy_now &= ~(1u << thread);
	run = (struct run){ thread, since_now[thread], nr_ev,
			    slack_now[thread], 0 };
	for (j = 0; j < nr_waits; j++)
		waits[j].hit = false;
}

/*
 * The runner @id's last step is complete (what it touched is known).  An
 * execution that runs the run so far first, where the thread was put
 * aside, costs run.debt preemptions more, and run.slack fewer (drowsy_add
 * says why); and one more if this step must stay after the others'
 * steps, where the run is cut there.  Where that is no more than this
 * one's, this execution is redundant; else, once this step does not
 * commute or the run costs too much, the run is over and every thread may
 * be chosen again.
 */
static void run_step_done(int id, bool returned)
{
	if (run.thread != id || blocked || last[id] < run.from)
		return;
	if (!run_commutes(last[id])) {
		/* the run so far goes first, this step after the others' */
		if (1 + run.debt <= run.slack)
			blocked = true;
		else
			run.thread = -1;
		return;
	}
	run_waits(last[id]);
	if (run.debt > run.slack)
		run.thread = -1;
	else if (returned)
		blocked = true;
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
	run_step_done(id, false);
	memset(&pend_join[id], 0, sizeof(pend_join[id]));
	has_pending[id] = !(t->wait && t->wait->final);
	if (!has_pending[id])
		return;
	footprint(&pending[id], t);
	c = last_clock(id);
	if (pending[id].f[0].kind != RACE_FP_RCU_INVOKE) {
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

	if (ev[i].fp.f[0].kind == RACE_FP_RCU_INVOKE) {
		invokes++;
		return;
	}
	if (ev[i].fp.f[0].kind != RACE_FP_RCU_CALL)
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
	fpset_copy(&e->fp, &pending[thread]);
	e->node = cur_node;
	e->prev = last[thread];
	e->after = false;
	e->lifted = next_lifted;
	next_lifted = false;
	e->rf = 0;
	e->sect = e->fp.f[0].kind == RACE_FP_RCU_UNLOCK ?
		  race_rcu_section_ending(thread) : -1;
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
	run_step_done(t->id, true);
	has_pending[t->id] = false;
	finished[t->id] = true;
}

/* The node @node's record, made room for. */
static struct node *node_at(long node)
{
	long cap = 2 * node + 64;

	if (node >= cap_nodes) {
		nodes = race_vmem_resize(nodes, cap_nodes * sizeof(*nodes),
					 cap * sizeof(*nodes));
		retired = race_vmem_resize(retired, cap_nodes * sizeof(*retired),
					   cap * sizeof(*retired));
		cap_nodes = cap;
	}
	return &nodes[node];
}

/*
 * @f of an earlier execution, where its objects lie in this one.  An
 * allocation, or an object that does not exist here yet, lies anywhere:
 * the slab may hand out other memory in this execution (memory of an
 * object freed here, of a SLAB_TYPESAFE_BY_RCU cache), and any access to
 * the slab may be to it.
 */
static void relocate_fps(struct fp *f, int n)
{
	const void *start;
	int i;

	for (i = 0; i < n; i++) {
		if (f[i].kind == RACE_FP_ALLOC) {
			f[i].addr = 0;
			f[i].size = SIZE_MAX;
		} else if (f[i].obj) {
			start = race_obj_start(f[i].obj);
			f[i].addr = (uintptr_t)start + f[i].off;
			if (!start) {
				f[i].addr = 0;
				f[i].size = SIZE_MAX;
			}
		}
	}
}

/* A step's footprints, of an earlier execution, where they lie now. */
static void relocate(struct fpset *r, const struct fpset *f)
{
	fpset_copy(r, f);
	relocate_fps(r->f, r->n);
}

/* ... a whole run's. */
static void relocate_run(struct fprun *r, const struct fprun *f)
{
	fprun_copy(r, f);
	relocate_fps(r->f, r->n);
}

/* Thread @u sleeps from now on, its step being @f, put to sleep where
 * step @since was next. */
static void sleep_add(int u, const struct fpset *f, long since)
{
	sleep_now |= 1u << u;
	drowsy_now &= ~(1u << u);
	whole_now &= ~(1u << u);
	since_now[u] = since;
	relocate(&sleep_fp[u], f);
}

/*
 * ... asleep for its whole run from there (whole_run), kept where it was
 * retired at choice @origin: it sleeps as long as its run commutes with
 * what the others do, and is drowsy once only its step does.
 */
static void whole_sleep_add(int u, const struct fpset *f, long since,
			    long origin)
{
	sleep_add(u, f, since);
	whole_now |= 1u << u;
	relocate_run(&sleep_wfp[u], &runs[retired[origin].drun[u]].r);
}

/* Thread @u wakes: it may be chosen as any other. */
static void wake(int u)
{
	sleep_now &= ~(1u << u);
	drowsy_now &= ~(1u << u);
	whole_now &= ~(1u << u);
}

/*
 * Thread @u, explored at this choice with step @f, is drowsy below the
 * alternative now taken, t, from step @since (t's) on.  A sleep would
 * make u cost a preemption right after its step in the equivalent
 * execution (it is runnable there, and t follows); but an execution of
 * t's subtree that runs u, while u's steps all commute with the others'
 * steps since @since, up to where u stops or is preempted, is equivalent
 * to one that runs that whole run of u first, here -- which costs no more
 * preemptions when cost(u) <= cost(t), since u stops there or is
 * preempted in both.  So u may be chosen, but no other thread while its
 * run commutes (struct run), and a run that ends so is redundant.  (@f
 * NULL: a sleeper turns drowsy, its step as it was.)
 */
static void drowsy_add(int u, const struct fpset *f, long since)
{
	drowsy_now |= 1u << u;
	sleep_now &= ~(1u << u);
	whole_now &= ~(1u << u);
	since_now[u] = since;
	if (f)
		relocate(&sleep_fp[u], f);
}

/*
 * What is never chosen at the new choice @n, for dfs's later alternatives
 * there and the reversals wanted there.  The sleepers' and drowsy
 * threads' steps need no record: each later execution replays the path
 * to @n and puts the same threads to sleep on the way, where their
 * objects lie in it.
 */
static void sleep_record(struct node *n)
{
	n->sleep = sleep_now;
	n->runner = run.thread;
}

/* Cost of choosing @id at @c: 1 if it preempts. */
static int cost(const struct race_choice *c, int id)
{
	return c->from_runnable && id != c->from;
}

/*
 * A switch away from a thread that waits (a lock, a spin) costs no
 * preemption; in the execution a sleeper stands for, its step ran
 * earlier, and where that step could have ended the wait (a release of
 * the lock) the switch would have been a preemption, or a step of its
 * run, later, could.  So a run is over, a sleeper or drowsy thread whose
 * step is dependent with the waiting point wakes, and a sleeper whose
 * step is not is drowsy from here on: its run must also commute with the
 * waiting point (struct waited).  Where what ends the wait is not known
 * from the point (a spin, an interrupted thread), every thread wakes.
 * Applied before dfs picks, so that what it picks and what is recorded
 * agree.
 */
static void switch_from_waiter(const struct race_choice *c)
{
	unsigned int set;
	int u;

	if (c->from_runnable || !nr_ev || !has_pending[c->from])
		return;
	if (run.thread == c->from && run_stops_alike(c)) {
		blocked = true;
		return;
	}
	run.thread = -1;
	if (!c->from_waits_dependent) {
		sleep_now = drowsy_now = whole_now = 0;
		return;
	}
	for (set = sleep_now | drowsy_now; set; set &= set - 1) {
		u = __builtin_ctz(set);
		if (dependent_set(&sleep_fp[u], &pending[c->from]))
			wake(u);
		else if (sleep_now & (1u << u))
			drowsy_add(u, NULL, since_now[u]);
	}
}

/* The waiting point switched away from at @c, for the runs (struct
 * waited); every execution, replayed or not. */
static void note_waited(const struct race_choice *c)
{
	if (c->from_runnable || !nr_ev || !has_pending[c->from])
		return;
	waits = race_grow(waits, nr_waits, &cap_waits, sizeof(*waits));
	waits[nr_waits].pos = nr_ev;
	fpset_copy(&waits[nr_waits++].fp, &pending[c->from]);
}

/** race_dpor_asleep - the threads never chosen at choice @node (bit: id) */
unsigned int race_dpor_asleep(long node)
{
	return node_asleep(&nodes[node]);
}

/** race_dpor_asleep_now - the threads never chosen at the choice @c now
 * being made, where dfs makes a new choice (bit: id) */
unsigned int race_dpor_asleep_now(const struct race_choice *c)
{
	if (race_dpor_reduce && !blocked)
		switch_from_waiter(c);
	return sleep_now | run_asleep(run.thread);
}

/** race_dpor_drowsy_now - of the threads that may be chosen now, those
 * that make the execution redundant unless their run turns dependent: the
 * last a new choice takes (bit: id) */
unsigned int race_dpor_drowsy_now(void)
{
	return drowsy_now;
}

/** race_dpor_blocked - every runnable thread slept: the rest is redundant */
bool race_dpor_blocked(void)
{
	return blocked;
}

/* The threads explored at choice @n before go to sleep below @thread, or
 * are drowsy there, as far as the bound allows. */
static void sleep_explored(const struct node *n, const struct race_choice *c,
			   int thread)
{
	const struct retired *r = &retired[n - nodes];
	unsigned int set;
	int u;

	for (set = n->done & ~(1u << thread); set; set &= set - 1) {
		u = __builtin_ctz(set);
		slack_now[u] = cost(c, thread) - cost(c, u);
		if (cost(c, u) + r->dafter[u] <= cost(c, thread))
			sleep_add(u, &r->dfp[u], nr_ev);
		else if (r->drun[u] >= 0 && cost(c, u) <= cost(c, thread))
			whole_sleep_add(u, &r->dfp[u], nr_ev, n - nodes);
		else if (cost(c, u) <= cost(c, thread))
			drowsy_add(u, &r->dfp[u], nr_ev);
	}
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
	int u;

	if (!race_dpor)
		return;
	next_lifted = c->lifted;
	if (nr_ev && ev[nr_ev - 1].thread == c->from)
		ev[nr_ev - 1].after = c->from_runnable;
	if (!race_dpor_reduce || blocked)
		return;
	note_waited(c);
	switch_from_waiter(c);
	if ((sleep_now | run_asleep(run.thread)) & (1u << thread)) {
		blocked = true;		/* nothing awake could run */
		return;
	}
	if (n && fresh) {
		sleep_record(n);
		n->done = 0;
		n->want = 0;
		n->nr_lazy = 0;
		n->wthread = -1;
		runs_above(node);
		n->runnable = 0;
		n->from = c->from;
		n->from_runnable = c->from_runnable;
		for (u = 0; u < c->nr; u++)
			n->runnable |= 1u << c->ids[u];
	}
	if (n)
		sleep_explored(n, c, thread);
	if (drowsy_now & (1u << thread)) {
		run_start(thread);
	}
	if (n) {
		cur_node = node;
		nr_path = node + 1;
	}
}

/* Whether @s holds @f already (field by field: the binary's memcmp is
 * AddressSanitizer's, which checks both regions each call). */
static bool fprun_has(const struct fprun *s, const struct fp *f)
{
	const struct fp *g;
	int i;

	for (i = 0; i < s->n; i++) {
		g = &s->f[i];
		if (g->kind == f->kind && g->flags == f->flags &&
		    g->addr == f->addr && g->size == f->size &&
		    g->obj == f->obj && g->off == f->off)
			return true;
	}
	return false;
}

/* @s gains @add's footprints it lacks; false if they do not fit. */
static bool fprun_add(struct fprun *s, const struct fpset *add)
{
	int i;

	for (i = 0; i < add->n; i++) {
		if (add->f[i].kind == RACE_FP_ALL || s->n == RUN_FP)
			return false;
		if (!fprun_has(s, &add->f[i]))
			s->f[s->n++] = add->f[i];
	}
	return true;
}

/* The first step of thread @t after step @i, or -1. */
static long next_step_of(int t, long i)
{
	for (i++; i < nr_ev; i++)
		if (ev[i].thread == t)
			return i;
	return -1;
}

/*
 * Whether worker @u's run from step @i0 on, in the execution just run, is
 * its whole run from that choice to its return, fixed by the prefix:
 * under sequential consistency (no load of it could read another store),
 * it ran alone from @i0 until it returned, or until it waited for a lock
 * (the lock's point is then part of the run).  Then, wherever its steps
 * all commute with what the others did since the choice, it makes the
 * same steps again and returns, or waits there again.  Their footprints,
 * together, go into @s (false if they do not fit).
 */
static bool whole_run(long i0, int u, struct fprun *s)
{
	long i;

	if (race_weak || u > race_nr_workers() || last[u] < i0)
		return false;
	s->n = 0;
	for (i = i0; i < nr_ev && ev[i].thread == u; i++)
		if (ev[i].lifted || !fprun_add(s, &ev[i].fp))
			return false;
	if (i > last[u])
		return finished[u];
	/* it stopped at a lock: its point is part of the run */
	if (ev[i - 1].after || (i = next_step_of(u, i - 1)) < 0 ||
	    ev[i].fp.f[0].kind != RACE_FP_LOCK)
		return false;
	return fprun_add(s, &ev[i].fp);
}

/*
 * The first execution after each choice of this path took its thread
 * there: that thread's run from the choice, if whole (whole_run), for
 * when dfs retires it there.  The first is the one where the thread
 * goes on alone as long as it can (dfs's default).
 */
static void note_whole_runs(void)
{
	struct node *n;
	long k;
	int u;

	for (k = 0; k < nr_path; k++) {
		n = &nodes[k];
		if (n->event < 0 || n->event >= nr_ev)
			continue;
		u = ev[n->event].thread;
		if (n->wthread == u)
			continue;
		n->wthread = u;
		n->wwhole = whole_run(n->event, u, &n->wfp);
	}
}

/**
 * race_dpor_retire - dfs leaves @thread, explored at choice @node in the
 * execution just run, for another alternative: remember its step, or its
 * whole run where that is fixed (whole_run)
 */
void race_dpor_retire(long node, int thread)
{
	struct node *n = &nodes[node];
	struct retired *r = &retired[node];

	if (!race_dpor_reduce || n->event < 0 || n->event >= nr_ev)
		return;
	n->done |= 1u << thread;
	r->drun[thread] = -1;
	if (n->wthread == thread && n->wwhole)
		r->drun[thread] = run_keep(node, &n->wfp);
	fpset_copy(&r->dfp[thread], &ev[n->event].fp);
	r->dafter[thread] = ev[n->event].after;
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
		if (!placed[j] && dependent_set(&ev[j].fp, &ev[i].fp))
			return false;
	return true;
}

/**
 * race_dpor_read - the load of step @step reads the store made at step
 * @store (0: the value before the threads ran), or the store of step @step
 * goes right after that one in coherence order (weak model)
 *
 * Guarantees: two executions with the same happens-before order whose
 * loads read different stores are counted as two classes (--count-classes).
 */
void race_dpor_read(long step, long store)
{
	unsigned long long id = 1;
	const struct event *w;

	if (!race_dpor || step < 1 || step > nr_ev || store > nr_ev)
		return;
	if (store > 0) {
		w = &ev[store - 1];
		id = ((unsigned long long)w->thread << 32 | w->clk.c[w->thread]) + 2;
	}
	ev[step - 1].rf = (ev[step - 1].rf ^ id) * 0x100000001b3ULL;
}

/* Fold step @i (its thread, label, kind and the stores its choices named,
 * by their thread and its step's number there) into @h.  Not its object:
 * obj#N and @N are numbered in the order of the execution, which differs
 * between equivalent executions. */
static unsigned long long fold(unsigned long long h, long i)
{
	const struct race_step *s = &race_sh->steps[i];
	unsigned long long v[] = { s->thread, (uintptr_t)s->fn,
		(uintptr_t)s->what, ev[i].fp.f[0].kind, ev[i].rf };
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

/*
 * A reversal that preempts the thread of step @i may fit the bound where
 * that thread holds a lock the tried thread @q takes later: switched in
 * there, q runs until it waits for the lock, and the switch back is free
 * (the bound makes these steps dependent: Coons et al.).  Try q also right
 * after each acquisition, since the last context switch, of the first
 * lock q takes after @i.
 */
static void blocked_placements(long i, int q)
{
	const struct fp *f;
	long z, a;

	for (z = next_step_of(q, i); z >= 0; z = next_step_of(q, z))
		if (ev[z].fp.f[0].kind == RACE_FP_LOCK)
			break;
	if (z < 0)
		return;
	f = &ev[z].fp.f[0];
	for (a = i - 1; a >= 0 && ev[a].thread == ev[i].thread; a--)
		if (ev[a].fp.f[0].kind == RACE_FP_LOCK &&
		    ev[a].fp.f[0].addr == f->addr && ev[a + 1].node >= 0)
			want(ev[a + 1].node, 1u << q);
}

/** race_dpor_end - an execution ended: the reversals that wait for its
 * end; count its class (--count-classes) */
void race_dpor_end(void)
{
	unsigned long long h;
	unsigned long k;
	long r;

	for (r = 0; r < nr_preempt; r++)
		blocked_placements(preempt[r].i, preempt[r].q);
	nr_preempt = 0;
	if (race_dpor_reduce)
		note_whole_runs();

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
