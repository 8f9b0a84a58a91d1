// SPDX-License-Identifier: GPL-2.0
/*
 * stress_lab1.c - lab 1's race without the reproducer, for the benchmark.
 *
 *   stress_lab1 MAX_SECONDS
 *
 * The same two threads as the scenario lookup_unlocked_vs_remove, free
 * running on real cores: each iteration inserts key 1, lines both threads
 * up on a barrier, then T1 runs cache_lookup_unlocked() + cache_put() while
 * T2 runs cache_remove().  The first use of the freed object stops the
 * program: ASan reports it (or the slab poison check does), and the death
 * callback prints "STRESS failed after N iterations in X ms".  If nothing
 * shows within MAX_SECONDS it prints "STRESS no failure ..." and exits 0.
 * Built with the ASan variant by mk/build.mk; run by tools/bench_race.py.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"

#ifdef CONFIG_KIT_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#define KEY	1

static pthread_barrier_t start, done;
static volatile long iterations;
static volatile int stop;
static double t0;

/* Monotonic milliseconds. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Called once when ASan (or the BUG's abort) ends the program. */
static void died(void)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), "STRESS failed after %ld iterations "
			 "in %.1f ms\n", iterations + 1, now_ms() - t0);

	if (write(STDOUT_FILENO, buf, n) < 0)
		_exit(3);
}

/* A BUG's abort(): report, then die of the signal. */
static void on_abort(int sig)
{
	died();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* T1: one unlocked lookup and put per iteration, between barriers. */
static void *looker(void *arg)
{
	struct cache_obj *obj;

	(void)arg;
	for (;;) {
		pthread_barrier_wait(&start);
		if (stop)
			return NULL;
		obj = cache_lookup_unlocked(KEY);
		if (obj)
			cache_put(obj);
		pthread_barrier_wait(&done);
	}
}

/* T2: insert, barrier, remove, barrier -- until a failure or the time limit. */
int main(int argc, char **argv)
{
	double limit = 1e3 * (argc > 1 ? atof(argv[1]) : 10);
	pthread_t t;

#ifdef CONFIG_KIT_ASAN
	__sanitizer_set_death_callback(died);
#endif
	signal(SIGABRT, on_abort);
	pthread_barrier_init(&start, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&t, NULL, looker, NULL);
	cache_init();
	t0 = now_ms();
	for (iterations = 0; now_ms() - t0 < limit; iterations++) {
		cache_insert(KEY);
		pthread_barrier_wait(&start);
		cache_remove(KEY);
		pthread_barrier_wait(&done);
	}
	stop = 1;
	pthread_barrier_wait(&start);
	pthread_join(t, NULL);
	printf("STRESS no failure in %ld iterations in %.1f ms\n", iterations,
	       now_ms() - t0);
	cache_destroy();
	return 0;
}
