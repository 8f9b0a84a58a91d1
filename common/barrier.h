/* SPDX-License-Identifier: GPL-2.0 */
/*
 * barrier.h - compiler and CPU memory barriers under the kernel's names.
 *
 * Not scheduling points: the reproducer runs one thread at a time, so an
 * execution under it is sequentially consistent and a fence changes nothing
 * there.  Their effect is on the real backend.
 */
#ifndef KIT_BARRIER_H
#define KIT_BARRIER_H

/** barrier - the compiler may not move memory accesses across this point */
#define barrier()	__asm__ __volatile__("" ::: "memory")

/** smp_mb - full barrier: no load or store moves across it */
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)

/** smp_wmb - stores before it become visible before stores after it */
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

/** smp_rmb - loads before it are satisfied before loads after it */
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)

#endif /* KIT_BARRIER_H */
