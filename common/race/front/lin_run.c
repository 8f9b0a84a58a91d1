// SPDX-License-Identifier: GPL-2.0
/*
 * lin_run.c - a generated scenario as the reproducer runs it, and the
 * suite of a spec ("race run lincheck:<spec>").
 *
 * A generated scenario is an ordinary must-hold scenario to the rest of
 * the reproducer: its setup() builds the initial state with the lab's
 * code, its threads run their operations recording when each was called
 * and returned (in steps of the trace) and what it returned, one more
 * thread runs the final probes once they have all returned (so that a
 * probe that blocks is a deadlock, and one that returns holding a lock is
 * caught like any thread), and its check() is the linearizability check.
 * Every other oracle applies as usual.  Its witness: operations of two threads
 * interleaved (a step of one came between two steps of the other) -- an
 * execution in which nothing interleaves proves nothing about concurrency.
 * An interrupt's operations (lin.h) are those of one more thread, IRQ1's
 * body, recorded as LIN_IRQ's; the scenario runs on one simulated CPU if
 * its initial state says so.
 *
 * The suite runs every generated scenario of the spec, each a dfs search
 * within its bound in its own child process (explore/search.c), and stops at the
 * first verdict: the generated scenario's name, its timeline, the verdict
 * (for a linearizability failure: the results and why no order explains
 * them), the schedule, and how to rerun that scenario alone.
 */
#include <stdlib.h>
#include <string.h>

#include "race/front/lincheck.h"
#include "race/models/weak.h"
#include "race_hooks.h"

#define LIN_MAX_SCENARIOS	4096
#define LIN_DEFAULT_EXEC	20000

static struct lin_scenario cur;
static struct race_scenario sc;
static char column[RACE_MAX_THREADS + 1][96];	/* [RACE_MAX_THREADS]: IRQ1 */
static struct lin_ctx ctx[LIN_IRQ + 1];		/* [0]: final probes */
static struct lin_ctx *ctxp[LIN_IRQ + 1];
static struct lin_call calls[RACE_MAX_THREADS][LIN_MAX_PER_THREAD];
static struct lin_call irq_calls[LIN_MAX_PER_THREAD];
static struct lin_call probes[LIN_MAX_CALLS];
static int nr_probes;
static bool overlapped;

/** race_lin_hold - @ctx now holds a reference to @obj, of @key (lin_hold) */
void race_lin_hold(struct lin_ctx *ctx, void *obj, int key)
{
	if (ctx->nr_held == LIN_MAX_HELD)
		race_fail("bug", "lin: a thread holds more than %d references",
			  LIN_MAX_HELD);
	ctx->held[ctx->nr_held] = obj;
	ctx->held_key[ctx->nr_held++] = key;
}

/**
 * race_lin_unhold - the oldest object of @key @ctx holds, forgotten; or
 * NULL (lin_unhold)
 */
void *race_lin_unhold(struct lin_ctx *ctx, int key)
{
	void *obj;
	int i, j;

	for (i = 0; i < ctx->nr_held && ctx->held_key[i] != key; i++)
		;
	if (i == ctx->nr_held)
		return NULL;
	obj = ctx->held[i];
	for (j = i + 1; j < ctx->nr_held; j++) {
		ctx->held[j - 1] = ctx->held[j];
		ctx->held_key[j - 1] = ctx->held_key[j];
	}
	ctx->nr_held--;
	return obj;
}

/* The @n operations @d of thread @t (or LIN_IRQ), each timed in steps of
 * the trace, into @out. */
static void run_ops(int t, const struct lin_call_desc *d, int n,
		    struct lin_call *out)
{
	const struct lin_spec *spec = cur.spec;
	int i;

	for (i = 0; i < n; i++) {
		struct lin_call *c = &out[i];

		if (t == 1 && cur.nr_irq)
			race_point_at("lin", "interruptible");	/* IRQ1 may come */
		c->thread = t;
		c->sched = race_self()->id;
		c->op = d[i].op;
		c->key = d[i].key;
		c->inv = race_sh->nr_steps;
		c->result = spec->ops[d[i].op].run(&ctx[t], d[i].key);
		c->resp = race_sh->nr_steps;
	}
	if (t == 1 && cur.nr_irq)
		race_point_at("lin", "interruptible");
}

static void run_thread(int t)
{
	run_ops(t, cur.ops[t - 1], cur.nr_ops[t - 1], calls[t - 1]);
}

/* IRQ1: T1's interrupt runs its operations. */
static void run_irq(void)
{
	run_ops(LIN_IRQ, cur.irq, cur.nr_irq, irq_calls);
}

static void thread1(void) { run_thread(1); }
static void thread2(void) { run_thread(2); }
static void thread3(void) { run_thread(3); }
static void thread4(void) { run_thread(4); }

static void (*const bodies[RACE_MAX_THREADS])(void) = {
	thread1, thread2, thread3, thread4,
};

static void setup(void)
{
	int i;

	memset(ctx, 0, sizeof(ctx));
	memset(calls, 0, sizeof(calls));
	memset(irq_calls, 0, sizeof(irq_calls));
	nr_probes = 0;
	for (i = 0; i <= LIN_IRQ; i++) {
		ctx[i].thread = i;
		ctxp[i] = &ctx[i];
	}
	overlapped = false;
	cur.spec->setup(cur.init, ctxp);
}

static void teardown(void)
{
	cur.spec->teardown(ctxp, LIN_IRQ + 1);
}

/* The first step call @c made, or -1 if it made none. */
static long first_step(const struct lin_call *c)
{
	long i;

	for (i = c->inv; i < c->resp; i++)
		if (race_sh->steps[i].thread == c->sched)
			return i;
	return -1;
}

/*
 * Whether calls @a and @b, of different threads, interleaved: a step of
 * one came between two steps of the other.  (Their last steps are resp - 1:
 * after its last step a thread runs alone until it returns.)
 */
static bool interleaved(const struct lin_call *a, const struct lin_call *b)
{
	return a->thread != b->thread && a->first >= 0 && b->first >= 0 &&
	       a->first < b->resp - 1 && b->first < a->resp - 1;
}

/* Whether IRQ1's call @c came while T1 was running its operations: T1 made
 * steps before it and after it. */
static bool irq_inside_t1(const struct lin_call *c)
{
	long i;
	bool before = false;

	for (i = 0; i < race_sh->nr_steps; i++) {
		if (race_sh->steps[i].thread != 1)
			continue;
		if (i < c->inv)
			before = true;
		else if (i >= c->resp)
			return before;
	}
	return false;
}

/* The probe thread may start once every thread before it has returned. */
static bool threads_done(const struct race_thread *t)
{
	int id;

	for (id = 1; id < t->id; id++)
		if (race_thread_get(id)->state != RACE_TS_DONE)
			return false;
	return true;
}

static int threads_why(const struct race_thread *t, char *buf, size_t len)
{
	char name[16];

	return snprintf(buf, len, "%s (the final probes) waits for the others "
			"to return; ", race_thread_name(t->id, name, sizeof(name)));
}

static const struct race_wait after_the_threads = {
	.ready	= threads_done,
	.why	= threads_why,
};

/* Whether the spec has final probes (LIN_POST operations). */
static bool has_probes(void)
{
	int i;

	for (i = 0; i < cur.spec->nr_ops; i++)
		if (cur.spec->ops[i].flags & LIN_POST)
			return true;
	return false;
}

/*
 * The last thread: once the others have returned, each final probe, for
 * every key (once if it takes none), in turn.  In the history they are
 * thread 0's: after everything.
 */
static void probe_thread(void)
{
	const struct lin_spec *spec = cur.spec;
	int op, key;

	/* a step of its own, so that schedules replay it like any other */
	race_sched_point(&after_the_threads, "final_probes", "start", NULL);
	for (op = 0; op < spec->nr_ops; op++) {
		bool keyed = spec->ops[op].flags & LIN_KEYED;

		if (!(spec->ops[op].flags & LIN_POST))
			continue;
		for (key = keyed; key <= (keyed ? spec->keys : 0) &&
		     nr_probes < LIN_MAX_CALLS; key++) {
			struct lin_call *c = &probes[nr_probes++];

			*c = (struct lin_call){ .thread = 0, .op = op, .key = key,
						.inv = race_sh->nr_steps, .first = -1 };
			c->result = spec->ops[op].run(&ctx[0], key);
			c->resp = race_sh->nr_steps;
		}
	}
}

/* The threads' calls, then the final probes. */
static void collect(struct lin_history *h)
{
	int t, i, j;

	h->n = 0;
	for (t = 0; t < cur.nr_threads; t++)
		for (i = 0; i < cur.nr_ops[t]; i++) {
			h->c[h->n] = calls[t][i];
			h->c[h->n].first = first_step(&calls[t][i]);
			h->n++;
		}
	for (i = 0; i < cur.nr_irq && irq_calls[i].sched; i++) {
		h->c[h->n] = irq_calls[i];		/* delivered, run */
		h->c[h->n].first = first_step(&irq_calls[i]);
		overlapped |= irq_inside_t1(&irq_calls[i]);
		h->n++;
	}
	for (i = 0; i < h->n; i++)
		for (j = 0; j < i; j++)
			overlapped |= interleaved(&h->c[i], &h->c[j]);
	for (i = 0; i < nr_probes && h->n < LIN_MAX_CALLS; i++)
		h->c[h->n++] = probes[i];
}

/* The check of every execution: linearizability. */
static const char *check(void)
{
	static struct lin_history h;
	static char why[RACE_MSG_LEN];

	collect(&h);
	if (race_lin_linearizable(cur.spec, cur.init, &h))
		return NULL;
	race_lin_explain(cur.spec, cur.init, &h, why, sizeof(why));
	race_fail("linearizability", "%s", why);
}

static bool witness(void)
{
	return overlapped;
}

/*
 * A generated scenario is checked against real-time order: an operation
 * that returned before another began comes first.  Under the weak memory
 * model a store need not be seen by a thread that has not synchronized
 * with its writer, however long ago it was made (an unlink's NULL, read
 * as the old pointer by a later lookup): correct code would fail.
 */
static void refuse_weak(const char *name)
{
	if (race_opt.memory != RACE_OPT_MEMORY_WEAK)
		return;
	fprintf(stderr, "race: %s: generated scenarios are checked against "
		"real-time order (an operation that returned before another "
		"began comes first), which only sequential consistency keeps: "
		"run them without --memory weak\n", name);
	exit(2);
}

/* Make @s the scenario that race_sc and the next searches run. */
static const struct race_scenario *lin_select(const struct lin_scenario *s)
{
	char call[32];
	size_t n;
	int t, i;

	cur = *s;
	memset(&sc, 0, sizeof(sc));
	sc.name = cur.name;
	sc.summary = cur.init->about ? cur.init->about : cur.init->name;
	sc.expect = RACE_MUST_HOLD;
	sc.setup = setup;
	sc.check = check;
	sc.witness = witness;
	sc.outcome = "operations of two threads interleave";
	sc.teardown = teardown;
	sc.bound = cur.bound;
	sc.up = cur.init->up;
	if (has_probes()) {
		sc.threads[cur.nr_threads] = probe_thread;
		sc.names[cur.nr_threads] = "final probes";
	}
	for (t = 0; t < cur.nr_threads; t++) {
		sc.threads[t] = bodies[t];
		for (n = 0, i = 0; i < cur.nr_ops[t] && n < sizeof(column[t]); i++) {
			race_lin_call_text(cur.spec, cur.ops[t][i].op, cur.ops[t][i].key,
				      call, sizeof(call));
			n += snprintf(column[t] + n, sizeof(column[t]) - n, "%s%s",
				      i ? " " : "", call);
		}
		sc.names[t] = column[t];
	}
	if (cur.nr_irq) {
		sc.irqs[0] = run_irq;
		for (n = 0, i = 0; i < cur.nr_irq && n < sizeof(column[0]); i++) {
			race_lin_call_text(cur.spec, cur.irq[i].op, cur.irq[i].key,
					   call, sizeof(call));
			n += snprintf(column[RACE_MAX_THREADS] + n,
				      sizeof(column[0]) - n, "%s%s", i ? " " : "",
				      call);
		}
		sc.irq_names[0] = column[RACE_MAX_THREADS];
	}
	race_sched_init(&sc);
	/*
	 * No partial-order reduction: it counts two executions as one when
	 * they differ only in the order of independent steps, but the
	 * real-time order of the operations -- which one returned before
	 * another began -- may differ between them, and linearizability
	 * depends on it.
	 */
	race_opt.no_reduction = 1;
	return &sc;
}

/**
 * race_lin_find - the generated scenario called @name ("lin:..."), made
 * the current one; NULL if @name is none of this binary's
 */
const struct race_scenario *race_lin_find(const char *name)
{
	struct lin_scenario s;

	if (!race_lin_parse(name, &s))
		return NULL;
	refuse_weak(name);
	return lin_select(&s);
}

/* --- the suite of a spec --------------------------------------------------- */

#define SUITE_PREFIX	"lincheck:"

/** race_lin_suite - the spec whose suite @name is ("lincheck:<spec>"), or NULL */
const struct lin_spec *race_lin_suite(const char *name)
{
	size_t n = strlen(SUITE_PREFIX);

	if (!name || strncmp(name, SUITE_PREFIX, n))
		return NULL;
	return race_lin_spec_find(name + n, strlen(name + n));
}

/**
 * race_lin_list - "race list": one line per spec (its suite), or with
 * @suite ("lincheck:<spec>"), the name of each of its generated scenarios
 *
 * Returns 0, or 2 if @suite names no spec of this binary.
 */
int race_lin_list(const char *suite)
{
	static struct lin_scenario s[LIN_MAX_SCENARIOS];
	const struct lin_spec *spec = race_lin_suite(suite);
	char name[64];
	int i, n;

	if (suite && !spec) {
		fprintf(stderr, "race: no suite '%s' (race list shows them)\n", suite);
		return 2;
	}
	for (i = 0; spec && i < race_lin_generate(spec, s, LIN_MAX_SCENARIOS); i++)
		printf("%s\n", s[i].name);
	for (i = 0; !spec && i < race_lin_specs_count(); i++) {
		spec = race_lin_spec_at(i);
		n = race_lin_generate(spec, s, LIN_MAX_SCENARIOS);
		snprintf(name, sizeof(name), SUITE_PREFIX "%s", spec->name);
		printf("%-32s must-hold  %d scenarios generated from %s\n", name,
		       n, spec->summary);
		spec = NULL;
	}
	return 0;
}

struct totals {
	long executions, witnessed, capped, scenarios_witnessed;
	int done;
};


/* A generated scenario failed: say which, how to see it again, and why. */
static void report(const struct lin_scenario *s, int i, int n, int lab,
		   const char *out, const char *binary, double ms)
{
	char desc[64];
	int err;

	snprintf(desc, sizeof(desc), "dfs bound=%d", race_sh->bound_reached);
	printf("generated scenario %d of %d: %s\ninitial state: %s\n", i + 1, n,
	       s->name, s->init->about ? s->init->about : s->init->name);
	race_timeline_print(stdout, race_sh);
	race_print_verdict();
	if (out) {
		err = race_schedfile_write(out, race_sh, lab, binary, desc);
		if (err)
			printf("schedule: cannot write %s: %s\n", out, strerror(-err));
		else
			printf("schedule: %s\n", out);
	}
	if (strcmp(race_sh->kind, "diverged"))
		race_replay_check();
	printf("found after %ld execution%s of this scenario in %.1f ms (%s); "
	       "run it alone: %s run '%s'\n", race_sh->executions,
	       race_sh->executions == 1 ? "" : "s", ms, desc, binary, s->name);
}

/* The suite being run: its spec, scenarios, options, totals (shared). */
static struct {
	const struct lin_spec *spec;
	const struct lin_scenario *s;
	int n;
	struct race_options asked;
	struct totals *tot;
} run;

/* Make scenario @i the one to search, within its bound (or --bound,
 * --max-exec). */
static void prepare(int i)
{
	const struct race_options *asked = &run.asked;

	lin_select(&run.s[i]);
	race_memory_choose(asked->memory, &sc, 0, "lincheck");
	race_opt.strategy = &race_dfs;
	race_opt.bound = asked->bound ? asked->bound : run.s[i].bound;
	race_opt.bound_min = race_opt.bound;	/* race_search_many: held() */
	race_opt.max_executions = asked->max_executions ? asked->max_executions :
		run.spec->max_exec ? run.spec->max_exec : LIN_DEFAULT_EXEC;
}

/* Scenario @i's search ended in @state: count it. */
static void count(int i __maybe_unused, int state)
{
	struct totals *tot = run.tot;

	tot->executions += race_sh->executions;
	tot->witnessed += race_sh->witnessed;
	tot->scenarios_witnessed += race_sh->witnessed > 0;
	tot->capped += state == RACE_RUN_OK && !race_sh->exhausted;
	tot->done++;
}

/*
 * Scenario @i held at its top bound, searched alone (prepare()): that
 * search explores the lower bounds' executions too.  One that stopped at
 * --max-exec did not cover them: false, and search_one() searches it
 * again alone (race_search_top_first: its top bound stops there again,
 * and the search from bound 0 up is the one counted).
 */
static bool held(int i)
{
	if (!race_sh->exhausted)
		return false;
	count(i, RACE_RUN_OK);
	return true;
}

/* Search scenario @i alone, in a process of its own (its top bound first;
 * a failure from bound 0 up, with the fewest preemptions; and a scenario
 * run alone without its witness, which is then vacuous); 1 if it failed. */
static int search_one(int i)
{
	int state;

	prepare(i);
	state = race_search_top_first(run.n == 1);
	count(i, state);
	return state == RACE_RUN_FAIL;
}

/**
 * race_lin_cmd_run - race run lincheck:<spec>: every generated scenario
 * @lab:    the lab, for the schedule file's "lab" line (0: none)
 * @out:    where the failing execution's schedule goes (or NULL)
 * @result: the result file (or NULL); @binary: for messages and schedules
 *
 * Returns 0 iff no scenario failed and operations overlapped in some
 * execution.
 */
int race_lin_cmd_run(const char *name, int lab, const char *out,
		     const char *result, const char *binary)
{
	static struct lin_scenario s[LIN_MAX_SCENARIOS];
	const struct lin_spec *spec = race_lin_suite(name);
	char executions[32], witnessed[32], strategy[64];
	const char *got = "none";
	double t0, ms;
	int i, n = race_lin_generate(spec, s, LIN_MAX_SCENARIOS), failed = 0;
	struct totals tot;

	refuse_weak(name);
	race_shared_map(race_opt.max_steps ? race_opt.max_steps : RACE_DEFAULT_STEPS);
	run.spec = spec;
	run.s = s;
	run.n = n;
	run.asked = race_opt;
	run.tot = race_shared_alloc(sizeof(*run.tot));
	printf("== %s (must-hold): %d scenarios generated from %s\n", name, n,
	       spec->summary);
	t0 = race_clock_ms(CLOCK_MONOTONIC);
	/*
	 * The scenarios run in one search process until one does not hold;
	 * that one is searched again alone, and its own process's verdict and
	 * steps are the ones reported.
	 */
	for (i = 0; i < n && !failed; i++) {
		double t1;

		i = race_search_many(i, n, prepare, held);
		if (i >= n)
			break;
		t1 = race_clock_ms(CLOCK_MONOTONIC);
		failed = search_one(i);
		if (failed)
			report(&s[i], i, n, lab, out, binary, race_clock_ms(CLOCK_MONOTONIC) - t1);
	}
	ms = race_clock_ms(CLOCK_MONOTONIC) - t0;
	tot = *run.tot;
	if (failed) {
		got = race_sh->kind;
	} else {
		printf("held: %ld executions of %d scenarios in %.1f ms (%.0f/s), "
		       "dfs within each one's bound; %ld stopped at max-exec\n",
		       tot.executions, n, ms, tot.executions / (ms > 0 ? ms / 1e3 : 1e-3),
		       tot.capped);
		if (tot.witnessed) {
			printf("witness: operations of two threads interleaved in "
			       "%ld of %ld executions (in %ld of %d scenarios)\n",
			       tot.witnessed, tot.executions, tot.scenarios_witnessed, n);
		} else {
			printf("verdict: vacuous: in none of the %ld executions did "
			       "operations of two threads interleave\n", tot.executions);
			got = "vacuous";
		}
	}
	printf("RESULT %s expect=must-hold got=%s met=%s executions=%ld\n", name,
	       got, strcmp(got, "none") ? "no" : "yes", tot.executions);
	snprintf(executions, sizeof(executions), "%ld", tot.executions);
	snprintf(witnessed, sizeof(witnessed), "%ld", tot.witnessed);
	snprintf(strategy, sizeof(strategy), "dfs, %d generated scenarios", n);
	race_result_write(result, "command", "run", "scenario", name, "expect",
			  "must-hold", "verdict", "", "got", got, "met",
			  strcmp(got, "none") ? "no" : "yes", "executions",
			  executions, "witnessed", witnessed, "outcome",
			  "operations of two threads interleave", "exhausted",
			  !failed && !tot.capped ? "yes" : "no", "strategy", strategy,
			  "message", failed ? race_sh->message : "", "schedule",
			  failed && out ? out : "", "memory", race_weak ? "weak" : "sc",
			  NULL);
	return strcmp(got, "none") ? 1 : 0;
}
