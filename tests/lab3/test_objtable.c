// SPDX-License-Identifier: GPL-2.0
/*
 * test_objtable.c - lab 3, one thread: what lookup, delete and put do, and
 * that a deleted object is not freed while a reader may still see it.
 *
 * A thread inside rcu_read_lock() holds up every grace period, so "not
 * freed yet" is a deterministic observation here: slab_frees() cannot move
 * until this thread calls rcu_read_unlock().  Only object_put() -- which
 * never blocks -- and the given code are called inside a read-side
 * section: objtable_delete() may wait for a grace period, and the
 * reproducer's scenario reader_vs_delete checks it against a reader.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "bug.h"
#include "objtable.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"

static struct objtable *t;

static void open_table(unsigned long flags)
{
	rcu_register_thread();
	t = objtable_create(flags);
	cr_assert_not_null(t, "objtable_create must return a table");
	slab_reset();		/* count frees from here */
	warn_reset();
}

static void plain_table(void)
{
	open_table(0);
}

static void typesafe_table(void)
{
	open_table(SLAB_TYPESAFE_BY_RCU);
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
	cr_assert_eq(warn_count(), 0, "the table's operations must not WARN");
}

TestSuite(objtable, .init = plain_table, .fini = close_table);

Test(objtable, lookup_takes_a_reference)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 7), 0,
		     "objtable_insert(7) into an empty table must succeed");
	obj = objtable_lookup(t, 7);
	cr_assert_not_null(obj, "lookup missed a present key");
	cr_assert_eq(READ_ONCE(obj->key), 7, "objtable_lookup(7) returned another key's object");
	cr_assert_eq(refcount_read(&obj->ref), 2, "the table's + the lookup's");
	cr_assert_eq(object_put(obj), 0, "the table still holds a reference");
	cr_assert_eq(refcount_read(&obj->ref), 1,
		     "object_put of the lookup's reference must leave the table's (count 1)");
	destroy_and_check();
}

Test(objtable, lookup_misses_absent_keys)
{
	cr_assert_eq(objtable_insert(t, 1), 0,
		     "objtable_insert(1) into an empty table must succeed");
	cr_assert_eq(objtable_insert(t, 2), 0, "objtable_insert(2) must succeed");
	cr_assert_null(objtable_lookup(t, 3),
		       "objtable_lookup of a key never inserted must return NULL");
	cr_assert_eq(objtable_insert(t, 2), -EEXIST,
		     "a second objtable_insert(2) must be refused with -EEXIST");
	destroy_and_check();
}

Test(objtable, delete_then_lookup_misses)
{
	cr_assert_eq(objtable_insert(t, 1), 0,
		     "objtable_insert(1) into an empty table must succeed");
	cr_assert_eq(objtable_delete(t, 1), 0, "objtable_delete of a present key must return 0");
	cr_assert_null(objtable_lookup(t, 1), "found a deleted key");
	cr_assert_eq(objtable_delete(t, 1), -ENOENT,
		     "objtable_delete of a key already deleted must return -ENOENT");
	rcu_barrier();
	cr_assert_eq(slab_frees(), 1, "the deleted object was freed %ld times",
		     slab_frees());
	destroy_and_check();
}

Test(objtable, last_put_frees_after_the_holder_is_done)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 1), 0,
		     "objtable_insert(1) into an empty table must succeed");
	obj = objtable_lookup(t, 1);
	cr_assert_not_null(obj, "objtable_lookup missed a present key");
	cr_assert_eq(objtable_delete(t, 1), 0, "objtable_delete of a present key must return 0");
	rcu_barrier();
	cr_assert_eq(slab_frees(), 0, "freed while a lookup held a reference");
	cr_assert_eq(READ_ONCE(obj->key), 1,
		     "an object a lookup holds must keep its key after the delete");
	cr_assert_eq(object_put(obj), 1, "the holder's put is the last");
	rcu_barrier();
	cr_assert_eq(slab_frees(), 1,
		     "the object must be freed once the holder's put and the grace period are done");
	destroy_and_check();
}

Test(objtable, put_frees_after_the_grace_period)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 1), 0,
		     "objtable_insert(1) into an empty table must succeed");
	rcu_read_lock();
	obj = __objtable_find_rcu(t, 1);	/* a reader, no reference */
	cr_assert_not_null(obj, "__objtable_find_rcu missed a present key");
	cr_assert_eq(objtable_unlink(t, 1), obj,
		     "objtable_unlink must return the object it unlinked");
	cr_assert_eq(object_put(obj), 1, "the table's reference is the last");
	cr_assert_eq(slab_frees(), 0,
		     "freed while a reader was inside rcu_read_lock(): free through call_rcu()");
	cr_assert_eq(READ_ONCE(obj->key), 1, "the memory is still this object's");
	rcu_read_unlock();
	rcu_barrier();
	cr_assert_eq(slab_frees(), 1, "not freed after the grace period");
	destroy_and_check();
}

Test(objtable, every_object_freed_exactly_once)
{
	for (int k = 0; k < 100; k++)
		cr_assert_eq(objtable_insert(t, k), 0, "objtable_insert of a new key must succeed");
	for (int k = 0; k < 100; k += 2)
		cr_assert_eq(objtable_delete(t, k), 0,
			     "objtable_delete of a present key must return 0");
	for (int k = 0; k < 100; k++) {
		struct object *obj = objtable_lookup(t, k);

		cr_assert_eq(obj != NULL, k % 2, "key %d", k);
		if (obj)
			object_put(obj);
	}
	rcu_barrier();
	cr_assert_eq(slab_frees(), 50,
		     "the 50 deleted objects must be freed after the grace period");
	objtable_destroy(t);
	t = NULL;
	cr_assert_eq(slab_frees(), 100 + 1, "100 objects and the table");
	cr_assert_eq(slab_objects_live(), 0, "every object must be freed exactly once");
}

TestSuite(typesafe, .init = typesafe_table, .fini = close_table);

Test(typesafe, lookup_and_delete)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 5), 0,
		     "objtable_insert(5) into an empty table must succeed");
	obj = objtable_lookup(t, 5);
	cr_assert_not_null(obj, "objtable_lookup missed a present key");
	cr_assert_eq(READ_ONCE(obj->key), 5, "objtable_lookup(5) returned another key's object");
	object_put(obj);
	cr_assert_eq(objtable_delete(t, 5), 0, "objtable_delete of a present key must return 0");
	cr_assert_null(objtable_lookup(t, 5), "objtable_lookup of a deleted key must return NULL");
	destroy_and_check();
}

Test(typesafe, freed_at_once_and_reused)
{
	struct object *old, *obj;

	cr_assert_eq(objtable_insert(t, 1), 0,
		     "objtable_insert(1) into an empty table must succeed");
	old = objtable_lookup(t, 1);
	cr_assert_not_null(old, "objtable_lookup missed a present key");
	object_put(old);
	cr_assert_eq(objtable_delete(t, 1), 0, "objtable_delete of a present key must return 0");
	cr_assert_eq(slab_frees(), 1,
		     "a SLAB_TYPESAFE_BY_RCU table frees at once (no call_rcu)");
	cr_assert_eq(objtable_insert(t, 2), 0, "objtable_insert(2) must succeed");
	obj = objtable_lookup(t, 2);
	cr_assert_eq(obj, old, "the slab hands the same memory back");
	cr_assert_null(objtable_lookup(t, 1),
		       "objtable_lookup of a deleted key must return NULL, even with its memory reused");
	object_put(obj);
	destroy_and_check();
}

/*
 * What the re-check is for, in one thread: a reader that found the object
 * for key 1 takes its reference after the object was freed and reused for
 * key 2.  refcount_get_rcu() succeeds; only the key says it is the wrong
 * object.  (The reproducer's scenarios run objtable_lookup() itself into
 * this interleaving.)  The object goes by objtable_unlink() and
 * object_put(), which never block: objtable_delete() may, and is not
 * called inside a read-side section.
 */
Test(typesafe, get_rcu_alone_takes_the_wrong_object)
{
	struct object *obj;

	cr_assert_eq(objtable_insert(t, 1), 0,
		     "objtable_insert(1) into an empty table must succeed");
	rcu_read_lock();
	obj = __objtable_find_rcu(t, 1);
	cr_assert_eq(objtable_unlink(t, 1), obj,
		     "objtable_unlink must return the object it unlinked");
	cr_assert_eq(object_put(obj), 1,
		     "the table's reference is the last: object_put must return 1");
	cr_assert_eq(slab_frees(), 1, "a SLAB_TYPESAFE_BY_RCU table frees at once");
	cr_assert_eq(objtable_insert(t, 2), 0, "objtable_insert(2) must succeed");
	cr_assert_neq(refcount_get_rcu(&obj->ref), 0,
		      "refcount_get_rcu on the reused object must succeed (its count is 1)");
	cr_assert_eq(READ_ONCE(obj->key), 2, "the reused memory must now hold key 2");
	rcu_read_unlock();
	object_put(obj);
	destroy_and_check();
}
