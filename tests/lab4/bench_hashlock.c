// SPDX-License-Identifier: GPL-2.0
/*
 * bench_hashlock.c - make bench-lab4: the price of the spinlock-hash
 * fallback, as ratios measured side by side in one run.  A benchmark,
 * not a test: it asserts nothing about time.
 *
 * Back ends, linked into this one binary (mk/bench-lab4.mk):
 *   cas    lab 2's refcount_t (solutions/): atomic_inc_return and
 *          atomic_dec_and_test, one locked instruction each
 *   hash   lab 4's, SMP: spin_lock_irqsave on the bucket lock
 *   lock   the same code with interrupt masking compiled out: the bucket
 *          lock's own price, apart from the kit's lazy "interrupts off"
 *          (a per-thread count; a CPU's cli and sti cost a few cycles)
 *   up     lab 4's UP build: local_irq_save alone (one thread only: it is
 *          wrong with two)
 * Workloads: each thread runs refcount_get + refcount_put pairs on
 *   one      one count shared by every thread
 *   bucket   a count per thread, all in one 256-byte block (one lock),
 *            each on a cache line of its own
 *   spread   a count per thread, each in a bucket of its own
 * with 1 and 2 threads.  Each cell is the median of ROUNDS runs; the back
 * ends take turns within every round, so a noisy machine slows them alike.
 * Every run checks its counts: a wrong back end measures nothing.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "configs.h"

LAB4_DECLARE_CONFIG(cas_);
LAB4_DECLARE_CONFIG(nq_);

#define ROUNDS		5
#define MAX_THREADS	2
#define TARGET_NS	40e6	/* one run: about 40 ms */

struct backend {
	const char *name;
	void (*get)(refcount_t *rc);
	int (*put)(refcount_t *rc);
	void (*init)(refcount_t *rc);
	int (*read)(refcount_t *rc);
	int max_threads;
	long iterations;	/* calibrated per back end */
};

static struct backend backends[] = {
	{ "cas", cas_refcount_get, cas_refcount_put, cas_refcount_init,
	  cas_refcount_read, 2, 0 },
	{ "hash", refcount_get, refcount_put, refcount_init, refcount_read, 2, 0 },
	{ "lock", nq_refcount_get, nq_refcount_put, nq_refcount_init,
	  nq_refcount_read, 2, 0 },
	{ "up", up_refcount_get, up_refcount_put, up_refcount_init,
	  up_refcount_read, 1, 0 },
};
#define NR_BACKENDS	((int)ARRAY_SIZE(backends))

struct workload {
	const char *name;
	unsigned long offset[MAX_THREADS];	/* of each thread's count */
};

static const struct workload workloads[] = {
	{ "one",    { 0, 0 } },
	{ "bucket", { 0, 128 } },
	{ "spread", { 0, 256 } },
};
#define NR_WORKLOADS	((int)ARRAY_SIZE(workloads))

struct job {
	const struct backend *b;
	refcount_t *rc;
	long iterations;
	pthread_barrier_t *start;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	long i;

	pthread_barrier_wait(j->start);
	for (i = 0; i < j->iterations; i++) {
		j->b->get(j->rc);
		if (j->b->put(j->rc))
			abort();	/* the count is held at 1 throughout */
	}
	return NULL;
}

/* One run: ns per get+put pair (all threads together: wall time over the
 * pairs of every thread), or exit if a count came out wrong. */
static double run(const struct backend *b, const struct workload *w,
		  int threads, long iterations)
{
	pthread_t tid[MAX_THREADS];
	struct job jobs[MAX_THREADS];
	pthread_barrier_t start;
	double t0;
	int i;

	pthread_barrier_init(&start, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		jobs[i] = (struct job){ b, lab4_count(w->offset[i]), iterations,
					&start };
		b->init(jobs[i].rc);
	}
	for (i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, &jobs[i]);
	pthread_barrier_wait(&start);
	t0 = now_ns();
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	t0 = now_ns() - t0;
	pthread_barrier_destroy(&start);
	for (i = 0; i < threads; i++) {
		if (b->read(jobs[i].rc) != 1) {
			fprintf(stderr, "bench-lab4: %s back end, %s, %d threads: "
				"a count ended at %d, not 1 -- fix it first "
				"(make lab-4)\n", b->name, w->name, threads,
				b->read(jobs[i].rc));
			exit(1);
		}
	}
	return t0 / ((double)iterations * threads);
}

/* Iterations for a run of about TARGET_NS, one thread, one count. */
static void calibrate(struct backend *b)
{
	long n = 1000;
	double ns;

	for (;;) {
		ns = run(b, &workloads[0], 1, n) * n;
		if (ns > TARGET_NS / 8 || n > 100000000)
			break;
		n *= 4;
	}
	b->iterations = (long)(n * TARGET_NS / ns) + 1;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * ns per local_irq_save/restore pair (the kit's lazy "interrupts off"), per
 * pair of pthread_sigmask calls (what blocking signals would cost), and per
 * uncontended spin_lock/unlock.
 */
static void primitives(void)
{
	DEFINE_SPINLOCK(lock);
	unsigned long flags;
	sigset_t all, old;
	long i, n = 200000;
	double t;

	t = now_ns();
	for (i = 0; i < n * 10; i++) {
		local_irq_save(flags);
		local_irq_restore(flags);
	}
	printf("  local_irq_save + local_irq_restore: %6.1f ns (a per-thread count: "
	       "interrupts held back, not blocked)\n", (now_ns() - t) / (n * 10));
	sigfillset(&all);
	t = now_ns();
	for (i = 0; i < n; i++) {
		pthread_sigmask(SIG_BLOCK, &all, &old);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	printf("  the same with signals blocked:      %6.1f ns (two pthread_sigmask "
	       "system calls)\n", (now_ns() - t) / n);
	t = now_ns();
	for (i = 0; i < n * 10; i++) {
		spin_lock(&lock);
		spin_unlock(&lock);
	}
	printf("  spin_lock + spin_unlock, uncontended: %6.1f ns\n",
	       (now_ns() - t) / (n * 10));
}

int main(void)
{
	double ns[NR_BACKENDS][NR_WORKLOADS][MAX_THREADS][ROUNDS];
	double med[NR_BACKENDS][NR_WORKLOADS][MAX_THREADS];
	int b, w, t, r;

	printf("bench-lab4: refcount_get + refcount_put pairs, ns per pair of "
	       "all threads together\n(wall time / pairs; median of %d runs, "
	       "min-max); the last columns: how many times cas is faster\n",
	       ROUNDS);
	for (b = 0; b < NR_BACKENDS; b++)
		calibrate(&backends[b]);
	for (r = 0; r < ROUNDS; r++)
		for (w = 0; w < NR_WORKLOADS; w++)
			for (t = 1; t <= MAX_THREADS; t++)
				for (b = 0; b < NR_BACKENDS; b++)
					if (t <= backends[b].max_threads)
						ns[b][w][t - 1][r] = run(&backends[b],
							&workloads[w], t,
							backends[b].iterations);
	printf("\n%-7s %-6s", "threads", "counts");
	for (b = 0; b < NR_BACKENDS; b++)
		printf(" %21s", backends[b].name);
	printf("  hash/cas lock/cas\n");
	for (t = 1; t <= MAX_THREADS; t++) {
		for (w = 0; w < NR_WORKLOADS; w++) {
			printf("%-7d %-6s", t, workloads[w].name);
			for (b = 0; b < NR_BACKENDS; b++) {
				double *v = ns[b][w][t - 1];

				if (t > backends[b].max_threads) {
					printf(" %21s", "-");
					continue;
				}
				qsort(v, ROUNDS, sizeof(*v), by_value);
				med[b][w][t - 1] = v[ROUNDS / 2];
				printf(" %7.1f (%5.0f-%5.0f)", v[ROUNDS / 2], v[0],
				       v[ROUNDS - 1]);
			}
			printf("  %7.1fx %7.1fx\n", med[1][w][t - 1] / med[0][w][t - 1],
			       med[2][w][t - 1] / med[0][w][t - 1]);
		}
	}
	printf("\nWhere the time goes (one thread):\n");
	primitives();
	return 0;
}
