// SPDX-License-Identifier: GPL-2.0
/*
 * spin.c - busy waiting: a thread that only goes round a loop that changes
 * nothing is waiting, not running.
 *
 * A loop that retries spin_trylock(), a cmpxchg that failed, a read of a
 * flag that is not set yet: on a real CPU the thread spins until another
 * CPU writes what it reads.  Run by the reproducer, each turn would be one
 * more step of the same thread, and under a preemption bound the thread
 * it waits for might never run again.  So, as CHESS's fair scheduler and
 * GenMC's spin-assume treat such loops:
 *
 *   - every step of a thread is remembered from its last one that is not
 *     an access, a lock or a read-side section's edge: what it was
 *     (label, address), what it saw, and the bytes of its location before
 *     and after it;
 *   - when the last 2L steps are one turn of L steps made twice, the same
 *     in every respect, and the step the thread is about to make is the
 *     first of that turn, the thread is spinning: a third turn would do
 *     exactly what the second did, as long as every location of the turn
 *     still holds what the second turn found there;
 *   - so the thread is held back (not runnable, and switching away from it
 *     is no preemption) until one of those locations holds something else:
 *     another thread wrote it;
 *   - when no thread can run otherwise, the hold is lifted (token.c): the
 *     spinners go round again, as a CPU would, and a loop that leaves by
 *     its own count still leaves.  Spinning on with nobody else able to
 *     run for RACE_SPIN_ALONE steps is the verdict: "livelock" when every
 *     thread left spins, "deadlock" when some wait in another model (a
 *     lock, an interrupted thread), each named with what it waits for.
 *
 * What this takes for granted: a turn that saw the same values leaves the
 * thread's own variables as it found them (a loop counted by a local
 * variable that never reaches shared memory is taken for a wait until
 * nothing else can run; it then goes on).  A held-back thread has made
 * no step, so the executions it removes are the ones in which it would
 * have repeated a turn that changed nothing: the partial-order reduction
 * sees its pending step as it is (a write of a watched location is
 * dependent with it whenever the turn has one location, which is the
 * common case: a lock word, a count, a flag).
 */
#include <stdint.h>
#include <string.h>

#include "race/models/models.h"

#define SPIN_HISTORY	64		/* steps remembered per thread */
#define SPIN_MAX_TURN	16		/* the longest turn recognised */

/* One step of a thread, as a turn of a loop is compared. */
struct spin_step {
	const char *fn, *what;
	const volatile void *addr;
	const struct race_step *trace;	/* the step as recorded */
	enum race_ref val_ref;
	long val, val_off;
	unsigned long long before, after;
	bool has_before;
	int irqs_off;
};

/* Per thread id. */
static struct spinner {
	unsigned int gen;		/* the execution it was last cleared for */
	int n;
	int turn;			/* > 0: spinning, a turn of this many steps */
	bool cur_valid;			/* cur is a step that can be in a turn */
	struct spin_step cur;		/* the step in progress */
	struct spin_step hist[SPIN_HISTORY];	/* last: rarely all touched */
} spinners[RACE_NR_SLOTS + 1];
static unsigned int spin_gen = 1;	/* this execution's (spin_reset) */

/* Nothing remembered: a thread starts its function or returns, or an
 * execution uses the spinner the first time. */
static void spinner_clear(struct spinner *s)
{
	s->n = 0;
	s->turn = 0;
	s->cur_valid = false;
}

/*
 * Thread @id's spinner, cleared if this execution has not used it yet: an
 * execution touches the spinners of the threads that run, each some 4 KB,
 * not every slot's.
 */
static struct spinner *spinner_of(int id)
{
	struct spinner *s = &spinners[id];

	if (s->gen != spin_gen) {
		spinner_clear(s);
		s->gen = spin_gen;
	}
	return s;
}

/* The 8 bytes around @addr, read around ASan (the others may be a red
 * zone): a step changes only its own location, so comparing the word
 * tells whether it did. */
__attribute__((no_sanitize_address))
static unsigned long long word_at(const volatile void *addr)
{
	return *(const volatile unsigned long long *)((uintptr_t)addr &
						      ~(uintptr_t)7);
}

/* Whether @addr lies in an object that has been freed. */
static bool freed(const volatile void *addr)
{
	const struct race_obj *o = race_obj_find(addr);

	return o && race_obj_is_freed(o);
}

/* A step whose kind can be part of a wait: an access, a lock, the edge of
 * a read-side section (anything that allocates, frees or waits for a
 * grace period ends the history). */
static bool can_turn(const struct race_footprint *fp)
{
	if (!fp->given || (fp->flags & (RACE_FP_SLAB | RACE_FP_GP)))
		return false;
	switch (fp->kind) {
	case RACE_FP_LOAD:
	case RACE_FP_STORE:
	case RACE_FP_LOCK:
	case RACE_FP_UNLOCK:
		return fp->addr != NULL;
	case RACE_FP_NONE:
	case RACE_FP_RCU_LOCK:
	case RACE_FP_RCU_UNLOCK:
		return true;
	default:
		return false;
	}
}

static bool same_step(const struct spin_step *a, const struct spin_step *b)
{
	return a->fn == b->fn && a->what == b->what && a->addr == b->addr &&
	       a->val_ref == b->val_ref && a->val == b->val &&
	       a->val_off == b->val_off && a->before == b->before &&
	       a->after == b->after && a->has_before == b->has_before &&
	       a->irqs_off == b->irqs_off;
}

/* The step @s just made is complete: remember it, or start afresh. */
static void complete(struct spinner *s, const struct race_thread *t)
{
	struct spin_step *c = &s->cur;

	if (!s->cur_valid || !t->step || (c->addr && freed(c->addr)) ||
	    (t->extra & (RACE_FP_SLAB | RACE_FP_GP))) {
		s->n = 0;
		return;
	}
	c->trace = t->step;
	c->val_ref = t->step->val_ref;
	c->val = t->step->val;
	c->val_off = t->step->val_off;
	c->after = c->addr ? word_at(c->addr) : 0;
	if (s->n == SPIN_HISTORY) {
		memmove(s->hist, s->hist + SPIN_HISTORY / 2,
			SPIN_HISTORY / 2 * sizeof(*s->hist));
		s->n = SPIN_HISTORY / 2;
	}
	s->hist[s->n++] = *c;
}

/* The first step of the last turn of @len steps that touches @addr. */
static const struct spin_step *first_in_turn(const struct spinner *s,
					     int len, const volatile void *addr)
{
	int i;

	for (i = s->n - len; i < s->n; i++)
		if (s->hist[i].addr == addr)
			return &s->hist[i];
	return NULL;
}

/* Whether a location of @t's turn holds what the last turn did not find:
 * a third turn would not be the same (another thread wrote it). */
static bool turn_changed(const struct spinner *s)
{
	const struct spin_step *f;
	int i;

	for (i = s->n - s->turn; i < s->n; i++) {
		if (!s->hist[i].addr)
			continue;
		f = first_in_turn(s, s->turn, s->hist[i].addr);
		if (f != &s->hist[i])
			continue;	/* a location counts once */
		if (freed(f->addr) || word_at(f->addr) != f->before)
			return true;
	}
	return false;
}

/* Whether the last 2 * @len steps are one turn made twice, the step in
 * progress (not made yet) starts it again, and every location it touches has its
 * bytes before each step known. */
static bool repeats(const struct spinner *s, int len)
{
	const struct spin_step *h = s->hist + s->n - 2 * len;
	bool watches = false;
	int i;

	if (h[len].fn != s->cur.fn || h[len].what != s->cur.what ||
	    h[len].addr != s->cur.addr || h[len].irqs_off != s->cur.irqs_off)
		return false;
	for (i = 0; i < len; i++) {
		if (!same_step(&h[i], &h[len + i]))
			return false;
		if (h[len + i].addr && !h[len + i].has_before)
			return false;
		watches |= h[len + i].addr != NULL;
	}
	return watches;
}

/* The length of the turn the step in progress starts a third time, or 0. */
static int find_turn(const struct spinner *s)
{
	int len;

	for (len = 1; len <= SPIN_MAX_TURN && 2 * len <= s->n; len++)
		if (repeats(s, len))
			return len;
	return 0;
}

/*
 * @t is at a point, its footprint given: complete its last step, then see
 * whether the step it is about to make starts a turn that changes nothing.
 */
static void spin_arrive(struct race_thread *t)
{
	struct spinner *s = spinner_of(t->id);

	if (s->cur_valid || t->step)
		complete(s, t);
	s->turn = 0;
	s->cur_valid = can_turn(&t->fp);
	if (!s->cur_valid) {
		s->n = 0;
		return;
	}
	s->cur = (struct spin_step){
		.fn = t->fn, .what = t->what,
		.addr = t->fp.kind == RACE_FP_NONE ||
			t->fp.kind == RACE_FP_RCU_LOCK ||
			t->fp.kind == RACE_FP_RCU_UNLOCK ? NULL : t->fp.addr,
		.irqs_off = race_irqs_off(t->id),
	};
	s->turn = find_turn(s);
}

/**
 * race_spin_before - the calling thread is about to make the access (or
 * take the lock) of its step at @addr: the bytes there before it
 */
void race_spin_before(const struct race_thread *t, const volatile void *addr)
{
	struct spinner *s = spinner_of(t->id);

	if (s->cur_valid && s->cur.addr == addr) {
		s->cur.before = word_at(addr);
		s->cur.has_before = true;
	}
}

/* @t is spinning: a turn that would change nothing, and nothing changed. */
static bool spinning(const struct race_thread *t)
{
	const struct spinner *s = spinner_of(t->id);

	return s->turn && !turn_changed(s);
}

/* "T1 spins in f.what, waiting for a write to @2 (read 0 there); " */
static int spin_why(const struct race_thread *t, char *buf, size_t len)
{
	const struct spinner *s = spinner_of(t->id);
	const struct spin_step *h = s->hist + s->n - s->turn;
	char name[48], where[48];
	size_t n;
	int i;

	race_thread_who(t->id, name, sizeof(name));
	n = snprintf(buf, len, "%s spins in %s.%s (a turn of %d step%s that "
		     "changes nothing), waiting for a write to", name, t->fn,
		     t->what, s->turn, s->turn > 1 ? "s" : "");
	for (i = 0; i < s->turn && n < len; i++) {
		if (!h[i].addr || first_in_turn(s, s->turn, h[i].addr) != &h[i])
			continue;
		race_step_addr(h[i].trace, where, sizeof(where));
		n += snprintf(buf + n, len - n, " %s", where);
	}
	if (n < len)
		n += snprintf(buf + n, len - n, " that no other thread makes; ");
	return n < len ? (int)n : (int)len - 1;
}

static void spin_forget(struct race_thread *t)
{
	spinner_clear(spinner_of(t->id));
}

static void spin_exit(const struct race_thread *t)
{
	spin_forget(race_thread_get(t->id));
}

/* A new execution: every spinner is cleared before its first use. */
static void spin_reset(void)
{
	spin_gen++;
}

RACE_MODEL(spin_model) = {
	.name	= "spin",
	.reset	= spin_reset,
	.arrive	= spin_arrive,
	.holds	= spinning,
	.why	= spin_why,
	.yields	= true,
	.begin	= spin_forget,
	.exit	= spin_exit,
};
