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
 *    goes after every store of the location its thread has seen (CoWW,
 *    CoRW), and anywhere among the newer ones it has not -- which place is
 *    a choice, like a load's (the LKMM's coherence order need not be the
 *    order the stores were made: S, 2+2W) -- but never between an update
 *    and the store it read;
 *  - happens-before: what a thread synchronizes with, it has seen.  Each
 *    thread has a vector clock; each store records, per thread, the epoch
 *    at which that thread first saw it (wrote or read it), as loom does.
 *    A store is too old for a load if a newer store of the same location
 *    was seen by some thread at an epoch the loading thread's clock
 *    covers;
 *  - release/acquire: a release store (smp_store_release,
 *    rcu_assign_pointer, spin_unlock, a fully ordered atomic) carries its
 *    thread's clock; an acquire load (smp_load_acquire, spin_lock,
 *    spin_trylock, a fully ordered atomic) that reads it joins that clock,
 *    and the thread's later stores carry it (happens-before runs through
 *    a read of them), though not its earlier ones;
 *  - locks: spin_lock is an acquire update of the lock word, whose store
 *    of 1 is in the word's history like any other; spin_unlock a release
 *    update.  A spin_lock after a spin_unlock of the same thread (any
 *    lock) orders what came before the unlock before what comes after the
 *    lock, for every CPU (the LKMM's po-unlock-lock-po);
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
 *    seen after it).  rcu_barrier joins the clocks of the callbacks done;
 *  - plain accesses (RACE_PLAIN: a litmus test's *x, the labs' own loads,
 *    stores and memcpy through plain.c): two accesses of different
 *    threads to one location, one of them a store and one of them plain,
 *    the earlier not ordered before the later, are the LKMM's data race,
 *    the verdict "data-race".
 *
 * A load never reads a value no store wrote (no out-of-thin-air): the
 * values are the stores of the history.  Loads read only stores already
 * made, so a load is never satisfied by a later store of its own thread or
 * of another: load buffering (LB) is left to the litmus front end, which
 * runs a test in each program order where a store passes earlier loads it
 * does not depend on (tools/litmus_parse.py); compiled code runs in its
 * own order.
 *
 * How the primitives get the value without knowing it: race_access()
 * copies the aligned 8-byte word that holds the chosen store into memory
 * just before the primitive's own load, and race_seen() puts the newest
 * back, so the primitive loads the old value itself, typed as it is.
 * Memory therefore always holds the newest store of every location
 * between accesses, and an update (which reads the newest) needs nothing.
 * A plain C store the model did not hear of (code built without plain.c's
 * callbacks: common/, a gcc build) changes a word behind its back: when a
 * location's word no longer holds what the model last left there, every
 * location of that word starts a new history from its bytes (seen by
 * everybody at once), and so do the locations of an object that is
 * allocated or freed.
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
	bool rmw;			/* an update: glued to the store it read */
	bool plain;			/* a plain C store (RACE_PLAIN) */
	bool between;			/* made after its step, not at it */
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
	unsigned int rd[NSLOT];		/* epoch of each thread's last load, +1 */
	unsigned int prd[NSLOT];	/* ... of its last plain load, +1 */
	long rdstep[NSLOT], prdstep[NSLOT];	/* their steps */
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
	struct clock unl, unlw;		/* what its last spin_unlock carried */
	bool unlocked;			/* it has made one */
	struct dep deps[MAX_DEPS];
	int nr_deps, next_dep;
	/* between race_access() and race_seen() */
	bool in_access;
	unsigned int how;
	uintptr_t wa;
	int loc, read;
	unsigned long long w0;
	bool swapped;
	struct clock ec, ew;	/* vc and w with the dependencies joined */
};

/*
 * An execution's locations and words, dense in the order it first touched
 * them, found by their address through a hash index with twice as many
 * entries as are used, doubled as it fills (from 256; it keeps its size
 * from one execution to the next).  (An index sized for the most an
 * execution may use, HASH_SIZE, spread the lookups of each new search
 * process over its pages, a page fault apiece: 13 us or more each on the
 * kit's VMs, about 130 a search of two_lookups_vs_delete.)
 */
struct hindex {
	unsigned int gen;		/* the execution it was set in */
	int n;				/* the slot's place in the dense array */
};
struct hash {
	struct hindex *index;		/* mapped memory (race_vmem_resize) */
	unsigned int size;		/* a power of two */
};
static struct loc locs[HASH_SIZE / 2];
static struct word words[HASH_SIZE / 2];
static struct hash loc_hash, word_hash;
static int nr_used_locs, nr_used_words;
static unsigned int gen;

static struct store *stores;
static long nr_stores, cap_stores;
static int *cand;			/* a load's candidates, newest first */
static long *cand_steps, cap_cand, cap_cand_steps;

static struct wthread wt[NSLOT];

/*
 * The plain C store (or range of them: memcpy, memset) a thread is making
 * (race_weak_plain): the compiler's callback comes before the store, so
 * the bytes it leaves are read at the next call into the model, which
 * comes after it (one thread runs at a time).
 */
static struct {
	int thread;			/* 0: none */
	uintptr_t addr;
	size_t size, unit;
	unsigned int epoch;
	long step;
} pending;

static void flush_plain(void);
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

/* @a's first entry in an index of @size entries. */
static unsigned int hash(uintptr_t a, unsigned int size)
{
	return (unsigned int)((a * 0x9e3779b97f4a7c15ULL) >> 40) & (size - 1);
}

/* @key's entry in @hs: where it is, or the free one that ends its chain. */
static struct hindex *hash_entry(const struct hash *hs, const void *table,
				 size_t stride, uintptr_t key)
{
	unsigned int h = hash(key, hs->size);
	const struct slot *s;

	for (;; h = (h + 1) & (hs->size - 1)) {
		if (hs->index[h].gen != gen)
			return &hs->index[h];
		s = (const struct slot *)((const char *)table + hs->index[h].n * stride);
		if (s->key == key)
			return &hs->index[h];
	}
}

/* @hs doubled (or made), the @nr_used slots of @table in it again. */
static void hash_grow(struct hash *hs, const void *table, size_t stride,
		      int nr_used)
{
	struct hash old = *hs;
	struct hindex *e;
	int i;

	hs->size = old.size ? 2 * old.size : 256;
	hs->index = race_vmem_resize(NULL, 0, hs->size * sizeof(*hs->index));
	for (i = 0; i < nr_used; i++) {
		e = hash_entry(hs, table, stride, ((const struct slot *)
				((const char *)table + i * stride))->key);
		e->gen = gen;
		e->n = i;
	}
	race_vmem_free(old.index, old.size * sizeof(*old.index));
}

/*
 * The slot of @key in @table (dense, @stride bytes each, starting with a
 * struct slot; *@nr_used taken in this execution, found through @hs),
 * taken for it if @create; NULL if absent.
 */
static struct slot *probe(void *table, size_t stride, struct hash *hs, int *nr_used,
			  uintptr_t key, bool create, const char *what)
{
	struct hindex *e;
	struct slot *s;

	if (!hs->size || (create && 2 * (*nr_used + 1) > (int)hs->size))
		hash_grow(hs, table, stride, *nr_used);
	e = hash_entry(hs, table, stride, key);
	if (e->gen == gen)
		return (struct slot *)((char *)table + e->n * stride);
	if (!create)
		return NULL;
	if (*nr_used >= HASH_SIZE / 2)
		race_fail("bug", "the weak memory model tracks at most %d %s "
			  "per execution", HASH_SIZE / 2, what);
	e->gen = gen;
	e->n = *nr_used;
	s = (struct slot *)((char *)table + (*nr_used)++ * stride);
	memset(s, 0, stride);
	s->key = key;
	s->gen = gen;
	return s;
}

/* The location at @addr, new if @create. */
static struct loc *loc_find(const volatile void *addr, bool create)
{
	return (struct loc *)probe(locs, sizeof(*locs), &loc_hash, &nr_used_locs,
				   (uintptr_t)addr, create, "locations");
}

/* The aligned word at @a. */
static struct word *word_find(uintptr_t a)
{
	return (struct word *)probe(words, sizeof(*words), &word_hash,
				    &nr_used_words, a, true, "words");
}

/* A new store, seen by nobody yet; its index. */
static int new_store(int thread, unsigned int epoch, long step,
		     unsigned long long word)
{
	struct store *s;
	int i;

	stores = race_grow(stores, nr_stores, &cap_stores, sizeof(*stores));
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
	flush_plain();
	for (i = 0; i < nr_used_locs; i++) {
		struct loc *l = &locs[i];

		if (l->s.key >= lo && l->s.key < hi)
			l->live = false;
	}
	for (i = 0; i < nr_used_words; i++) {
		struct word *w = &words[i];

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
	pending.thread = 0;
	nr_used_locs = nr_used_words = 0;
	nr_stores = 0;
	for (i = 0; i <= race_nr_slots(); i++) {
		struct wthread *w = &wt[i];	/* its clocks; the rest is set before use */

		w->vc = w->w = w->pend = w->pendw = w->rel = w->relw = (struct clock){ { 0 } };
		w->unl = w->unlw = w->vc;
		w->unlocked = false;
		w->nr_deps = w->next_dep = 0;
		w->vc.c[i] = i ? 1 : 0;
	}
	memset(&sc, 0, sizeof(sc));
	scw = gp = gpw = rd = rdw = cbd = cbdw = sc;
}

static void weak_exit(const struct race_thread *t);

RACE_MODEL(weak_model) = {
	.name	= "weak",
	.reset	= weak_reset,
	.exit	= weak_exit,
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
		cand = race_grow(cand, n, &cap_cand, sizeof(*cand));
		cand_steps = race_grow(cand_steps, n, &cap_cand_steps,
				       sizeof(*cand_steps));
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

/* Acquire what @s carries: every later access is ordered after it, so
 * the later stores carry it too (happens-before runs through a read of
 * them), but not the thread's own earlier stores. */
static void acquire(struct wthread *w, const struct store *s)
{
	join(&w->vc, &s->c);
	join(&w->w, &s->w);
	join(&w->rel, &s->c);
	join(&w->relw, &s->w);
}

/*
 * A lock taken after a spin_unlock of the same thread (any lock): what
 * came before the unlock is ordered before what comes after the lock, for
 * every CPU (the LKMM's po-unlock-lock-po): later loads as after smp_rmb,
 * later stores carry what the unlock carried.
 */
static void unlock_lock(struct wthread *w)
{
	if (!w->unlocked)
		return;
	fence_rmb(w);
	join(&w->rel, &w->unl);
	join(&w->relw, &w->unlw);
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

/* Whether the clocks of @w cover thread @id's epoch @e (+1; 0: none). */
static bool covers(const struct wthread *w, int id, unsigned int e)
{
	return !e || w->ec.c[id] >= e - 1;
}

/* The data race the access being made has, if any (check_race). */
static char race_msg[512];
static bool raced;

/* "T2's plain store (after its step 7)" of an access by thread @id; a
 * negative @step: made after step -@step, between two points. */
static int access_name(char *buf, size_t len, int id, long step, bool plain,
		       bool store)
{
	char who[16];

	race_thread_name(id, who, sizeof(who));
	return snprintf(buf, len, "%s's %s %s (%sstep %ld)", who,
			plain ? "plain" : "marked", store ? "store" : "load",
			step < 0 ? "after its " : "", step < 0 ? -step : step);
}

/* The step of @t's access, negative if it is made between two points. */
static long access_step(const struct race_thread *t, const struct wthread *w)
{
	return w->in_access ? step_of(t) : -step_of(t);
}

/* Report the data race of the access @t makes with thread @other's. */
static void race_found(struct race_thread *t, const struct wthread *w,
		       int other, long ostep, bool oplain, bool ostore)
{
	uintptr_t a = locs[w->loc].s.key;
	const struct race_obj *o = race_obj_find((const void *)a);
	char mine[96], theirs[96], where[48];

	access_name(mine, sizeof(mine), t->id, access_step(t, w),
		    w->how & RACE_PLAIN, w->how & RACE_STORE);
	access_name(theirs, sizeof(theirs), other, ostep, oplain, ostore);
	if (o)
		snprintf(where, sizeof(where), "obj#%lu+%ld", race_obj_id(o),
			 race_obj_offset(o, (const void *)a));
	else
		snprintf(where, sizeof(where), "%#lx", (unsigned long)a);
	snprintf(race_msg, sizeof(race_msg), "data race on %s: %s and %s, one "
		 "of them plain, are not ordered (the LKMM's data-race flag)",
		 where, mine, theirs);
	raced = true;
}

/*
 * The LKMM's data race: two accesses of different threads to one
 * location, one of them a store and one of them plain, neither ordered
 * before the other.  The earlier one is not ordered before the access @t
 * is making if its clocks do not cover it: a store newer than the last
 * one the thread is forced to have seen, a load at an epoch they do not
 * cover.  The caller reports it (race_weak_access, race_weak_plain return
 * it): the verdict "data-race", or, in a scenario whose .warns is
 * RACE_WARNS_CHECKED, a note like a WARN.
 */
static void check_race(struct race_thread *t, struct wthread *w,
		       const struct loc *l)
{
	bool plain = w->how & RACE_PLAIN, oplain = false, ostore = true;
	int i, other = 0;
	long ostep = 0;

	for (i = l->newest; i >= 0 && !other; i = stores[i].older) {
		if (observed(&stores[i], &w->ec, &w->ew))
			break;
		if (stores[i].thread != t->id && (plain || stores[i].plain)) {
			other = stores[i].thread;
			ostep = stores[i].between ? -stores[i].step : stores[i].step;
			oplain = stores[i].plain;
		}
	}
	for (i = 1; i < NSLOT && !other && (w->how & RACE_STORE); i++)
		if (i != t->id && !covers(w, i, plain ? l->rd[i] : l->prd[i])) {
			other = i;
			oplain = !covers(w, i, l->prd[i]);
			ostep = oplain ? l->prdstep[i] : l->rdstep[i];
			ostore = false;
		}
	if (other)
		race_found(t, w, other, ostep, oplain, ostore);
}

/* A load of @l by @t: a later store of another thread may race with it. */
static void note_load(struct race_thread *t, const struct wthread *w,
		      struct loc *l)
{
	l->rd[t->id] = w->vc.c[t->id] + 1;
	l->rdstep[t->id] = access_step(t, w);
	if (w->how & RACE_PLAIN) {
		l->prd[t->id] = l->rd[t->id];
		l->prdstep[t->id] = l->rdstep[t->id];
	}
}

/**
 * race_weak_access - thread @t is about to access @addr (race_access)
 *
 * A load chooses the store it reads, and finds it in memory when it
 * loads; anything else needs nothing before the access.  Returns the
 * data race the access has with another thread's (one line), or NULL.
 */
const char *race_weak_access(struct race_thread *t, const volatile void *addr,
			     unsigned int how)
{
	struct wthread *w = &wt[t->id];
	struct loc *l;

	raced = false;
	flush_plain();
	w->in_access = true;
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
	check_race(t, w, l);
	if (how & RACE_LOAD)
		note_load(t, w, l);
	if ((how & RACE_RMW) == RACE_LOAD)
		choose_read(t, w);
	return raced ? race_msg : NULL;
}

/* rcu_dereference heads an address dependency, as READ_ONCE does. */
static bool acquires(const struct race_thread *t, unsigned int how)
{
	return (how & RACE_ACQUIRE) && !race_streq(t->what, "rcu_dereference");
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

/*
 * Where the store @t is making goes in its location's coherence order:
 * after every store its thread is forced to have seen, and anywhere among
 * the newer ones it has not (the LKMM's coherence order need not be the
 * order the stores were made: S, 2+2W), but never between an update and
 * the store it read.  A choice like a load's, the store being named by
 * the one it goes right after; the default, 0, is the newest end.
 * Returns the store it goes after, -1 for the newest end.
 */
static int place(struct race_thread *t, struct wthread *w)
{
	struct race_read r;
	int n, i, k = 1;

	n = candidates(&locs[w->loc], w);
	for (i = 1; i < n; i++)
		if (!stores[cand[i - 1]].rmw) {
			cand[k] = cand[i];
			cand_steps[k++] = cand_steps[i];
		}
	if (k < 2)
		return -1;
	r.step = step_of(t);
	r.nr = k;
	r.steps = cand_steps;
	i = race_sched_pick_read(&r);
	return i ? cand[i] : -1;
}

/* Put the newest store @n of @l right after store @after instead. */
static void move_after(struct race_thread *t, struct loc *l, int n, int after)
{
	int next = stores[n].older;

	l->newest = next;
	while (stores[next].older != after)
		next = stores[next].older;
	stores[n].older = after;
	stores[next].older = n;
	if (t->step)
		race_trace_placed(t->step, stores[after].step, stores[next].step,
				  stores[next].known, stores[next].value);
}

/* A store is done (WRITE_ONCE, atomic_set, smp_store_release, ...). */
static void store_done(struct race_thread *t, struct wthread *w, long value)
{
	int after = place(t, w);
	struct store *s = store_new(t, w, word_get(w->wa),
				    w->how & RACE_RELEASE);

	s->value = value;
	s->known = true;
	s->plain = w->how & RACE_PLAIN;
	if (after < 0)
		return;
	move_after(t, &locs[w->loc], s - stores, after);
	word_put(w->wa, w->w0);		/* memory holds the newest */
	word_find(w->wa)->expect = w->w0;
}

/*
 * An update is done: it read the newest store and, if it changed the
 * bytes, made a new one.  Fully ordered: smp_mb on both sides.
 */
static void rmw_done(struct race_thread *t, struct wthread *w)
{
	unsigned long long now = word_get(w->wa);
	int last_n = locs[w->loc].newest;
	struct store *last = &stores[last_n], *s;
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
	if (race_streq(t->what, "spin_trylock"))
		unlock_lock(w);
	s = store_new(t, w, now, w->how & RACE_RELEASE);
	last = &stores[last_n];		/* stores[] may have moved */
	s->rmw = true;
	join(&s->c, &last->c);		/* the LKMM's rmw-sequence */
	join(&s->w, &last->w);
	if (race_streq(t->what, "spin_unlock")) {
		w->unl = s->c;
		w->unlw = s->w;
		w->unlocked = true;
	}
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

	w->in_access = false;
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

	flush_plain();
	if ((how & RACE_FULL) == RACE_FULL)
		fence_mb(w);
	else if (how & RACE_STORE)
		fence_wmb(w, t->id);
	else
		fence_rmb(w);
	tick(t);
}

/**
 * race_weak_lock_acquired - spin_lock is about to take the lock at @word
 * (an int, free now): an acquire update of the word
 *
 * It reads the newest store (the last spin_unlock, or the initial value)
 * and acquires what that released; its store of 1 goes into the word's
 * history like any store, so a spin_is_locked() that nothing orders after
 * it may still read the word from before.  spin_lock's own exchange,
 * right after, then finds the word as the model left it.
 */
void race_weak_lock_acquired(struct race_thread *t, const volatile void *word)
{
	struct wthread *w = &wt[t->id];
	const int one = 1;
	struct store *last, *s;
	unsigned long long next;
	struct loc *l;
	int last_n;

	flush_plain();
	w->wa = (uintptr_t)word & ~(uintptr_t)7;
	w->w0 = word_get(w->wa);
	check_word(w->wa, w->w0);
	l = loc_find(word, true);
	if (!l->live)
		loc_restart(l, w->w0);
	w->loc = l - locs;
	last_n = l->newest;
	last = &stores[last_n];
	see(last, t->id);
	acquire(w, last);
	unlock_lock(w);
	next = w->w0;
	memcpy((char *)&next + ((uintptr_t)word - w->wa), &one, sizeof(one));
	s = store_new(t, w, next, false);
	last = &stores[last_n];		/* stores[] may have moved */
	s->rmw = true;
	s->value = 1;
	s->known = true;
	join(&s->c, &last->c);
	join(&s->w, &last->w);
	tick(t);
}

/** race_weak_rcu_read_lock - a reader section begins: it sees what was
 * before every grace period that has started */
void race_weak_rcu_read_lock(struct race_thread *t)
{
	flush_plain();
	join(&wt[t->id].vc, &gp);
	join(&wt[t->id].w, &gpw);
	tick(t);
}

/** race_weak_rcu_read_unlock - a reader section ends: grace periods that
 * end after this see what it did */
void race_weak_rcu_read_unlock(struct race_thread *t)
{
	flush_plain();
	join(&rd, &wt[t->id].vc);
	join(&rdw, &wt[t->id].w);
	tick(t);
}

/** race_weak_gp_start - synchronize_rcu begins: a full fence, and readers
 * that begin from now on see what came before */
void race_weak_gp_start(struct race_thread *t)
{
	flush_plain();
	fence_mb(&wt[t->id]);
	join(&gp, &wt[t->id].vc);
	join(&gpw, &wt[t->id].w);
	tick(t);
}

/** race_weak_gp_end - the grace period has elapsed: what the readers did
 * is seen, then a full fence */
void race_weak_gp_end(struct race_thread *t)
{
	flush_plain();
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
	flush_plain();
	join(&cbd, &wt[t->id].vc);
	join(&cbdw, &wt[t->id].w);
}

/** race_weak_barrier_done - rcu_barrier returns: every callback done is
 * seen */
void race_weak_barrier_done(struct race_thread *t)
{
	flush_plain();
	join(&wt[t->id].vc, &cbd);
	join(&wt[t->id].w, &cbdw);
	fence_mb(&wt[t->id]);
	tick(t);
}

/* The unit of a plain range at @addr of @size bytes: 8, 4, 2 or 1. */
static size_t unit_of(uintptr_t addr, size_t size)
{
	size_t u = 8;

	while (u > 1 && ((addr | size) & (u - 1)))
		u /= 2;
	return u;
}

/* The pending plain store is made: each of its locations has it. */
static void flush_plain(void)
{
	struct wthread *w;
	struct store *s;
	uintptr_t a;
	struct loc *l;
	int n;

	if (!pending.thread)
		return;
	w = &wt[pending.thread];
	for (a = pending.addr; a < pending.addr + pending.size; a += pending.unit) {
		l = loc_find((const void *)a, false);
		if (!l || !l->live)
			continue;
		n = new_store(pending.thread, pending.epoch, pending.step,
			      word_get(a & ~(uintptr_t)7));
		s = &stores[n];
		s->plain = true;
		s->between = true;
		s->c = w->rel;
		s->w = w->relw;
		append(l, n);
		word_find(a & ~(uintptr_t)7)->expect = s->word;
	}
	pending.thread = 0;
}

/* One plain access of @t to the location at @a: races, and what it saw. */
static void plain_one(struct race_thread *t, struct wthread *w, uintptr_t a,
		      size_t unit)
{
	struct loc *l;

	w->wa = a & ~(uintptr_t)7;
	w->w0 = word_get(w->wa);
	check_word(w->wa, w->w0);
	l = loc_find((const void *)a, true);
	if (!l->live)
		loc_restart(l, w->w0);
	w->loc = l - locs;
	effective(w, a);
	check_race(t, w, l);
	if (w->how & RACE_STORE)
		return;
	note_load(t, w, l);
	see(&stores[l->newest], t->id);
	learn(w, &stores[l->newest]);
	if (unit == 8)
		add_dep(w, (long)w->w0, &stores[l->newest]);
}

/**
 * race_weak_plain - thread @t is about to make plain C accesses to
 * @addr..+@size: loads, or stores if @store (the compiler's callbacks,
 * plain.c)
 *
 * A plain load reads the newest store: were there an older one it could
 * read, a store it is not ordered after, that would be a data race, which
 * ends the execution first.  A plain store goes into the history of each
 * location it covers (naturally aligned units of up to 8 bytes) once it is
 * made.  The accesses of a marked primitive, between race_access() and
 * race_seen(), are not plain: they are ignored here.  Returns the first
 * data race of the accesses, or NULL.
 */
const char *race_weak_plain(struct race_thread *t, const volatile void *addr,
			    size_t size, bool store)
{
	struct wthread *w = &wt[t->id];
	uintptr_t a = (uintptr_t)addr;
	size_t unit = unit_of(a, size);
	uintptr_t i;

	if (w->in_access)
		return NULL;
	raced = false;
	flush_plain();
	w->how = (store ? RACE_STORE : RACE_LOAD) | RACE_PLAIN;
	for (i = a; i < a + size; i += unit)
		plain_one(t, w, i, unit);
	if (store) {
		pending.thread = t->id;
		pending.addr = a;
		pending.size = size;
		pending.unit = unit;
		pending.epoch = w->vc.c[t->id];
		pending.step = step_of(t);
	}
	tick(t);
	return raced ? race_msg : NULL;
}

/* A thread returned: its last plain store is made. */
static void weak_exit(const struct race_thread *t __maybe_unused)
{
	flush_plain();
}
