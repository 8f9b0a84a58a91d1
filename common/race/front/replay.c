// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - following a schedule file: `race replay FILE` and `race check
 * FILE...`.
 *
 * A replay is a search with the script strategy and one execution, in a
 * fresh child process.  It must meet the same steps (thread, label, object
 * and value, as the schedule file records them) and end in the same
 * verdict; with --times N, N replays must be the same text byte for byte.
 * (The immediate replay of a failure just found is recheck.c's.)
 */
#include <stdlib.h>
#include <string.h>

#include "race/front/front.h"

/* FNV-1a of the execution's step lines and verdict. */
static unsigned long long trace_hash(void)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	char line[RACE_MSG_LEN + 64];
	const char *p;
	long i;

	for (i = 0; i <= race_sh->nr_steps; i++) {
		if (i < race_sh->nr_steps &&
		    race_sees_line(&race_sh->steps[i], i + 1, line, sizeof(line)))
			for (p = line; *p; p++)
				h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		if (i < race_sh->nr_steps)
			race_step_line(&race_sh->steps[i], i + 1, line,
				       sizeof(line));
		else
			snprintf(line, sizeof(line), "%s %s", race_sh->kind,
				 race_sh->message);
		for (p = line; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	}
	return h;
}

/* How many threads @sc has (the RCU thread not counted). */
static int threads_of(const struct race_scenario *sc)
{
	int n = 0;

	while (n < RACE_MAX_THREADS && sc->threads[n])
		n++;
	return n;
}

/* "a, b, c": the scenarios of this binary, as many as fit in @buf. */
static void scenario_names(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < race_scenarios_count() && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
			      race_scenario_at(i)->name);
}

/**
 * race_schedfile_load - read schedule file @file and check it against this
 * binary
 * @scenario: the scenario to replay it on, instead of the file's own
 *            "scenario" line (NULL: the file's)
 *
 * Returns the scenario, with the threads of @sf's tokens numbered for it;
 * or NULL with @err one line: a malformed line, no scenario, a scenario
 * or a thread this binary does not have.  Free @sf either way.
 */
const struct race_scenario *race_schedfile_load(const char *file,
						const char *scenario,
						struct race_schedfile *sf,
						char *err, size_t errlen)
{
	const struct race_scenario *sc;
	char esc[256], name[RACE_QUOTE_LEN], names[256];
	const char *want;

	if (race_schedfile_read(file, sf, err, errlen))
		return NULL;
	race_escape(esc, sizeof(esc), file, strlen(file));
	want = scenario ? scenario : sf->scenario;
	if (!want[0]) {
		snprintf(err, errlen, "%s: expected a 'scenario NAME' line (or "
			 "--scenario NAME), got none", esc);
		return NULL;
	}
	sc = race_scenario_find(want);
	if (!sc) {
		race_quote(name, sizeof(name), want, strlen(want));
		scenario_names(names, sizeof(names));
		if (scenario)
			snprintf(err, errlen, "%s: --scenario: expected a "
				 "scenario of this binary (%s), got %s", esc,
				 names, name);
		else
			snprintf(err, errlen, "%s:%d: expected a scenario of "
				 "this binary (%s), got %s", esc,
				 sf->scenario_line, names, name);
		return NULL;
	}
	if (race_schedfile_threads(sf, threads_of(sc), file, err, errlen))
		return NULL;
	return sc;
}

/* Load @file for a replay and select its scenario; exit 2 if malformed. */
static const struct race_scenario *load_schedfile(const char *file,
						  const char *scenario,
						  struct race_schedfile *sf)
{
	const struct race_scenario *sc;
	char err[RACE_ERR_LEN];

	sc = race_schedfile_load(file, scenario, sf, err, sizeof(err));
	if (!sc) {
		fprintf(stderr, "race: %s\n", err);
		exit(2);
	}
	return race_scenario_select(sc->name);
}

/**
 * race_cmd_check - race check FILE...: read each schedule file as a replay
 * would, without running anything
 *
 * Prints one line per file: "FILE: ok: ..." on stdout, or the error on
 * stderr.  Returns 0 if every file is well formed, 2 if one is not.
 */
int race_cmd_check(char **files, int nr, const char *scenario)
{
	const struct race_scenario *sc;
	struct race_schedfile sf;
	char err[RACE_ERR_LEN], esc[256];
	int i, bad = 0;

	for (i = 0; i < nr; i++) {
		sc = race_schedfile_load(files[i], scenario, &sf, err,
					 sizeof(err));
		if (sc)
			printf("%s: ok: scenario %s, %d step(s) and run "
			       "token(s)\n", race_escape(esc, sizeof(esc),
			       files[i], strlen(files[i])), sc->name,
			       sf.nr_tokens);
		else
			fprintf(stderr, "race: %s\n", err);
		bad += !sc;
		race_schedfile_free(&sf);
	}
	return bad ? 2 : 0;
}

/*
 * Replay @times times (at least once); returns how many were identical to
 * the first, byte for byte.  race_sh holds the last.
 *
 * The first and the last replay run on OS threads, what gdb and rr show;
 * those between run on user contexts (runtime/carrier.c), so the
 * comparison also holds the two carriers to the same trace, and a replay
 * costs about 6 ms of CPU, not 9 (a search process that starts no OS
 * thread: lab 1's race, 200 replays).
 */
static long replay_times(long times)
{
	unsigned long long first = 0, h;
	long i, n = times ? times : 1, same = 0;
	bool os_threads = race_opt.os_threads;

	for (i = 0; i < n; i++) {
		race_opt.os_threads = os_threads || i == 0 || i == n - 1;
		race_search();
		h = trace_hash();
		if (!i)
			first = h;
		same += h == first;
	}
	return same;
}

/* Whether the replay in race_sh followed @sf's steps; says where not. */
static bool followed(const struct race_schedfile *sf)
{
	char msg[RACE_MSG_LEN];

	if (race_sh->state == RACE_RUN_FAIL && !strcmp(race_sh->kind, "diverged"))
		return false;	/* the verdict printed says where */
	if (!race_steps_compare(sf->step_lines, sf->nr_step_lines, msg,
				sizeof(msg)))
		return true;
	printf("%s\n", msg);
	return false;
}

/* The timeline of the replay in race_sh, and its verdict. */
static void print_replay(const char *file, const struct race_scenario *sc)
{
	printf("== replay of %s: scenario %s\n", file, sc->name);
	race_timeline_print(stdout, race_sh);
	if (race_sh->state == RACE_RUN_FAIL)
		race_print_verdict();
	else
		printf("verdict: none (every thread finished, the checks "
		       "held)\n");
}

/**
 * race_cmd_replay - race replay: follow a schedule file
 * @scenario: overrides the file's scenario line; @expect its result line
 * @times:    replay that many times and compare (0: once)
 * @result_file: where to write the result file, or NULL
 *
 * Returns 0 iff the expected result recurred, the recorded steps recurred
 * and every replay was byte-identical; exits 2 for a malformed file.
 */
int race_cmd_replay(const char *file, const char *scenario, const char *expect,
		    long times, int quiet, const char *result_file)
{
	struct race_schedfile sf;
	const struct race_scenario *sc = load_schedfile(file, scenario, &sf);
	char nr[32], identical[32], steps[32];
	const char *got;
	long same;
	bool ok;

	race_opt.strategy = &race_script;
	race_opt.max_executions = 1;
	race_opt.tokens = sf.tokens;
	race_opt.nr_tokens = sf.nr_tokens;
	race_opt.sees = sf.sees;
	race_opt.nr_sees = sf.nr_sees;
	race_memory_choose(sf.memory, sc, sf.nr_sees, file);
	if (sf.build[0] && strcmp(sf.build, race_build_id()) && !quiet)
		printf("note: recorded by build %s, this is build %s: the code "
		       "may have changed\n", sf.build, race_build_id());
	same = replay_times(times);
	if (!quiet)
		print_replay(file, sc);
	ok = followed(&sf);
	expect = expect ? expect : sf.result[0] ? sf.result : "none";
	got = race_sh->state == RACE_RUN_FAIL ? race_sh->kind : "none";
	if (strcmp(expect, got)) {
		printf("replay: expected result '%s', got '%s'\n", expect, got);
		ok = false;
	}
	if (times) {
		printf("replays: %ld, byte-identical to the first: %ld\n",
		       times, same);
		ok &= same == times;
	}
	printf("REPLAY %s expect=%s got=%s ok=%s\n", sc->name, expect, got,
	       ok ? "yes" : "no");
	snprintf(nr, sizeof(nr), "%ld", times ? times : 1);
	snprintf(identical, sizeof(identical), "%ld", same);
	snprintf(steps, sizeof(steps), "%ld", race_sh->nr_steps);
	race_result_write(result_file, "command", "replay", "scenario",
			  sc->name, "expect", expect, "got", got, "ok",
			  ok ? "yes" : "no", "replays", nr, "identical",
			  identical, "steps", steps,
			  "message", race_sh->state == RACE_RUN_FAIL ?
			  race_sh->message : "", NULL);
	return ok ? 0 : 1;
}
