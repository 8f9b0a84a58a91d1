/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shared_workload.h - the lab-2 workloads that both the Criterion stress
 * test (test_stress.c) and the TSan program (tsan_refcount.c) run.
 *
 * Bounded: every worker runs a fixed number of iterations; nothing sleeps.
 * Workers never assert (Criterion may only assert from the test's thread):
 * they count what went wrong in worker_failures.
 */
#ifndef LAB2_SHARED_WORKLOAD_H
#define LAB2_SHARED_WORKLOAD_H

#include "refcount.h"
#include "slab.h"
#include "spinlock.h"

#define NR_THREADS	4
#define ITERATIONS	20000

/*
 * Rounds of get_put and get_rcu_put (slot_user: a quarter): ITERATIONS for
 * the stress test, whose exact final count is its check; the TSan program
 * lowers it to TSAN_ITERATIONS, since TSan sees an unordered pair of
 * accesses in any round in which two threads make them, not only where
 * they collide in time.
 */
#define TSAN_ITERATIONS	(ITERATIONS / 4)
extern int workload_rounds;

extern refcount_t shared;		/* the count the workers hammer */
extern spinlock_t shared_lock;
extern int worker_failures;

/** worker_failed - a worker saw something wrong (counted in worker_failures) */
void worker_failed(void);

/** run_threads - run @fn in NR_THREADS threads (arg = 0..N-1), join them */
void run_threads(void *(*fn)(void *));

/** get_put - workload_rounds x (refcount_get, refcount_put) on @shared */
void *get_put(void *arg);

/**
 * get_rcu_put - workload_rounds x (refcount_get_rcu, refcount_put) on @shared,
 * whose count the caller holds above 0: a failed get_rcu is a failure
 */
void *get_rcu_put(void *arg);

/*
 * The pattern put_and_lock exists for: an object found in a slot under
 * @shared_lock, unlinked by whoever drops the last reference.  The slot owns
 * no reference; lookups take theirs under the lock with refcount_get, which
 * must therefore never see 0.  @payload is a plain field, written before
 * the object is published and read by every holder: TSan reports it if a
 * free is not ordered after a holder's read.
 */
struct slot_obj {
	refcount_t ref;
	long payload;
};

extern struct slot_obj *slot;		/* under shared_lock */
extern long slots_created;

/** slot_open / slot_close - create and destroy the slot's kmem_cache */
void slot_open(void);
void slot_close(void);

/** slot_user - workload_rounds / 4 x (find or create the slot's object, read it, put it) */
void *slot_user(void *arg);

#endif /* LAB2_SHARED_WORKLOAD_H */
