// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - a list of kref-counted objects under one spinlock.
 *
 * Lab 1, part 2: fill in cache_lookup() and the end of cache_remove().
 * cache_lookup_unlocked() is wrong on purpose: leave it as it is.
 */
#include <errno.h>

#include "cache.h"
#include "rwonce.h"
#include "slab.h"
#include "spinlock.h"

static struct kmem_cache *cache_cachep;
static struct cache_obj *cache_head;	/* under cache_lock */
static DEFINE_SPINLOCK(cache_lock);

int cache_init(void)
{
	cache_cachep = kmem_cache_create("cache_obj", sizeof(struct cache_obj),
					 0, 0, NULL);
	if (!cache_cachep)
		return -ENOMEM;
	WRITE_ONCE(cache_head, NULL);
	return 0;
}

/* Called by kref_put() when the last reference goes. */
static void cache_obj_release(struct kref *kref)
{
	struct cache_obj *obj = container_of(kref, struct cache_obj, kref);

	kmem_cache_free(cache_cachep, obj);
}

/* The object with @key, or NULL.  Caller holds cache_lock. */
static struct cache_obj *__cache_find(int key)
{
	struct cache_obj *obj;

	for (obj = READ_ONCE(cache_head); obj; obj = READ_ONCE(obj->next))
		if (READ_ONCE(obj->key) == key)
			return obj;
	return NULL;
}

/* Unlink @obj from the list.  Caller holds cache_lock. */
static void __cache_unlink(struct cache_obj *obj)
{
	struct cache_obj **pp = &cache_head;
	struct cache_obj *cur;

	while ((cur = READ_ONCE(*pp)) != obj)
		pp = &cur->next;
	WRITE_ONCE(*pp, READ_ONCE(obj->next));
}

int cache_insert(int key)
{
	struct cache_obj *obj = kmem_cache_alloc(cache_cachep, GFP_KERNEL);
	int ret = 0;

	if (!obj)
		return -ENOMEM;
	kref_init(&obj->kref);		/* the cache's reference */
	WRITE_ONCE(obj->key, key);
	spin_lock(&cache_lock);
	if (__cache_find(key)) {
		ret = -EEXIST;
	} else {
		WRITE_ONCE(obj->next, READ_ONCE(cache_head));
		WRITE_ONCE(cache_head, obj);
	}
	spin_unlock(&cache_lock);
	if (ret)
		kmem_cache_free(cache_cachep, obj);
	return ret;
}

struct cache_obj *cache_lookup(int key)
{
	struct cache_obj *obj;

	/*
	 * TODO: find @key under cache_lock and take the caller's reference
	 * (kref_get) *before* unlocking.  Compare cache_lookup_unlocked()
	 * below, and README.md's two-thread table: why is the lock needed
	 * around kref_get() even though the count is atomic?
	 */
	(void)key;
	obj = NULL;
	return obj;
}

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

int cache_remove(int key)
{
	struct cache_obj *obj;

	spin_lock(&cache_lock);
	obj = __cache_find(key);
	if (obj)
		__cache_unlink(obj);
	spin_unlock(&cache_lock);
	if (!obj)
		return -ENOENT;
	/*
	 * TODO: the object is unlinked; now drop the cache's reference to it
	 * (kref_put with cache_obj_release).  It is freed now, or by the last
	 * cache_put() if a lookup still holds a reference.
	 */
	return 0;
}

int cache_put(struct cache_obj *obj)
{
	return kref_put(&obj->kref, cache_obj_release);
}

void cache_destroy(void)
{
	struct cache_obj *obj;

	for (;;) {
		spin_lock(&cache_lock);
		obj = READ_ONCE(cache_head);
		if (obj)
			__cache_unlink(obj);
		spin_unlock(&cache_lock);
		if (!obj)
			break;
		kref_put(&obj->kref, cache_obj_release);
	}
	kmem_cache_destroy(cache_cachep);
	cache_cachep = NULL;
}
