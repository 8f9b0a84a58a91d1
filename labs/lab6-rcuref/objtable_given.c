// SPDX-License-Identifier: GPL-2.0
/*
 * objtable_given.c - GIVEN: create, insert, unlink, delete and destroy a
 * table, the RCU-protected list walk, and object_free().
 *
 * Read it, do not edit it: your part of the table is objtable.c.  Lab 3's
 * table, less the type-stable variant; the delete is given here because
 * nothing in it changes with rcuref_t: it unlinks, then calls your
 * object_put() for the table's reference.
 */
#include <errno.h>

#include "objtable.h"
#include "rwonce.h"

struct objtable *objtable_create(void)
{
	struct objtable *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->cachep = kmem_cache_create("object", sizeof(struct object), 0, 0, NULL);
	if (!t->cachep) {
		kfree(t);
		return NULL;
	}
	spin_lock_init(&t->lock);
	RCU_INIT_POINTER(t->head, NULL);
	return t;
}

struct object *__objtable_find_rcu(struct objtable *t, int key)
{
	struct object *obj;

	for (obj = rcu_dereference(t->head); obj; obj = rcu_dereference(obj->next))
		if (READ_ONCE(obj->key) == key)
			return obj;
	return NULL;
}

int objtable_insert(struct objtable *t, int key)
{
	struct object *obj;
	int ret = 0;

	spin_lock(&t->lock);
	if (__objtable_find_rcu(t, key)) {
		ret = -EEXIST;
		goto out;
	}
	obj = kmem_cache_alloc(t->cachep, GFP_ATOMIC);	/* under a spinlock */
	if (!obj) {
		ret = -ENOMEM;
		goto out;
	}
	WRITE_ONCE(obj->table, t);
	WRITE_ONCE(obj->key, key);
	rcuref_init(&obj->ref, 1);	/* the table's reference */
	/*
	 * Not refcount_watch()ed, unlike labs 1, 3 and 5's counts: an
	 * rcuref_t stores "references minus one", so 0 is one reference and
	 * every get from there takes it from 0 to 1.  Its final state is the
	 * dead zone, and a get that lands there is checked where the count
	 * is read: the tests and scenarios of tests/lab6.
	 */
	/* Published with release: a reader that finds it sees all of the above. */
	rcu_assign_pointer(obj->next, rcu_dereference_protected(t->head, 1));
	rcu_assign_pointer(t->head, obj);
out:
	spin_unlock(&t->lock);
	return ret;
}

struct object *objtable_unlink(struct objtable *t, int key)
{
	struct object **pp = &t->head;
	struct object *obj;

	spin_lock(&t->lock);
	while ((obj = rcu_dereference_protected(*pp, 1))) {
		if (READ_ONCE(obj->key) == key) {
			/* obj->next stays: readers on obj walk on from it */
			rcu_assign_pointer(*pp, READ_ONCE(obj->next));
			break;
		}
		pp = &obj->next;
	}
	spin_unlock(&t->lock);
	return obj;
}

int objtable_delete(struct objtable *t, int key)
{
	struct object *obj = objtable_unlink(t, key);

	if (!obj)
		return -ENOENT;
	object_put(obj);		/* the table's reference */
	return 0;
}

void object_free(struct object *obj)
{
	kmem_cache_free(READ_ONCE(obj->table)->cachep, obj);
}

/* Unlink the first object, if any; the caller puts the table's reference. */
static struct object *objtable_pop(struct objtable *t)
{
	struct object *obj;

	spin_lock(&t->lock);
	obj = rcu_dereference_protected(t->head, 1);
	if (obj)
		rcu_assign_pointer(t->head, READ_ONCE(obj->next));
	spin_unlock(&t->lock);
	return obj;
}

void objtable_destroy(struct objtable *t)
{
	struct object *obj;

	while ((obj = objtable_pop(t)))
		object_put(obj);
	rcu_barrier();		/* every call_rcu callback has run */
	kmem_cache_destroy(t->cachep);
	kfree(t);
}
