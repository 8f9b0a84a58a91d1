// SPDX-License-Identifier: GPL-2.0
/*
 * rcupdate_qsbr.c - the benchmark's qsbr build: rcupdate.h's functions on
 * liburcu's QSBR flavour instead of common/rcupdate.c's memb.
 *
 * QSBR's read side costs nothing: rcu_read_lock() and rcu_read_unlock()
 * are empty; instead every registered thread announces, between read-side
 * sections, that it holds no RCU-protected pointer
 * (bench_quiescent_state(), which the driver calls every few lookups),
 * and a grace period waits for every online thread to announce one.  It
 * is the limit of what the read side of the lock-free fget can cost, as
 * the kernel's own non-preemptible RCU is.
 *
 * Linked only into the qsbr build (mk/bench.mk), whose lab 5 code calls
 * these in place of common/rcupdate.c's; no race-reproducer hooks, no TSan
 * annotations: the benchmark is a plain build.
 */
#include <stddef.h>

/* liburcu's callback type is "struct rcu_head" too (see common/rcupdate.c). */
#define rcu_head urcu_rcu_head
#include <urcu/urcu-qsbr.h>
#undef rcu_head
#undef rcu_dereference
#undef rcu_assign_pointer

#include "bench_ops.h"
#include "rcupdate.h"

void rcu_register_thread(void)
{
	urcu_qsbr_register_thread();
}

void rcu_unregister_thread(void)
{
	urcu_qsbr_unregister_thread();
}

void bench_quiescent_state(void)
{
	urcu_qsbr_quiescent_state();
}

void __rcu_read_lock(const char *fn __maybe_unused)
{
	urcu_qsbr_read_lock();
}

void __rcu_read_unlock(const char *fn __maybe_unused)
{
	urcu_qsbr_read_unlock();
}

void __synchronize_rcu(const char *fn __maybe_unused)
{
	urcu_qsbr_synchronize_rcu();
}

static void rcu_callback_trampoline(struct urcu_rcu_head *uhead)
{
	struct rcu_head *head = (struct rcu_head *)uhead;

	head->func(head);
}

void __call_rcu(struct rcu_head *head, rcu_callback_t func,
		const char *fn __maybe_unused)
{
	head->func = func;
	urcu_qsbr_call_rcu((struct urcu_rcu_head *)head, rcu_callback_trampoline);
}

void __rcu_barrier(const char *fn __maybe_unused)
{
	urcu_qsbr_barrier();
}
