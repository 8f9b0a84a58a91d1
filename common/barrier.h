/* SPDX-License-Identifier: GPL-2.0 */
/*
 * barrier.h - compiler and CPU memory barriers, and release/acquire
 * accesses, under the kernel's names.
 *
 * Real backend: C11 fences and __atomic builtins.
 *
 * Harness backend: under the reproducer's default, sequentially consistent
 * model a fence is not a scheduling point (one thread runs at a time and
 * every store is seen at once, so a fence changes nothing there); under
 * its weak memory model each fence is a point the model applies
 * (race_fence() in race_hooks.h), and smp_store_release/smp_load_acquire
 * are accesses with their ordering, as READ_ONCE/WRITE_ONCE are.
 */
#ifndef KIT_BARRIER_H
#define KIT_BARRIER_H

#include "race_hooks.h"

/** barrier - the compiler may not move memory accesses across this point */
#define barrier()	__asm__ __volatile__("" ::: "memory")

/** smp_mb - full barrier: no load or store moves across it */
#define smp_mb() do {							\
	race_fence(__func__, "smp_mb", RACE_FULL);			\
	__atomic_thread_fence(__ATOMIC_SEQ_CST);			\
} while (0)

/** smp_wmb - stores before it become visible before stores after it */
#define smp_wmb() do {							\
	race_fence(__func__, "smp_wmb", RACE_STORE | RACE_RELEASE);	\
	__atomic_thread_fence(__ATOMIC_RELEASE);			\
} while (0)

/** smp_rmb - loads before it are satisfied before loads after it */
#define smp_rmb() do {							\
	race_fence(__func__, "smp_rmb", RACE_LOAD | RACE_ACQUIRE);	\
	__atomic_thread_fence(__ATOMIC_ACQUIRE);			\
} while (0)

/**
 * smp_acquire__after_ctrl_dep - after a branch on a load: order that load
 * before every later load and store, as an acquire would
 *
 * A control dependency orders later stores only; this adds the loads (the
 * kernel's, for a cmpxchg_release that succeeded: rcuref_put()).
 */
#define smp_acquire__after_ctrl_dep() do {				\
	race_fence(__func__, "smp_acquire__after_ctrl_dep",		\
		   RACE_LOAD | RACE_ACQUIRE);				\
	__atomic_thread_fence(__ATOMIC_ACQUIRE);			\
} while (0)

/**
 * smp_store_release - store @v at *@p after every earlier access
 *
 * Guarantees: a reader whose smp_load_acquire() (or acquire-ordered
 * access) sees this store also sees every store this thread made before
 * it, and every store this thread had seen (release is cumulative).
 */
#define smp_store_release(p, v) do {					\
	__typeof__(*(p)) __v = (v);					\
	race_access(__func__, "smp_store_release", (p),		\
		    RACE_STORE | RACE_RELEASE);				\
	__atomic_store_n((p), __v, __ATOMIC_RELEASE);			\
	race_seen((long)__v);						\
} while (0)

/**
 * smp_load_acquire - load *@p before every later access
 *
 * Guarantees: if it reads a value a smp_store_release() stored, every
 * store made before that release is seen by the accesses after it.
 */
#define smp_load_acquire(p) ({						\
	__typeof__(*(p)) __val;						\
	race_access(__func__, "smp_load_acquire", (p),			\
		    RACE_LOAD | RACE_ACQUIRE);				\
	__val = __atomic_load_n((p), __ATOMIC_ACQUIRE);			\
	(__typeof__(*(p)))race_seen((long)__val);			\
})

#endif /* KIT_BARRIER_H */
