// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_hashlock.c - lab 4 under ThreadSanitizer (a plain program: Criterion
 * aborts under TSan); lab 2's tsan_refcount runs too.
 *
 *   tsan_hashlock --list     one line per case: "<case> clean|race"
 *   tsan_hashlock <case>     a bounded stress of that case; exits 0, or 1
 *                            if a final count is wrong
 *
 *   one_bucket   clean: NR_THREADS threads, a count each, all counts in
 *                one bucket (they contend for one lock)
 *   buckets      clean: the same, each count in a bucket of its own
 *   n8           clean: the same on the build with 8 bucket locks
 *   mixing       race: half the threads get and put a count through lab
 *                4's back end, the other half atomic_inc/atomic_dec it --
 *                the arch's emulation, under its own hashed lock (see
 *                common/atomic_hash.c): one count, two locks.  Its plain
 *                load races with the back end's store, and TSan says so.
 */
#include <stdio.h>

#include "bug.h"
#include "configs.h"
#include "shared_workload.h"
#include "tsan_case.h"

#define ROUNDS	(ITERATIONS / 4)	/* ample for TSan to see an edge */

static const struct lab4_config *config;
static unsigned long stride;		/* bytes between the threads' counts */

static refcount_t *count_of(void *arg)
{
	return lab4_count(16 + (long)arg * stride);
}

static void *own_count_get_put(void *arg)
{
	refcount_t *rc = count_of(arg);
	int i;

	config->init(rc);
	for (i = 0; i < ROUNDS; i++) {
		config->get(rc);
		if (!config->get_rcu(rc) || config->put(rc) || config->put(rc))
			worker_failed();	/* the count is held at 1 */
	}
	if (config->read(rc) != 1)
		worker_failed();
	return NULL;
}

static int run_counts(const struct lab4_config *c, unsigned long bytes)
{
	config = c;
	stride = bytes;
	worker_failures = 0;
	run_threads(own_count_get_put);
	if (worker_failures)
		fprintf(stderr, "%d wrong results\n", worker_failures);
	return worker_failures != 0;
}

static int case_one_bucket(const struct tsan_case *c __maybe_unused)
{
	return run_counts(&lab4_configs[LAB4_SMP], 64);
}

static int case_buckets(const struct tsan_case *c __maybe_unused)
{
	return run_counts(&lab4_configs[LAB4_SMP], 256);
}

static int case_n8(const struct tsan_case *c __maybe_unused)
{
	return run_counts(&lab4_configs[LAB4_N8], 256);
}

/*
 * One count shared by every thread: even threads get and put it, odd
 * threads read it.  refcount_read() takes no lock, but its load is the
 * count's own (atomic_read, one marked load): a plain load of the counter
 * races with every locked update, and TSan says so whatever the timing.
 * Updates made under two locks lose some, and the count ends wrong.
 */
static void *read_while_updating(void *arg)
{
	refcount_t *rc = lab4_count(64);	/* set by case_shared */
	int i;

	for (i = 0; i < ROUNDS; i++) {
		if ((long)arg % 2) {
			if (config->read(rc) < 1)
				worker_failed();	/* the test holds one */
		} else {
			config->get(rc);
			if (config->put(rc))
				worker_failed();
		}
	}
	return NULL;
}

static int case_shared(const struct tsan_case *c __maybe_unused)
{
	refcount_t *rc = lab4_count(64);

	config = &lab4_configs[LAB4_SMP];
	config->init(rc);
	worker_failures = 0;
	run_threads(read_while_updating);
	if (config->read(rc) != 1)
		worker_failed();
	if (worker_failures)
		fprintf(stderr, "%d wrong results\n", worker_failures);
	return worker_failures != 0;
}

/* Even threads: lab 4's get/put; odd threads: the arch's atomic_inc/dec. */
static void *mixed_updates(void *arg)
{
	refcount_t *rc = lab4_count(16);	/* set by case_mixing */
	int i;

	for (i = 0; i < ROUNDS; i++) {
		if ((long)arg % 2) {
			atomic_inc(&rc->count);
			atomic_dec(&rc->count);
		} else {
			refcount_get(rc);
			refcount_put(rc);
		}
	}
	return NULL;
}

static int case_mixing(const struct tsan_case *c __maybe_unused)
{
	refcount_init(lab4_count(16));
	warn_set_quiet(1);		/* lost updates may reach 0 and WARN */
	run_threads(mixed_updates);
	return 0;	/* the count may be anything: TSan is the verdict */
}

static const struct tsan_case cases[] = {
	/* Hint: Threads on counts of one bucket: TSan sees a race when a
	 * count is updated outside its bucket lock. Exit 1 means a final
	 * count was wrong: pass the unit tests first.
	 */
	{ "one_bucket",	"clean", case_one_bucket, NULL },
	/* Hint: Each count in its own bucket: a race here means an update
	 * made under the wrong lock, or none; check REFCOUNT_HASH(rc) and
	 * refcount_lock().
	 */
	{ "buckets",	"clean", case_buckets, NULL },
	/* Hint: As buckets, on the build with 8 bucket locks: the mask must
	 * come from REFCOUNT_HASH_SIZE.
	 */
	{ "n8",		"clean", case_n8, NULL },
	/* Hint: One count shared by getters, putters and readers:
	 * refcount_read() takes no lock but must load with atomic_read(), and
	 * every update must be made under the bucket lock with
	 * atomic_read()/atomic_set().
	 */
	{ "shared",	"clean", case_shared, NULL },
	/* Hint: This case must race: it mixes your back end with the arch's
	 * atomic_inc/atomic_dec on one count (two locks). If it exits 1, make
	 * the clean cases pass first.
	 */
	{ "mixing",	"race", case_mixing, NULL },
};

int main(int argc, char **argv)
{
	return tsan_case_main(argc, argv, cases, ARRAY_SIZE(cases));
}
