// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - lab 6, several threads, bounded (fixed iteration counts,
 * no sleeps): exact counts after get/put pairs on one count; the last put
 * against readers, round after round, each object freed exactly once; and
 * the table's readers against writers that delete and re-insert the same
 * keys.  Under ASan a touch after the free is reported; in the plain
 * build the slab's poison catches it.
 */
#include <errno.h>
#include <pthread.h>

#include <criterion/criterion.h>

#include "bug.h"
#include "objtable.h"
#include "rcupdate.h"
#include "rcuref.h"
#include "rwonce.h"
#include "shared_rounds.h"
#include "slab.h"

#define NR_THREADS	2
#define PAIRS		20000
#define ROUNDS		1500
#define NR_KEYS		8
#define READS		6000
#define WRITES		3000
#define KEY_KEPT	NR_KEYS

/* --- get/put pairs on one count ----------------------------------------------- */

static rcuref_t shared;
static long failed;

static void *pairs(void *arg __maybe_unused)
{
	long bad = 0;

	rcu_register_thread();
	for (int i = 0; i < PAIRS; i++) {
		if (!rcuref_get(&shared))
			bad++;
		if (rcuref_put(&shared))
			bad++;
	}
	rcu_unregister_thread();
	__atomic_add_fetch(&failed, bad, __ATOMIC_RELAXED);
	return NULL;
}

/* Hint: Concurrent gets and puts on a count that keeps its owner's reference:
 * every get must succeed, no put may return true, and none may be lost. Look
 * for a non-atomic read-then-write in rcuref_get or rcuref_put.
 */
Test(stress, get_put_pairs_exact)
{
	pthread_t tid[NR_THREADS];
	int i;

	rcu_register_thread();
	warn_reset();
	rcuref_init(&shared, 1);
	failed = 0;
	for (i = 0; i < NR_THREADS; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL, pairs, NULL), 0,
			     "pthread_create failed");
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);
	cr_assert_eq(failed, 0, "%ld gets failed or puts returned true on a "
		     "count that never lost its owner's reference", failed);
	cr_assert_eq(rcuref_read(&shared), 1, "lost or extra updates: %u "
		     "references left, not 1", rcuref_read(&shared));
	cr_assert(rcuref_put(&shared), "the owner's put is the last");
	cr_assert_eq(warn_count(), 0, "a WARN fired (see its message above)");
	rcu_unregister_thread();
}

/* --- the last put against readers, round after round -------------------------- */

/* Hint: The owner's last put races with readers' gets and puts: exactly one
 * put may return true, and only once the count is DEAD. Look at
 * rcuref_put_slowpath()'s NOREF branch (the handout's "The mark-dead race").
 */
Test(stress, last_put_against_readers)
{
	struct rounds_result r;

	rcu_register_thread();
	warn_reset();
	r = run_rounds(NR_THREADS, ROUNDS);
	cr_assert_eq(r.releases, r.objects, "%ld puts returned true for %ld "
		     "objects: exactly one per object", r.releases, r.objects);
	cr_assert_eq(r.not_dead, 0, "%ld objects were freed with a count "
		     "that was not DEAD", r.not_dead);
	cr_assert_eq(warn_count(), 0, "a WARN fired (see its message above)");
	rcu_unregister_thread();
}

/* --- the table: readers against writers ---------------------------------------- */

static struct objtable *t;
static long wrong_keys, kept_missed;

static unsigned int next_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

static int look(int key, long *wrong)
{
	struct object *obj = objtable_lookup(t, key);

	if (!obj)
		return 0;
	if (READ_ONCE(obj->key) != key)
		(*wrong)++;
	object_put(obj);
	return 1;
}

static void *reader(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg;
	long wrong = 0, missed = 0;

	rcu_register_thread();
	for (int i = 0; i < READS; i++) {
		look(next_rand(&seed) % NR_KEYS, &wrong);
		if (!look(KEY_KEPT, &wrong))
			missed++;
	}
	rcu_unregister_thread();
	__atomic_add_fetch(&wrong_keys, wrong, __ATOMIC_RELAXED);
	__atomic_add_fetch(&kept_missed, missed, __ATOMIC_RELAXED);
	return NULL;
}

static void *writer(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg * 7919u;

	rcu_register_thread();
	for (int i = 0; i < WRITES; i++) {
		int key = next_rand(&seed) % NR_KEYS;

		if (objtable_delete(t, key) == -ENOENT)
			objtable_insert(t, key);
	}
	rcu_unregister_thread();
	return NULL;
}

static void run_table(enum slab_reuse reuse)
{
	pthread_t tid[4];
	long i;

	rcu_register_thread();
	t = objtable_create();
	cr_assert_not_null(t, "objtable_create failed");
	kmem_cache_set_reuse(t->cachep, reuse);
	slab_reset();
	warn_reset();
	wrong_keys = kept_missed = 0;
	cr_assert_eq(objtable_insert(t, KEY_KEPT), 0,
		     "inserting the kept key failed");
	for (i = 0; i < NR_KEYS; i += 2)
		cr_assert_eq(objtable_insert(t, i), 0,
			     "inserting key %ld failed", i);
	for (i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL, i < 2 ? reader : writer,
					    (void *)(i + 1)), 0, "pthread_create failed");
	for (i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	objtable_destroy(t);
	cr_assert_eq(wrong_keys, 0, "%ld lookups returned another key's object",
		     wrong_keys);
	cr_assert_eq(kept_missed, 0, "objtable_lookup(%d) returned NULL %ld times, "
		     "though key %d was in the table all along", KEY_KEPT,
		     kept_missed, KEY_KEPT);
	cr_assert_eq(warn_count(), 0, "a WARN fired (see its message above)");
	cr_assert_eq(slab_objects_live(), 0, "every object must be freed exactly "
		     "once: %ld still allocated after objtable_destroy()",
		     slab_objects_live());
	rcu_unregister_thread();
}

/* Hint: Readers against writers on the table: a lookup must never return
 * another key's object, a freed one, or miss a key present all along. Check
 * objtable_lookup() and object_put() against objtable.h's Guarantees.
 */
Test(stress, table_quarantined)
{
	run_table(SLAB_REUSE_QUARANTINE);
}

/* Hint: As table_quarantined, with freed memory reused at once: a touch after
 * the free shows here first. Check that object_put() frees only through
 * call_rcu() and that lookup keeps its read-side section around the get.
 */
Test(stress, table_reused_at_once)
{
	run_table(SLAB_REUSE_IMMEDIATE);
}
