// SPDX-License-Identifier: GPL-2.0
/*
 * bench_fdtable.c - make bench: the 2004 patch "Lock free fd lookup"
 * measured on lab 5's fd table, every way of looking an fd up side by side
 * in one process, so that their ratios hold on a noisy machine.  A
 * benchmark, not a test: it asserts nothing about time.  It does check
 * every answer (bench_run.c), and refuses to print figures for a wrong
 * table.
 *
 *   bench_fdtable [--mode default|quick|smoke|list] [--impl TREE]
 *                 [--threads 1,2,4] [--runs N] [--ms N]
 *                 [--variants spinlock,lockfree,...]
 *
 * Writes one CSV line per run to stdout (workload, variant, threads, run,
 * ops, seconds; tools/bench.py makes the table, the CSV files and the
 * plots from them) and a progress line to stderr.  Each round runs every
 * point once, the variants taking turns, so a machine that slows down
 * slows them alike; each point is measured in every round.
 *
 *   default  threads 1, 2, 4, ... up to twice the cores (at most 16), and
 *            the number of cores; 7 rounds of 100 ms runs
 *   quick    threads 1, 2 and the number of cores; 5 rounds of 30 ms
 *   smoke    threads 1 and 2, one round of 2000 lookups per reader, no
 *            timing, no CSV: every check, for make check
 *   list     the variants and the workloads, one CSV line each (kind,
 *            name, what), and nothing else
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_run.h"
#include "compiler.h"

static const struct variant variants[] = {
	{ .name = "spinlock", .ops = &bench_ops_spinlock,
	  .what = "2.6.6: fget under the table's file_lock (fget_locked_given.c)" },
	{ .name = "rwlock", .ops = &bench_ops_rwlock,
	  .what = "fget under a pthread rwlock's read side; updates take its write side" },
	{ .name = "lockfree", .ops = &bench_ops_lockfree,
	  .what = "the patch: RCU (liburcu memb, the kit's) and the cmpxchg get (lab 5)" },
	{ .name = "light", .ops = &bench_ops_lockfree, .light = true,
	  .what = "fget_light on a table of one user: no reference, no lock (the limit)" },
	{ .name = "hashlock", .ops = &bench_ops_hashlock, .lab4 = true,
	  .what = "lockfree with the count through lab 4's hashed locks (signals not masked)" },
	{ .name = "qsbr", .ops = &bench_ops_qsbr,
	  .what = "lockfree with liburcu's QSBR read side: costs nothing (the limit)" },
};
#define NR_VARIANTS	((int)(sizeof(variants) / sizeof(variants[0])))

static const struct workload workloads[] = {
	{ "fget-1fd", true, false, false, false,
	  "fget + fput, every thread on fd 0 (one file, one count)" },
	{ "fget-nfd", false, false, false, false,
	  "fget + fput, thread i on fd i (a count each)" },
	{ "tio-seq", false, true, false, false,
	  "tiobench-like: fget, 4 KiB pread at sequential offsets, fput" },
	{ "tio-rand", false, true, true, false,
	  "tiobench-like: fget, 4 KiB pread at random offsets, fput" },
	{ "tio-seq+w", false, true, false, true,
	  "tio-seq, and a writer: open, close, a table expansion now and then" },
	{ "tio-rand+w", false, true, true, true,
	  "tio-rand, and a writer: open, close, a table expansion now and then" },
};
#define NR_WORKLOADS	((int)(sizeof(workloads) / sizeof(workloads[0])))

struct options {
	const char *mode, *impl;
	bool skip[NR_VARIANTS];		/* not among --variants */
	char lab5_only[128];		/* the variants that need lab 5 alone */
	int threads[BENCH_MAX_THREADS], nr_threads;
	int runs, ms;
	long smoke_ops;
};

/* A light table has one user: with a writer the table has two, and
 * fget_light is fget.  Not measured there. */
static bool applies(const struct options *o, int v, const struct workload *w)
{
	return !o->skip[v] && !(variants[v].light && w->writer);
}

/* --variants: a comma-separated list of names; the others are skipped. */
static void choose_variants(struct options *o, const char *list)
{
	for (int v = 0; v < NR_VARIANTS; v++) {
		size_t n = strlen(variants[v].name);
		const char *p = list;

		o->skip[v] = true;
		for (; *p; p += strcspn(p, ",") + !!p[strcspn(p, ",")])
			if (strcspn(p, ",") == n && !strncmp(p, variants[v].name, n))
				o->skip[v] = false;
	}
}

static void add_threads(struct options *o, int n)
{
	for (int i = 0; i < o->nr_threads; i++)
		if (o->threads[i] == n)
			return;
	if (n < 1 || n > BENCH_MAX_THREADS || o->nr_threads == BENCH_MAX_THREADS)
		return;
	o->threads[o->nr_threads++] = n;
	for (int i = o->nr_threads - 1; i > 0 && o->threads[i] < o->threads[i - 1]; i--) {
		int t = o->threads[i];

		o->threads[i] = o->threads[i - 1];
		o->threads[i - 1] = t;
	}
}

/* 1, 2, 4, ... up to twice the cores (at most 16), and the cores. */
static void default_threads(struct options *o, bool quick)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int most = cores * 2 > BENCH_MAX_THREADS ? BENCH_MAX_THREADS : (int)cores * 2;

	if (cores < 1)
		cores = 1;
	add_threads(o, 1);
	add_threads(o, 2);
	add_threads(o, cores > BENCH_MAX_THREADS ? BENCH_MAX_THREADS : (int)cores);
	for (int n = 4; !quick && n <= most; n *= 2)
		add_threads(o, n);
	if (!quick)
		add_threads(o, most);
}

static __noreturn void usage(const char *why)
{
	fprintf(stderr, "bench_fdtable: %s\nusage: bench_fdtable [--mode "
		"default|quick|smoke|list] [--impl TREE] [--threads 1,2,4] "
		"[--runs N] [--ms N] [--variants a,b]\n", why);
	exit(2);
}

/* --threads 1,2,4: numbers from 1 to BENCH_MAX_THREADS. */
static void parse_threads(struct options *o, const char *list)
{
	const char *p = list;

	while (*p) {
		char *end;
		long n = strtol(p, &end, 10);

		if (end == p || n < 1 || n > BENCH_MAX_THREADS || (*end && *end != ','))
			usage("--threads is a list of numbers from 1 to 16: 1,2,4");
		add_threads(o, (int)n);
		p = end + (*end == ',');
	}
}

static void parse(struct options *o, int argc, char **argv)
{
	*o = (struct options){ .mode = "default", .impl = "solutions",
			       .runs = -1, .ms = -1, .smoke_ops = 2000 };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val)
			usage("an option without its value");
		i++;
		if (!strcmp(arg, "--mode"))
			o->mode = val;
		else if (!strcmp(arg, "--impl"))
			o->impl = val;
		else if (!strcmp(arg, "--runs"))
			o->runs = atoi(val);
		else if (!strcmp(arg, "--ms"))
			o->ms = atoi(val);
		else if (!strcmp(arg, "--variants"))
			choose_variants(o, val);
		else if (!strcmp(arg, "--threads"))
			parse_threads(o, val);
		else
			usage("unknown option");
	}
	if (o->runs < 0)
		o->runs = !strcmp(o->mode, "quick") ? 5 : 7;
	if (o->ms < 0)
		o->ms = !strcmp(o->mode, "quick") ? 30 : 100;
	if (!strcmp(o->mode, "smoke")) {
		o->runs = 1;
		o->nr_threads = 0;
		add_threads(o, 1);
		add_threads(o, 2);
	} else if (strcmp(o->mode, "default") && strcmp(o->mode, "quick") &&
		   strcmp(o->mode, "list")) {
		usage("--mode is default, quick, smoke or list");
	}
	if (!o->nr_threads)
		default_threads(o, !strcmp(o->mode, "quick"));
	if (o->runs < 1 || o->ms < 1)
		usage("--runs and --ms must be at least 1");
	for (int v = 0; v < NR_VARIANTS; v++)
		if (!variants[v].lab4)
			snprintf(o->lab5_only + strlen(o->lab5_only),
				 sizeof(o->lab5_only) - strlen(o->lab5_only), "%s%s",
				 o->lab5_only[0] ? "," : "", variants[v].name);
	for (int v = 0; v < NR_VARIANTS; v++)
		if (!o->skip[v])
			return;
	usage("--variants names none of the variants (--mode list)");
}

/* --- where it stopped, if the table under test crashes it ------------------ */

static char where[256];

static void crashed(int sig)
{
	const char *msg = "\nbench: the fd table under test crashed the benchmark";

	if (write(2, msg, strlen(msg)) < 0 || write(2, where, strlen(where)) < 0)
		_exit(1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_crash(void)
{
	signal(SIGABRT, crashed);
	signal(SIGSEGV, crashed);
	signal(SIGBUS, crashed);
}

/* --- progress --------------------------------------------------------------- */

static void progress(int done, int total, const struct run_spec *s)
{
	static int last_tenth = -1;

	snprintf(where, sizeof(where), " (%s, %s, %d thread(s)); fix it first: "
		 "make lab-5 IMPL=%s\n", s->v->name, s->w->name, s->threads, s->impl);
	if (!s->seconds)
		return;		/* the smoke test: over in a second */
	if (isatty(2)) {
		fprintf(stderr, "\rbench: run %d/%d  %-10s %2d thread(s)  %-9s",
			done + 1, total, s->w->name, s->threads, s->v->name);
	} else if (done * 10 / total != last_tenth) {
		last_tenth = done * 10 / total;
		fprintf(stderr, "bench: %d%% (run %d of %d)\n", last_tenth * 10,
			done + 1, total);
	}
}

static void list(void)
{
	for (int v = 0; v < NR_VARIANTS; v++)
		printf("variant,%s,%s\n", variants[v].name, variants[v].what);
	for (int w = 0; w < NR_WORKLOADS; w++)
		printf("workload,%s,%s\n", workloads[w].name, workloads[w].what);
}

int main(int argc, char **argv)
{
	struct options o;
	int round, w, t, v, done = 0, total;
	bool smoke;

	parse(&o, argc, argv);
	if (!strcmp(o.mode, "list")) {
		list();
		return 0;
	}
	smoke = !strcmp(o.mode, "smoke");
	total = 0;
	for (w = 0; w < NR_WORKLOADS; w++)
		for (v = 0; v < NR_VARIANTS; v++)
			total += applies(&o, v, &workloads[w]) * o.nr_threads * o.runs;
	bench_init();
	on_crash();
	if (!smoke)
		printf("workload,variant,threads,run,ops,seconds\n");
	for (round = 0; round < o.runs; round++)
		for (w = 0; w < NR_WORKLOADS; w++)
			for (t = 0; t < o.nr_threads; t++)
				for (v = 0; v < NR_VARIANTS; v++) {
					struct run_spec s = { &variants[v], &workloads[w],
						o.threads[t], smoke ? 0 : o.ms / 1e3,
						o.smoke_ops, o.impl, o.lab5_only };
					struct run_result r;

					if (!applies(&o, v, s.w))
						continue;
					progress(done++, total, &s);
					bench_run(&s, &r);
					if (!smoke)
						printf("%s,%s,%d,%d,%ld,%.6f\n", s.w->name,
						       s.v->name, s.threads, round + 1,
						       r.ops, r.seconds);
				}
	if (!smoke && isatty(2))
		fprintf(stderr, "\r%-72s\r", "");
	if (smoke)
		printf("bench smoke: %d runs of %d variants x %d workloads, every "
		       "answer checked\n", total, NR_VARIANTS, NR_WORKLOADS);
	return 0;
}
