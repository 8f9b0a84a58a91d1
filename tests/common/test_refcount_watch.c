// SPDX-License-Identifier: GPL-2.0
/*
 * test_refcount_watch.c - "0 is final" in the plain backend
 * (common/refcount_watch.h): an update that takes a watched count from 0
 * to more is a BUG, whichever primitive makes it; a count nobody watches,
 * or whose watch has ended, is left alone.
 */
#include <signal.h>

#include <criterion/criterion.h>

#include "atomic.h"
#include "slab.h"

Test(watch, counts_above_zero_move_freely)
{
	atomic_t v = ATOMIC_INIT(1);

	refcount_watch(&v);
	atomic_inc(&v);
	cr_assert_eq(atomic_inc_return(&v), 3);
	cr_assert(!atomic_dec_and_test(&v));
	cr_assert(!atomic_dec_and_test(&v));
	cr_assert(atomic_dec_and_test(&v));	/* 0: final from now on */
	cr_assert_eq(atomic_inc_not_zero(&v), 0);
	cr_assert_eq(atomic_cmpxchg(&v, 1, 2), 0);	/* fails: no update */
	cr_assert_eq(atomic_read(&v), 0);
	refcount_unwatch(&v);
}

Test(watch, inc_from_zero_is_a_bug, .signal = SIGABRT)
{
	atomic_t v = ATOMIC_INIT(1);

	refcount_watch(&v);
	atomic_dec(&v);
	atomic_inc(&v);			/* even if it is undone at once */
}

Test(watch, set_from_zero_is_a_bug, .signal = SIGABRT)
{
	atomic_t v = ATOMIC_INIT(1);

	refcount_watch(&v);
	atomic_set(&v, atomic_read(&v) - 1);	/* lab 4's shape: read, set */
	atomic_set(&v, atomic_read(&v) + 1);
}

Test(watch, cmpxchg_from_zero_is_a_bug, .signal = SIGABRT)
{
	atomic_t v = ATOMIC_INIT(0);

	refcount_watch(&v);		/* born dead: a count that reached 0 */
	atomic_cmpxchg(&v, 0, 1);
}

Test(watch, unwatched_counts_are_left_alone)
{
	atomic_t v = ATOMIC_INIT(0);

	atomic_inc(&v);
	refcount_watch(&v);
	refcount_unwatch(&v);
	atomic_dec(&v);
	atomic_inc(&v);
	cr_assert_eq(atomic_read(&v), 1);
}

struct counted {
	atomic_t count;
	int payload;
};

Test(watch, freeing_the_object_ends_the_watch)
{
	struct kmem_cache *c = kmem_cache_create("counted",
						 sizeof(struct counted), 0,
						 SLAB_TYPESAFE_BY_RCU, NULL);
	struct counted *a = kmem_cache_alloc(c, GFP_KERNEL), *b;

	atomic_set(&a->count, 1);
	refcount_watch(&a->count);
	cr_assert(atomic_dec_and_test(&a->count));
	kmem_cache_free(c, a);
	b = kmem_cache_alloc(c, GFP_KERNEL);	/* type-stable: the same memory */
	cr_assert_eq(a, b);
	atomic_set(&b->count, 1);	/* a new object: a new count */
	refcount_watch(&b->count);
	kmem_cache_free(c, b);
	kmem_cache_destroy(c);
}
