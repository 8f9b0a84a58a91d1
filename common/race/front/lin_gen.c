// SPDX-License-Identifier: GPL-2.0
/*
 * lin_gen.c - scenarios generated from a lab's table of operations, and
 * their names.
 *
 * From each initial state of a spec: every pair of operations (on every
 * key), one per thread -- the same key at the same time, each operation
 * against each other one -- explored within the spec's pairs bound (2 by
 * default); then a fixed number of scenarios of 2 or 3 threads with 1 to 3
 * operations each, drawn from a generator seeded with the spec's name, so
 * that a suite is the same list in every run (no test here depends on
 * chance or on time), explored within the random bound (1 by default).
 * An operation that drops or uses a reference (LIN_DROPS, LIN_NEEDS) is
 * generated only where its thread may hold one: taken by an earlier operation of that thread on
 * the same key, or given by the initial state.
 *
 * A spec with interrupt operations (.irq_ops) also gets every operation of
 * T1 against every one of its interrupt's, within the pairs bound, and
 * drawn scenarios get an interrupt of T1 one time in two; a spec's
 * .shapes are added as named.
 *
 * A generated scenario's name says all of it, so that it can be run or
 * replayed by name:  lin:<spec>:<init>:<T1 ops>|<T2 ops>[|<T3 ops>]
 * [!<IRQ1's ops>], operations joined by '+':
 * lin:cache:key1:lookup(1)+put(1)|remove(1), lin:hashlock:same:get(1)!put(2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "race/front/lincheck.h"

#define LIN_MAX_SPECS	8

extern const struct lin_spec *const __start_race_lin_specs[] __attribute__((weak));
extern const struct lin_spec *const __stop_race_lin_specs[] __attribute__((weak));

const struct lin_name race_lin_errno_names[] = {
	{ 0, "0" }, { -ENOENT, "-ENOENT" }, { -EEXIST, "-EEXIST" },
	{ -ENOMEM, "-ENOMEM" }, { -EBUSY, "-EBUSY" }, { 0, NULL },
};

static const struct lin_spec *specs[LIN_MAX_SPECS];
static int nr_specs = -1;

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct lin_spec *const *)a)->name,
		      (*(const struct lin_spec *const *)b)->name);
}

/* The registered specs, sorted by name, gathered once. */
static void gather(void)
{
	const struct lin_spec *const *p;

	if (nr_specs >= 0)
		return;
	nr_specs = 0;
	for (p = __start_race_lin_specs; p && p < __stop_race_lin_specs &&
	     nr_specs < LIN_MAX_SPECS; p++)
		specs[nr_specs++] = *p;
	qsort(specs, nr_specs, sizeof(specs[0]), by_name);
}

/** race_lin_specs_count - how many specs the binary registers */
int race_lin_specs_count(void)
{
	gather();
	return nr_specs;
}

/** race_lin_spec_at - the @i-th spec by name */
const struct lin_spec *race_lin_spec_at(int i)
{
	gather();
	return specs[i];
}

/** race_lin_spec_find - the spec whose name is the @len bytes at @name, or NULL */
const struct lin_spec *race_lin_spec_find(const char *name, size_t len)
{
	int i;

	gather();
	for (i = 0; i < nr_specs; i++)
		if (strlen(specs[i]->name) == len && !strncmp(specs[i]->name, name, len))
			return specs[i];
	return NULL;
}

/* --- generating -------------------------------------------------------------- */

static unsigned long long rng;

/* xorshift64*, seeded by the spec's name: the same scenarios every run */
static long below(long n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (long)((rng * 2685821657736338717ULL) % (unsigned long long)n);
}

static void seed(const char *name)
{
	rng = 1469598103934665603ULL;
	for (; *name; name++)
		rng = (rng ^ (unsigned char)*name) * 1099511628211ULL;
}

static bool op_allowed(const struct lin_init *init, int op)
{
	return !init->ops || init->ops & (1u << op);
}

/* The operations of thread @t (0-based; LIN_IRQ: T1's interrupt) of @s. */
static const struct lin_call_desc *ops_of(const struct lin_scenario *s, int t)
{
	return t == LIN_IRQ ? s->irq : s->ops[t];
}

/* Whether thread @t (0-based, or LIN_IRQ) of @s may hold a reference of
 * @key before its operation @i: the initial state's, and those its
 * earlier ones took. */
static bool may_hold(const struct lin_scenario *s, int t, int i, int key)
{
	const struct lin_call_desc *ops = ops_of(s, t);
	int j, n = key || t == LIN_IRQ ? 0 : s->init->held[t];

	for (j = 0; j < i; j++) {
		unsigned int f = s->spec->ops[ops[j].op].flags;

		if (ops[j].key != key)
			continue;
		n += !!(f & LIN_TAKES) - !!(f & LIN_DROPS);
	}
	return n > 0;
}

/* The (op, key) items @s's thread @t (or LIN_IRQ) may run as its operation @i. */
static int items(const struct lin_scenario *s, int t, int i,
		 struct lin_call_desc *out)
{
	const struct lin_spec *spec = s->spec;
	int op, key, n = 0;

	for (op = 0; op < spec->nr_ops; op++) {
		unsigned int f = spec->ops[op].flags;

		if (!op_allowed(s->init, op) ||
		    (t == LIN_IRQ && !(spec->irq_ops & (1u << op))))
			continue;
		for (key = f & LIN_KEYED ? 1 : 0;
		     key <= (f & LIN_KEYED ? spec->keys : 0); key++) {
			if (f & (LIN_DROPS | LIN_NEEDS) && !may_hold(s, t, i, key))
				continue;
			out[n].op = op;
			out[n++].key = key;
		}
	}
	return n;
}

static int pairs_bound(const struct lin_spec *spec)
{
	return spec->pairs_bound ? spec->pairs_bound : 2;
}

static int random_bound(const struct lin_spec *spec)
{
	return spec->random_bound ? spec->random_bound : 1;
}

/* Every pair of items of @init, one per thread; returns how many fit. */
static int gen_pairs(const struct lin_spec *spec, const struct lin_init *init,
		     struct lin_scenario *out, int max)
{
	struct lin_call_desc a[LIN_MAX_OPS * 3], b[LIN_MAX_OPS * 3];
	struct lin_scenario s = { .spec = spec, .init = init, .nr_threads = 2,
				  .nr_ops = { 1, 1 }, .bound = pairs_bound(spec) };
	int na = items(&s, 0, 0, a), nb = items(&s, 1, 0, b), i, j, n = 0;
	bool same = init->held[0] == init->held[1];

	for (i = 0; i < na; i++)
		for (j = 0; j < nb && n < max; j++) {
			if (same && j < i)
				continue;	/* T1, T2 alike: each pair once */
			s.ops[0][0] = a[i];
			s.ops[1][0] = b[j];
			race_lin_name(&s);
			out[n++] = s;
		}
	if (!spec->irq_ops)
		return n;
	s.nr_threads = 1;		/* T1 and its interrupt */
	s.nr_irq = 1;
	nb = items(&s, LIN_IRQ, 0, b);
	for (i = 0; i < na; i++)
		for (j = 0; j < nb && n < max; j++) {
			s.ops[0][0] = a[i];
			s.irq[0] = b[j];
			race_lin_name(&s);
			out[n++] = s;
		}
	return n;
}

/* One scenario of 2-3 threads with 1-3 operations each, drawn. */
static void gen_random(const struct lin_spec *spec, struct lin_scenario *s)
{
	struct lin_call_desc c[LIN_MAX_OPS * 3];
	int t, i, n;

	memset(s, 0, sizeof(*s));
	s->spec = spec;
	s->init = &spec->inits[below(spec->nr_inits)];
	s->nr_threads = 2 + below(2);
	s->bound = random_bound(spec);
	for (t = 0; t < s->nr_threads; t++) {
		int want = 1 + below(LIN_MAX_PER_THREAD);

		for (i = 0; i < want; i++) {
			n = items(s, t, i, c);
			if (!n)
				break;
			s->ops[t][i] = c[below(n)];
			s->nr_ops[t]++;
		}
	}
	for (i = 0, n = spec->irq_ops && below(2) ? 1 + below(2) : 0; i < n; i++) {
		int k = items(s, LIN_IRQ, i, c);

		if (!k)
			break;
		s->irq[s->nr_irq++] = c[below(k)];
	}
	race_lin_name(s);
}

/* The spec's named shapes into @out; returns how many fit. */
static int gen_shapes(const struct lin_spec *spec, struct lin_scenario *out,
		      int max)
{
	char name[LIN_NAME_LEN];
	int i, n = 0;

	for (i = 0; spec->shapes && spec->shapes[i] && n < max; i++) {
		snprintf(name, sizeof(name), "lin:%s:%s", spec->name, spec->shapes[i]);
		if (race_lin_parse(name, &out[n]))
			n++;
		else
			fprintf(stderr, "race: spec %s: shape '%s' is no scenario "
				"of it\n", spec->name, spec->shapes[i]);
	}
	return n;
}

/**
 * race_lin_generate - the scenarios of @spec, in their fixed order, into @out
 *
 * Returns how many (at most @max).
 */
int race_lin_generate(const struct lin_spec *spec, struct lin_scenario *out, int max)
{
	int i, n = 0, r = spec->random ? spec->random : 24;

	for (i = 0; i < spec->nr_inits; i++)
		n += gen_pairs(spec, &spec->inits[i], out + n, max - n);
	n += gen_shapes(spec, out + n, max - n);
	seed(spec->name);
	for (i = 0; i < r && n < max && spec->random >= 0; i++)
		gen_random(spec, &out[n++]);
	return n;
}

/* --- names ----------------------------------------------------------------- */

/** race_lin_call_text - "insert(1)", or "get_rcu" for an operation without key */
void race_lin_call_text(const struct lin_spec *spec, int op, int key, char *buf,
		   size_t len)
{
	if (spec->ops[op].flags & LIN_KEYED)
		snprintf(buf, len, "%s(%d)", spec->ops[op].name, key);
	else
		snprintf(buf, len, "%s", spec->ops[op].name);
}

/** race_lin_result_text - how @op's @result reads ("hit", "-ENOENT", "2") */
void race_lin_result_text(const struct lin_op *op, long result, char *buf, size_t len)
{
	const struct lin_name *n;

	if (result == LIN_NOTHING) {
		snprintf(buf, len, "nothing held");
		return;
	}
	for (n = op->names ? op->names : race_lin_errno_names; n->text; n++)
		if (n->value == result) {
			snprintf(buf, len, "%s", n->text);
			return;
		}
	snprintf(buf, len, "%ld", result);
}

/** race_lin_name - @s's name, from its spec, initial state and operations */
void race_lin_name(struct lin_scenario *s)
{
	char call[32];
	size_t n;
	int t, i;

	n = snprintf(s->name, sizeof(s->name), "lin:%s:%s:", s->spec->name,
		     s->init->name);
	for (t = 0; t < s->nr_threads && n < sizeof(s->name); t++)
		for (i = 0; i < s->nr_ops[t] && n < sizeof(s->name); i++) {
			race_lin_call_text(s->spec, s->ops[t][i].op, s->ops[t][i].key,
				      call, sizeof(call));
			n += snprintf(s->name + n, sizeof(s->name) - n, "%s%s",
				      i ? "+" : t ? "|" : "", call);
		}
	for (i = 0; i < s->nr_irq && n < sizeof(s->name); i++) {
		race_lin_call_text(s->spec, s->irq[i].op, s->irq[i].key, call,
				   sizeof(call));
		n += snprintf(s->name + n, sizeof(s->name) - n, "%s%s",
			      i ? "+" : "!", call);
	}
}

/* The operation called @text ("insert(1)", "get_rcu") into @d; 0 if none. */
static int parse_call(const struct lin_spec *spec, const char *text,
		      size_t len, struct lin_call_desc *d)
{
	char want[32];
	int op, key;

	for (op = 0; op < spec->nr_ops; op++)
		for (key = 0; key <= spec->keys; key++) {
			if (!key != !(spec->ops[op].flags & LIN_KEYED))
				continue;
			race_lin_call_text(spec, op, key, want, sizeof(want));
			if (strlen(want) == len && !strncmp(want, text, len)) {
				d->op = op;
				d->key = key;
				return 1;
			}
		}
	return 0;
}

/* The initial state of @spec called @name (@len bytes), or NULL. */
static const struct lin_init *find_init(const struct lin_spec *spec,
					const char *name, size_t len)
{
	int i;

	for (i = 0; i < spec->nr_inits; i++)
		if (strlen(spec->inits[i].name) == len &&
		    !strncmp(spec->inits[i].name, name, len))
			return &spec->inits[i];
	return NULL;
}

/* The operations of @text ("a(1)+b"), up to its end or a '|' or '!', into
 * @ops; their number, or -1 if malformed.  *@end: where it stopped. */
static int parse_ops(const struct lin_spec *spec, const char *text,
		     struct lin_call_desc *ops, const char **end)
{
	const char *p = text;
	int n = 0;
	size_t len;

	do {
		if (n == LIN_MAX_PER_THREAD)
			return -1;
		len = strcspn(p, "+|!");
		if (!parse_call(spec, p, len, &ops[n++]))
			return -1;
		p += len;
	} while (*p == '+' && *++p);
	*end = p;
	return n;
}

/* The threads' operations of @text, and the interrupt's, into @s; 0 if
 * malformed. */
static int parse_threads(const char *text, struct lin_scenario *s)
{
	const char *p = text;
	int t;

	while (*p && *p != '!') {
		t = s->nr_threads++;
		if (t >= RACE_MAX_THREADS ||
		    (s->nr_ops[t] = parse_ops(s->spec, p, s->ops[t], &p)) < 0)
			return 0;
		if (*p == '|' && !*++p)
			return 0;
	}
	if (*p == '!') {
		if (!s->spec->irq_ops || s->nr_threads >= RACE_MAX_THREADS ||
		    (s->nr_irq = parse_ops(s->spec, p + 1, s->irq, &p)) < 0 || *p)
			return 0;
	}
	return s->nr_threads >= 2 || (s->nr_threads == 1 && s->nr_irq);
}

/**
 * race_lin_parse - the generated scenario called @name into @s
 *
 * Returns 1, or 0 if @name is no generated scenario of this binary's specs.
 */
int race_lin_parse(const char *name, struct lin_scenario *s)
{
	const char *sp, *in, *ops;

	memset(s, 0, sizeof(*s));
	if (strncmp(name, "lin:", 4))
		return 0;
	sp = name + 4;
	in = strchr(sp, ':');
	ops = in ? strchr(in + 1, ':') : NULL;
	if (!ops)
		return 0;
	s->spec = race_lin_spec_find(sp, in - sp);
	s->init = s->spec ? find_init(s->spec, in + 1, ops - in - 1) : NULL;
	if (!s->init || !parse_threads(ops + 1, s))
		return 0;
	s->bound = (s->nr_threads == 2 && s->nr_ops[0] == 1 && s->nr_ops[1] == 1 &&
		    !s->nr_irq) || (s->nr_threads == 1 && s->nr_ops[0] == 1 &&
				    s->nr_irq == 1) ?
		pairs_bound(s->spec) : random_bound(s->spec);
	race_lin_name(s);
	return !strcmp(s->name, name);
}
