/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache_given.h - GIVEN: what cache_given.c shares with your cache.c.
 *
 * Not part of the cache's API (cache.h): the lock, the list walk and the
 * release function that cache_lookup() and cache_remove() are written
 * with.  Read it; do not edit it.
 */
#ifndef LAB1_CACHE_GIVEN_H
#define LAB1_CACHE_GIVEN_H

#include "cache.h"
#include "spinlock.h"

/* Guards the cache's list: every walk and every change of it. */
extern spinlock_t cache_lock;

/**
 * __cache_find - the object with @key, or NULL
 *
 * Caller holds cache_lock.  Takes no reference.
 */
struct cache_obj *__cache_find(int key);

/**
 * __cache_unlink - take @obj off the list
 *
 * Caller holds cache_lock and knows @obj is on the list.  The cache's
 * reference passes to the caller, who must put it.
 */
void __cache_unlink(struct cache_obj *obj);

/**
 * cache_obj_release - the release function of every object's kref
 *
 * kref_put() calls it when the last reference goes: it frees the object.
 */
void cache_obj_release(struct kref *kref);

#endif /* LAB1_CACHE_GIVEN_H */
