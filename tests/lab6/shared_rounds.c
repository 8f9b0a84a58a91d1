// SPDX-License-Identifier: GPL-2.0
/*
 * shared_rounds.c - the owner's last put against readers, round after
 * round (shared_rounds.h).
 */
#include <pthread.h>

#include "bug.h"
#include "rcupdate.h"
#include "rcuref.h"
#include "rwonce.h"
#include "shared_rounds.h"
#include "slab.h"

#define MAX_READERS	8

struct robj {
	rcuref_t ref;
	int payload;
	struct rcu_head rcu;
};

static struct kmem_cache *robj_cachep;
static struct robj *published;
static pthread_barrier_t round_start;
static int nr_rounds;
static struct rounds_result result;

static void robj_free_rcu(struct rcu_head *head)
{
	struct robj *o = container_of(head, struct robj, rcu);

	if ((unsigned int)atomic_read(&o->ref.refcnt) != RCUREF_DEAD)
		__atomic_add_fetch(&result.not_dead, 1, __ATOMIC_RELAXED);
	kmem_cache_free(robj_cachep, o);
}

/* Drop a reference; the put that returns true frees through call_rcu. */
static void robj_put(struct robj *o)
{
	if (!rcuref_put(&o->ref))
		return;
	__atomic_add_fetch(&result.releases, 1, __ATOMIC_RELAXED);
	call_rcu(&o->rcu, robj_free_rcu);
}

static void publish_new(int payload)
{
	struct robj *o = kmem_cache_alloc(robj_cachep, GFP_KERNEL);

	BUG_ON(!o);
	rcuref_init(&o->ref, 1);	/* the owner's */
	o->payload = payload;
	result.objects++;
	rcu_assign_pointer(published, o);
}

/* A reader: take a reference if the object still has one, use it, drop it. */
static void read_once(void)
{
	struct robj *o;
	bool got = false;

	rcu_read_lock();
	o = rcu_dereference(published);
	if (o)
		got = rcuref_get(&o->ref);
	rcu_read_unlock();
	if (!got)
		return;
	(void)READ_ONCE(o->payload);	/* ours until we put it */
	robj_put(o);
}

/* Thread 0 owns each round's object and drops it; the others read it. */
static void *round_thread(void *arg)
{
	long me = (long)arg;

	rcu_register_thread();
	for (int r = 0; r < nr_rounds; r++) {
		pthread_barrier_wait(&round_start);
		if (me == 0) {
			struct robj *o = rcu_dereference_protected(published, 1);

			rcu_assign_pointer(published, NULL);
			robj_put(o);
		} else {
			read_once();
		}
		pthread_barrier_wait(&round_start);
		if (me == 0)
			publish_new(r);		/* the next round's */
	}
	rcu_unregister_thread();
	return NULL;
}

struct rounds_result run_rounds(int readers, int rounds)
{
	pthread_t tid[MAX_READERS + 1];
	long i;

	if (readers > MAX_READERS)
		readers = MAX_READERS;
	result = (struct rounds_result){ 0, 0, 0 };
	nr_rounds = rounds;
	robj_cachep = kmem_cache_create("robj", sizeof(struct robj), 0, 0, NULL);
	BUG_ON(!robj_cachep);
	publish_new(-1);
	pthread_barrier_init(&round_start, NULL, readers + 1);
	for (i = 0; i <= readers; i++)
		pthread_create(&tid[i], NULL, round_thread, (void *)i);
	for (i = 0; i <= readers; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&round_start);
	robj_put(rcu_dereference_protected(published, 1));	/* the last round's */
	rcu_barrier();
	kmem_cache_destroy(robj_cachep);
	return result;
}
