// SPDX-License-Identifier: GPL-2.0
/*
 * test_rcu.c - the RCU primitives on liburcu: publish/subscribe, grace
 * periods, callbacks.
 */
#include <pthread.h>
#include <criterion/criterion.h>

#include "atomic.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"

struct item {
	int value;
	struct rcu_head rcu;
};

static struct item *gp;
static atomic_t callbacks = ATOMIC_INIT(0);

/* RCU callback: count it, free the item. */
static void free_item(struct rcu_head *head)
{
	struct item *it = container_of(head, struct item, rcu);

	atomic_inc(&callbacks);
	kfree(it);
}

/* A fresh item holding @value (the test fails if memory runs out). */
static struct item *new_item(int value)
{
	struct item *it = kmalloc(sizeof(*it), GFP_KERNEL);

	cr_assert_not_null(it);
	it->value = value;
	return it;
}

Test(rcu, publish_and_read)
{
	struct item *it;

	rcu_register_thread();
	rcu_assign_pointer(gp, new_item(1));
	rcu_read_lock();
	it = rcu_dereference(gp);
	cr_assert_eq(it->value, 1);
	rcu_read_unlock();
	it = rcu_dereference_protected(gp, 1);
	RCU_INIT_POINTER(gp, NULL);
	synchronize_rcu();
	kfree(it);
	cr_assert_eq(slab_objects_live(), 0);
	rcu_unregister_thread();
}

Test(rcu, call_rcu_runs_each_callback_once)
{
	struct item *it;
	int i;

	rcu_register_thread();
	for (i = 0; i < 100; i++) {
		it = new_item(i);
		call_rcu(&it->rcu, free_item);
	}
	rcu_barrier();
	cr_assert_eq(atomic_read(&callbacks), 100);
	cr_assert_eq(slab_objects_live(), 0);
	rcu_unregister_thread();
}

#define NR_READERS	2
#define NR_UPDATES	2000

static int stop;

/* Read the published item until told to stop; count freed items seen. */
static void *reader(void *arg)
{
	struct item *it;
	long *bad = arg;

	rcu_register_thread();
	while (!READ_ONCE(stop)) {
		rcu_read_lock();
		it = rcu_dereference(gp);
		if (it && (it->value < 0 || it->value > NR_UPDATES))
			(*bad)++;	/* a freed item reads 0x6b6b...: huge */
		rcu_read_unlock();
	}
	rcu_unregister_thread();
	return NULL;
}

Test(rcu, readers_never_see_freed_items, .timeout = 60)
{
	pthread_t t[NR_READERS];
	long bad[NR_READERS] = { 0 };
	struct item *old;
	int i;

	rcu_register_thread();
	rcu_assign_pointer(gp, new_item(0));
	for (i = 0; i < NR_READERS; i++)
		pthread_create(&t[i], NULL, reader, &bad[i]);
	for (i = 1; i <= NR_UPDATES; i++) {
		old = rcu_dereference_protected(gp, 1);
		rcu_assign_pointer(gp, new_item(i));
		if (i % 2)
			call_rcu(&old->rcu, free_item);
		else {
			synchronize_rcu();
			kfree(old);
		}
	}
	WRITE_ONCE(stop, 1);
	for (i = 0; i < NR_READERS; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(bad[i], 0, "a reader saw a freed item");
	}
	kfree(rcu_dereference_protected(gp, 1));
	rcu_barrier();
	cr_assert_eq(slab_objects_live(), 0);
	rcu_unregister_thread();
}
