// SPDX-License-Identifier: GPL-2.0
/*
 * rcupdate.c - the kit's RCU on liburcu.
 *
 * Every operation first offers itself to the race reproducer's model
 * (race_hooks.h); in a harness build the model performs it and liburcu is
 * left alone, in every other build the hook is a no-op and liburcu works.
 */
#include <stddef.h>

/*
 * liburcu names its own callback type "struct rcu_head" too.  Seen from this
 * file only, it is renamed: the kit's rcu_head starts with room for it.
 */
#define rcu_head urcu_rcu_head
#include <urcu/urcu-memb.h>
#undef rcu_head
#undef rcu_dereference		/* the kit defines its own */
#undef rcu_assign_pointer

#include "rcupdate.h"
#include "sanitizer.h"

_Static_assert(sizeof(struct urcu_rcu_head) <= offsetof(struct rcu_head, func),
	       "struct rcu_head must hold liburcu's callback node");

/*
 * Happens-before edges that liburcu creates but TSan cannot see: a release
 * on an address in one thread, an acquire on it in another (tsan_release()
 * and tsan_acquire() of sanitizer.h, nothing without TSan).
 *
 * liburcu is not built with TSan: what it does with malloc/free inside its
 * own threads (rcu_barrier's bookkeeping) is invisible and reported falsely.
 * The suppression below silences only calls made by liburcu itself, not
 * the kit's callbacks; only TSan's runtime asks for it.
 */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
	return "called_from_lib:liburcu-memb.so\n";
}

/* Readers release it as they leave; the end of a grace period acquires it. */
static char grace_period_token __maybe_unused;
/* Callbacks release it when they return; rcu_barrier() acquires it. */
static char callbacks_done __maybe_unused;

void rcu_register_thread(void)
{
	urcu_memb_register_thread();
}

void rcu_unregister_thread(void)
{
	urcu_memb_unregister_thread();
}

void __rcu_read_lock(const char *fn)
{
	if (race_rcu_read_lock(fn))
		return;
	urcu_memb_read_lock();
}

void __rcu_read_unlock(const char *fn)
{
	if (race_rcu_read_unlock(fn))
		return;
	tsan_release(&grace_period_token);
	urcu_memb_read_unlock();
}

void __synchronize_rcu(const char *fn)
{
	if (race_synchronize_rcu(fn))
		return;
	urcu_memb_synchronize_rcu();
	tsan_acquire(&grace_period_token);
}

/* liburcu calls this after the grace period; it calls the kit's callback. */
static void rcu_callback_trampoline(struct urcu_rcu_head *uhead)
{
	struct rcu_head *head = (struct rcu_head *)uhead;

	tsan_acquire(head);		/* call_rcu() happened before this */
	tsan_acquire(&grace_period_token);	/* so did every finished reader */
	head->func(head);
	tsan_release(&callbacks_done);	/* rcu_barrier() waits for this */
}

void __call_rcu(struct rcu_head *head, rcu_callback_t func, const char *fn)
{
	head->func = func;
	if (race_call_rcu(fn, head, func))
		return;
	/* liburcu's queue is invisible to TSan: hand the object over here. */
	tsan_release(head);
	urcu_memb_call_rcu((struct urcu_rcu_head *)head, rcu_callback_trampoline);
}

void __rcu_barrier(const char *fn)
{
	if (race_rcu_barrier(fn))
		return;
	urcu_memb_barrier();
	tsan_acquire(&grace_period_token);
	tsan_acquire(&callbacks_done);	/* every callback has returned */
}

