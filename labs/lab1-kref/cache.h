/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache.h - a small collection of reference-counted objects, found by key.
 *
 * The cache holds one reference to every object in it.  A lookup returns
 * the object with a new reference for the caller, who drops it with
 * cache_put().  cache_remove() unlinks the object and drops the cache's
 * reference; the object is freed when the last holder lets go.
 *
 * One spinlock, cache_lock, guards the list.  cache_lookup() takes its
 * reference while holding it; that is what makes kref_get() safe here.
 * cache_lookup_unlocked() is the same lookup with the reference taken after
 * the unlock: it is wrong, and kept on purpose so that the race can be
 * shown (tests/lab1/tsan_cache.c, the race reproducer's scenarios).
 */
#ifndef LAB1_CACHE_H
#define LAB1_CACHE_H

#include "kref.h"

struct cache_obj {
	struct kref kref;
	int key;
	struct cache_obj *next;		/* the cache's list, under cache_lock */
};

/**
 * cache_init - create the (empty) cache
 *
 * Returns 0, or -ENOMEM.  Call before any other cache_* function.
 */
int cache_init(void);

/**
 * cache_destroy - remove every object left, then free the cache
 *
 * Every reference taken by a lookup must have been put before: an object
 * still referenced then is reported as a leak by the slab.
 */
void cache_destroy(void);

/**
 * cache_insert - add a new object with @key; the cache holds its reference
 *
 * Guarantees: at most one object per key: inserting a key that is present
 * changes nothing and allocates nothing.  Returns 0, -EEXIST if @key is
 * already in the cache, or -ENOMEM.
 *
 * Given.
 */
int cache_insert(int key);

/**
 * cache_lookup - find @key and take a reference to it
 *
 * Guarantees: the reference is taken while cache_lock is held, so the
 * object cannot reach a count of 0 in between.  Returns the object (the
 * caller owns one reference: cache_put() it), or NULL if @key is absent;
 * never an object of another key.
 */
struct cache_obj *cache_lookup(int key);

/**
 * cache_lookup_unlocked - BROKEN ON PURPOSE: find @key, unlock, then take
 * the reference
 *
 * Between the unlock and kref_get(), cache_remove() and the last
 * cache_put() may free the object: kref_get() then reads and increments
 * freed memory.  Kept to demonstrate the race; never use it.
 */
struct cache_obj *cache_lookup_unlocked(int key);

/**
 * cache_remove - unlink @key and drop the cache's reference to it
 *
 * Guarantees: no lookup finds the object afterwards; it is freed now if
 * nobody else holds a reference, else by the last cache_put().  Of
 * concurrent removes of one key exactly one returns 0.  Returns 0, or
 * -ENOENT if @key is absent.
 */
int cache_remove(int key);

/**
 * cache_put - drop a reference returned by a lookup
 *
 * Guarantees: drops exactly one reference.  Returns 1 if this freed the
 * object (it dropped the last reference), 0 otherwise.
 *
 * Given.
 */
int cache_put(struct cache_obj *obj);

#endif /* LAB1_CACHE_H */
