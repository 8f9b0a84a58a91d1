// SPDX-License-Identifier: GPL-2.0
/*
 * objtable.c - the lock-free lookup (get unless zero, re-checked in a
 * type-stable table), delete, and the last put freeing through call_rcu().
 */
#include <errno.h>

#include "objtable.h"
#include "rwonce.h"

struct object *objtable_lookup(struct objtable *t, int key)
{
	struct object *obj;

	rcu_read_lock();
again:
	obj = __objtable_find_rcu(t, key);
	if (obj && !refcount_get_rcu(&obj->ref)) {
		obj = NULL;		/* count 0: being deleted, a miss */
	} else if (obj && READ_ONCE(obj->key) != key) {
		object_put(obj);	/* freed and reused for another key */
		goto again;
	}
	rcu_read_unlock();
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

/* The RCU callback: every reader that could have found obj has left. */
static void object_free_rcu(struct rcu_head *head)
{
	object_free(container_of(head, struct object, rcu));
}

int object_put(struct object *obj)
{
	if (!refcount_put(&obj->ref))
		return 0;
	if (READ_ONCE(obj->table)->flags & SLAB_TYPESAFE_BY_RCU)
		object_free(obj);	/* type-stable: lookups re-check */
	else
		call_rcu(&obj->rcu, object_free_rcu);
	return 1;
}
