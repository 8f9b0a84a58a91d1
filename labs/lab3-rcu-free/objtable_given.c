// SPDX-License-Identifier: GPL-2.0
/*
 * objtable_given.c - GIVEN: create, insert, unlink and destroy a table,
 * the RCU-protected list walk, and object_free().
 *
 * Read it, do not edit it: your part is objtable.c.  Your code calls
 * __objtable_find_rcu(), objtable_unlink() and object_free(); the insert
 * and destroy here call your object_put().
 */
#include <errno.h>

#include "barrier.h"
#include "objtable.h"
#include "rwonce.h"

struct objtable *objtable_create(unsigned long flags)
{
	struct objtable *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->cachep = kmem_cache_create("object", sizeof(struct object), 0,
				      flags & SLAB_TYPESAFE_BY_RCU, NULL);
	if (!t->cachep) {
		kfree(t);
		return NULL;
	}
	spin_lock_init(&t->lock);
	t->flags = flags & SLAB_TYPESAFE_BY_RCU;
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
		ret = -EEXIST;		/* refused before anything is allocated */
		goto out;
	}
	/* Under a spinlock the kernel may not sleep: GFP_ATOMIC. */
	obj = kmem_cache_alloc(t->cachep, GFP_ATOMIC);
	if (!obj) {
		ret = -ENOMEM;
		goto out;
	}
	WRITE_ONCE(obj->table, t);
	WRITE_ONCE(obj->key, key);
	smp_wmb();		/* a reader whose get succeeds sees the key */
	refcount_init(&obj->ref);	/* the table's reference */
	refcount_watch(&obj->ref.count);	/* 0 is final (refcount_watch.h) */
	/*
	 * Published with release, like the head: a reader may already stand
	 * on this memory (type-stable, reused) and follow ->next from it.
	 */
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
