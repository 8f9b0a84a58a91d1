// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the command line of a lab's race binary.
 *
 *   race list [lincheck:SPEC]
 *   race run SCENARIO [--strategy dfs|pct|random|script] [--seed N]
 *            [--depth D] [--bound B] [--max-exec N] [--max-steps N]
 *            [--script "T1@kref_get.read T2+"] [--sched FILE] [--out FILE]
 *            [--result FILE] [--memory sc|weak] [--reduction on|off]
 *            [--count-classes] [--lab N] [--os-threads] [--cpu-time]
 *            [--hang-ms MS]
 *   race replay FILE [--scenario NAME] [--expect KIND] [--times N] [--quiet]
 *            [--result FILE] [--debug]
 *   race check FILE... [--scenario NAME]
 *   race run-each PREFIX TIMEOUT [--first-failure] [OPTION...] SCENARIO...
 *
 * list:   one line per scenario, "<name> <expect>[:<verdict>]  <summary>",
 *         expect being must-hold, must-fail or demo; with a suite of
 *         generated scenarios, the name of each (lin_run.c).
 * run:    exit 0 iff the scenario met its expectation (a must-hold held
 *         and its witness saw its outcome, a must-fail or demo failed with
 *         its verdict); the last line is
 *         "RESULT name expect=... got=... met=yes|no executions=N".
 * replay: exit 0 iff the recorded result recurs (or --expect's), the
 *         recorded steps recur, and, with --times, every replay is the
 *         same text; the last line is "REPLAY name expect=... got=...
 *         ok=yes|no".
 * check:  read each schedule file as replay would, run nothing: one line
 *         per file, "FILE: ok: ..." or the error; exit 0 iff all are well
 *         formed.
 * run-each: `race run SCENARIO --result PREFIX.<i>.result` of each, in a
 *         process forked from this one, one after the other, its output
 *         in PREFIX.<i>.out, a line "run-each <i> exit N" (or signal N,
 *         or timeout) on ours; one over TIMEOUT seconds is killed; with
 *         --first-failure, none after one that did not exit 0 (each.c).
 *         The OPTIONs are run's, for every run (not --out, --sched,
 *         --script or --debug, which name one run's files or stops).
 *         Exit 0 once they ran.
 * --result FILE: the same, as key=value lines (docs/reproducer.md).
 * --memory: the memory model (default: the scenario's .memory, else sc);
 * --reduction off: dfs without partial-order reduction.
 * --lab N (run): the lab, for the schedule file's "lab" line.
 * --os-threads (run): every thread on an OS thread of its own, as replays
 *         run them (runtime/carrier.c), rather than as contexts on one.
 * --cpu-time (run): also the CPU time of the search process and of its
 *         executions, and their executions per second (make bench-race).
 * --hang-ms MS (run): a thread that reaches no scheduling point in MS ms
 *         of CPU time is a livelock (default 3000; at least 30): the
 *         kit's own tests of a scenario that loops on purpose say it
 *         sooner.
 * --debug (replay): the replay runs in this process, with the hooks of
 *         debug.c, for gdb (make debug; tools/gdb/race-gdb.py).
 * Exit 2: a usage error, a malformed schedule file, or a scenario the
 * binary refuses (race_scenarios_load()).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "race/front/lincheck.h"
#include "race/models/weak.h"

struct cmdline {
	const char *scenario, *out, *sched, *script, *expect, *file, *binary;
	const char *result;
	long times, lab;
	int quiet, cpu_time;
	int bound_given;		/* --bound, 0 included */
};

/* Print @msg and the usage; exit 2. */
static void __noreturn usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "race: %s\n", msg);
	fprintf(stderr, "usage: race list [lincheck:SPEC]\n"
		"       race run SCENARIO [--strategy dfs|pct|random|script] "
		"[--seed N] [--depth D]\n"
		"                [--bound B] [--max-exec N] [--max-steps N] "
		"[--script TOKENS] [--sched FILE]\n"
		"                [--out FILE] [--result FILE] [--memory sc|weak] "
		"[--reduction on|off]\n"
		"                [--count-classes] [--lab N] [--os-threads] [--cpu-time]\n"
		"                [--hang-ms MS]\n"
		"       race replay FILE [--scenario NAME] [--expect KIND] "
		"[--times N] [--quiet] [--result FILE]\n"
		"                [--debug]\n"
		"       race check FILE... [--scenario NAME]\n"
		"       race run-each PREFIX TIMEOUT [--first-failure] [OPTION...] SCENARIO...\n");
	exit(2);
}

/* race list: one line per scenario (name, expectation, summary). */
static int cmd_list(void)
{
	const struct race_scenario *sc;
	int i;

	for (i = 0; i < race_scenarios_count(); i++) {
		sc = race_scenario_at(i);
		printf("%-32s %s%s%s  %s%s\n", sc->name, race_expect_name(sc),
		       sc->verdict ? ":" : "", sc->verdict ? sc->verdict : "",
		       sc->summary ? sc->summary : "",
		       sc->memory == RACE_MEMORY_WEAK ? " [weak memory]" : "");
	}
	race_lin_list(NULL);
	return 0;
}

/* @val as a non-negative number, or exit 2 naming @opt. */
static long number(const char *opt, const char *val)
{
	char *end;
	long n;

	char buf[RACE_QUOTE_LEN];

	errno = 0;
	n = strtol(val, &end, 0);
	if (*end || !*val || n < 0 || errno) {
		fprintf(stderr, "race: %s: expected a number, got %s\n", opt,
			race_quote(buf, sizeof(buf), val, strlen(val)));
		exit(2);
	}
	return n;
}

/* Set race_opt.strategy from its name (empty: dfs), or exit 2. */
static void parse_strategy(const char *s)
{
	race_opt.strategy = race_strategy_find(s);
	if (!race_opt.strategy)
		usage("strategy: expected dfs, pct, random or script");
}

/* --memory sc|weak and --reduction on|off into race_opt, or exit 2. */
static void parse_model(const char *o, const char *v)
{
	if (!strcmp(o, "--memory") && !strcmp(v, "sc"))
		race_opt.memory = RACE_OPT_MEMORY_SC;
	else if (!strcmp(o, "--memory") && !strcmp(v, "weak"))
		race_opt.memory = RACE_OPT_MEMORY_WEAK;
	else if (!strcmp(o, "--memory"))
		usage("--memory: expected sc or weak");
	else if (!strcmp(v, "on") || !strcmp(v, "off"))
		race_opt.no_reduction = !strcmp(v, "off");
	else
		usage("--reduction: expected on or off");
}

/* One option with its value into race_opt or @cl; 0 if unknown. */
static int parse_option(const char *o, const char *v, struct cmdline *cl)
{
	static const struct { const char *name; size_t off; } strings[] = {
		{ "--script",   offsetof(struct cmdline, script) },
		{ "--sched",    offsetof(struct cmdline, sched) },
		{ "--out",      offsetof(struct cmdline, out) },
		{ "--scenario", offsetof(struct cmdline, scenario) },
		{ "--expect",   offsetof(struct cmdline, expect) },
		{ "--binary",   offsetof(struct cmdline, binary) },
		{ "--result",   offsetof(struct cmdline, result) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(strings); i++)
		if (!strcmp(o, strings[i].name)) {
			*(const char **)((char *)cl + strings[i].off) = v;
			return 1;
		}
	if (!strcmp(o, "--bound"))
		cl->bound_given = 1;
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
	else if (!strcmp(o, "--memory") || !strcmp(o, "--reduction"))
		parse_model(o, v);
	else if (!strcmp(o, "--lab"))
		cl->lab = number(o, v);
	else if (!strcmp(o, "--hang-ms")) {
		race_opt.hang_ms = number(o, v);
		if (race_opt.hang_ms < 30)
			usage("--hang-ms: at least 30");
	}
	else
		return 0;
	return 1;
}

/*
 * Options into race_opt and @cl.  The non-options go into @names (room for
 * @argc), and their number is returned; without @names there may be one,
 * the scenario or file, in cl->file.
 */
static int parse_options(int argc, char **argv, struct cmdline *cl, char **names)
{
	int i, nr = 0;

	for (i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (o[0] != '-' && names) {
			names[nr++] = argv[i];
			continue;
		}
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
		if (!strcmp(o, "--cpu-time")) {
			cl->cpu_time = 1;
			continue;
		}
		if (!strcmp(o, "--count-classes")) {
			race_opt.count_classes = 1;
			continue;
		}
		if (!strcmp(o, "--debug")) {
			race_debug.enabled = 1;
			continue;
		}
		if (!strcmp(o, "--os-threads")) {
			race_opt.os_threads = 1;
			continue;
		}
		if (!v)
			usage("an option needs a value");
		i++;
		if (!parse_option(o, v, cl))
			usage("unknown option");
	}
	return nr;
}

static double search_ms;

/* ", dfs up to 2 preemptions (bound 0: 2, ...), space exhausted ..."; a
 * search that started at its top bound (race_search_top_first): "(bound
 * 2: 5, bounds below it included)" */
static void print_dfs_coverage(void)
{
	int b;

	printf(", dfs up to %d preemption%s (", race_sh->bound_reached,
	       race_sh->bound_reached == 1 ? "" : "s");
	for (b = race_sh->bound_from; b <= race_sh->bound_reached; b++)
		printf("%sbound %d: %ld", b > race_sh->bound_from ? ", " : "", b,
		       race_sh->per_bound[b]);
	printf("%s), %s%s\n", race_sh->bound_from ? ", bounds below it included" : "",
	       race_sh->exhausted ?
	       "space exhausted within the bound" :
	       "stopped by --max-exec, not exhausted",
	       race_opt.no_reduction ? ", without partial-order reduction" : "");
}

/* What a search without a verdict covered: executions, bounds, exhaustion. */
static void print_success(void)
{
	printf("held: %ld execution%s in %.1f ms (%.0f/s)", race_sh->executions,
	       race_sh->executions == 1 ? "" : "s", search_ms,
	       race_sh->executions / (search_ms > 0 ? search_ms / 1e3 : 1e-3));
	if (race_opt.strategy == &race_dfs)
		print_dfs_coverage();
	else if (race_opt.strategy == &race_pct)
		printf(", not exhaustive (pct depth %d, k = %ld steps with a "
		       "choice)\n", race_opt.depth, race_sh->max_choices);
	else
		printf(", not exhaustive (%s)\n", race_opt.strategy == &race_script ?
		       "one scripted execution" : race_opt.strategy->name);
	if (race_opt.count_classes)
		printf("classes: %ld distinct partial orders in %ld executions "
		       "(%ld cut short by sleep sets)\n", race_sh->classes,
		       race_sh->executions, race_sh->pruned);
}

/*
 * "cpu: 65.2 ms in the search process (14700 executions/s), 48.3 ms in its
 * executions (19800/s), 120 page faults": the second leaves out the
 * process's start and exit, which every search pays once; a page fault
 * costs 13 us or more on the kit's VMs.
 */
static void print_cpu_time(void)
{
	double all = race_search_cpu_ms, own = race_sh->exec_cpu_ms;

	printf("cpu: %.1f ms in the search process (%.0f executions/s), %.1f ms "
	       "in its executions (%.0f/s), %ld page faults\n", all,
	       race_sh->executions / (all > 0 ? all / 1e3 : 1e-3), own,
	       race_sh->executions / (own > 0 ? own / 1e3 : 1e-3),
	       race_sh->exec_faults);
}

/* --script or --sched into race_opt's tokens; exit 2 on a malformed one. */
static void load_script(struct cmdline *cl, const struct race_scenario *sc)
{
	static struct race_schedfile sf;	/* race_opt.tokens point in */
	char err[RACE_ERR_LEN];

	if (cl->script && cl->sched)
		usage("give --script or --sched, not both");
	if (cl->script && (race_script_parse(cl->script, &sf, err, sizeof(err)) ||
			   race_schedfile_threads(&sf, race_nr_workers(),
						  "--script", err, sizeof(err)))) {
		fprintf(stderr, "race: %s\n", err);
		exit(2);
	}
	if (cl->sched && !race_schedfile_load(cl->sched, sc->name, &sf, err,
					      sizeof(err))) {
		fprintf(stderr, "race: %s\n", err);
		exit(2);
	}
	if (cl->script || cl->sched) {
		race_opt.tokens = sf.tokens;
		race_opt.nr_tokens = sf.nr_tokens;
		race_opt.sees = sf.sees;
		race_opt.nr_sees = sf.nr_sees;
		if (!race_opt.memory)
			race_opt.memory = sf.memory;
		race_opt.strategy = &race_script;
	}
}

/* A verdict: timeline, schedule file, immediate replay, how it was found. */
static void report_failure(struct cmdline *cl, const char *argv0,
			   const char *desc)
{
	int err;

	race_timeline_print(stdout, race_sh);
	race_print_verdict();
	if (cl->out) {
		err = race_schedfile_write(cl->out, race_sh, cl->lab,
					   cl->binary ? cl->binary : argv0, desc);
		if (err)
			printf("schedule: cannot write %s: %s\n", cl->out,
			       strerror(-err));
		else
			printf("schedule: %s\n", cl->out);
	}
	if (strcmp(race_sh->kind, "diverged"))
		race_replay_check();
	printf("found after %ld execution%s in %.1f ms (%s)\n",
	       race_sh->executions, race_sh->executions == 1 ? "" : "s",
	       search_ms, desc);
}

/*
 * A must-hold search without a verdict: whether its witness saw the
 * outcome; if never, the verdict "vacuous" (returned as the got= kind).
 */
static const char *judge_witness(const struct race_scenario *sc)
{
	if (race_sh->witnessed) {
		printf("witness: %s: in %ld of %ld execution%s\n", sc->outcome,
		       race_sh->witnessed, race_sh->executions,
		       race_sh->executions == 1 ? "" : "s");
		return "none";
	}
	printf("verdict: vacuous: in none of the %ld execution%s explored: %s "
	       "-- the scenario never reached the case it exists for, so "
	       "holding proves nothing\n", race_sh->executions,
	       race_sh->executions == 1 ? "" : "s", sc->outcome);
	return "vacuous";
}

/* The result of the search in race_sh for @sc: the got= kind; @met set. */
static const char *judge(const struct race_scenario *sc, int state, bool *met)
{
	const char *got = state == RACE_RUN_FAIL ? race_sh->kind : "none";

	if (sc->expect != RACE_MUST_HOLD) {
		*met = state == RACE_RUN_FAIL && !strcmp(sc->verdict, got);
		return got;
	}
	*met = false;
	if (state == RACE_RUN_FAIL)
		return got;
	got = judge_witness(sc);
	*met = race_sh->witnessed &&
	       (!race_opt.strategy->exhaustive || race_sh->exhausted);
	return got;
}

/* The defaults that depend on the scenario and the strategy. */
static void apply_defaults(const struct race_scenario *sc, struct cmdline *cl)
{
	if (!cl->bound_given)
		race_opt.bound = sc->bound ? sc->bound : RACE_DEFAULT_BOUND;
	if (!race_opt.depth)
		race_opt.depth = RACE_DEFAULT_DEPTH;
	if (!race_opt.max_executions && race_opt.strategy != &race_dfs)
		race_opt.max_executions = 100000;
	load_script(cl, sc);
	if (race_opt.strategy == &race_script)
		race_opt.max_executions = 1;
	race_memory_choose(race_opt.memory, sc, race_opt.nr_sees,
			   cl->sched ? cl->sched : "--script");
}

/* The result file of a run. */
static void write_result(const struct cmdline *cl,
			 const struct race_scenario *sc, const char *got,
			 bool met, const char *desc)
{
	char executions[32], witnessed[32];

	snprintf(executions, sizeof(executions), "%ld", race_sh->executions);
	snprintf(witnessed, sizeof(witnessed), "%ld", race_sh->witnessed);
	race_result_write(cl->result, "command", "run", "scenario", sc->name,
			  "expect", race_expect_name(sc), "verdict",
			  sc->verdict ? sc->verdict : "", "got", got, "met",
			  met ? "yes" : "no", "executions", executions,
			  "witnessed", witnessed, "outcome",
			  sc->outcome ? sc->outcome : "", "exhausted",
			  race_sh->exhausted ? "yes" : "no", "strategy", desc,
			  "message", race_sh->state == RACE_RUN_FAIL ?
			  race_sh->message : "",
			  "schedule", race_sh->state == RACE_RUN_FAIL &&
			  cl->out ? cl->out : "",
			  "memory", race_weak ? "weak" : "sc", NULL);
}

/* The search of @sc: a must-hold one's top bound first (search.c). */
static int search(const struct race_scenario *sc)
{
	return sc->expect == RACE_MUST_HOLD ? race_search_top_first(true) : race_search();
}

/*
 * race run: search; on a verdict print the timeline, write the schedule,
 * replay it once.  Returns 0 iff the scenario met its expectation.
 */
static int cmd_run(struct cmdline *cl, const char *argv0)
{
	const struct race_scenario *sc;
	const char *got;
	char desc[128];
	int state;
	bool met;

	if (race_lin_suite(cl->file))
		return race_lin_cmd_run(cl->file, cl->lab, cl->out, cl->result,
					cl->binary ? cl->binary : argv0);
	sc = race_scenario_select(cl->file);
	apply_defaults(sc, cl);
	printf("== %s (%s%s%s): %s\n", sc->name, race_expect_name(sc),
	       sc->verdict ? " " : "", sc->verdict ? sc->verdict : "",
	       sc->summary ? sc->summary : "");
	if (race_weak)
		printf("memory: weak (a load may read an older store: "
		       "docs/reproducer.md, \"The weak memory model\")\n");
	search_ms = race_clock_ms(CLOCK_MONOTONIC);
	state = search(sc);
	search_ms = race_clock_ms(CLOCK_MONOTONIC) - search_ms;
	race_opt.strategy->describe(desc, sizeof(desc));
	if (state == RACE_RUN_FAIL) {
		report_failure(cl, argv0, desc);
	} else {
		if (race_opt.strategy == &race_script)
			race_timeline_print(stdout, race_sh);
		print_success();
		if (cl->cpu_time)
			print_cpu_time();
	}
	got = judge(sc, state, &met);
	printf("RESULT %s expect=%s got=%s met=%s executions=%ld\n", sc->name,
	       race_expect_name(sc), got, met ? "yes" : "no",
	       race_sh->executions);
	write_result(cl, sc, got, met, desc);
	return met ? 0 : 1;
}

/* What run-each's runs share: the command line, as `race run` has it. */
static struct cmdline each_cl;
static const char *each_argv0;

/* One run of run-each: `race run @name --result @result`. */
static int run_one(const char *name, const char *result)
{
	each_cl.file = name;
	each_cl.result = result;
	return cmd_run(&each_cl, each_argv0);
}

/* race run-each PREFIX TIMEOUT [--first-failure] [OPTION...] SCENARIO...:
 * see race_run_each(); the options are `race run`'s, for every run (each
 * run's --result is its own). */
static int cmd_run_each(int argc, char **argv, const char *argv0)
{
	bool first = argc > 2 && !strcmp(argv[2], "--first-failure");
	char **names = calloc(argc + 1, sizeof(char *));
	int nr;

	if (argc < 3 + first)
		usage("run-each needs a prefix, a timeout and a scenario");
	if (!names)
		usage("no memory");
	nr = parse_options(argc - 2 - first, argv + 2 + first, &each_cl, names);
	if (!nr)
		usage("run-each needs a scenario");
	if (each_cl.out || each_cl.sched || each_cl.script || race_debug.enabled)
		usage("run-each: --out, --sched, --script and --debug are for one run");
	each_argv0 = argv0;
	return race_run_each(argv[0], names, nr, number("run-each TIMEOUT", argv[1]),
			     first, run_one);
}

/* race check FILE... [--scenario NAME]: see race_cmd_check(). */
static int cmd_check(int argc, char **argv)
{
	const char *scenario = NULL;
	char **files = calloc(argc + 1, sizeof(char *));
	int i, nr = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--scenario") && i + 1 < argc)
			scenario = argv[++i];
		else if (argv[i][0] == '-')
			usage("check takes schedule files and --scenario NAME");
		else
			files[nr++] = argv[i];
	}
	if (!nr)
		usage("check needs a schedule file");
	return race_cmd_check(files, nr, scenario);
}

/* race list | run | replay | check | run-each: see the top of this file. */
int main(int argc, char **argv)
{
	struct cmdline cl = { 0 };
	int refused;

	setvbuf(stdout, NULL, _IOLBF, 0);
	race_opt.strategy = &race_dfs;
	refused = race_scenarios_load();
	if (refused) {
		fprintf(stderr, "race: %d scenario(s) refused: fix them where "
			"they are declared (see common/race/scenario.h)\n",
			refused);
		return 2;
	}
	if (argc < 2)
		usage(NULL);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "run-each")) {
		race_debug_attach(race_debug.enabled);
		return cmd_run_each(argc - 2, argv + 2, argv[0]);
	}
	parse_options(argc - 2, argv + 2, &cl, NULL);
	race_debug_attach(race_debug.enabled);
	if (!strcmp(argv[1], "list") && cl.file)
		return race_lin_list(cl.file);
	if (!strcmp(argv[1], "list"))
		return cmd_list();
	if (!strcmp(argv[1], "run"))
		return cmd_run(&cl, argv[0]);
	if (!strcmp(argv[1], "replay")) {
		if (!cl.file)
			usage("replay needs a schedule file");
		return race_cmd_replay(cl.file, cl.scenario, cl.expect,
				       cl.times, cl.quiet, cl.result);
	}
	usage("unknown command");
}
