// SPDX-License-Identifier: GPL-2.0
/*
 * stress.c - the loop of stress.h: two sides lined up by a barrier each
 * iteration, until the race shows or the time is up.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "rcupdate.h"
#include "stress.h"

#ifdef CONFIG_KIT_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

static const struct stress *race;
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

/* Once, when ASan or a BUG's abort ends the program: the race showed. */
static void died(void)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), "STRESS failed after %ld iterations "
			 "in %.1f ms\n", iterations + 1, now_ms() - t0);

	if (write(STDOUT_FILENO, buf, n) < 0)
		_exit(3);
}

static void on_abort(int sig)
{
	died();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* One side: its function once per iteration, between the barriers. */
static void *side(void *arg)
{
	void (*fn)(void) = *(void (**)(void))arg;

	rcu_register_thread();
	for (;;) {
		pthread_barrier_wait(&start);
		if (stop)
			break;
		fn();
		pthread_barrier_wait(&done);
	}
	rcu_unregister_thread();
	return NULL;
}

/**
 * stress_main - run @s until it fails or argv[1] seconds (10) are up
 *
 * Returns the exit status: 0 if nothing showed, 1 if check() failed
 * (a crash ends the program before).
 */
int stress_main(int argc, char **argv, const struct stress *s)
{
	double limit = 1e3 * (argc > 1 ? atof(argv[1]) : 10);
	const char *why = NULL;
	pthread_t t[2];
	int i;

	race = s;
#ifdef CONFIG_KIT_ASAN
	__sanitizer_set_death_callback(died);
#endif
	signal(SIGABRT, on_abort);
	pthread_barrier_init(&start, NULL, 3);
	pthread_barrier_init(&done, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, side, (void *)&race->sides[i]);
	t0 = now_ms();
	for (iterations = 0; !why && now_ms() - t0 < limit; iterations++) {
		race->setup();
		pthread_barrier_wait(&start);
		pthread_barrier_wait(&done);
		why = race->check();
		race->cleanup();
	}
	stop = 1;
	pthread_barrier_wait(&start);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (why) {
		printf("STRESS failed after %ld iterations in %.1f ms: %s\n",
		       iterations, now_ms() - t0, why);
		return 1;
	}
	printf("STRESS no failure in %ld iterations in %.1f ms\n", iterations,
	       now_ms() - t0);
	return 0;
}
