// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_cache.c - the cache under ThreadSanitizer (a plain program, since
 * Criterion cannot run under TSan: Criterion#274).
 *
 *   tsan_cache --list        the cases and the verdict each must get
 *   tsan_cache locked        lookups with cache_lookup(): must be clean
 *   tsan_cache unlocked      lookups with cache_lookup_unlocked(): must be
 *                            reported (kref_get on an object being freed)
 *
 * One thread inserts and removes a key, the others look it up and put it,
 * for a bounded number of iterations.  TSan decides the verdict; run with
 * TSAN_OPTIONS=halt_on_error=1 the program stops at the first report.  The
 * exit status is 0 when the run ended normally, 1 when the lab code failed
 * the program's own checks (a sanity run; a leak, in the clean case),
 * whatever TSan says.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "cache.h"
#include "slab.h"
#include "tsan_case.h"

#define KEY		42
#define NR_LOOKERS	1
/*
 * Insert/remove rounds.  A clean case runs every round, and TSan has seen
 * every bug the grader's runs catch long before its last; a race case
 * stops at its first report (halt_on_error), so its bound counts only in
 * the rare run where TSan misses the race, and is kept high.
 */
#define CLEAN_ROUNDS	50000
#define RACE_ROUNDS	200000

typedef struct cache_obj *(*lookup_fn)(int key);

static lookup_fn lookup;
static int stop;

/* Say why the program's own check failed; returns the exit status 1. */
static int fail(const char *what)
{
	fprintf(stderr, "tsan_cache: %s\n", what);
	return 1;
}

/* Single-threaded: does the lab code work at all?  0 if so. */
static int sanity_check(void)
{
	struct cache_obj *obj;

	if (cache_insert(KEY))
		return fail("sanity: cache_insert failed");
	obj = lookup(KEY);
	if (!obj || obj->key != KEY)
		return fail("sanity: the lookup does not find an inserted key");
	if (kref_read(&obj->kref) != 2)
		return fail("sanity: the lookup did not take a reference");
	if (cache_remove(KEY) || slab_frees() != 0)
		return fail("sanity: cache_remove freed a referenced object");
	if (cache_put(obj) != 1 || slab_objects_live() != 0)
		return fail("sanity: the last put did not free the object");
	return 0;
}

/* Look the key up and put it until told to stop; count the finds. */
static void *looker_fn(void *arg)
{
	struct cache_obj *obj;
	long *found = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		obj = lookup(KEY);
		if (obj) {
			(*found)++;
			cache_put(obj);
		}
	}
	return NULL;
}

/* The bounded stress of case @c; 0 unless the lab code failed a check. */
static int run_case(const struct tsan_case *c)
{
	pthread_t t[NR_LOOKERS];
	long found[NR_LOOKERS] = { 0 };
	int rounds = strcmp(c->verdict, "clean") ? RACE_ROUNDS : CLEAN_ROUNDS;
	int i;

	lookup = (lookup_fn)c->arg;
	if (cache_init())
		return fail("cache_init failed");
	if (sanity_check())
		return 1;
	warn_set_quiet(1);	/* the unlocked case may WARN on a count of 0 */
	for (i = 0; i < NR_LOOKERS; i++)
		pthread_create(&t[i], NULL, looker_fn, &found[i]);
	for (i = 0; i < rounds; i++) {
		cache_insert(KEY);
		cache_remove(KEY);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NR_LOOKERS; i++)
		pthread_join(t[i], NULL);
	cache_destroy();
	/* The race case's race may leave a count wrong (a get from zero keeps
	 * an object its remover let go): there only TSan's report counts. */
	if (!strcmp(c->verdict, "clean") && slab_objects_live() != 0)
		return fail("objects leaked");
	printf("tsan_cache %s: %d insert/remove rounds, %ld lookups found the key, "
	       "%lu warnings\n", c->name, rounds, found[0], warn_count());
	return 0;
}

static const struct tsan_case cases[] = {
	/* Hint: TSan reports a race when a count is touched without the
	 * lock or a reference; exit 1 means the case's own checks failed:
	 * pass the unit tests first.
	 */
	{ "locked",   "clean", run_case, cache_lookup },
	/* Hint: the given cache_lookup_unlocked() races only once your
	 * kref_get() and cache_remove() work: pass the unit tests first.
	 */
	{ "unlocked", "race",  run_case, cache_lookup_unlocked },
};

int main(int argc, char **argv)
{
	return tsan_case_main(argc, argv, cases, ARRAY_SIZE(cases));
}
