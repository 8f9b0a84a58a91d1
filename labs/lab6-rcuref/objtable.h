/* SPDX-License-Identifier: GPL-2.0 */
/*
 * objtable.h - lab 3's table of objects keyed by an int, counted with
 * rcuref_t: lock-free lookups under RCU, updates under a spinlock, every
 * object freed through call_rcu().
 *
 *   add     objtable_insert()  alloc, one reference (the table's), link
 *                              under the lock
 *   search  objtable_lookup()  rcu_read_lock, find, rcuref_get,
 *                              rcu_read_unlock; a failed get is a miss
 *   release object_put()       rcuref_put; the put that returns true frees
 *                              through call_rcu()
 *   delete  objtable_delete()  unlink under the lock, then put the table's
 *                              reference
 *
 * This is the usage the kernel's lib/rcuref.c opens with: objects that
 * readers find under RCU after their last reference may be gone, freed
 * through RCU.  Unlike lab 3's table there is no SLAB_TYPESAFE_BY_RCU
 * variant: a get that fails writes DEAD back into the count, and in
 * memory reused at once that count may already be a new object's
 * (README.md, "From 2004 to 2023": file_ref_t).
 */
#ifndef LAB6_OBJTABLE_H
#define LAB6_OBJTABLE_H

#include "rcupdate.h"
#include "rcuref.h"
#include "slab.h"
#include "spinlock.h"

struct object {
	rcuref_t ref;
	int key;			/* READ_ONCE: readers race with the free */
	struct object *next;		/* RCU-protected list, under table->lock */
	struct objtable *table;
	struct rcu_head rcu;
};

struct objtable {
	spinlock_t lock;		/* serialises insert, unlink */
	struct object *head;		/* RCU-protected */
	struct kmem_cache *cachep;	/* "object"; tests may set its reuse mode */
};

/**
 * objtable_create - an empty table whose objects come from a new cache
 *
 * Returns the table, or NULL if memory is exhausted.
 */
struct objtable *objtable_create(void);

/**
 * objtable_destroy - delete every object, wait for pending frees, free all
 *
 * Every reference taken by a lookup must have been put before.  Calls
 * rcu_barrier(), so every object is freed when it returns.
 */
void objtable_destroy(struct objtable *t);

/**
 * objtable_insert - add an object with @key; the table holds its reference
 *
 * Guarantees: at most one object per key: inserting a key that is present
 * changes nothing.  The count is set before the object is published.
 * Returns 0, -EEXIST if @key is present, or -ENOMEM.
 *
 * Given.
 */
int objtable_insert(struct objtable *t, int key);

/**
 * __objtable_find_rcu - the first object whose key reads as @key, or NULL
 *
 * Caller is inside rcu_read_lock().  Takes no reference: the object may be
 * dying (its count dead) until its grace period ends.
 *
 * Given.
 */
struct object *__objtable_find_rcu(struct objtable *t, int key);

/**
 * objtable_lookup - find @key and take a reference to it, without the lock
 *
 * Guarantees: returns an object whose key is @key and on which the caller
 * owns one reference (object_put() it), or NULL if no such object could be
 * referenced: absent, or dying (its last reference gone).  Never returns a
 * freed object, and never leaves its caller inside a read-side section.  A
 * key that is present from before the call until after it returns is found.
 */
struct object *objtable_lookup(struct objtable *t, int key);

/**
 * objtable_unlink - take @key out of the table, under the lock
 *
 * The table's reference passes to the caller, who must put it.  Returns
 * the object, or NULL if @key is absent.
 *
 * Given.
 */
struct object *objtable_unlink(struct objtable *t, int key);

/**
 * objtable_delete - unlink @key, then put the table's reference
 *
 * Guarantees: no lookup that starts afterwards finds the object.  Of
 * concurrent deletes of one key exactly one returns 0.  Returns 0, or
 * -ENOENT if @key is absent.
 *
 * Given.
 */
int objtable_delete(struct objtable *t, int key);

/**
 * object_put - drop one reference; the last one frees the object
 *
 * Guarantees: it never blocks (it may be called inside rcu_read_lock(), or
 * outside).  The put whose rcuref_put() returns true, and no other, frees
 * the object, through call_rcu(): a reader that found it under
 * rcu_read_lock() can still read it until rcu_read_unlock().  Returns 1 if
 * this put freed it, 0 otherwise.
 */
int object_put(struct object *obj);

/**
 * object_free - give the object's memory back to the cache, now
 *
 * What the RCU callback calls after the grace period.
 *
 * Given.
 */
void object_free(struct object *obj);

#endif /* LAB6_OBJTABLE_H */
