// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - YOURS: the lookup that takes its reference under the lock, and
 * the remove that drops the cache's reference after the unlink.
 *
 * Lab 1, part 2.  The rest of the cache is given in cache_given.c; the
 * helpers you call are declared in cache_given.h.
 */
#include <errno.h>

#include "cache_given.h"

struct cache_obj *cache_lookup(int key)
{
	/*
	 * TODO: find @key under cache_lock (__cache_find) and take the
	 * caller's reference (kref_get) *before* unlocking.  Compare
	 * cache_lookup_unlocked() in cache_given.c, and README.md's
	 * two-thread table: why is the lock needed around kref_get() even
	 * though the count is atomic?
	 */
	(void)key;
	return NULL;
}

int cache_remove(int key)
{
	/*
	 * TODO: under cache_lock, find @key (__cache_find) and unlink it
	 * (__cache_unlink); -ENOENT if it is absent.  After the unlock, drop
	 * the cache's reference (kref_put with cache_obj_release): the object
	 * is freed now, or by the last cache_put() if a lookup still holds a
	 * reference.  Return 0.
	 */
	(void)key;
	return -ENOENT;
}
