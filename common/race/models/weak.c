// SPDX-License-Identifier: GPL-2.0
/*
 * weak.c - the weak memory model: a load may read an older store.
 *
 * Under the default model every store is seen at once by every thread.
 * Under this one (race run --memory weak, a scenario's .memory) each
 * location has a history of the stores made to it in this execution, in
 * coherence order (the order they were made), and a load may read any
 * store of that history its thread is not yet forced to have seen.  Which
 * one is a choice, like the choice of the thread that runs next: dfs
 * explores every one, pct and random draw one, schedule files record it
 * ("sees" lines) and replays follow it.  The newest store is always among
 * the choices and is the default: an execution that always takes it is a
 * sequentially consistent one.
 *
 * What forces a thread to have seen a store (the rules of the model, as
 * docs/reproducer.md, "The weak memory model", states them):
 *
 *  - coherence: once a thread has read or written a store of a location,
 *    it never reads an older one of that location (CoRR, CoWR); a store
 *    goes after every store of the location made before it (CoWW, CoRW);
 *  - happens-before: what a thread synchronizes with, it has seen.  Each
 *    thread has a vector clock; each store records, per thread, the epoch
 *    at which that thread first saw it (wrote or read it), as loom does.
 *    A store is too old for a load if a newer store of the same location
 *    was seen by some thread at an epoch the loading thread's clock
 *    covers;
 *  - release/acquire: a release store (smp_store_release,
 *    rcu_assign_pointer, spin_unlock, a fully ordered atomic) carries its
 *    thread's clock; an acquire load (smp_load_acquire, spin_lock,
 *    spin_trylock, a fully ordered atomic) that reads it joins that clock;
 *  - smp_mb: a full fence, modelled as in the promising semantics: it
 *    joins what earlier loads learnt, and a clock shared by all smp_mb in
 *    the order they run (so of two fences, the later sees what was before
 *    the earlier); later stores carry the clock it leaves;
 *  - smp_wmb: orders the thread's own earlier stores before its later
 *    ones, and nothing else (it is not cumulative, as in the LKMM): later
 *    stores carry a "write clock" that covers only this thread's stores;
 *  - smp_rmb: joins what the thread's earlier loads learnt (the clocks
 *    and write clocks of the stores they read) into its clocks, so that
 *    later loads are ordered after them;
 *  - fully ordered atomics (atomic_dec_and_test, *_return, xchg, a
 *    cmpxchg that succeeds): smp_mb, the update, smp_mb; every update
 *    reads the newest store and carries the clock of the store it replaced
 *    (the LKMM's rmw-sequences); an update that leaves the bytes unchanged
 *    (a cmpxchg or trylock that fails) is a relaxed load of the newest;
 *  - address dependencies: a READ_ONCE, atomic_read or rcu_dereference
 *    whose value points into an object (the slab object it points into,
 *    or the 4 KiB after a pointer to any other memory) orders the later
 *    accesses of the thread to that object after it: they are made with
 *    the clocks of the store it read (the LKMM's address dependency, which
 *    the LKMM gives READ_ONCE and rcu_dereference alike).  rcu_dereference
 *    is therefore no acquire: an access that does not go through the
 *    pointer is not ordered by it;
 *  - RCU: synchronize_rcu and call_rcu are full fences, and a grace
 *    period that starts publishes the clock of its start, which every
 *    rcu_read_lock after that joins (a reader that begins after a grace
 *    period began sees everything before it); rcu_read_unlock publishes
 *    the reader's clock, which the end of every grace period and every
 *    callback joins (what a reader did before the grace period ended is
 *    seen after it).  rcu_barrier joins the clocks of the callbacks done.
 *
 * A load never reads a value no store wrote (no out-of-thin-air): the
 * values are the stores of the history.  Loads read only stores already
 * made, so a load is never satisfied by a later store of another thread
 * that depends on it: load buffering (LB) is not modelled, and neither is
 * a coherence order that differs from the order the stores were made
 * (2+2W, S): for those two shapes the model is stronger than the LKMM.
 *
 * How the primitives get the value without knowing it: race_access()
 * copies the aligned 8-byte word that holds the chosen store into memory
 * just before the primitive's own load, and race_seen() puts the newest
 * back, so the primitive loads the old value itself, typed as it is.
 * Memory therefore always holds the newest store of every location
 * between accesses, and an update (which reads the newest) needs nothing.
 * A plain C store is invisible: when a location's word no longer holds
 * what the model last left there, every location of that word starts a
 * new history from its bytes (a plain store is seen by everybody at
 * once), and so do the locations of an object that is allocated or freed.
 * A lab must use READ_ONCE/WRITE_ONCE, the atomics, rcu_dereference/
 * rcu_assign_pointer or smp_load_acquire/smp_store_release wherever it
 * wants a reader to be checked.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "race/models/weak.h"
#include "race_hooks.h"

#define NSLOT		(RACE_NR_SLOTS + 1)	/* clocks are indexed by thread id */
#define NEVER		UINT_MAX		/* a thread has not seen a store */
#define HASH_SIZE	16384			/* locations (and words) per execution, x2 */
#define MAX_DEPS	8			/* address dependencies remembered */
#define DEP_SPAN	4096			/* of a pointer outside the slab */
#define MAX_CALLBACKS	256			/* as many as rcu.c queues */

bool race_weak;

struct clock {
	unsigned int c[NSLOT];
};

/* One store of a location's history; the initial value is a store too. */
struct store {
	unsigned long long word;	/* the aligned 8-byte word after it */
	long value;			/* as a load saw it, if known */
	long step;			/* the step that made it; 0: initial */
	int thread;			/* 0: the initial value */
	int older;			/* the store before it, or -1 */
	unsigned int epoch;		/* its thread's epoch when made */
	bool known;
	struct clock c, w;		/* what an acquire of it joins */
	unsigned int seen[NSLOT];	/* epoch each thread first saw it at */
};

/* A slot of a hash table of this execution: used if gen is the current. */
struct slot {
	uintptr_t key;
	unsigned int gen;
};

struct loc {
	struct slot s;			/* key: the location's address */
	bool live;			/* its history is valid */
	int newest;			/* its newest store */
};

struct word {
	struct slot s;			/* key: the aligned word's address */
	bool valid;
	unsigned long long expect;	/* what the model last left there */
};

struct dep {
	uintptr_t lo, hi;
	struct clock c, w;
};

/* A thread's clocks, and the access it is making. */
struct wthread {
	struct clock vc, w;	/* seen: everything hb-before; others' stores */
	struct clock pend, pendw;	/* learnt by relaxed loads so far */
	struct clock rel, relw;		/* what its relaxed stores carry */
	struct dep deps[MAX_DEPS];
	int nr_deps, next_dep;
	/* between race_access() and race_seen() */
	unsigned int how;
	uintptr_t wa;
	int loc, read;
	unsigned long long w0;
	bool swapped;
	struct clock ec, ew;	/* vc and w with the dependencies joined */
};

static struct loc locs[HASH_SIZE];
static struct word words[HASH_SIZE];
static int used_locs[HASH_SIZE], used_words[HASH_SIZE];
static int nr_used_locs, nr_used_words;
static unsigned int gen;

static struct store *stores;
static long nr_stores, cap_stores;
static int *cand;
static long *cand_steps, cap_cand;

static struct wthread wt[NSLOT];
static struct clock sc, scw;		/* the order of smp_mb */
static struct clock gp, gpw;		/* grace periods started */
static struct clock rd, rdw;		/* read-side sections ended */
static struct clock cbd, cbdw;		/* callbacks done */
static struct clock cbc[MAX_CALLBACKS], cbw[MAX_CALLBACKS];

static void join(struct clock *a, const struct clock *b)
{
	int i;

	for (i = 0; i < NSLOT; i++)
		if (b->c[i] > a->c[i])
			a->c[i] = b->c[i];
}

/* The word is read and written around ASan: its other bytes may be a
 * neighbour's, or a red zone. */
__attribute__((no_sanitize_address))
static unsigned long long word_get(uintptr_t a)
{
	return *(volatile unsigned long long *)a;
}

__attribute__((no_sanitize_address))
static void word_put(uintptr_t a, unsigned long long w)
{
	*(volatile unsigned long long *)a = w;
}

static unsigned int hash(uintptr_t a)
{
	return (unsigned int)((a * 0x9e3779b97f4a7c15ULL) >> 40) & (HASH_SIZE - 1);
}

/*
 * The slot of @key in @table (HASH_SIZE entries of @stride bytes, each
 * starting with a struct slot), taken for it if @create; NULL if absent.
 * @used lists the slots taken in this execution.
 */
static struct slot *probe(void *table, size_t stride, int *used, int *nr_used,
			  uintptr_t key, bool create, const char *what)
{
	unsigned int h = hash(key);
	struct slot *s;

	for (;; h = (h + 1) & (HASH_SIZE - 1)) {
		s = (struct slot *)((char *)table + h * stride);
		if (s->gen != gen)
			break;
		if (s->key == key)
			return s;
	}
	if (!create)
		return NULL;
	if (*nr_used >= HASH_SIZE / 2)
		race_fail("bug", "the weak memory model tracks at most %d %s "
			  "per execution", HASH_SIZE / 2, what);
	used[(*nr_used)++] = h;
	memset(s, 0, stride);
	s->key = key;
	s->gen = gen;
	return s;
}

/* The location at @addr, new if @create. */
static struct loc *loc_find(const volatile void *addr, bool create)
{
	return (struct loc *)probe(locs, sizeof(*locs), used_locs, &nr_used_locs,
				   (uintptr_t)addr, create, "locations");
}

/* The aligned word at @a. */
static struct word *word_find(uintptr_t a)
{
	return (struct word *)probe(words, sizeof(*words), used_words,
				    &nr_used_words, a, true, "words");
}

/* A new store, seen by nobody yet; its index. */
static int new_store(int thread, unsigned int epoch, long step,
		     unsigned long long word)
{
	struct store *s;
	int i;

	if (nr_stores == cap_stores) {
		cap_stores = cap_stores ? 2 * cap_stores : 1024;
		stores = realloc(stores, cap_stores * sizeof(*stores));
		if (!stores)
			abort();
	}
	s = memset(&stores[nr_stores], 0, sizeof(*s));
	s->word = word;
	s->step = step;
	s->thread = thread;
	s->epoch = epoch;
	s->older = -1;
	for (i = 0; i < NSLOT; i++)
		s->seen[i] = thread ? NEVER : 0;	/* everybody saw the initial */
	if (thread)
		s->seen[thread] = epoch;
	return nr_stores++;
}

/* @l starts a new history: one initial store, the word's bytes now. */
static void loc_restart(struct loc *l, unsigned long long word)
{
	l->live = true;
	l->newest = new_store(0, 0, 0, word);
}

/*
 * Every location of the word at @a starts afresh if its bytes are not what
 * the model last left there: a plain C store changed them.
 */
static void check_word(uintptr_t a, unsigned long long now)
{
	struct word *w = word_find(a);
	struct loc *l;
	int i;

	if (w->valid && w->expect != now)
		for (i = 0; i < 8; i++)
			if ((l = loc_find((const void *)(a + i), false)))
				l->live = false;
	w->valid = true;
	w->expect = now;
}

/** race_weak_forget - @start..+@size was allocated or freed: every
 * location in it starts a new history at its next access */
void race_weak_forget(const void *start, size_t size)
{
	uintptr_t lo = (uintptr_t)start, hi = lo + size;
	int i;

	if (!race_weak)
		return;
	for (i = 0; i < nr_used_locs; i++) {
		struct loc *l = &locs[used_locs[i]];

		if (l->s.key >= lo && l->s.key < hi)
			l->live = false;
	}
	for (i = 0; i < nr_used_words; i++) {
		struct word *w = &words[used_words[i]];

		if (w->s.key + 8 > lo && w->s.key < hi)
			w->valid = false;
	}
}

/* A new execution: no history, every clock at the start. */
static void weak_reset(void)
{
	int i;

	if (!race_weak)
		return;		/* sequential consistency: nothing to forget */
	gen++;
	nr_used_locs = nr_used_words = 0;
	nr_stores = 0;
	for (i = 0; i <= race_nr_slots(); i++) {
		struct wthread *w = &wt[i];	/* its clocks; the rest is set before use */

		w->vc = w->w = w->pend = w->pendw = w->rel = w->relw = (struct clock){ { 0 } };
		w->nr_deps = w->next_dep = 0;
		w->vc.c[i] = i ? 1 : 0;
	}
	memset(&sc, 0, sizeof(sc));
	scw = gp = gpw = rd = rdw = cbd = cbdw = sc;
}

RACE_MODEL(weak_model) = {
	.name	= "weak",
	.reset	= weak_reset,
};

/* The step @t is performing, 1-based. */
static long step_of(const struct race_thread *t)
{
	return t->step ? race_trace_nr(t->step) : 0;
}

/* The epoch of @t moves on after each of its operations. */
static void tick(const struct race_thread *t)
{
	wt[t->id].vc.c[t->id]++;
}

/* Thread @id has now seen @s. */
static void see(struct store *s, int id)
{
	if (s->seen[id] > wt[id].vc.c[id])
		s->seen[id] = wt[id].vc.c[id];
}

/* Append store @n to the history of @l. */
static void append(struct loc *l, int n)
{
	stores[n].older = l->newest;
	l->newest = n;
}

/* A store is too old for a thread with clocks @e/@ew if it, or a newer
 * one, was seen at an epoch the clocks cover. */
static bool observed(const struct store *s, const struct clock *e,
		     const struct clock *ew)
{
	int i;

	for (i = 1; i < NSLOT; i++)
		if (s->seen[i] <= e->c[i])
			return true;
	return !s->thread ? true : ew->c[s->thread] >= s->epoch;
}

/* The stores of @l a load with @w's effective clocks may read, newest
 * first, into cand[]; how many. */
static int candidates(const struct loc *l, const struct wthread *w)
{
	int n = 0, i;

	for (i = l->newest; i >= 0; i = stores[i].older) {
		if (n == cap_cand) {
			cap_cand = cap_cand ? 2 * cap_cand : 64;
			cand = realloc(cand, cap_cand * sizeof(*cand));
			cand_steps = realloc(cand_steps, cap_cand * sizeof(*cand_steps));
			if (!cand || !cand_steps)
				abort();
		}
		cand_steps[n] = stores[i].step;
		cand[n++] = i;
		if (observed(&stores[i], &w->ec, &w->ew))
			break;
	}
	return n;
}

/* The clocks an access to @a is made with: the thread's, and those of
 * the loads whose value it goes through. */
static void effective(struct wthread *w, uintptr_t a)
{
	int i;

	w->ec = w->vc;
	w->ew = w->w;
	for (i = 0; i < w->nr_deps; i++)
		if (a >= w->deps[i].lo && a < w->deps[i].hi) {
			join(&w->ec, &w->deps[i].c);
			join(&w->ew, &w->deps[i].w);
		}
}

/* A load read @value from @s: later accesses through it depend on it. */
static void add_dep(struct wthread *w, long value, const struct store *s)
{
	const struct race_obj *o;
	struct dep *d;

	if (value > -65536 && value < 65536)
		return;		/* a number, not an address */
	d = &w->deps[w->next_dep];
	w->next_dep = (w->next_dep + 1) % MAX_DEPS;
	if (w->nr_deps < MAX_DEPS)
		w->nr_deps++;
	o = race_obj_find((const void *)(uintptr_t)value);
	d->lo = o ? (uintptr_t)value - race_obj_offset(o, (const void *)(uintptr_t)value) :
		(uintptr_t)value;
	d->hi = o ? d->lo + race_obj_size(o) : d->lo + DEP_SPAN;
	d->c = s->c;
	d->w = s->w;
	join(&d->c, &w->ec);
	join(&d->w, &w->ew);
}

/* smp_mb: what loads learnt, then the order of all smp_mb. */
static void fence_mb(struct wthread *w)
{
	join(&w->vc, &w->pend);
	join(&w->w, &w->pendw);
	join(&w->vc, &sc);
	join(&w->w, &scw);
	sc = w->vc;
	scw = w->w;
	w->rel = w->vc;
	w->relw = w->w;
}

/* smp_rmb: what earlier loads learnt orders later ones. */
static void fence_rmb(struct wthread *w)
{
	join(&w->vc, &w->pend);
	join(&w->w, &w->pendw);
}

/* smp_wmb: this thread's stores so far go before its later ones. */
static void fence_wmb(struct wthread *w, int id)
{
	if (w->relw.c[id] < w->vc.c[id])
		w->relw.c[id] = w->vc.c[id];
}

/* Acquire what @s carries. */
static void acquire(struct wthread *w, const struct store *s)
{
	join(&w->vc, &s->c);
	join(&w->w, &s->w);
}

/* A load that does not acquire: smp_rmb/smp_mb may later. */
static void learn(struct wthread *w, const struct store *s)
{
	join(&w->pend, &s->c);
	join(&w->pendw, &s->w);
}

/* The load of @t may read an older store: choose which. */
static void choose_read(struct race_thread *t, struct wthread *w)
{
	struct race_read r;
	const struct store *s, *newest;
	int n, i = 0;

	n = candidates(&locs[w->loc], w);
	if (n > 1) {
		r.step = step_of(t);
		r.nr = n;
		r.steps = cand_steps;
		i = race_sched_pick_read(&r);
	}
	w->read = cand[i];
	if (!i)
		return;
	s = &stores[cand[i]];
	newest = &stores[cand[0]];
	word_put(w->wa, s->word);
	w->swapped = true;
	if (t->step)
		race_trace_stale(t->step, s->step, newest->step, newest->known,
				 newest->value);
}

/**
 * race_weak_access - thread @t is about to access @addr (race_access)
 *
 * A load chooses the store it reads, and finds it in memory when it
 * loads; anything else needs nothing before the access.
 */
void race_weak_access(struct race_thread *t, const volatile void *addr,
		      unsigned int how)
{
	struct wthread *w = &wt[t->id];
	struct loc *l;

	w->how = how;
	w->wa = (uintptr_t)addr & ~(uintptr_t)7;
	w->w0 = word_get(w->wa);
	w->swapped = false;
	check_word(w->wa, w->w0);
	l = loc_find(addr, true);
	if (!l->live)
		loc_restart(l, w->w0);
	w->loc = l - locs;
	effective(w, (uintptr_t)addr);
	if ((how & RACE_RMW) == RACE_LOAD)
		choose_read(t, w);
}

/* rcu_dereference heads an address dependency, as READ_ONCE does. */
static bool acquires(const struct race_thread *t, unsigned int how)
{
	return (how & RACE_ACQUIRE) && strcmp(t->what, "rcu_dereference");
}

/* The load is done: memory holds the newest store again. */
static void load_done(struct race_thread *t, struct wthread *w, long value)
{
	struct store *s = &stores[w->read];

	if (w->swapped)
		word_put(w->wa, w->w0);
	if (!s->known) {
		s->value = value;
		s->known = true;
	}
	see(s, t->id);
	if (acquires(t, w->how)) {
		acquire(w, s);
	} else {
		learn(w, s);
		add_dep(w, value, s);
	}
}

/* A new store by @t at the location of its access, carrying @rel. */
static struct store *store_new(struct race_thread *t, struct wthread *w,
			       unsigned long long word, bool rel)
{
	int n = new_store(t->id, w->vc.c[t->id], step_of(t), word);
	struct store *s = &stores[n];

	s->c = rel ? w->vc : w->rel;
	s->w = rel ? w->w : w->relw;
	append(&locs[w->loc], n);
	word_find(w->wa)->expect = word;
	return s;
}

/* A store is done (WRITE_ONCE, atomic_set, smp_store_release, ...). */
static void store_done(struct race_thread *t, struct wthread *w, long value)
{
	struct store *s = store_new(t, w, word_get(w->wa),
				    w->how & RACE_RELEASE);

	s->value = value;
	s->known = true;
}

/*
 * An update is done: it read the newest store and, if it changed the
 * bytes, made a new one.  Fully ordered: smp_mb on both sides.
 */
static void rmw_done(struct race_thread *t, struct wthread *w)
{
	unsigned long long now = word_get(w->wa);
	struct store *last = &stores[locs[w->loc].newest], *s;
	bool full = (w->how & RACE_FULL) == RACE_FULL;

	if (now == w->w0) {		/* failed: a relaxed load */
		see(last, t->id);
		learn(w, last);
		return;
	}
	if (full)
		fence_mb(w);
	see(last, t->id);
	if (w->how & RACE_ACQUIRE)
		acquire(w, last);
	else
		learn(w, last);
	s = store_new(t, w, now, w->how & RACE_RELEASE);
	join(&s->c, &last->c);		/* the LKMM's rmw-sequence */
	join(&s->w, &last->w);
	if (full)
		fence_mb(w);
}

/**
 * race_weak_seen - the access of @t is done (race_seen); returns @value,
 * which for a load is the store it read
 */
long race_weak_seen(struct race_thread *t, long value)
{
	struct wthread *w = &wt[t->id];

	if ((w->how & RACE_RMW) == RACE_LOAD)
		load_done(t, w, value);
	else if (w->how & RACE_LOAD)
		rmw_done(t, w);
	else
		store_done(t, w, value);
	tick(t);
	return value;
}

/** race_weak_fence - smp_mb (RACE_FULL), smp_wmb, smp_rmb by @t */
void race_weak_fence(struct race_thread *t, unsigned int how)
{
	struct wthread *w = &wt[t->id];

	if ((how & RACE_FULL) == RACE_FULL)
		fence_mb(w);
	else if (how & RACE_STORE)
		fence_wmb(w, t->id);
	else
		fence_rmb(w);
	tick(t);
}

/** race_weak_lock_acquired - spin_lock took the lock at @word: acquire
 * what the last spin_unlock released */
void race_weak_lock_acquired(struct race_thread *t, const volatile void *word)
{
	struct wthread *w = &wt[t->id];
	uintptr_t a = (uintptr_t)word & ~(uintptr_t)7;
	unsigned long long now = word_get(a);
	struct loc *l;

	check_word(a, now);
	l = loc_find(word, true);
	if (!l->live)
		loc_restart(l, now);
	see(&stores[l->newest], t->id);
	acquire(w, &stores[l->newest]);
	tick(t);
}

/** race_weak_rcu_read_lock - a reader section begins: it sees what was
 * before every grace period that has started */
void race_weak_rcu_read_lock(struct race_thread *t)
{
	join(&wt[t->id].vc, &gp);
	join(&wt[t->id].w, &gpw);
	tick(t);
}

/** race_weak_rcu_read_unlock - a reader section ends: grace periods that
 * end after this see what it did */
void race_weak_rcu_read_unlock(struct race_thread *t)
{
	join(&rd, &wt[t->id].vc);
	join(&rdw, &wt[t->id].w);
	tick(t);
}

/** race_weak_gp_start - synchronize_rcu begins: a full fence, and readers
 * that begin from now on see what came before */
void race_weak_gp_start(struct race_thread *t)
{
	fence_mb(&wt[t->id]);
	join(&gp, &wt[t->id].vc);
	join(&gpw, &wt[t->id].w);
	tick(t);
}

/** race_weak_gp_end - the grace period has elapsed: what the readers did
 * is seen, then a full fence */
void race_weak_gp_end(struct race_thread *t)
{
	join(&wt[t->id].vc, &rd);
	join(&wt[t->id].w, &rdw);
	fence_mb(&wt[t->id]);
	tick(t);
}

/** race_weak_call_rcu - callback @seq is queued: a grace period starts,
 * and the callback will see what its caller saw */
void race_weak_call_rcu(struct race_thread *t, long seq)
{
	race_weak_gp_start(t);
	cbc[seq % MAX_CALLBACKS] = wt[t->id].vc;
	cbw[seq % MAX_CALLBACKS] = wt[t->id].w;
}

/** race_weak_invoke - the RCU thread runs callback @seq */
void race_weak_invoke(struct race_thread *t, long seq)
{
	struct wthread *w = &wt[t->id];

	join(&w->vc, &cbc[seq % MAX_CALLBACKS]);
	join(&w->w, &cbw[seq % MAX_CALLBACKS]);
	race_weak_gp_end(t);
}

/** race_weak_invoked - a callback returned: rcu_barrier will see it */
void race_weak_invoked(struct race_thread *t)
{
	join(&cbd, &wt[t->id].vc);
	join(&cbdw, &wt[t->id].w);
}

/** race_weak_barrier_done - rcu_barrier returns: every callback done is
 * seen */
void race_weak_barrier_done(struct race_thread *t)
{
	join(&wt[t->id].vc, &cbd);
	join(&wt[t->id].w, &cbdw);
	fence_mb(&wt[t->id]);
	tick(t);
}
