/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refcount_hash.h - GIVEN: refcount_t on a CPU without compare-and-exchange,
 * the 2004 patch's fallback: what lab 4 promises beyond lab 2's refcount.h.
 *
 * The API is lab 2's refcount.h, unchanged, with every guarantee it states.
 * Only the back end differs.  The lab is built with CONFIG_NO_CMPXCHG
 * (common/atomic.h: cmpxchg(), xchg(), atomic_cmpxchg() and
 * atomic_inc_not_zero() do not compile) and, by default, CONFIG_SMP.
 */
#ifndef LAB4_REFCOUNT_HASH_H
#define LAB4_REFCOUNT_HASH_H

#include "irqflags.h"
#include "refcount.h"
#include "spinlock.h"

/* The number of bucket locks: a power of two (-DREFCOUNT_HASH_SIZE=8). */
#ifndef REFCOUNT_HASH_SIZE
#define REFCOUNT_HASH_SIZE	4
#endif

_Static_assert(REFCOUNT_HASH_SIZE > 0 &&
	       (REFCOUNT_HASH_SIZE & (REFCOUNT_HASH_SIZE - 1)) == 0,
	       "REFCOUNT_HASH_SIZE must be a power of two");

/**
 * __refcount_hash - the bucket locks, defined in refcount.c
 *
 * @rc's bucket lock is __refcount_hash[((unsigned long)rc >> 8) &
 * (REFCOUNT_HASH_SIZE - 1)].  The read-modify-writes of a count are
 * refcount_get(), refcount_get_rcu(), refcount_put(), refcount_dec() and
 * the decrement of refcount_put_and_lock().
 *
 * Guarantees: with CONFIG_SMP every read-modify-write of the count of @rc
 * is made holding @rc's bucket lock and no other lock of the array, so
 * counts in one 256-byte block share a lock and counts 256 bytes apart
 * (and less than 256 * REFCOUNT_HASH_SIZE) do not.  With CONFIG_SMP
 * refcount_get_rcu() tests the count and increments it under that lock,
 * without releasing it in between.  Without CONFIG_SMP (one CPU) no lock
 * of the array is taken, and every read-modify-write of a count is made
 * with interrupts off (local_irq_save()), which on one CPU is enough.
 * No lock is taken by refcount_read().  No lock but @rc's own bucket's,
 * if any, is taken by refcount_init().  A bucket lock is never held with interrupts on:
 * taken after they go off (spin_lock_irqsave()), released before they
 * come back on, so that an interrupt (a signal handler, here) may use any
 * refcount_t without deadlocking against the thread it interrupts, and
 * lockdep (common/lockdep.h) never sees a bucket lock taken in an
 * interrupt held with interrupts on.
 */
extern spinlock_t __refcount_hash[REFCOUNT_HASH_SIZE];

#endif /* LAB4_REFCOUNT_HASH_H */
