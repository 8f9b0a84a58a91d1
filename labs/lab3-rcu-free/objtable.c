// SPDX-License-Identifier: GPL-2.0
/*
 * objtable.c - YOURS: the lock-free lookup, delete, the last put and its
 * RCU callback.
 *
 * Lab 3.  The handout (README.md) says what each must guarantee;
 * objtable.h has the contracts.  The rest of the table is given in
 * objtable_given.c: read it, your code calls it.
 */
#include <errno.h>

#include "objtable.h"
#include "rwonce.h"

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

int objtable_delete(struct objtable *t, int key)
{
	/* TODO: unlink @key, then drop the table's reference.  Order matters. */
	(void)t;
	(void)key;
	return -ENOENT;
}

/* The RCU callback object_put() queues: frees the object embedding @head. */
static void __maybe_unused object_free_rcu(struct rcu_head *head)
{
	/* TODO: container_of() @head back to its object; object_free() it. */
	(void)head;
}

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
