// SPDX-License-Identifier: GPL-2.0
/*
 * test_spinlock.c - mutual exclusion, trylock, and "interrupts off".
 */
#include <pthread.h>
#include <signal.h>
#include <criterion/criterion.h>

#include "irqflags.h"
#include "spinlock.h"

#define NR_THREADS	4
#define NR_ROUNDS	20000

static DEFINE_SPINLOCK(lock);
static long counter;		/* plain on purpose: only the lock protects it */

/* NR_ROUNDS increments of a plain counter, each under the lock. */
static void *locker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < NR_ROUNDS; i++) {
		spin_lock(&lock);
		counter++;
		spin_unlock(&lock);
	}
	return NULL;
}

Test(spinlock, mutual_exclusion)
{
	pthread_t t[NR_THREADS];
	int i;

	for (i = 0; i < NR_THREADS; i++)
		pthread_create(&t[i], NULL, locker, NULL);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(counter, (long)NR_THREADS * NR_ROUNDS);
	cr_assert_eq(lock.nr_acquired, (unsigned long)NR_THREADS * NR_ROUNDS);
	cr_assert_not(spin_is_locked(&lock));
}

Test(spinlock, trylock)
{
	spinlock_t l;

	spin_lock_init(&l);
	cr_assert(spin_trylock(&l));
	cr_assert(spin_is_locked(&l));
	cr_assert_not(spin_trylock(&l), "trylock of a held lock must fail");
	spin_unlock(&l);
	cr_assert_not(spin_is_locked(&l));
}

Test(spinlock, unlock_of_free_lock_is_a_bug, .signal = SIGABRT)
{
	spinlock_t l;

	spin_lock_init(&l);
	spin_unlock(&l);
}

static volatile sig_atomic_t handled;

/* The "interrupt handler": records that it ran. */
static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

Test(spinlock, irqsave_holds_interrupts_back_until_restore)
{
	spinlock_t l;
	unsigned long flags;

	spin_lock_init(&l);
	handled = 0;
	cr_assert_eq(request_irq(SIGUSR1, on_usr1), 0);
	spin_lock_irqsave(&l, flags);
	cr_assert(irqs_disabled());
	raise(SIGUSR1);
	cr_assert_eq(handled, 0, "an interrupt ran while \"interrupts\" were off");
	spin_unlock_irqrestore(&l, flags);
	cr_assert_eq(handled, 1, "the held-back interrupt must run at restore");
	cr_assert_not(irqs_disabled());
}

Test(spinlock, held_back_interrupt_waits_for_the_outermost_restore)
{
	unsigned long f1, f2;

	handled = 0;
	cr_assert_eq(request_irq(SIGUSR1, on_usr1), 0);
	local_irq_save(f1);
	local_irq_save(f2);
	raise(SIGUSR1);
	raise(SIGUSR1);
	local_irq_restore(f2);
	cr_assert_eq(handled, 0, "an interrupt ran with interrupts still off (nested save)");
	local_irq_restore(f1);
	cr_assert_eq(handled, 1, "two landings while off: the handler runs once, at the "
		     "outermost restore");
	raise(SIGUSR1);
	cr_assert_eq(handled, 2, "with interrupts on an interrupt runs at once");
}

Test(spinlock, request_irq_refuses_what_is_no_signal)
{
	cr_assert_eq(request_irq(0, on_usr1), -1);
	cr_assert_eq(request_irq(NSIG, on_usr1), -1);
	cr_assert_eq(request_irq(SIGUSR1, NULL), -1);
}

Test(spinlock, irq_save_nests)
{
	unsigned long f1, f2;

	local_irq_save(f1);
	local_irq_save(f2);
	cr_assert(irqs_disabled());
	local_irq_restore(f2);
	cr_assert(irqs_disabled());
	local_irq_restore(f1);
	cr_assert_not(irqs_disabled());
}
