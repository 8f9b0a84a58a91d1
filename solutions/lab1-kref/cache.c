// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - the lookup that takes its reference under the lock, and the
 * put that ends cache_remove().
 */
#include <errno.h>

#include "cache_given.h"

struct cache_obj *cache_lookup(int key)
{
	struct cache_obj *obj;

	spin_lock(&cache_lock);
	obj = __cache_find(key);
	if (obj)
		kref_get(&obj->kref);
	spin_unlock(&cache_lock);
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
	kref_put(&obj->kref, cache_obj_release);	/* the cache's reference */
	return 0;
}
