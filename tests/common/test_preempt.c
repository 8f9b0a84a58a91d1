// SPDX-License-Identifier: GPL-2.0
/*
 * test_preempt.c - preempt_disable() and preempt_enable(): they nest, and
 * no grace period ends between them (common/preempt.h).
 *
 * "Not freed yet" is deterministic here: while this thread is inside
 * preempt_disable(), a callback queued by call_rcu() cannot run, however
 * long the thread waits.
 */
#include <signal.h>

#include <criterion/criterion.h>

#include "atomic.h"
#include "preempt.h"
#include "rcupdate.h"

static atomic_t ran = ATOMIC_INIT(0);
static struct rcu_head head;

static void callback(struct rcu_head *h __maybe_unused)
{
	atomic_inc(&ran);
}

static void setup(void)
{
	rcu_register_thread();
}

static void teardown(void)
{
	rcu_unregister_thread();
}

TestSuite(preempt, .init = setup, .fini = teardown);

Test(preempt, nests)
{
	cr_assert(preemptible());
	preempt_disable();
	preempt_disable();
	cr_assert_eq(preempt_count(), 2);
	preempt_enable();
	cr_assert_not(preemptible());
	preempt_enable();
	cr_assert_eq(preempt_count(), 0);
}

Test(preempt, holds_the_grace_period_off)
{
	long i;

	preempt_disable();
	call_rcu(&head, callback);
	for (i = 0; i < 20000000; i++)		/* give it every chance */
		if (atomic_read(&ran))
			break;
	cr_assert_eq(atomic_read(&ran), 0, "a callback ran while this thread "
		     "had preemption disabled");
	preempt_enable();
	rcu_barrier();
	cr_assert_eq(atomic_read(&ran), 1, "the callback must run once "
		     "preemption is enabled again");
}

Test(preempt, enable_without_disable_is_a_bug, .signal = SIGABRT)
{
	preempt_enable();
}
