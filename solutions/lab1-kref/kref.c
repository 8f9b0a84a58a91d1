// SPDX-License-Identifier: GPL-2.0
/*
 * kref.c - kref_init, kref_get, kref_put.
 */
#include "bug.h"
#include "kref.h"

void kref_init(struct kref *kref)
{
	atomic_set(&kref->refcount, 1);
}

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

int kref_read(const struct kref *kref)
{
	return atomic_read(&kref->refcount);
}
