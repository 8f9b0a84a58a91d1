// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - lab 3, several threads: readers look up and put while
 * writers delete and re-insert the same keys.  Bounded (fixed iteration
 * counts, no sleeps).  Under ASan a free before the grace period is a
 * use-after-free report; in the plain build the slab's poison catches it.
 *
 * Checked at the end: every lookup returned its own key; every lookup of
 * KEY_KEPT -- inserted first, so last in the list, and never deleted --
 * found it, however the readers and writers overlapped (no assertion here
 * depends on timing); nothing warned; and after objtable_destroy() (which
 * ends with rcu_barrier()) every object the slab handed out was freed
 * exactly once: none is live, and a second free is a BUG of the slab's.
 * What is counted is what the slab counts, not the calls made: an insert
 * of a key already present may allocate nothing at all.
 */
#include <errno.h>
#include <pthread.h>

#include <criterion/criterion.h>

#include "bug.h"
#include "objtable.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"

#define NR_READERS	2
#define NR_WRITERS	2
#define NR_KEYS		8
#define READS		6000
#define WRITES		3000
#define KEY_KEPT	NR_KEYS		/* in the table for the whole test */

static struct objtable *t;
static long wrong_keys, kept_missed;

static unsigned int next_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

/* Look @key up and put it; count a wrong key.  Returns 1 if found. */
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

static void run_stress(unsigned long flags, enum slab_reuse reuse)
{
	pthread_t tid[NR_READERS + NR_WRITERS];
	long i;

	t = objtable_create(flags);
	cr_assert_not_null(t, "objtable_create must return a table");
	kmem_cache_set_reuse(t->cachep, reuse);
	slab_reset();
	warn_reset();
	wrong_keys = kept_missed = 0;
	cr_assert_eq(objtable_insert(t, KEY_KEPT), 0,
		     "objtable_insert into an empty table must succeed");
	for (i = 0; i < NR_KEYS; i += 2)
		cr_assert_eq(objtable_insert(t, i), 0, "objtable_insert of a new key must succeed");
	for (i = 0; i < NR_READERS + NR_WRITERS; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL,
					    i < NR_READERS ? reader : writer,
					    (void *)(i + 1)), 0, "pthread_create must succeed");
	for (i = 0; i < NR_READERS + NR_WRITERS; i++)
		pthread_join(tid[i], NULL);
	objtable_destroy(t);
	cr_assert_eq(wrong_keys, 0, "%ld lookups returned another key's object",
		     wrong_keys);
	cr_assert_eq(kept_missed, 0, "objtable_lookup(%d) returned NULL %ld times, "
		     "though key %d was in the table all along", KEY_KEPT,
		     kept_missed, KEY_KEPT);
	cr_assert_eq(warn_count(), 0, "the table's operations must not WARN");
	cr_assert_eq(slab_objects_live(), 0, "every object must be freed exactly "
		     "once: %ld still allocated after objtable_destroy()",
		     slab_objects_live());
}

Test(stress, call_rcu_quarantined)
{
	run_stress(0, SLAB_REUSE_QUARANTINE);
}

Test(stress, call_rcu_reused_at_once)
{
	run_stress(0, SLAB_REUSE_IMMEDIATE);
}

Test(stress, typesafe_by_rcu)
{
	run_stress(SLAB_TYPESAFE_BY_RCU, SLAB_REUSE_QUARANTINE);
}
