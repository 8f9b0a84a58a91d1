// SPDX-License-Identifier: GPL-2.0
/*
 * stress_lab2.c - lab 2's canonical race free running (stress.h): the demo
 * read_then_inc of tests/lab2/race_refcount.c.  A reader finds the object
 * under RCU and takes a reference with lab 1's check-then-increment while
 * the owner unpublishes it and drops the last reference: the count can
 * reach 0 twice (the reproducer shows the double free that follows; here
 * check() sees the second release).
 */
#include "rcupdate.h"
#include "refcount.h"
#include "slab.h"
#include "stress.h"

struct robj {
	refcount_t ref;
	int payload;
};

static struct robj *obj, *published;
static atomic_t releases;

static void publish(void)
{
	obj = kmalloc(sizeof(*obj), GFP_KERNEL);
	refcount_init(&obj->ref);
	obj->payload = 42;
	atomic_set(&releases, 0);
	rcu_assign_pointer(published, obj);
}

/* Drop a reference; count the releases (the object is freed in cleanup). */
static void put(struct robj *o)
{
	if (refcount_put(&o->ref))
		atomic_inc(&releases);
}

/* Lab 1's get, as the demo writes it: check, then increment. */
static void reader_read_then_inc(void)
{
	struct robj *o;

	rcu_read_lock();
	o = rcu_dereference(published);
	if (o && atomic_read(&o->ref.count))
		atomic_inc(&o->ref.count);
	else
		o = NULL;
	rcu_read_unlock();
	if (o)
		put(o);
}

static void owner_put(void)
{
	rcu_assign_pointer(published, NULL);
	put(obj);
}

static const char *one_release(void)
{
	return atomic_read(&releases) == 1 ? NULL :
	       "the count reached 0 twice: a get took a reference at 0";
}

static void free_obj(void)
{
	kfree(obj);		/* both sides are done: no reader is left */
}

static const struct stress lab2 = {
	.setup	 = publish,
	.sides	 = { reader_read_then_inc, owner_put },
	.check	 = one_release,
	.cleanup = free_obj,
};

int main(int argc, char **argv)
{
	rcu_register_thread();
	return stress_main(argc, argv, &lab2);
}
