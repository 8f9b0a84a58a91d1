// SPDX-License-Identifier: GPL-2.0
/*
 * refcount.c - refcount_t on a CPU without compare-and-exchange: the 2004
 * patch's spinlock-hash fallback, in working order.
 *
 * SMP: every read-modify-write of a count holds the bucket lock its address
 * hashes to, with interrupts off.  UP: interrupts off alone.
 */
#include "bug.h"
#include "refcount_hash.h"

spinlock_t __refcount_hash[REFCOUNT_HASH_SIZE];

#ifdef CONFIG_SMP
/* The bucket lock of @rc: the lock of its 256-byte block, as in the seed. */
#define REFCOUNT_HASH(rc) \
	(&__refcount_hash[((unsigned long)(rc) >> 8) & (REFCOUNT_HASH_SIZE - 1)])

#define refcount_lock(rc, flags)   spin_lock_irqsave(REFCOUNT_HASH(rc), flags)
#define refcount_unlock(rc, flags) spin_unlock_irqrestore(REFCOUNT_HASH(rc), flags)
#else
/* One CPU: with interrupts off nothing else can run. */
#define refcount_lock(rc, flags)   do { (void)(rc); local_irq_save(flags); } while (0)
#define refcount_unlock(rc, flags) do { (void)(rc); local_irq_restore(flags); } while (0)
#endif

/*
 * Add @delta to the count of @rc under its lock; the count before.  A
 * macro, so that the reproducer labels the steps with the caller's name.
 */
#define refcount_add_locked(rc, delta) ({				\
	unsigned long __flags;						\
	int __old;							\
									\
	refcount_lock(rc, __flags);					\
	__old = atomic_read(&(rc)->count);				\
	atomic_set(&(rc)->count, __old + (delta));			\
	refcount_unlock(rc, __flags);					\
	__old;								\
})

void refcount_init(refcount_t *rc)
{
	atomic_set(&rc->count, 1);	/* nobody else sees @rc yet */
}

int refcount_read(refcount_t *rc)
{
	return atomic_read(&rc->count);	/* one load: no lock needed */
}

void refcount_get(refcount_t *rc)
{
	int old = refcount_add_locked(rc, 1);

	WARN_ON(old == 0 && "refcount_t: addition on 0; use-after-free");
}

int refcount_get_rcu(refcount_t *rc)
{
	unsigned long flags;
	int c;

	refcount_lock(rc, flags);
	c = atomic_read(&rc->count);
	if (c)				/* test and increment, one lock hold */
		atomic_set(&rc->count, c + 1);
	refcount_unlock(rc, flags);
	return c;
}

int refcount_put(refcount_t *rc)
{
	return refcount_add_locked(rc, -1) == 1;
}

void refcount_dec(refcount_t *rc)
{
	refcount_add_locked(rc, -1);
}

int refcount_put_and_lock(refcount_t *rc, spinlock_t *lock)
{
	unsigned long flags;
	int c;

	refcount_lock(rc, flags);
	c = atomic_read(&rc->count);
	if (c > 1)			/* fast path: not the last reference */
		atomic_set(&rc->count, c - 1);
	refcount_unlock(rc, flags);
	if (c > 1)
		return 0;
	spin_lock(lock);		/* @lock first, then the bucket */
	if (refcount_put(rc))
		return 1;		/* the last one: return with the lock */
	spin_unlock(lock);		/* somebody took a reference meanwhile */
	return 0;
}
