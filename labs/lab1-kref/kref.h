/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kref.h - a reference count embedded in an object, in its 2004 shape.
 *
 * The count is an atomic_t.  kref_init() starts it at 1 (the creator's
 * reference), kref_get() adds one, kref_put() drops one and calls the
 * release function when the last reference goes.
 *
 * The rule that makes it correct ("by fiat", as the LWN article "RCU-safe
 * reference counting" puts it): kref_get() must never run at the same time
 * as the kref_put() that could drop the last reference.  In practice the
 * caller of kref_get() either already holds a reference, or holds the lock
 * of the collection through which it found the object.
 */
#ifndef LAB1_KREF_H
#define LAB1_KREF_H

#include "atomic.h"

struct kref {
	atomic_t refcount;
};

/**
 * kref_init - start @kref with one reference, the caller's
 *
 * Guarantees: the count is 1.  Call it before anybody else can see @kref.
 * Given, as in the kernel: an inline one-liner.
 */
static inline void kref_init(struct kref *kref)
{
	atomic_set(&kref->refcount, 1);
}

/**
 * kref_get - take one more reference to @kref
 *
 * The caller must already own a reference, or hold the lock under which
 * the object can still be found (so that no kref_put() can drop the last
 * reference meanwhile).  Taking a reference to an object whose count is 0
 * is a bug: it WARNs (and still increments, as the 2004 code did).
 *
 * Returns @kref.
 */
struct kref *kref_get(struct kref *kref);

/**
 * kref_put - drop one reference to @kref
 * @release: called with @kref when the count reaches 0; it frees the object
 *
 * Guarantees: of any number of concurrent callers, exactly the one that
 * drops the last reference calls @release, exactly once, after every other
 * holder's accesses (the decrement is fully ordered).
 *
 * Returns 1 if this call released the object, 0 otherwise.
 */
int kref_put(struct kref *kref, void (*release)(struct kref *kref));

/**
 * kref_read - the count at some instant (for tests and debugging only)
 *
 * Given, as in the kernel: an inline one-liner.
 */
static inline int kref_read(const struct kref *kref)
{
	return atomic_read(&kref->refcount);
}

#endif /* LAB1_KREF_H */
