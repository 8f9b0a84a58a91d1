// SPDX-License-Identifier: GPL-2.0
/*
 * shared_workload.c - see shared_workload.h.
 */
#include <pthread.h>

#include "bug.h"
#include "rwonce.h"
#include "shared_workload.h"

refcount_t shared;
DEFINE_SPINLOCK(shared_lock);
int worker_failures;
int workload_rounds = ITERATIONS;

struct slot_obj *slot;
long slots_created;
static struct kmem_cache *slot_cachep;
static long payload_sum;		/* keeps the payload reads alive */

void run_threads(void *(*fn)(void *))
{
	pthread_t tid[NR_THREADS];
	long i;

	for (i = 0; i < NR_THREADS; i++)
		BUG_ON(pthread_create(&tid[i], NULL, fn, (void *)i));
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);
}

void worker_failed(void)
{
	__atomic_add_fetch(&worker_failures, 1, __ATOMIC_RELAXED);
}

void *get_put(void *arg)
{
	(void)arg;
	for (int i = 0; i < workload_rounds; i++) {
		refcount_get(&shared);
		refcount_put(&shared);
	}
	return NULL;
}

void *get_rcu_put(void *arg)
{
	(void)arg;
	for (int i = 0; i < workload_rounds; i++) {
		if (!refcount_get_rcu(&shared)) {
			worker_failed();	/* the count is held above 0 */
			continue;
		}
		refcount_put(&shared);
	}
	return NULL;
}

void slot_open(void)
{
	slot_cachep = kmem_cache_create("slot_obj", sizeof(struct slot_obj),
					0, 0, NULL);
	BUG_ON(!slot_cachep);
	spin_lock_init(&shared_lock);
	slot = NULL;
	slots_created = 0;
}

void slot_close(void)
{
	kmem_cache_destroy(slot_cachep);
	slot_cachep = NULL;
}

static struct slot_obj *slot_get_or_create(long id)
{
	struct slot_obj *obj;

	spin_lock(&shared_lock);
	obj = READ_ONCE(slot);
	if (obj) {
		refcount_get(&obj->ref);
	} else {
		obj = kmem_cache_alloc(slot_cachep, GFP_KERNEL);
		BUG_ON(!obj);
		refcount_init(&obj->ref);
		refcount_watch(&obj->ref.count);	/* 0 is final */
		obj->payload = id;
		WRITE_ONCE(slot, obj);
		__atomic_add_fetch(&slots_created, 1, __ATOMIC_RELAXED);
	}
	spin_unlock(&shared_lock);
	return obj;
}

static void slot_put(struct slot_obj *obj)
{
	if (!refcount_put_and_lock(&obj->ref, &shared_lock))
		return;
	WRITE_ONCE(slot, NULL);
	spin_unlock(&shared_lock);
	kmem_cache_free(slot_cachep, obj);
}

void *slot_user(void *arg)
{
	long sum = 0;

	for (int i = 0; i < workload_rounds / 4; i++) {
		struct slot_obj *obj = slot_get_or_create((long)arg);

		sum += obj->payload;
		slot_put(obj);
	}
	__atomic_add_fetch(&payload_sum, sum, __ATOMIC_RELAXED);
	return NULL;
}
