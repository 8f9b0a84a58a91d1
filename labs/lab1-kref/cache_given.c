// SPDX-License-Identifier: GPL-2.0
/*
 * cache_given.c - GIVEN: the cache's list, insert, put and destroy.
 *
 * Read it, do not edit it: your part of the cache is cache.c.  The last
 * function, cache_lookup_unlocked(), is broken on purpose and fenced: the
 * TSan run and the race scenarios need it exactly as it is.
 */
#include <errno.h>

#include "cache_given.h"
#include "rwonce.h"
#include "slab.h"

static struct kmem_cache *cache_cachep;
static struct cache_obj *cache_head;	/* under cache_lock */
DEFINE_SPINLOCK(cache_lock);

int cache_init(void)
{
	cache_cachep = kmem_cache_create("cache_obj", sizeof(struct cache_obj),
					 0, 0, NULL);
	if (!cache_cachep)
		return -ENOMEM;
	WRITE_ONCE(cache_head, NULL);
	return 0;
}

void cache_obj_release(struct kref *kref)
{
	struct cache_obj *obj = container_of(kref, struct cache_obj, kref);

	kmem_cache_free(cache_cachep, obj);
}

struct cache_obj *__cache_find(int key)
{
	struct cache_obj *obj;

	for (obj = READ_ONCE(cache_head); obj; obj = READ_ONCE(obj->next))
		if (READ_ONCE(obj->key) == key)
			return obj;
	return NULL;
}

void __cache_unlink(struct cache_obj *obj)
{
	struct cache_obj **pp = &cache_head;
	struct cache_obj *cur;

	while ((cur = READ_ONCE(*pp)) != obj)
		pp = &cur->next;
	WRITE_ONCE(*pp, READ_ONCE(obj->next));
}

int cache_insert(int key)
{
	struct cache_obj *obj;
	int ret = 0;

	spin_lock(&cache_lock);
	if (__cache_find(key)) {
		ret = -EEXIST;		/* refused before anything is allocated */
		goto out;
	}
	/* Under a spinlock the kernel may not sleep: GFP_ATOMIC. */
	obj = kmem_cache_alloc(cache_cachep, GFP_ATOMIC);
	if (!obj) {
		ret = -ENOMEM;
		goto out;
	}
	kref_init(&obj->kref);		/* the cache's reference */
	refcount_watch(&obj->kref.refcount);	/* 0 is final (refcount_watch.h) */
	WRITE_ONCE(obj->key, key);
	WRITE_ONCE(obj->next, READ_ONCE(cache_head));
	WRITE_ONCE(cache_head, obj);
out:
	spin_unlock(&cache_lock);
	return ret;
}

int cache_put(struct cache_obj *obj)
{
	return kref_put(&obj->kref, cache_obj_release);
}

void cache_destroy(void)
{
	struct cache_obj *obj;

	spin_lock(&cache_lock);
	while ((obj = READ_ONCE(cache_head))) {
		__cache_unlink(obj);
		spin_unlock(&cache_lock);
		kref_put(&obj->kref, cache_obj_release);	/* the cache's */
		spin_lock(&cache_lock);
	}
	spin_unlock(&cache_lock);
	kmem_cache_destroy(cache_cachep);
	cache_cachep = NULL;
}

/* ==== BROKEN ON PURPOSE ================================================
 * The lookup of the 2004 race: the reference is taken after the unlock.
 * tests/lab1/tsan_cache.c and the race scenarios call it to show the race
 * your cache_lookup() must not have.  Do not fix it.
 */
struct cache_obj *cache_lookup_unlocked(int key)
{
	struct cache_obj *obj;

	spin_lock(&cache_lock);
	obj = __cache_find(key);
	spin_unlock(&cache_lock);
	if (obj)
		kref_get(&obj->kref);	/* too late: obj may be freed by now */
	return obj;
}
/* ==== end of BROKEN ON PURPOSE ======================================== */
