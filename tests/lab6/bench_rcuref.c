// SPDX-License-Identifier: GPL-2.0
/*
 * bench_rcuref.c - make bench-lab6: rcuref_t's get against lab 2's
 * compare-and-exchange loop, as ratios measured side by side in one run.
 * A benchmark, not a test: it asserts nothing about time.  Every run
 * checks its counts: a wrong count measures nothing.
 *
 * Variants, each a get + put pair per iteration, linked into this binary
 * (mk/bench-lab6.mk):
 *   cmpxchg   lab 2's refcount_get_rcu (solutions/): read, then
 *             atomic_cmpxchg until it lands; put: atomic_dec_and_test
 *   counted   the same loop written here, counting its failed exchanges:
 *             the retries per get (a thread-local counter: no sharing)
 *   rcuref    lab 6's rcuref_get and rcuref_put (IMPL, else solutions/):
 *             one atomic_add_negative_relaxed, one atomic_sub_return_release,
 *             and the put's preempt_disable/enable (here: a liburcu read-
 *             side section, common/preempt.h)
 *   rcusafe   the same without preempt_disable: rcuref_get, then the
 *             subtraction and lab 6's rcuref_put_slowpath, written here --
 *             the kernel's rcuref_put_rcusafe(), for callers already inside
 *             a read-side section.  The count's own price, without the
 *             kit's user-space stand-in for preemption (no count here ever
 *             reaches its last reference: nothing to hold a grace period for)
 *   inc       atomic_inc + atomic_dec: one atomic each, nothing checked --
 *             the limit of any count
 * Workloads:
 *   one       every thread on one count (one cache line, contended)
 *   own       a count per thread, each on a cache line of its own
 * Threads: 1, 2, 4, 8, 16, up to the CPUs online (or --threads LIST).
 * Each run does about RUN_NS of pairs per thread; in each of ROUNDS
 * rounds the variants take turns, and each round gives one ratio
 * rcuref/cmpxchg; the table shows medians (min-max).
 *
 * Time is each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), and a run's
 * rate the sum of its threads' (pairs / CPU seconds): what the threads do
 * with a CPU each.  On a machine shared with other jobs, wall time would
 * measure how often the threads got a CPU; CPU time still includes what
 * contention costs (a cache line that moves stalls the thread that waits
 * for it) -- but only while the threads really run at once (docs/bench.md,
 * "Lab 6", says what 2 cores can and cannot show).
 *
 *   bench_rcuref [--threads 1,2,4] [--rounds N] [--csv DIR] [--smoke]
 *
 * --csv DIR writes DIR/lab6-runs.csv (every run) and DIR/lab6.csv (every
 * point: median, min, max Mpairs/s, the median ratio to cmpxchg, retries
 * per get); --smoke runs every variant and workload a few thousand pairs,
 * checks them, and prints no figure.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "preempt.h"
#include "rcupdate.h"
#include "rcuref.h"
#include "refcount.h"

#define MAX_THREADS	16
#define MAX_ROUNDS	15
#define RUN_NS		40e6	/* one run: about 40 ms */

/* One count, on a line of its own. */
struct slot {
	union {
		rcuref_t r;
		refcount_t c;
		atomic_t a;
	};
} __attribute__((aligned(128)));

static struct slot slots[MAX_THREADS];

enum { CMPXCHG, COUNTED, RCUREF, RCUSAFE, INC, NR_VARIANTS };
enum { ONE, OWN, NR_WORKLOADS };

static const char *const variant_name[NR_VARIANTS] = {
	"cmpxchg", "counted", "rcuref", "rcusafe", "inc",
};
static const char *const workload_name[NR_WORKLOADS] = { "one", "own" };

/* Lab 2's loop, with a counter on the branch that retries. */
static int counted_get_rcu(refcount_t *rc, long *fails)
{
	int seen = atomic_read(&rc->count);

	while (seen) {
		int found = atomic_cmpxchg(&rc->count, seen, seen + 1);

		if (found == seen)
			return seen;
		seen = found;
		(*fails)++;
	}
	return 0;
}

/* rcuref_put's body without its preempt_disable (rcuref_put_rcusafe). */
static bool put_rcusafe(rcuref_t *ref)
{
	int cnt = atomic_sub_return_release(1, &ref->refcnt);

	return cnt < 0 && rcuref_put_slowpath(ref, (unsigned int)cnt);
}

/* @n get + put pairs of variant @v on @s; returns the failed exchanges
 * (counted) or the pairs that went wrong (the others). */
static long pairs(int v, struct slot *s, long n)
{
	long i, bad = 0, fails = 0;

	switch (v) {
	case CMPXCHG:
		for (i = 0; i < n; i++)
			bad += !refcount_get_rcu(&s->c) + refcount_put(&s->c);
		return bad;
	case COUNTED:
		for (i = 0; i < n; i++)
			bad += !counted_get_rcu(&s->c, &fails) + refcount_put(&s->c);
		return bad ? -bad : fails;
	case RCUREF:
		for (i = 0; i < n; i++)
			bad += !rcuref_get(&s->r) + rcuref_put(&s->r);
		return bad;
	case RCUSAFE:
		for (i = 0; i < n; i++)
			bad += !rcuref_get(&s->r) + put_rcusafe(&s->r);
		return bad;
	default:
		for (i = 0; i < n; i++) {
			atomic_inc(&s->a);
			atomic_dec(&s->a);
		}
		return 0;
	}
}

/* Every count starts at one reference, the owner's, and must end there. */
static void slot_init(int v, struct slot *s)
{
	if (v == RCUREF || v == RCUSAFE)
		rcuref_init(&s->r, 1);
	else if (v == INC)
		atomic_set(&s->a, 1);
	else
		refcount_init(&s->c);
}

static int slot_ok(int v, struct slot *s)
{
	if (v == RCUREF || v == RCUSAFE)
		return rcuref_read(&s->r) == 1;
	if (v == INC)
		return atomic_read(&s->a) == 1;
	return refcount_read(&s->c) == 1;
}

struct job {
	int v;
	struct slot *s;
	long n, result;
	pthread_barrier_t *start;
	double cpu_ns;		/* the CPU time this thread's pairs took */
};

static double clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	double t;

	rcu_register_thread();		/* rcuref_put's preempt_disable */
	pthread_barrier_wait(j->start);
	t = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	j->result = pairs(j->v, j->s, j->n);
	j->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t;
	rcu_unregister_thread();
	return NULL;
}

struct run {
	double mpairs;		/* million pairs per second, all threads */
	double retries;		/* per get (counted only) */
};

/* One run: @threads threads, @n pairs each; exits if a count is wrong. */
static struct run run(int v, int w, int threads, long n)
{
	pthread_t tid[MAX_THREADS];
	struct job jobs[MAX_THREADS];
	pthread_barrier_t start;
	struct run r = { 0, 0 };
	long fails = 0;
	int i;

	pthread_barrier_init(&start, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		jobs[i] = (struct job){ .v = v, .s = &slots[w == ONE ? 0 : i],
					.n = n, .start = &start };
		slot_init(v, jobs[i].s);
	}
	for (i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, &jobs[i]);
	pthread_barrier_wait(&start);
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&start);
	for (i = 0; i < threads; i++) {
		if (jobs[i].result < 0 || (v != COUNTED && jobs[i].result) ||
		    !slot_ok(v, jobs[i].s)) {
			fprintf(stderr, "bench-lab6: %s, %s, %d thread(s): a get "
				"failed, a put returned true, or a count did not end "
				"at one reference -- fix it first (make lab-%s)\n",
				variant_name[v], workload_name[w], threads,
				v == RCUREF || v == RCUSAFE ? "6" : "2");
			exit(1);
		}
		fails += jobs[i].result;
		r.mpairs += (double)n / jobs[i].cpu_ns * 1e3;
	}
	r.retries = (double)fails / ((double)n * threads);
	return r;
}

/* Pairs per thread for a run of about RUN_NS, one thread, one count. */
static long calibrate(int v)
{
	long n = 1000;
	double ns;

	for (;;) {
		ns = n / run(v, ONE, 1, n).mpairs * 1e3;	/* CPU ns */
		if (ns > RUN_NS / 8 || n > 100000000)
			break;
		n *= 4;
	}
	return (long)(n * RUN_NS / ns) + 1;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	return v[n / 2];
}

/* "1,2,4" -> thread counts; 0 if the list is wrong. */
static int parse_threads(const char *arg, int *out)
{
	int n = 0;
	char *end;

	while (*arg && n < 8) {
		long t = strtol(arg, &end, 10);

		if (end == arg || t < 1 || t > MAX_THREADS)
			return 0;
		out[n++] = (int)t;
		arg = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return n;
}

static int default_threads(int *out)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = 0, t;

	for (t = 1; t <= MAX_THREADS && t <= cpus; t *= 2)
		out[n++] = t;
	if (cpus >= 2 && out[n - 1] < cpus && cpus <= MAX_THREADS)
		out[n++] = (int)cpus;	/* every CPU, if not a power of 2 */
	return n;
}

/* The preempt_disable + preempt_enable pair alone, in ns. */
static double preempt_pair_ns(void)
{
	long i, n = 2000000;
	double t = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	for (i = 0; i < n; i++) {
		preempt_disable();
		preempt_enable();
	}
	return (clock_ns(CLOCK_THREAD_CPUTIME_ID) - t) / n;
}

static int smoke(const int *threads, int nr_threads)
{
	int v, w, i;

	for (i = 0; i < nr_threads; i++)
		for (w = 0; w < NR_WORKLOADS; w++)
			for (v = 0; v < NR_VARIANTS; v++)
				run(v, w, threads[i], 5000);
	printf("bench-lab6 smoke: %d variants x %d workloads x %d thread "
	       "count(s), every count checked\n", NR_VARIANTS, NR_WORKLOADS,
	       nr_threads);
	return 0;
}

int main(int argc, char **argv)
{
	static struct run runs[NR_WORKLOADS][8][NR_VARIANTS][MAX_ROUNDS];
	int threads[8], nr_threads = 0, rounds = 5, do_smoke = 0, v, w, i, r;
	const char *csv = NULL;
	long n[NR_VARIANTS];
	FILE *all = NULL, *pts = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			nr_threads = parse_threads(argv[++i], threads);
			if (!nr_threads) {
				fprintf(stderr, "bench-lab6: --threads wants a list "
					"of 1 to %d, e.g. 1,2,4\n", MAX_THREADS);
				return 2;
			}
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
			if (rounds < 1 || rounds > MAX_ROUNDS)
				rounds = 5;
		} else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			csv = argv[++i];
		} else if (!strcmp(argv[i], "--smoke")) {
			do_smoke = 1;
		} else {
			fprintf(stderr, "usage: bench_rcuref [--threads 1,2,4] "
				"[--rounds N] [--csv DIR] [--smoke]\n");
			return 2;
		}
	}
	rcu_register_thread();
	if (!nr_threads)
		nr_threads = default_threads(threads);
	if (do_smoke)
		return smoke(threads, nr_threads);

	printf("bench-lab6: get + put pairs, million pairs per CPU second, summed "
	       "over the threads, median of %d rounds (min-max); %ld CPUs online\n",
	       rounds, sysconf(_SC_NPROCESSORS_ONLN));
	for (v = 0; v < NR_VARIANTS; v++)
		n[v] = calibrate(v);
	for (r = 0; r < rounds; r++) {
		fprintf(stderr, "\rround %d/%d", r + 1, rounds);
		for (w = 0; w < NR_WORKLOADS; w++)
			for (i = 0; i < nr_threads; i++)
				for (v = 0; v < NR_VARIANTS; v++)
					runs[w][i][v][r] = run(v, w, threads[i], n[v]);
	}
	fprintf(stderr, "\r              \r");

	if (csv) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/lab6-runs.csv", csv);
		all = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/lab6.csv", csv);
		pts = fopen(path, "w");
		if (!all || !pts) {
			fprintf(stderr, "bench-lab6: cannot write %s/lab6*.csv\n", csv);
			return 1;
		}
		fprintf(all, "workload,variant,threads,round,mpairs_per_s,retries_per_get\n");
		fprintf(pts, "workload,variant,threads,median,min,max,ratio_to_cmpxchg,"
			"retries_per_get\n");
	}
	printf("\n%-8s %-7s", "counts", "threads");
	for (v = 0; v < NR_VARIANTS; v++)
		printf(" %18s", variant_name[v]);
	printf("  rcuref/cmpxchg  retries/get\n");
	for (w = 0; w < NR_WORKLOADS; w++) {
		for (i = 0; i < nr_threads; i++) {
			double ratio[MAX_ROUNDS], retries[MAX_ROUNDS], med[NR_VARIANTS];
			double rmed, tmed;

			printf("%-8s %-7d", workload_name[w], threads[i]);
			for (v = 0; v < NR_VARIANTS; v++) {
				double x[MAX_ROUNDS];

				for (r = 0; r < rounds; r++) {
					x[r] = runs[w][i][v][r].mpairs;
					if (all)
						fprintf(all, "%s,%s,%d,%d,%.4f,%.4f\n",
							workload_name[w], variant_name[v],
							threads[i], r, x[r],
							runs[w][i][v][r].retries);
				}
				med[v] = median(x, rounds);
				printf(" %6.1f (%4.1f-%4.1f)", med[v], x[0], x[rounds - 1]);
			}
			for (r = 0; r < rounds; r++) {
				ratio[r] = runs[w][i][RCUREF][r].mpairs /
					   runs[w][i][CMPXCHG][r].mpairs;
				retries[r] = runs[w][i][COUNTED][r].retries;
			}
			rmed = median(ratio, rounds);
			tmed = median(retries, rounds);
			printf("  %13.2fx  %11.3f\n", rmed, tmed);
			if (pts) {
				for (v = 0; v < NR_VARIANTS; v++) {
					double x[MAX_ROUNDS];

					for (r = 0; r < rounds; r++)
						x[r] = runs[w][i][v][r].mpairs;
					median(x, rounds);
					fprintf(pts, "%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n",
						workload_name[w], variant_name[v],
						threads[i], med[v], x[0], x[rounds - 1],
						v == RCUREF ? rmed : med[v] / med[CMPXCHG],
						v == COUNTED ? tmed : 0.0);
				}
			}
		}
	}
	printf("\nrcuref/cmpxchg: in each round rcuref's rate over lab 2's, the "
	       "median of those; retries/get: the failed exchanges of the counted "
	       "copy of lab 2's loop per get\n");
	printf("one preempt_disable + preempt_enable pair (in rcuref_put): %.1f ns "
	       "of CPU here (a liburcu read-side section; in the kernel a per-CPU "
	       "increment)\n", preempt_pair_ns());
	if (all)
		fclose(all);
	if (pts)
		fclose(pts);
	return 0;
}
