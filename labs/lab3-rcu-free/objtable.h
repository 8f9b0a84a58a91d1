/* SPDX-License-Identifier: GPL-2.0 */
/*
 * objtable.h - a read-mostly collection of refcounted objects keyed by an
 * int: lock-free lookups under RCU, updates under a spinlock.
 *
 * The four operations of the 2004 refcount.h comment, RCU version:
 *   add     objtable_insert()  alloc, count 1 (the table's), link under lock
 *   search  objtable_lookup()  rcu_read_lock, find, refcount_get_rcu,
 *                              rcu_read_unlock; a failed get is a miss
 *   release object_put()       the last put frees the object
 *   delete  objtable_delete()  unlink under lock, then put the table's ref
 *
 * How an object is freed depends on the table's cache:
 *   flags 0                 through call_rcu(): the memory stays this
 *                           object's until every reader that may have
 *                           found it has left its read-side section
 *   SLAB_TYPESAFE_BY_RCU    at once (kmem_cache_free): the memory may be
 *                           reused for another object of the table without
 *                           a grace period, but it stays a struct object,
 *                           so a reader can always read its count and key;
 *                           lookup re-checks the key after the get
 */
#ifndef LAB3_OBJTABLE_H
#define LAB3_OBJTABLE_H

#include "rcupdate.h"
#include "refcount.h"
#include "slab.h"
#include "spinlock.h"

struct objtable;

struct object {
	refcount_t ref;
	int key;			/* READ_ONCE: readers race with reuse */
	struct object *next;		/* RCU-protected list, under table->lock */
	struct objtable *table;
	struct rcu_head rcu;
};

struct objtable {
	spinlock_t lock;		/* serialises insert, unlink, delete */
	struct object *head;		/* RCU-protected */
	struct kmem_cache *cachep;	/* "object"; tests may set its reuse mode */
	unsigned long flags;		/* 0 or SLAB_TYPESAFE_BY_RCU */
};

/**
 * objtable_create - an empty table whose objects come from a new cache
 * @flags: 0 (free through call_rcu) or SLAB_TYPESAFE_BY_RCU (free at once,
 *         type-stable memory)
 *
 * Returns the table, or NULL if memory is exhausted.
 */
struct objtable *objtable_create(unsigned long flags);

/**
 * objtable_destroy - delete every object, wait for pending frees, free all
 *
 * Every reference taken by a lookup must have been put before.  Calls
 * rcu_barrier(), so every object is freed when it returns (a leak is
 * reported by the slab otherwise).
 */
void objtable_destroy(struct objtable *t);

/**
 * objtable_insert - add an object with @key; the table holds its reference
 *
 * The key is stored before the count becomes non-zero: a reader that
 * takes a reference to (reused) memory sees the new key.
 * Returns 0, -EEXIST if @key is present, or -ENOMEM.
 */
int objtable_insert(struct objtable *t, int key);

/**
 * __objtable_find_rcu - the first object whose key reads as @key, or NULL
 *
 * Caller is inside rcu_read_lock().  Takes no reference: the object may be
 * on its way out (count 0) or, in a SLAB_TYPESAFE_BY_RCU table, reused.
 */
struct object *__objtable_find_rcu(struct objtable *t, int key);

/**
 * objtable_lookup - find @key and take a reference to it, without the lock
 *
 * Guarantees: returns an object whose key is @key and on which the caller
 * owns one reference (object_put() it), or NULL if no such object could be
 * referenced: absent, or being deleted (its count had reached 0).  Never
 * returns an object that was freed, nor one reused for another key.
 */
struct object *objtable_lookup(struct objtable *t, int key);

/**
 * objtable_unlink - take @key out of the table, under the lock
 *
 * Guarantees: no lookup that starts afterwards finds the object.  The
 * table's reference passes to the caller, who must put it.  Returns the
 * object, or NULL if @key is absent.
 */
struct object *objtable_unlink(struct objtable *t, int key);

/**
 * objtable_delete - unlink @key, then drop the table's reference
 *
 * Guarantees: the object is freed only after it is unlinked, and (flags 0)
 * only after a grace period.  Returns 0, or -ENOENT if @key is absent.
 */
int objtable_delete(struct objtable *t, int key);

/**
 * object_put - drop one reference; the last one frees the object
 *
 * Guarantees: a table with flags 0 frees through call_rcu(), so a reader
 * that found the object under rcu_read_lock() can still read it; a
 * SLAB_TYPESAFE_BY_RCU table frees at once.  Returns 1 if this was the
 * last reference.
 */
int object_put(struct object *obj);

/**
 * object_free - give the object's memory back to the cache, now
 *
 * What the RCU callback calls after the grace period.  Calling it directly
 * for an object readers may still reach is the bug of this lab.
 */
void object_free(struct object *obj);

#endif /* LAB3_OBJTABLE_H */
