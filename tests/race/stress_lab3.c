// SPDX-License-Identifier: GPL-2.0
/*
 * stress_lab3.c - lab 3's canonical races free running (stress.h): the
 * demos of tests/lab3/race_objtable.c, against the lab's table.
 *
 *   stress_lab3 MAX_SECONDS immediate_free_reuse | typesafe_no_recheck
 *
 * One side looks key 1 up and takes a reference without re-checking the
 * key; the other deletes key 1 and inserts key 2, which gets the freed
 * memory back: freed at once without call_rcu (immediate_free_reuse), or
 * in a SLAB_TYPESAFE_BY_RCU table (typesafe_no_recheck).  check() sees the
 * reader holding key 2's object.
 */
#include <stdbool.h>
#include <string.h>

#include "objtable.h"
#include "rwonce.h"
#include "stress.h"

static struct objtable *t;
static struct object *held;
static int held_key;
static bool free_at_once;

static void insert_key1(void)
{
	objtable_insert(t, 1);
	held = NULL;
	held_key = 0;
}

/* The 2004 comment's search-and-reference: find, get, no re-check. */
static void lookup_no_recheck(void)
{
	struct object *obj;

	rcu_read_lock();
	obj = __objtable_find_rcu(t, 1);
	if (obj && !refcount_get_rcu(&obj->ref))
		obj = NULL;
	rcu_read_unlock();
	held = obj;
	if (obj)
		held_key = READ_ONCE(obj->key);
}

/* Delete key 1 (freeing at once, if so chosen), insert key 2. */
static void delete_then_insert(void)
{
	struct object *obj;

	if (free_at_once) {
		obj = objtable_unlink(t, 1);
		if (obj && refcount_put(&obj->ref))
			object_free(obj);
	} else {
		objtable_delete(t, 1);
	}
	objtable_insert(t, 2);
}

static const char *right_key(void)
{
	return held_key == 2 ? "the lookup of key 1 holds key 2's object" : NULL;
}

static void drop_all(void)
{
	if (held)
		object_put(held);
	objtable_delete(t, 1);
	objtable_delete(t, 2);
}

static const struct stress lab3 = {
	.setup	 = insert_key1,
	.sides	 = { lookup_no_recheck, delete_then_insert },
	.check	 = right_key,
	.cleanup = drop_all,
};

int main(int argc, char **argv)
{
	bool typesafe = argc > 2 && !strcmp(argv[2], "typesafe_no_recheck");
	int ret;

	rcu_register_thread();
	free_at_once = !typesafe;
	t = objtable_create(typesafe ? SLAB_TYPESAFE_BY_RCU : 0);
	kmem_cache_set_reuse(t->cachep, SLAB_REUSE_IMMEDIATE);
	ret = stress_main(argc, argv, &lab3);
	objtable_destroy(t);
	return ret;
}
