// SPDX-License-Identifier: GPL-2.0
/*
 * test_slab.c - registration, poisoning, use-after-free and double-free
 * detection, the reuse modes.
 */
#include <signal.h>
#include <string.h>
#include <criterion/criterion.h>

#include "atomic.h"
#include "poison.h"
#include "slab.h"

struct thing {
	atomic_t count;
	int payload;
};

static struct kmem_cache *cachep;

/* Each test gets a fresh cache of struct thing and an empty slab record. */
static void setup(void)
{
	slab_reset();
	cachep = kmem_cache_create("thing", sizeof(struct thing), 0, 0, NULL);
	cr_assert_not_null(cachep);
}

TestSuite(slab, .init = setup);

Test(slab, counts_live_and_freed)
{
	struct thing *a = kmem_cache_alloc(cachep, GFP_KERNEL);
	struct thing *b = kmem_cache_zalloc(cachep, GFP_KERNEL);

	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_eq(b->payload, 0, "zalloc must zero");
	cr_assert_eq(slab_objects_live(), 2);
	kmem_cache_free(cachep, a);
	cr_assert_eq(slab_objects_live(), 1);
	cr_assert_eq(slab_frees(), 1);
	kmem_cache_free(cachep, b);
	cr_assert_eq(slab_objects_live(), 0);
	kmem_cache_destroy(cachep);
}

Test(slab, new_objects_are_poisoned_inuse)
{
	unsigned char *p = kmem_cache_alloc(cachep, GFP_KERNEL);
	size_t i;

	for (i = 0; i < sizeof(struct thing); i++)
		cr_assert_eq(p[i], POISON_INUSE);
	kmem_cache_free(cachep, p);
}

Test(slab, lookup_names_the_freer)
{
	struct thing *a = kmem_cache_alloc(cachep, GFP_KERNEL);
	struct slab_info info;
	char buf[256];

	cr_assert(slab_lookup(&a->payload, &info));
	cr_assert_eq(info.id, 1);
	cr_assert_eq(info.offset, offsetof(struct thing, payload));
	cr_assert_not(info.freed);
	kmem_cache_free(cachep, a);
	cr_assert(slab_lookup(a, &info));
	cr_assert(info.freed);
	cr_assert_str_eq(info.free_fn, "slab_lookup_names_the_freer_impl");
	slab_describe(a, buf, sizeof(buf));
	cr_assert(strstr(buf, "obj#1 (thing") != NULL, "%s", buf);
	cr_assert(strstr(buf, "freed by") != NULL, "%s", buf);
}

#ifndef CONFIG_KIT_ASAN
/* Under ASan the memory itself is gone: ASan, not the poison, reports. */
Test(slab, freed_objects_are_poisoned)
{
	unsigned char *p = kmem_cache_alloc(cachep, GFP_KERNEL);
	size_t i;

	kmem_cache_free(cachep, p);
	for (i = 0; i < sizeof(struct thing); i++)
		cr_assert_eq(p[i], POISON_FREE);
}
#endif

#ifdef CONFIG_KIT_ASAN
#define UAF_VERDICT	.exit_code = 1	/* ASan reports, then exits 1 */
#else
#define UAF_VERDICT	.signal = SIGABRT	/* the poison check's BUG */
#endif

Test(slab, atomic_on_freed_object_is_a_bug, UAF_VERDICT)
{
	struct thing *a = kmem_cache_alloc(cachep, GFP_KERNEL);

	atomic_set(&a->count, 1);
	kmem_cache_free(cachep, a);
	atomic_inc(&a->count);		/* sees the poison, or ASan does */
}

Test(slab, double_free_is_a_bug, .signal = SIGABRT)
{
	struct thing *a = kmem_cache_alloc(cachep, GFP_KERNEL);

	kmem_cache_free(cachep, a);
	kmem_cache_free(cachep, a);
}

Test(slab, kfree_of_foreign_memory_is_a_bug, .signal = SIGABRT)
{
	static long not_ours[8];

	kfree(&not_ours[4]);
}

Test(slab, immediate_reuse_hands_back_the_last_freed)
{
	struct thing *a, *b;

	kmem_cache_set_reuse(cachep, SLAB_REUSE_IMMEDIATE);
	a = kmem_cache_alloc(cachep, GFP_KERNEL);
	kmem_cache_free(cachep, a);
	b = kmem_cache_alloc(cachep, GFP_KERNEL);
	cr_assert_eq(a, b, "SLAB_REUSE_IMMEDIATE must reuse the freed object");
	kmem_cache_free(cachep, b);
	kmem_cache_destroy(cachep);
}

Test(slab, quarantine_does_not_reuse)
{
	struct thing *a, *b;

	a = kmem_cache_alloc(cachep, GFP_KERNEL);
	kmem_cache_free(cachep, a);
	b = kmem_cache_alloc(cachep, GFP_KERNEL);
	cr_assert_neq(a, b, "a quarantined object was handed out again");
	kmem_cache_free(cachep, b);
}

static int ctor_calls;

/* Constructor of the type-stable cache: counts its calls. */
static void thing_ctor(void *p)
{
	struct thing *t = p;

	ctor_calls++;
	atomic_set(&t->count, 0);
}

Test(slab, typesafe_by_rcu_keeps_type_and_contents)
{
	struct kmem_cache *s = kmem_cache_create("typesafe", sizeof(struct thing),
						 0, SLAB_TYPESAFE_BY_RCU, thing_ctor);
	struct thing *a, *b;

	a = kmem_cache_alloc(s, GFP_KERNEL);
	cr_assert_eq(ctor_calls, 1);
	atomic_set(&a->count, 77);
	kmem_cache_free(s, a);
	cr_assert_eq(atomic_read(&a->count), 77,
		     "type-stable memory is not poisoned on free");
	b = kmem_cache_alloc(s, GFP_KERNEL);
	cr_assert_eq(a, b);
	cr_assert_eq(ctor_calls, 1, "the ctor runs once per object, not per alloc");
	cr_assert_eq(atomic_read(&b->count), 77, "reuse keeps what was left");
	kmem_cache_free(s, b);
	kmem_cache_destroy(s);
}

Test(slab, kmalloc_and_kfree)
{
	char *p = kmalloc(100, GFP_KERNEL);
	char *z = kzalloc(50, GFP_KERNEL);

	cr_assert_not_null(p);
	cr_assert_eq(z[49], 0);
	cr_assert_eq(slab_objects_live(), 2);
	kfree(p);
	kfree(z);
	kfree(NULL);
	cr_assert_eq(slab_objects_live(), 0);
}
