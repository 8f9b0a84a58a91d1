// SPDX-License-Identifier: GPL-2.0
/*
 * objtable.c - lock-free lookup of refcounted objects, freed after a grace
 * period (or type-stable and re-checked).
 *
 * Lab 3: write objtable_lookup(), objtable_delete() and object_put(), and
 * the RCU callback that object_put() needs.  The handout (README.md) says
 * what each must guarantee; objtable.h has the contracts.  The rest is
 * given: read it, your code calls it.
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
	struct object *obj = kmem_cache_alloc(t->cachep, GFP_KERNEL);
	int ret = 0;

	if (!obj)
		return -ENOMEM;
	WRITE_ONCE(obj->table, t);
	WRITE_ONCE(obj->key, key);
	smp_wmb();		/* a reader whose get succeeds sees the key */
	refcount_init(&obj->ref);	/* the table's reference */
	spin_lock(&t->lock);
	if (__objtable_find_rcu(t, key)) {
		ret = -EEXIST;
	} else {
		WRITE_ONCE(obj->next, rcu_dereference_protected(t->head, 1));
		rcu_assign_pointer(t->head, obj);
	}
	spin_unlock(&t->lock);
	if (ret)
		object_put(obj);	/* a typesafe reader may hold it too */
	return ret;
}

struct object *objtable_lookup(struct objtable *t, int key)
{
	/*
	 * TODO: inside rcu_read_lock(), find @key (__objtable_find_rcu) and
	 * take a reference with refcount_get_rcu(); a failed get is a miss.
	 * Part 2 (SLAB_TYPESAFE_BY_RCU): after the get, re-check the key;
	 * if it changed, put the reference and search again.
	 */
	(void)t;
	(void)key;
	return NULL;
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
	/* TODO: unlink @key, then drop the table's reference.  Order matters. */
	(void)t;
	(void)key;
	return -ENOENT;
}

void object_free(struct object *obj)
{
	kmem_cache_free(READ_ONCE(obj->table)->cachep, obj);
}

/*
 * TODO: an RCU callback, void object_free_rcu(struct rcu_head *head), that
 * frees the object embedding @head (container_of).
 */

int object_put(struct object *obj)
{
	/*
	 * TODO: drop a reference.  The last one frees the object: through
	 * call_rcu() in a table with flags 0, at once (object_free) in a
	 * SLAB_TYPESAFE_BY_RCU table.  Return 1 iff this was the last.
	 */
	(void)obj;
	return 0;
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
