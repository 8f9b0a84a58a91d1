/* SPDX-License-Identifier: GPL-2.0 */
/*
 * weak.h - the weak memory model (weak.c), as the hooks and the other
 * models call it.
 *
 * Every function is called by the thread that performs the operation,
 * once its scheduling point has been granted, and only when race_weak is
 * set: under the default model, sequential consistency, none is called.
 */
#ifndef KIT_RACE_WEAK_H
#define KIT_RACE_WEAK_H

#include "race/runtime/sched.h"

/* Whether the search in progress runs the weak model (set before it). */
extern bool race_weak;

void race_weak_forget(const void *start, size_t size);

/* The memory hooks: race_access(), race_seen(), race_fence(). */
void race_weak_access(struct race_thread *t, const volatile void *addr,
		      unsigned int how);
long race_weak_seen(struct race_thread *t, long value);
void race_weak_fence(struct race_thread *t, unsigned int how);

/* The other models: what a lock and RCU order. */
void race_weak_lock_acquired(struct race_thread *t, const volatile void *word);
void race_weak_rcu_read_lock(struct race_thread *t);
void race_weak_rcu_read_unlock(struct race_thread *t);
void race_weak_gp_start(struct race_thread *t);
void race_weak_gp_end(struct race_thread *t);
void race_weak_call_rcu(struct race_thread *t, long seq);
void race_weak_invoke(struct race_thread *t, long seq);
void race_weak_invoked(struct race_thread *t);
void race_weak_barrier_done(struct race_thread *t);

#endif /* KIT_RACE_WEAK_H */
