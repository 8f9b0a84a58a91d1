// SPDX-License-Identifier: GPL-2.0
/*
 * refcount.c - YOURS: refcount_t on a CPU without compare-and-exchange,
 * the 2004 patch's spinlock-hash fallback: all seven calls of lab 2's
 * refcount.h, over the bucket locks of refcount_hash.h.
 *
 * Lab 4.  The handout (README.md) walks the seed's listing; refcount.h
 * (lab 2's, unchanged) and refcount_hash.h have the contracts.  The lab is
 * built with CONFIG_NO_CMPXCHG: cmpxchg() and atomic_cmpxchg() do not
 * compile.  Touch the count with atomic_read() and atomic_set() under the
 * bucket lock; take the lock with spin_lock_irqsave() (SMP), or only turn
 * interrupts off with local_irq_save() (UP, no CONFIG_SMP).
 *
 * This file is built three times (SMP, SMP with 8 locks, UP) into one
 * binary: keep every helper static.
 */
#include "bug.h"
#include "refcount_hash.h"

/* The bucket locks (the seed defines them in kernel/rcupdate.c). */
spinlock_t __refcount_hash[REFCOUNT_HASH_SIZE];

#ifdef CONFIG_SMP
/*
 * TODO: the bucket lock of @rc, by the seed's hash: the lock of its
 * 256-byte block, (address >> 8) & (REFCOUNT_HASH_SIZE - 1).
 */
#define REFCOUNT_HASH(rc)	(&__refcount_hash[0])

/* TODO: take @rc's bucket lock with interrupts off, and give it back. */
#define refcount_lock(rc, flags)	do { (void)(rc); (flags) = 0; } while (0)
#define refcount_unlock(rc, flags)	do { (void)(rc); (void)(flags); } while (0)
#else
/* TODO: one CPU, no bucket lock: what is enough to update a count here? */
#define refcount_lock(rc, flags)	do { (void)(rc); (flags) = 0; } while (0)
#define refcount_unlock(rc, flags)	do { (void)(rc); (void)(flags); } while (0)
#endif

void refcount_init(refcount_t *rc)
{
	/* TODO: the count starts at 1. */
	(void)rc;
}

int refcount_read(refcount_t *rc)
{
	/* TODO: the count now (does it need the lock?). */
	(void)rc;
	return 0;
}

void refcount_get(refcount_t *rc)
{
	/*
	 * TODO: under the lock, add 1.  If the count was 0, WARN "addition on
	 * 0; use-after-free" (and increment anyway).
	 */
	(void)rc;
}

int refcount_get_rcu(refcount_t *rc)
{
	/*
	 * TODO: under the lock, add 1 unless the count is 0; test and add in
	 * one hold of the lock.  Return the count found (0: no reference).
	 */
	(void)rc;
	return 0;
}

int refcount_put(refcount_t *rc)
{
	/* TODO: under the lock, subtract 1; return 1 iff it reached 0. */
	(void)rc;
	return 0;
}

void refcount_dec(refcount_t *rc)
{
	/* TODO: under the lock, subtract 1. */
	(void)rc;
}

int refcount_put_and_lock(refcount_t *rc, spinlock_t *lock)
{
	/*
	 * TODO: atomic_dec_and_lock().  While the count is above 1, subtract 1
	 * without touching @lock.  Otherwise take @lock first (then the bucket
	 * lock, never the other order), subtract; return 1 with @lock held iff
	 * the count reached 0, else unlock it and return 0.
	 */
	(void)rc;
	(void)lock;
	return 0;
}
