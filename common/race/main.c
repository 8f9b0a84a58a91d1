// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the command line of a lab's race binary.
 *
 *   race list
 *   race run SCENARIO [--strategy dfs|pct|random|script] [--seed N]
 *            [--depth D] [--bound B] [--max-exec N] [--max-steps N]
 *            [--script "T1@kref_get.read T2+"] [--sched FILE] [--out FILE]
 *   race replay FILE [--scenario NAME] [--expect KIND] [--times N] [--quiet]
 *
 * run:    exit 0 iff the scenario met its expectation (a must-hold held, a
 *         must-fail failed with its verdict); the last line is
 *         "RESULT name expect=... got=... met=yes|no executions=N".
 * replay: exit 0 iff the recorded result recurs (or --expect's), the
 *         recorded steps recur, and, with --times, every replay is the
 *         same text.
 * Exit 2: a usage error or a malformed schedule file.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "race/driver.h"
#include "race/race.h"

extern const struct race_scenario *const __start_race_scenarios[];
extern const struct race_scenario *const __stop_race_scenarios[];

static const struct race_scenario *sorted[64];
static int nr_sorted;

/* qsort order of scenarios: by name. */
static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct race_scenario *const *)a)->name,
		      (*(const struct race_scenario *const *)b)->name);
}

/* Gather the scenarios of the race_scenarios section, sorted by name. */
static void collect(void)
{
	const struct race_scenario *const *p;

	for (p = __start_race_scenarios; p < __stop_race_scenarios && nr_sorted < 64; p++)
		sorted[nr_sorted++] = *p;
	qsort(sorted, nr_sorted, sizeof(sorted[0]), by_name);
}

/**
 * race_scenario_find - the registered scenario called @name, or NULL
 */
const struct race_scenario *race_scenario_find(const char *name)
{
	int i;

	for (i = 0; i < nr_sorted; i++)
		if (!strcmp(sorted[i]->name, name))
			return sorted[i];
	return NULL;
}

/* Print @msg and the usage; exit 2. */
static void __noreturn usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "race: %s\n", msg);
	fprintf(stderr, "usage: race list\n"
		"       race run SCENARIO [--strategy dfs|pct|random|script] "
		"[--seed N] [--depth D]\n"
		"                [--bound B] [--max-exec N] [--max-steps N] "
		"[--script TOKENS] [--sched FILE] [--out FILE]\n"
		"       race replay FILE [--scenario NAME] [--expect KIND] "
		"[--times N] [--quiet]\n");
	exit(2);
}

/* "must-fail" or "must-hold" */
static const char *expect_name(const struct race_scenario *sc)
{
	return sc->expect == RACE_MUST_FAIL ? "must-fail" : "must-hold";
}

/* race list: one line per scenario (name, expectation, summary). */
static int cmd_list(void)
{
	int i;

	for (i = 0; i < nr_sorted; i++)
		printf("%-32s %s%s%s  %s\n", sorted[i]->name,
		       expect_name(sorted[i]), sorted[i]->verdict ? ":" : "",
		       sorted[i]->verdict ? sorted[i]->verdict : "",
		       sorted[i]->summary ? sorted[i]->summary : "");
	return 0;
}

struct cmdline {
	const char *scenario, *out, *sched, *script, *expect, *file, *binary;
	long times;
	int quiet;
};

/* @val as a non-negative number, or exit 2 naming @opt. */
static long number(const char *opt, const char *val)
{
	char *end;
	long n;

	if (!val)
		usage("an option needs a value");
	n = strtol(val, &end, 0);
	if (*end || n < 0) {
		fprintf(stderr, "race: %s wants a number, got '%s'\n", opt, val);
		exit(2);
	}
	return n;
}

/* Set race_opt.strategy from its name (empty: dfs), or exit 2. */
static void parse_strategy(const char *s)
{
	if (!s || !*s || !strcmp(s, "dfs"))
		race_opt.strategy = STRAT_DFS;
	else if (!strcmp(s, "pct"))
		race_opt.strategy = STRAT_PCT;
	else if (!strcmp(s, "random"))
		race_opt.strategy = STRAT_RANDOM;
	else if (!strcmp(s, "script"))
		race_opt.strategy = STRAT_SCRIPT;
	else
		usage("strategy: expected dfs, pct, random or script");
}

/* Options into race_opt and @cl; the one non-option is the scenario/file. */
static void parse_options(int argc, char **argv, struct cmdline *cl)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (o[0] != '-') {
			if (cl->file)
				usage("one scenario or file only");
			cl->file = o;
			continue;
		}
		if (!strcmp(o, "--quiet")) {
			cl->quiet = 1;
			continue;
		}
		if (!v)
			usage("an option needs a value");
		i++;
		if (!strcmp(o, "--strategy"))
			parse_strategy(v);
		else if (!strcmp(o, "--seed"))
			race_opt.seed = number(o, v);
		else if (!strcmp(o, "--depth"))
			race_opt.depth = number(o, v);
		else if (!strcmp(o, "--bound"))
			race_opt.bound = number(o, v);
		else if (!strcmp(o, "--max-exec"))
			race_opt.max_executions = number(o, v);
		else if (!strcmp(o, "--max-steps"))
			race_opt.max_steps = number(o, v);
		else if (!strcmp(o, "--times"))
			cl->times = number(o, v);
		else if (!strcmp(o, "--script"))
			cl->script = v;
		else if (!strcmp(o, "--sched"))
			cl->sched = v;
		else if (!strcmp(o, "--out"))
			cl->out = v;
		else if (!strcmp(o, "--scenario"))
			cl->scenario = v;
		else if (!strcmp(o, "--expect"))
			cl->expect = v;
		else if (!strcmp(o, "--binary"))
			cl->binary = v;
		else
			usage("unknown option");
	}
}

static const struct race_scenario *select_scenario(const char *name)
{
	const struct race_scenario *sc = name ? race_scenario_find(name) : NULL;
	int i;

	if (!sc) {
		fprintf(stderr, "race: no scenario '%s'; this binary has:",
			name ? name : "");
		for (i = 0; i < nr_sorted; i++)
			fprintf(stderr, " %s", sorted[i]->name);
		fprintf(stderr, "\n");
		exit(2);
	}
	if (!sc->threads[0] || !sc->threads[1]) {
		fprintf(stderr, "race: scenario %s needs 2 to %d threads\n",
			sc->name, RACE_MAX_THREADS);
		exit(2);
	}
	race_sched_init(sc);
	race_shared_map(race_opt.max_steps ? race_opt.max_steps :
			sc->max_steps ? sc->max_steps : RACE_DEFAULT_STEPS);
	return sc;
}

/* The strategy line of a schedule file: "dfs bound=1", "pct seed=3 depth=2". */
static void strategy_desc(char *buf, size_t len)
{
	switch (race_opt.strategy) {
	case STRAT_DFS:
		snprintf(buf, len, "dfs bound=%d", race_sh->bound_reached);
		break;
	case STRAT_PCT:
		snprintf(buf, len, "pct seed=%lu depth=%d", race_opt.seed,
			 race_opt.depth);
		break;
	case STRAT_RANDOM:
		snprintf(buf, len, "random seed=%lu", race_opt.seed);
		break;
	case STRAT_SCRIPT:
		snprintf(buf, len, "script");
		break;
	}
}

/* The steps of @sh as script tokens that force the same interleaving. */
static void tokens_from_steps(const struct race_step *steps, long n)
{
	long i;

	free(race_opt.tokens);
	race_opt.tokens = calloc(n + 1, sizeof(*race_opt.tokens));
	race_opt.nr_tokens = n;
	for (i = 0; i < n; i++) {
		race_opt.tokens[i].thread = steps[i].thread;
		race_opt.tokens[i].mode = TOK_ONE;
		race_opt.tokens[i].line = i + 1;
		snprintf(race_opt.tokens[i].label, RACE_LABEL_LEN, "%s.%s",
			 steps[i].fn, steps[i].what);
	}
}

/* Compare the execution in race_sh with @lines; 0 if every line recurs. */
static int compare_steps(char **lines, long n, char *msg, size_t len)
{
	char got[256];
	long i;

	for (i = 0; i < n; i++) {
		if (!lines[i])
			continue;
		if (i >= race_sh->nr_steps) {
			snprintf(msg, len, "diverged at step %ld: recorded '%s', "
				 "but the replay ended after %ld steps", i + 1,
				 lines[i], race_sh->nr_steps);
			return -1;
		}
		step_line(&race_sh->steps[i], i + 1, got, sizeof(got));
		if (strcmp(got, lines[i])) {
			snprintf(msg, len, "diverged at step %ld: recorded '%s', "
				 "replayed '%s'", i + 1, lines[i], got);
			return -1;
		}
	}
	return 0;
}

/* Replay the failure just found once more; say whether it recurred. */
static void replay_check(void)
{
	long n = race_sh->nr_steps, i;
	struct race_step *copy = malloc((n + 1) * sizeof(*copy));
	char **lines = calloc(n + 1, sizeof(char *));
	char kind[32], msg[RACE_MSG_LEN], buf[256];
	struct race_options saved = race_opt;
	struct race_shared head = *race_sh;

	memcpy(copy, race_sh->steps, n * sizeof(*copy));
	snprintf(kind, sizeof(kind), "%s", race_sh->kind);
	for (i = 0; i < n; i++) {
		step_line(&copy[i], i + 1, buf, sizeof(buf));
		lines[i] = strdup(buf);
	}
	tokens_from_steps(copy, n);
	race_opt.strategy = STRAT_SCRIPT;
	race_opt.max_executions = 1;
	race_search();
	if (compare_steps(lines, n, msg, sizeof(msg)))
		printf("replay: NONDETERMINISTIC: %s\n", msg);
	else if (strcmp(kind, race_sh->kind))
		printf("replay: NONDETERMINISTIC: the same %ld steps ended in "
		       "'%s', not '%s'\n", n, race_sh->kind[0] ? race_sh->kind :
		       "no verdict", kind);
	else
		printf("replay: the same %ld steps and verdict, at once\n", n);
	/* the report above is the first run's: put its steps back */
	*race_sh = head;
	memcpy(race_sh->steps, copy, n * sizeof(*copy));
	race_opt = saved;
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(copy);
}

/* The verdict line (and the first WARN, if the verdict is something else). */
static void print_verdict(void)
{
	printf("verdict: %s: %s\n", race_sh->kind, race_sh->message);
	if (race_sh->note[0] && strcmp(race_sh->kind, "warn"))
		printf("         and at step %ld: %s\n", race_sh->note_step,
		       race_sh->note);
}

static double search_ms;

/* Monotonic milliseconds. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* What a search without a verdict covered: executions, bounds, exhaustion. */
static void print_success(void)
{
	int b;

	printf("held: %ld execution%s in %.1f ms (%.0f/s)", race_sh->executions,
	       race_sh->executions == 1 ? "" : "s", search_ms,
	       race_sh->executions / (search_ms > 0 ? search_ms / 1e3 : 1e-3));
	if (race_opt.strategy == STRAT_DFS) {
		printf(", dfs up to %d preemption%s (", race_sh->bound_reached,
		       race_sh->bound_reached == 1 ? "" : "s");
		for (b = 0; b <= race_sh->bound_reached; b++)
			printf("%sbound %d: %ld", b ? ", " : "", b,
			       race_sh->per_bound[b]);
		printf("), %s\n", race_sh->exhausted ?
		       "space exhausted within the bound" :
		       "stopped by --max-exec, not exhausted");
	} else {
		printf(", not exhaustive (%s)\n", race_opt.strategy == STRAT_PCT ?
		       "pct" : race_opt.strategy == STRAT_RANDOM ? "random" :
		       "one scripted execution");
	}
}

/* --script and --sched into race_opt's tokens; exit 2 on a malformed one. */
static void load_script(struct cmdline *cl)
{
	struct race_schedfile sf;
	char err[512];

	if (cl->script && script_parse(cl->script, &race_opt.tokens,
				       &race_opt.nr_tokens, race_nr_workers(),
				       0, err, sizeof(err))) {
		fprintf(stderr, "race: %s\n", err);
		exit(2);
	}
	if (cl->sched) {
		if (schedfile_read(cl->sched, &sf, race_nr_workers(), err,
				   sizeof(err))) {
			fprintf(stderr, "race: %s: %s\n", cl->sched, err);
			exit(2);
		}
		race_opt.tokens = sf.tokens;
		race_opt.nr_tokens = sf.nr_tokens;
	}
	if (cl->script || cl->sched)
		race_opt.strategy = STRAT_SCRIPT;
}

/* A verdict: timeline, schedule file, immediate replay, how it was found. */
static void report_failure(struct cmdline *cl, const char *argv0,
			   const char *desc)
{
	int err;

	timeline_print(stdout, race_sh);
	print_verdict();
	if (cl->out) {
		err = schedfile_write(cl->out, race_sh,
				      cl->binary ? cl->binary : argv0, desc);
		if (err)
			printf("schedule: cannot write %s: %s\n", cl->out,
			       strerror(-err));
		else
			printf("schedule: %s\n", cl->out);
	}
	if (strcmp(race_sh->kind, "diverged"))
		replay_check();
	printf("found after %ld execution%s in %.1f ms (%s)\n",
	       race_sh->executions, race_sh->executions == 1 ? "" : "s",
	       search_ms, desc);
}

/*
 * race run: search; on a verdict print the timeline, write the schedule,
 * replay it once.  Returns 0 iff the scenario met its expectation.
 */
static int cmd_run(struct cmdline *cl, const char *argv0)
{
	const struct race_scenario *sc = select_scenario(cl->file);
	char desc[128];
	int state, met;

	if (!race_opt.bound)
		race_opt.bound = sc->bound ? sc->bound : RACE_DEFAULT_BOUND;
	if (!race_opt.depth)
		race_opt.depth = 2;
	if (!race_opt.max_executions && race_opt.strategy != STRAT_DFS)
		race_opt.max_executions = 100000;
	load_script(cl);
	if (race_opt.strategy == STRAT_SCRIPT)
		race_opt.max_executions = 1;
	printf("== %s (%s%s%s): %s\n", sc->name, expect_name(sc),
	       sc->verdict ? " " : "", sc->verdict ? sc->verdict : "",
	       sc->summary ? sc->summary : "");
	search_ms = now_ms();
	state = race_search();
	search_ms = now_ms() - search_ms;
	strategy_desc(desc, sizeof(desc));
	if (state == RUN_FAIL) {
		report_failure(cl, argv0, desc);
	} else {
		if (race_opt.strategy == STRAT_SCRIPT)
			timeline_print(stdout, race_sh);
		print_success();
	}
	if (sc->expect == RACE_MUST_FAIL)
		met = state == RUN_FAIL &&
		      (!sc->verdict || !strcmp(sc->verdict, race_sh->kind));
	else
		met = state == RUN_OK &&
		      (race_opt.strategy != STRAT_DFS || race_sh->exhausted);
	printf("RESULT %s expect=%s got=%s met=%s executions=%ld\n", sc->name,
	       expect_name(sc), state == RUN_FAIL ? race_sh->kind : "none",
	       met ? "yes" : "no", race_sh->executions);
	return met ? 0 : 1;
}

/* FNV-1a of the execution's step lines and verdict. */
static unsigned long long trace_hash(void)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	char line[RACE_MSG_LEN + 64];
	const char *p;
	long i;

	for (i = 0; i <= race_sh->nr_steps; i++) {
		if (i < race_sh->nr_steps)
			step_line(&race_sh->steps[i], i + 1, line, sizeof(line));
		else
			snprintf(line, sizeof(line), "%s %s", race_sh->kind,
				 race_sh->message);
		for (p = line; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	}
	return h;
}

/*
 * Read the schedule file of @cl (twice: the header names the scenario, whose
 * threads the steps are checked against).  Exits 2 if it is malformed.
 */
static const struct race_scenario *load_schedfile(struct cmdline *cl,
						  struct race_schedfile *sf)
{
	const struct race_scenario *sc;
	char err[512];
	int pass;

	if (!cl->file)
		usage("replay needs a schedule file");
	for (pass = 0; pass < 2; pass++) {
		if (schedfile_read(cl->file, sf, pass ? race_nr_workers() : 0,
				   err, sizeof(err))) {
			fprintf(stderr, "race: %s: %s\n", cl->file, err);
			exit(2);
		}
		if (cl->scenario)
			snprintf(sf->scenario, sizeof(sf->scenario), "%s",
				 cl->scenario);
		if (!sf->scenario[0]) {
			fprintf(stderr, "race: %s: no 'scenario NAME' line, and "
				"no --scenario\n", cl->file);
			exit(2);
		}
		if (!pass)
			sc = select_scenario(sf->scenario);
	}
	return sc;
}

/* Replay @times times (at least once); returns how many were identical to
 * the first, byte for byte.  race_sh holds the last. */
static long replay_times(long times)
{
	unsigned long long first = 0, h;
	long i, same = 0;

	for (i = 0; i < (times ? times : 1); i++) {
		race_search();
		h = trace_hash();
		if (!i)
			first = h;
		same += h == first;
	}
	return same;
}

/* Whether the replay in race_sh followed @sf's steps; says where not. */
static int followed(const struct race_schedfile *sf)
{
	char msg[RACE_MSG_LEN];

	if (race_sh->state == RUN_FAIL && !strcmp(race_sh->kind, "diverged"))
		return 0;	/* the verdict printed says where */
	if (!compare_steps(sf->step_lines, sf->nr_step_lines, msg, sizeof(msg)))
		return 1;
	printf("%s\n", msg);
	return 0;
}

/*
 * race replay: follow a schedule file (--times N: N times).  Returns 0 iff
 * the expected result recurred, the recorded steps recurred and every
 * replay was byte-identical; 2 for a malformed file.
 */
static int cmd_replay(struct cmdline *cl)
{
	struct race_schedfile sf;
	const struct race_scenario *sc = load_schedfile(cl, &sf);
	const char *expect, *got;
	long same;
	int ok;

	race_opt.strategy = STRAT_SCRIPT;
	race_opt.max_executions = 1;
	race_opt.tokens = sf.tokens;
	race_opt.nr_tokens = sf.nr_tokens;
	if (sf.build[0] && strcmp(sf.build, race_build_id()) && !cl->quiet)
		printf("note: recorded by build %s, this is build %s: the code "
		       "may have changed\n", sf.build, race_build_id());
	same = replay_times(cl->times);
	if (!cl->quiet) {
		printf("== replay of %s: scenario %s\n", cl->file, sc->name);
		timeline_print(stdout, race_sh);
		if (race_sh->state == RUN_FAIL)
			print_verdict();
		else
			printf("verdict: none (every thread finished, the "
			       "checks held)\n");
	}
	ok = followed(&sf);
	expect = cl->expect ? cl->expect : sf.result[0] ? sf.result : "none";
	got = race_sh->state == RUN_FAIL ? race_sh->kind : "none";
	if (strcmp(expect, got)) {
		printf("replay: expected result '%s', got '%s'\n", expect, got);
		ok = 0;
	}
	if (cl->times) {
		printf("replays: %ld, byte-identical to the first: %ld\n",
		       cl->times, same);
		ok &= same == cl->times;
	}
	printf("REPLAY %s expect=%s got=%s ok=%s\n", sc->name, expect, got,
	       ok ? "yes" : "no");
	return ok ? 0 : 1;
}

/* race list | run | replay: see the top of this file. */
int main(int argc, char **argv)
{
	struct cmdline cl = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	collect();
	if (argc < 2)
		usage(NULL);
	parse_options(argc - 2, argv + 2, &cl);
	if (!strcmp(argv[1], "list"))
		return cmd_list();
	if (!strcmp(argv[1], "run"))
		return cmd_run(&cl, argv[0]);
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(&cl);
	usage("unknown command");
}
