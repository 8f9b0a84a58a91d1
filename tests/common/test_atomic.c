// SPDX-License-Identifier: GPL-2.0
/*
 * test_atomic.c - atomic_t, cmpxchg, xchg, READ_ONCE/WRITE_ONCE.
 */
#include <pthread.h>
#include <criterion/criterion.h>

#include "atomic.h"
#include "rwonce.h"

Test(atomic, read_set_inc_dec)
{
	atomic_t v = ATOMIC_INIT(5);

	cr_assert_eq(atomic_read(&v), 5);
	atomic_set(&v, 7);
	atomic_inc(&v);
	atomic_dec(&v);
	atomic_dec(&v);
	cr_assert_eq(atomic_read(&v), 6);
	atomic_add(10, &v);
	atomic_sub(3, &v);
	cr_assert_eq(atomic_read(&v), 13);
}

Test(atomic, returning_operations)
{
	atomic_t v = ATOMIC_INIT(1);

	cr_assert_eq(atomic_inc_return(&v), 2);
	cr_assert_eq(atomic_dec_return(&v), 1);
	cr_assert_eq(atomic_add_return(4, &v), 5);
	atomic_set(&v, 2);
	cr_assert_not(atomic_dec_and_test(&v), "2 -> 1 is not zero");
	cr_assert(atomic_dec_and_test(&v), "1 -> 0 must test true");
	cr_assert_eq(atomic_read(&v), 0);
}

Test(atomic, cmpxchg_returns_the_old_value)
{
	atomic_t v = ATOMIC_INIT(3);
	int x = 10;
	long p = 1;

	cr_assert_eq(atomic_cmpxchg(&v, 3, 4), 3, "match: returns old");
	cr_assert_eq(atomic_read(&v), 4);
	cr_assert_eq(atomic_cmpxchg(&v, 3, 9), 4, "mismatch: returns current");
	cr_assert_eq(atomic_read(&v), 4, "mismatch must not store");
	cr_assert_eq(cmpxchg(&x, 10, 11), 10);
	cr_assert_eq(x, 11);
	cr_assert_eq(cmpxchg(&x, 10, 12), 11);
	cr_assert_eq(x, 11);
	cr_assert_eq(xchg(&p, 2L), 1);
	cr_assert_eq(p, 2);
}

Test(atomic, add_negative_and_release_forms)
{
	atomic_t v = ATOMIC_INIT(0x7fffffff);

	cr_assert(atomic_add_negative_relaxed(1, &v), "INT_MAX + 1 wraps negative");
	cr_assert_eq((unsigned int)atomic_read(&v), 0x80000000u);
	cr_assert_not(atomic_add_negative_release(-1, &v), "back to INT_MAX");
	cr_assert_not(atomic_add_negative(-0x7fffffff, &v), "0 is not negative");
	cr_assert(atomic_add_negative(-1, &v));
	cr_assert_eq(atomic_sub_return_release(1, &v), -2);
	cr_assert_eq(atomic_sub_return_relaxed(-3, &v), 1);
	atomic_set(&v, 0x7fffffff);
	cr_assert_eq(atomic_inc_return(&v), (int)0x80000000u, "wraps, as the kernel's");
	cr_assert_eq(atomic_cmpxchg_release(&v, -1, 5), (int)0x80000000u,
		     "mismatch: returns current");
	cr_assert_eq(atomic_cmpxchg_release(&v, (int)0x80000000u, 5), (int)0x80000000u);
	cr_assert_eq(atomic_read(&v), 5, "match: stored");
}

Test(atomic, once_accessors)
{
	int a = 0;
	void *ptr = NULL;

	WRITE_ONCE(a, 42);
	cr_assert_eq(READ_ONCE(a), 42);
	WRITE_ONCE(ptr, &a);
	cr_assert_eq(READ_ONCE(ptr), &a);
}

#define NR_THREADS	4
#define NR_INCS		100000

static atomic_t shared = ATOMIC_INIT(0);

/* NR_INCS relaxed increments of the shared counter. */
static void *incrementer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < NR_INCS; i++)
		atomic_inc(&shared);
	return NULL;
}

Test(atomic, no_lost_updates)
{
	pthread_t t[NR_THREADS];
	int i;

	for (i = 0; i < NR_THREADS; i++)
		pthread_create(&t[i], NULL, incrementer, NULL);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(atomic_read(&shared), NR_THREADS * NR_INCS);
}
