// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_refcount.c - lab 2 under ThreadSanitizer (a plain program: Criterion
 * aborts under TSan).
 *
 *   tsan_refcount --list     one line per case: "<case> clean|race"
 *   tsan_refcount <case>     a bounded stress of that case; exits 0, or 1
 *                            if a final count is wrong
 *
 * The grader runs each case with TSAN_OPTIONS=exitcode=66 and calls it
 * "race" iff ThreadSanitizer reported one.  Every case here must be clean:
 * refcount_t is built on atomics only, and the objects it frees are freed
 * after every other holder's last access in happens-before order.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bug.h"
#include "refcount.h"
#include "rwonce.h"
#include "slab.h"
#include "spinlock.h"
#include "tsan_case.h"

#define NR_THREADS	4
#define ITERATIONS	20000

static refcount_t shared;
static DEFINE_SPINLOCK(lock);

static void run_threads(void *(*fn)(void *))
{
	pthread_t tid[NR_THREADS];
	long i;

	for (i = 0; i < NR_THREADS; i++)
		pthread_create(&tid[i], NULL, fn, (void *)i);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);
}

static int expect(const char *what, long got, long want)
{
	if (got == want)
		return 0;
	fprintf(stderr, "%s: %ld, expected %ld\n", what, got, want);
	return 1;
}

static void *get_put(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		refcount_get(&shared);
		refcount_put(&shared);
	}
	return NULL;
}

static int case_get_put(const struct tsan_case *c __maybe_unused)
{
	refcount_init(&shared);
	run_threads(get_put);
	return expect("count", refcount_read(&shared), 1);
}

static void *get_rcu_put(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++)
		if (refcount_get_rcu(&shared))
			refcount_put(&shared);
	return NULL;
}

static int case_get_rcu(const struct tsan_case *c __maybe_unused)
{
	refcount_init(&shared);
	run_threads(get_rcu_put);
	return expect("count", refcount_read(&shared), 1);
}

/*
 * An object found in a slot under the lock; the last put_and_lock unlinks
 * and frees it.  @payload is a plain field: written by the creator before
 * it publishes the object, read by every holder, overwritten by the free.
 * TSan reports a race on it if a free is not ordered after a holder's read.
 */
struct slot_obj {
	refcount_t ref;
	long payload;
};

static struct kmem_cache *slot_cachep;
static struct slot_obj *slot;		/* under lock */
static long payload_sum;

static struct slot_obj *slot_get_or_create(long id)
{
	struct slot_obj *obj;

	spin_lock(&lock);
	obj = READ_ONCE(slot);
	if (obj) {
		refcount_get(&obj->ref);
	} else {
		obj = kmem_cache_alloc(slot_cachep, GFP_KERNEL);
		BUG_ON(!obj);
		refcount_init(&obj->ref);
		obj->payload = id;
		WRITE_ONCE(slot, obj);
	}
	spin_unlock(&lock);
	return obj;
}

static void slot_put(struct slot_obj *obj)
{
	if (!refcount_put_and_lock(&obj->ref, &lock))
		return;
	WRITE_ONCE(slot, NULL);
	spin_unlock(&lock);
	kmem_cache_free(slot_cachep, obj);
}

static void *slot_user(void *arg)
{
	long sum = 0;

	for (int i = 0; i < ITERATIONS / 4; i++) {
		struct slot_obj *obj = slot_get_or_create((long)arg);

		sum += obj->payload;
		slot_put(obj);
	}
	__atomic_add_fetch(&payload_sum, sum, __ATOMIC_RELAXED);
	return NULL;
}

static int case_put_and_lock(const struct tsan_case *c __maybe_unused)
{
	slot_cachep = kmem_cache_create("slot_obj", sizeof(struct slot_obj),
					0, 0, NULL);
	run_threads(slot_user);
	return expect("objects live", slab_objects_live(), 0) |
	       expect("warnings", warn_count(), 0);
}

static const struct tsan_case cases[] = {
	{ "get_put",		"clean", case_get_put, NULL },
	{ "get_rcu",		"clean", case_get_rcu, NULL },
	{ "put_and_lock",	"clean", case_put_and_lock, NULL },
};

int main(int argc, char **argv)
{
	return tsan_case_main(argc, argv, cases, ARRAY_SIZE(cases));
}
