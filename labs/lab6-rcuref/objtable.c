// SPDX-License-Identifier: GPL-2.0
/*
 * objtable.c - YOURS: the lock-free lookup and the put of lab 3's table,
 * on rcuref_t.
 *
 * Lab 6, part 2.  objtable.h has the contracts; the rest of the table is
 * given in objtable_given.c (read it: its delete and destroy call your
 * object_put()).
 */
#include "objtable.h"

struct object *objtable_lookup(struct objtable *t, int key)
{
	/*
	 * TODO: inside rcu_read_lock(), find @key (__objtable_find_rcu)
	 * and take a reference with rcuref_get(); a failed get is a miss.
	 */
	(void)t;
	(void)key;
	return NULL;
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
	 * TODO: rcuref_put(); if it returns true, free the object through
	 * call_rcu().  Return 1 iff this put freed it.
	 */
	(void)obj;
	return 0;
}
