// SPDX-License-Identifier: GPL-2.0
/*
 * kref.c - kref_get() and kref_put() in their 2004 shape.
 */
#include "bug.h"
#include "kref.h"

struct kref *kref_get(struct kref *kref)
{
	WARN_ON(!atomic_read(&kref->refcount));
	atomic_inc(&kref->refcount);
	return kref;
}

int kref_put(struct kref *kref, void (*release)(struct kref *kref))
{
	if (atomic_dec_and_test(&kref->refcount)) {
		release(kref);
		return 1;
	}
	return 0;
}
