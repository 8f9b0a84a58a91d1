// SPDX-License-Identifier: GPL-2.0
/*
 * lin_check.c - is one execution's history linearizable?
 *
 * The history is every operation of the execution with its result and
 * the steps it spanned: called when the trace had @inv steps, returned
 * when it had @resp.  An operation that returned before another one was
 * called (it made at least one step, and its last step came before the
 * other's call) precedes it in real time; the operations of one thread
 * follow program order; the final probes come after everything.  The
 * history is linearizable iff some sequential order of its operations
 * that keeps every such precedence, run on the model of the spec from the
 * initial state, returns exactly the results that were returned.
 *
 * The search is Wing and Gong's: extend an order with any operation whose
 * predecessors are all in it, run it on a copy of the model, keep going
 * while the results agree, back up when they do not.  A state (the set of
 * operations placed, the model) that failed once fails again: Lowe's
 * memoisation keeps a table of them, so a history of n operations costs at
 * most (states of the model) x 2^n steps, and far fewer in practice.
 */
#include <string.h>

#include "race/front/lincheck.h"

#define MEMO_SIZE	4096		/* a power of two */
#define MEMO_PROBES	16
#define EXPLAIN_NODES	20000		/* search steps spent on explaining */
#define EXPLAIN_LINES	6

typedef unsigned long long mask_t;

struct memo {
	mask_t placed;
	unsigned long long hash;
	unsigned int gen;
};

static struct memo memo[MEMO_SIZE];
static unsigned int memo_gen;

struct search {
	const struct lin_spec *spec;
	const struct lin_history *h;
	mask_t pred[LIN_MAX_CALLS];	/* the calls that must come before */
	mask_t all;
};

/* Whether call @a precedes call @b in every order (real time, program). */
static bool precedes(const struct lin_call *a, const struct lin_call *b)
{
	if (!b->thread)
		return a->thread || a < b;	/* probes: after all, in turn */
	if (!a->thread)
		return false;
	if (a->thread == b->thread)
		return a < b;
	return a->resp > a->inv && a->resp <= b->inv;
}

static void prepare(struct search *s, const struct lin_spec *spec,
		    const struct lin_history *h)
{
	int i, j;

	s->spec = spec;
	s->h = h;
	s->all = h->n == 64 ? ~0ULL : (1ULL << h->n) - 1;
	for (i = 0; i < h->n; i++) {
		s->pred[i] = 0;
		for (j = 0; j < h->n; j++)
			if (j != i && precedes(&h->c[j], &h->c[i]))
				s->pred[i] |= 1ULL << j;
	}
}

static unsigned long long hash_model(const void *model, size_t size, mask_t placed)
{
	const unsigned char *p = model;
	unsigned long long h = 1469598103934665603ULL ^ placed;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/* Whether (@placed, @hash) failed before; if not, and @add, remember it. */
static bool memo_seen(mask_t placed, unsigned long long hash, bool add)
{
	unsigned int i, slot = (unsigned int)(hash ^ (hash >> 29)) & (MEMO_SIZE - 1);
	struct memo *m;

	for (i = 0; i < MEMO_PROBES; i++) {
		m = &memo[(slot + i) & (MEMO_SIZE - 1)];
		if (m->gen != memo_gen) {
			if (add)
				*m = (struct memo){ placed, hash, memo_gen };
			return false;
		}
		if (m->placed == placed && m->hash == hash)
			return true;
	}
	return false;		/* table crowded here: search on, unmemoised */
}

/* Run call @i on a copy of @model into @next; whether its result agrees. */
static bool agrees(const struct search *s, int i, const void *model, void *next,
		   long *want)
{
	const struct lin_call *c = &s->h->c[i];

	memcpy(next, model, s->spec->model_size);
	*want = s->spec->ops[c->op].spec(next, c->thread, c->key);
	return *want == c->result;
}

/* Whether the calls not in @placed can follow, from @model. */
static bool extend(const struct search *s, mask_t placed, const void *model)
{
	unsigned char next[LIN_MAX_MODEL];
	unsigned long long hash;
	long want;
	int i;

	if (placed == s->all)
		return true;
	hash = hash_model(model, s->spec->model_size, placed);
	if (memo_seen(placed, hash, false))
		return false;
	for (i = 0; i < s->h->n; i++) {
		if (placed & (1ULL << i) || s->pred[i] & ~placed)
			continue;
		if (agrees(s, i, model, next, &want) &&
		    extend(s, placed | 1ULL << i, next))
			return true;
	}
	memo_seen(placed, hash, true);
	return false;
}

/* The model of @init, in @model. */
static void initial_model(const struct lin_spec *spec,
			  const struct lin_init *init, void *model)
{
	memset(model, 0, spec->model_size);
	spec->model_init(model, init);
}

/**
 * race_lin_linearizable - whether some order of @h's calls that respects real
 * time, run on @spec's model from @init, returns the results of @h
 */
bool race_lin_linearizable(const struct lin_spec *spec, const struct lin_init *init,
		      const struct lin_history *h)
{
	unsigned char model[LIN_MAX_MODEL];
	struct search s;

	prepare(&s, spec, h);
	initial_model(spec, init, model);
	if (!++memo_gen)
		memset(memo, 0, sizeof(memo));
	return extend(&s, 0, model);
}

/* --- explaining a failure ------------------------------------------------- */

/* Where one order went wrong: the calls placed, the one that disagreed. */
struct dead_end {
	int order[LIN_MAX_CALLS];
	int depth, call;
	long want;
};

struct explain {
	struct search s;
	int order[LIN_MAX_CALLS];
	struct dead_end worst[EXPLAIN_LINES];	/* deepest first */
	int nr_worst;
	long nodes, dead;
};

/* Keep the dead end at @depth (call @i, the spec's @want) if deep enough. */
static void note_dead_end(struct explain *e, int depth, int i, long want)
{
	int k;

	e->dead++;
	if (e->nr_worst == EXPLAIN_LINES &&
	    e->worst[EXPLAIN_LINES - 1].depth >= depth)
		return;
	k = e->nr_worst < EXPLAIN_LINES ? e->nr_worst++ : EXPLAIN_LINES - 1;
	while (k > 0 && e->worst[k - 1].depth < depth) {
		e->worst[k] = e->worst[k - 1];
		k--;
	}
	memcpy(e->worst[k].order, e->order, depth * sizeof(int));
	e->worst[k].depth = depth;
	e->worst[k].call = i;
	e->worst[k].want = want;
}

/* Every order, unmemoised and bounded, noting where each goes wrong. */
static void walk(struct explain *e, mask_t placed, int depth, const void *model)
{
	unsigned char next[LIN_MAX_MODEL];
	long want;
	int i;

	for (i = 0; i < e->s.h->n && e->nodes < EXPLAIN_NODES; i++) {
		if (placed & (1ULL << i) || e->s.pred[i] & ~placed)
			continue;
		e->nodes++;
		if (!agrees(&e->s, i, model, next, &want)) {
			note_dead_end(e, depth, i, want);
			continue;
		}
		e->order[depth] = i;
		walk(e, placed | 1ULL << i, depth + 1, next);
	}
}

/* "T1 remove(1)" or "final lookup(2)" */
static void call_name(const struct lin_spec *spec, const struct lin_call *c,
		      char *buf, size_t len)
{
	char call[40];

	race_lin_call_text(spec, c->op, c->key, call, sizeof(call));
	if (c->thread == LIN_IRQ)
		snprintf(buf, len, "IRQ1 %s", call);
	else if (c->thread)
		snprintf(buf, len, "T%d %s", c->thread, call);
	else
		snprintf(buf, len, "final %s", call);
}

/* The results: one line per call, with the steps it spanned. */
static size_t print_results(const struct lin_spec *spec,
			    const struct lin_history *h, char *buf, size_t len)
{
	char name[48], res[32], span[48];
	size_t n = 0;
	int i;

	for (i = 0; i < h->n && n < len; i++) {
		const struct lin_call *c = &h->c[i];

		call_name(spec, c, name, sizeof(name));
		race_lin_result_text(&spec->ops[c->op], c->result, res, sizeof(res));
		if (!c->thread)
			snprintf(span, sizeof(span), "after the threads returned");
		else if (c->first < 0)
			snprintf(span, sizeof(span), "no step (after step %ld)", c->inv);
		else if (c->first + 1 == c->resp)
			snprintf(span, sizeof(span), "step %ld", c->resp);
		else
			snprintf(span, sizeof(span), "steps %ld-%ld", c->first + 1,
				 c->resp);
		n += snprintf(buf + n, len - n, "\n  %-20s = %-12s %s", name,
			      res, span);
	}
	return n;
}

/* One dead end: "T1 remove(1), T2 remove(1): returned 0, the spec: -ENOENT" */
static size_t print_dead_end(const struct explain *e, const struct dead_end *d,
			     char *buf, size_t len)
{
	const struct lin_spec *spec = e->s.spec;
	const struct lin_call *c = &e->s.h->c[d->call];
	char name[48], got[32], want[32];
	size_t n;
	int k;

	n = snprintf(buf, len, "\n  ");
	for (k = 0; k < d->depth && n < len; k++) {
		call_name(spec, &e->s.h->c[d->order[k]], name, sizeof(name));
		n += snprintf(buf + n, len - n, "%s, ", name);
	}
	call_name(spec, c, name, sizeof(name));
	race_lin_result_text(&spec->ops[c->op], c->result, got, sizeof(got));
	race_lin_result_text(&spec->ops[c->op], d->want, want, sizeof(want));
	if (n < len)
		n += snprintf(buf + n, len - n, "%s: returned %s, the "
			      "specification says %s", name, got, want);
	return n;
}

/**
 * race_lin_explain - why @h is not linearizable, for a person: its results,
 * then the deepest places where the orders that respect real time go
 * wrong (the operation, what it returned, what the specification says)
 */
void race_lin_explain(const struct lin_spec *spec, const struct lin_init *init,
		 const struct lin_history *h, char *buf, size_t len)
{
	unsigned char model[LIN_MAX_MODEL];
	static struct explain e;
	size_t n;
	int k;

	memset(&e, 0, sizeof(e));
	prepare(&e.s, spec, h);
	initial_model(spec, init, model);
	walk(&e, 0, 0, model);
	n = snprintf(buf, len, "no order of these %d operations that keeps "
		     "real-time order (one that returned before another "
		     "began comes first) gives their results; initial state: "
		     "%s.\nresults:", h->n, init->about ? init->about : init->name);
	if (n < len)
		n += print_results(spec, h, buf + n, len - n);
	if (n < len)
		n += snprintf(buf + n, len - n, "\nwhy: every order goes wrong; "
			      "the furthest they get%s:", e.dead > e.nr_worst ?
			      " (the deepest of them)" : "");
	for (k = 0; k < e.nr_worst && n < len; k++)
		n += print_dead_end(&e, &e.worst[k], buf + n, len - n);
}
