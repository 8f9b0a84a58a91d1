// SPDX-License-Identifier: GPL-2.0
/*
 * objtable.c - the lock-free lookup on rcuref_get(), and the put that
 * frees through call_rcu() when rcuref_put() says the object is dead.
 */
#include "objtable.h"

struct object *objtable_lookup(struct objtable *t, int key)
{
	struct object *obj;

	rcu_read_lock();
	obj = __objtable_find_rcu(t, key);
	if (obj && !rcuref_get(&obj->ref))
		obj = NULL;		/* dead: on its way to call_rcu */
	rcu_read_unlock();
	return obj;
}

/* The RCU callback: every reader that could have found obj has left. */
static void object_free_rcu(struct rcu_head *head)
{
	object_free(container_of(head, struct object, rcu));
}

int object_put(struct object *obj)
{
	if (!rcuref_put(&obj->ref))
		return 0;
	call_rcu(&obj->rcu, object_free_rcu);
	return 1;
}
