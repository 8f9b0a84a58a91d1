/* SPDX-License-Identifier: GPL-2.0 */
/*
 * preempt.h - preempt_disable() and preempt_enable(), for what they mean to
 * RCU: no grace period ends while a thread is between them.
 *
 * In the kernel a CPU running with preemption disabled cannot pass through
 * a quiescent state, so no grace period can end until it enables
 * preemption again; since the RCU flavours were consolidated (Linux 4.20)
 * a preempt-disabled region is a read-side critical section for every
 * one of them.  rcuref_put() (lab 6) relies on exactly that, and on
 * nothing else preemption does.  User space cannot keep the scheduler
 * away from a thread; the kit keeps that one property:
 *
 *   real backend     the outermost preempt_disable() enters a read-side
 *                    section of liburcu, the matching preempt_enable()
 *                    leaves it (the thread must be registered with
 *                    rcu_register_thread(), as for rcu_read_lock());
 *   harness backend  a scheduling point "<caller>.preempt_disable" (and
 *                    "<caller>.preempt_enable"), then the same section in
 *                    the reproducer's RCU model: timelines show the
 *                    section's own step, "<caller>.rcu_read_lock", next
 *                    to it.
 *
 * Both count the nesting per thread: preempt_count(), preemptible().
 */
#ifndef KIT_PREEMPT_H
#define KIT_PREEMPT_H

#include "compiler.h"

void __preempt_disable(const char *fn);
void __preempt_enable(const char *fn);

/**
 * preempt_disable - from here to the matching preempt_enable(), no grace
 * period ends
 *
 * Guarantees: an object that is freed through call_rcu(), or after
 * synchronize_rcu(), is not freed before the matching preempt_enable();
 * calls nest.
 */
#define preempt_disable()	__preempt_disable(__func__)

/**
 * preempt_enable - undo the innermost preempt_disable()
 *
 * Guarantees: the outermost one lets grace periods end again; one without
 * a preempt_disable() is a BUG ("preempt_enable without preempt_disable").
 */
#define preempt_enable()	__preempt_enable(__func__)

/**
 * preempt_count - how deep the calling thread is in preempt_disable()
 */
int preempt_count(void);

/** preemptible - the calling thread has not disabled preemption */
#define preemptible()		(preempt_count() == 0)

#endif /* KIT_PREEMPT_H */
