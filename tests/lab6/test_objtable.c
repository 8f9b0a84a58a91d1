// SPDX-License-Identifier: GPL-2.0
/*
 * test_objtable.c - lab 6, one thread: the table's lookup and put on
 * rcuref_t, and that the last put frees after a grace period, once.
 *
 * A thread inside rcu_read_lock() holds up every grace period, so "not
 * freed yet" is a deterministic observation here: slab_frees() cannot move
 * until this thread calls rcu_read_unlock().
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "bug.h"
#include "objtable.h"
#include "preempt.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"

static struct objtable *t;

static void open_table(void)
{
	rcu_register_thread();
	t = objtable_create();
	cr_assert_not_null(t, "objtable_create failed");
	slab_reset();		/* count frees from here */
	warn_reset();
}

static void close_table(void)
{
	if (t)
		objtable_destroy(t);
	t = NULL;
	rcu_unregister_thread();
}

/* Destroy now, and check that nothing is left and nothing warned. */
static void destroy_and_check(void)
{
	objtable_destroy(t);
	t = NULL;
	cr_assert_eq(slab_objects_live(), 0, "%ld objects leaked",
		     slab_objects_live());
	cr_assert_eq(warn_count(), 0, "a WARN fired (see its message above)");
}

TestSuite(objtable, .init = open_table, .fini = close_table);

/* Hint: objtable_lookup() must take a reference with rcuref_get() inside its
 * read-side section, and object_put() must drop one with rcuref_put()
 * (objtable.h; the handout's Part 2).
 */
Test(objtable, lookup_takes_a_reference)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 7), 0,
		     "inserting key 7 into an empty table failed");
	obj = objtable_lookup(t, 7);
	cr_assert_not_null(obj, "lookup missed a present key");
	cr_assert_eq(READ_ONCE(obj->key), 7,
		     "lookup(7) returned key %d's object", READ_ONCE(obj->key));
	cr_assert_eq(rcuref_read(&obj->ref), 2, "the table's + the lookup's");
	cr_assert_eq(object_put(obj), 0, "the table still holds a reference");
	cr_assert_eq(rcuref_read(&obj->ref), 1,
		     "the table's reference only, not %u", rcuref_read(&obj->ref));
	cr_assert_eq(preempt_count(), 0,
		     "object_put returned with preemption disabled");
	destroy_and_check();
}

/* Hint: objtable_lookup() returns NULL when __objtable_find_rcu() finds
 * nothing; insert and delete are given, so look at your lookup's miss path.
 */
Test(objtable, lookup_misses_absent_keys)
{
	cr_assert_eq(objtable_insert(t, 1), 0,
		     "inserting key 1 into an empty table failed");
	cr_assert_eq(objtable_insert(t, 1), -EEXIST,
		     "a second key 1 must be refused with -EEXIST");
	cr_assert_null(objtable_lookup(t, 2),
		       "lookup found a key never inserted");
	cr_assert_eq(objtable_delete(t, 1), 0, "deleting a present key failed");
	cr_assert_null(objtable_lookup(t, 1), "lookup found a deleted key");
	cr_assert_eq(objtable_delete(t, 1), -ENOENT,
		     "deleting an absent key must give -ENOENT");
	destroy_and_check();
}

/* Hint: A failed rcuref_get() is a miss: objtable_lookup() returns NULL and
 * writes nothing more to the count, which the get's slow path left DEAD
 * (objtable.h, objtable_lookup's Guarantees).
 */
Test(objtable, lookup_misses_a_dying_object)
{
	struct object *obj;
	int saved;

	cr_assert_eq(objtable_insert(t, 3), 0,
		     "inserting key 3 into an empty table failed");
	rcu_read_lock();
	obj = __objtable_find_rcu(t, 3);
	cr_assert_not_null(obj,
			   "the given __objtable_find_rcu missed a present key");
	/* As if its last put had run and the unlink had not yet. */
	saved = atomic_read(&obj->ref.refcnt);
	atomic_set(&obj->ref.refcnt, (int)RCUREF_DEAD);
	rcu_read_unlock();
	cr_assert_null(objtable_lookup(t, 3), "lookup returned an object "
		       "whose count is DEAD");
	cr_assert_eq((unsigned int)atomic_read(&obj->ref.refcnt), RCUREF_DEAD,
		     "a failed lookup must leave the count DEAD");
	atomic_set(&obj->ref.refcnt, saved);
	destroy_and_check();
}

/* Hint: object_put() must free through call_rcu() with your own callback,
 * never at once: a reader inside rcu_read_lock() may still read the object
 * (objtable.h, object_put).
 */
Test(objtable, last_put_frees_after_the_grace_period)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 5), 0,
		     "inserting key 5 into an empty table failed");
	obj = objtable_lookup(t, 5);
	cr_assert_not_null(obj, "lookup missed a present key");
	rcu_read_lock();		/* hold the grace period up */
	cr_assert_eq(objtable_delete(t, 5), 0, "deleting a present key failed");
	cr_assert_eq(slab_frees(), 0, "freed while the lookup holds a reference");
	cr_assert_eq(object_put(obj), 1, "the last put must return 1");
	cr_assert_eq(slab_frees(), 0, "freed before the grace period: a "
		     "reader inside rcu_read_lock() may still read it");
	cr_assert_eq(READ_ONCE(obj->key), 5,
		     "the object was poisoned before the grace period");
	rcu_read_unlock();
	rcu_barrier();
	cr_assert_eq(slab_frees(), 1, "the last put must free it (through "
		     "call_rcu), once: %ld frees", slab_frees());
	destroy_and_check();
}

/* Hint: object_put() returns 1 exactly when rcuref_put() returned true, and
 * frees only then (objtable.h, object_put's Guarantees).
 */
Test(objtable, put_returns_one_only_for_the_last)
{
	struct object *a, *b;

	cr_assert_eq(objtable_insert(t, 9), 0,
		     "inserting key 9 into an empty table failed");
	a = objtable_lookup(t, 9);
	b = objtable_lookup(t, 9);
	cr_assert(a && a == b,
		  "two lookups of one key must return its object both times");
	cr_assert_eq(rcuref_read(&a->ref), 3,
		     "table + 2 lookups: 3 references, not %u", rcuref_read(&a->ref));
	cr_assert_eq(object_put(a), 0,
		     "object_put of one of three references returned nonzero");
	cr_assert_eq(objtable_delete(t, 9), 0, "deleting a present key failed");
	rcu_barrier();
	cr_assert_eq(slab_frees(), 0, "freed while a lookup holds a reference");
	cr_assert_eq(object_put(b), 1, "the last put must return 1");
	rcu_barrier();
	cr_assert_eq(slab_frees(), 1,
		     "the last put frees it once: %ld frees", slab_frees());
	cr_assert_eq(preempt_count(), 0,
		     "object_put returned with preemption disabled");
	destroy_and_check();
}

/* Hint: object_put() must never block, so it may be called inside
 * rcu_read_lock(): a synchronize_rcu() or rcu_barrier() there is the usual
 * cause (objtable.h, object_put).
 */
Test(objtable, put_inside_a_read_side_section)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 2), 0,
		     "inserting key 2 into an empty table failed");
	obj = objtable_lookup(t, 2);
	cr_assert_not_null(obj, "lookup missed a present key");
	cr_assert_eq(objtable_delete(t, 2), 0, "deleting a present key failed");
	rcu_read_lock();
	cr_assert_eq(object_put(obj), 1, "object_put must work inside "
		     "rcu_read_lock()");
	rcu_read_unlock();
	rcu_barrier();
	cr_assert_eq(slab_frees(), 1,
		     "the last put frees it once: %ld frees", slab_frees());
	destroy_and_check();
}
