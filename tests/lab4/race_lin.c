// SPDX-License-Identifier: GPL-2.0
/*
 * race_lin.c - lab 4's operations and their sequential specification: the
 * generated scenarios "lincheck:hashlock" (common/race/lin.h).
 *
 * Lab 2's spec (lincheck:refcount, which runs here too) checks lab 2's
 * API on the SMP build with one count.  This one checks what lab 4 adds:
 * every build of refcount.c (configs.h: SMP, 8 bucket locks, one CPU),
 * two counts that share a bucket lock or do not, and T1's interrupt
 * calling the operations too, with lockdep's irq-safety rule and "0 is
 * final" watching every step.  Keys: count 1 and count 2.
 *   get_rcu(k)       refcount_get_rcu: 1 (a reference, kept) or 0 (a miss)
 *   get(k)           refcount_get on a count the thread holds: 1
 *   get_dec(k)       refcount_get then refcount_dec (known not the last):
 *                    on a count the thread holds; 1
 *   put(k)           refcount_put of one it holds: 1 if it was the last
 *   put_and_lock(k)  refcount_put_and_lock of one it holds: 1 if the last
 *                    (and then with the lock held), else 0 (and then not)
 *   release(k)       the owner's reference, put by whoever comes first
 *                    (claimed and put under a lock of the test's): 1 if
 *                    it was the last, 0, or nothing (already put)
 *   count(k)         refcount_read, and the final probe: the count
 * An interrupt of T1 may run any of them but put_and_lock (whose lock is
 * taken with interrupts on: it is no lock for a handler).
 */
#include <errno.h>

#include "configs.h"
#include "race/lin.h"

#define KEYS			2
#define ONE_WITHOUT_LOCK	2	/* put_and_lock: 1, lock not held */
#define ZERO_WITH_LOCK		3	/* put_and_lock: 0, lock held */

#define OFF_1		(256 + 16)	/* count 1, bucket 1 */
#define OFF_2_SAME	(256 + 128)	/* count 2 in the same bucket ... */
#define OFF_2_OTHER	(512 + 16)	/* ... or in bucket 2 */

enum { SAME = 0x10, DYING = 0x20 };	/* lin_init.mode, | a LAB4_ config */

static const struct lab4_config *cfg;
static refcount_t *counts[KEYS + 1];
static DEFINE_SPINLOCK(lock);		/* what put_and_lock takes */
static DEFINE_SPINLOCK(owner_lock);	/* guards owner[], from handlers too */
static bool owner[KEYS + 1];		/* the owner's reference is still there */

struct hash_model {
	int count[KEYS + 1];
	bool owner[KEYS + 1];
	signed char held[LIN_IRQ + 1][KEYS + 1];
};

static const struct lin_name got_names[] = {
	{ 1, "1 (a reference)" }, { 0, "0 (a miss)" }, { 0, NULL },
};

static const struct lin_name last_names[] = {
	{ 1, "1 (the last)" }, { 0, "0" },
	{ ONE_WITHOUT_LOCK, "1 without the lock held" },
	{ ZERO_WITH_LOCK, "0 with the lock still held" }, { 0, NULL },
};

/* --- the code under test -------------------------------------------------------- */

static long run_get_rcu(struct lin_ctx *ctx, int key)
{
	if (!cfg->get_rcu(counts[key]))
		return 0;
	lin_hold(ctx, counts[key], key);
	return 1;
}

static long run_get(struct lin_ctx *ctx, int key)
{
	refcount_t *rc = lin_unhold(ctx, key);

	if (!rc)
		return LIN_NOTHING;
	cfg->get(rc);
	lin_hold(ctx, rc, key);
	lin_hold(ctx, rc, key);
	return 1;
}

static long run_get_dec(struct lin_ctx *ctx, int key)
{
	refcount_t *rc = lin_unhold(ctx, key);

	if (!rc)
		return LIN_NOTHING;
	cfg->get(rc);
	cfg->dec(rc);			/* the thread still holds one: not the last */
	lin_hold(ctx, rc, key);
	return 1;
}

static long run_put(struct lin_ctx *ctx, int key)
{
	refcount_t *rc = lin_unhold(ctx, key);

	if (!rc)
		return LIN_NOTHING;
	return cfg->put(rc);
}

static long run_put_and_lock(struct lin_ctx *ctx, int key)
{
	refcount_t *rc = lin_unhold(ctx, key);

	if (!rc)
		return LIN_NOTHING;
	if (!cfg->put_and_lock(rc, &lock))
		return race_holds_lock(&lock) ? ZERO_WITH_LOCK : 0;
	if (!race_holds_lock(&lock))
		return ONE_WITHOUT_LOCK;
	spin_unlock(&lock);
	return 1;
}

/*
 * Put the owner's reference to @key if it is still there: 1 if that was
 * the last, 0, or LIN_NOTHING.  Under owner_lock, so that the claim and
 * the put are one step to other releases.
 */
static long put_owner(int key)
{
	unsigned long flags;
	long ret = LIN_NOTHING;

	spin_lock_irqsave(&owner_lock, flags);
	if (owner[key]) {
		owner[key] = false;
		ret = cfg->put(counts[key]);
	}
	spin_unlock_irqrestore(&owner_lock, flags);
	return ret;
}

static long run_release(struct lin_ctx *ctx __maybe_unused, int key)
{
	return put_owner(key);
}

static long run_count(struct lin_ctx *ctx __maybe_unused, int key)
{
	return cfg->read(counts[key]);
}

/* --- the specification ------------------------------------------------------------ */

static long spec_get_rcu(void *model, int thread, int key)
{
	struct hash_model *m = model;

	if (!m->count[key])
		return 0;		/* 0 is final */
	m->count[key]++;
	m->held[thread][key]++;
	return 1;
}

static long spec_get(void *model, int thread, int key)
{
	struct hash_model *m = model;

	if (!m->held[thread][key])
		return LIN_NOTHING;
	m->count[key]++;
	m->held[thread][key]++;
	return 1;
}

static long spec_get_dec(void *model, int thread, int key)
{
	struct hash_model *m = model;

	return m->held[thread][key] ? 1 : LIN_NOTHING;
}

static long spec_put(void *model, int thread, int key)
{
	struct hash_model *m = model;

	if (!m->held[thread][key])
		return LIN_NOTHING;
	m->held[thread][key]--;
	return --m->count[key] == 0;
}

static long spec_release(void *model, int thread __maybe_unused, int key)
{
	struct hash_model *m = model;

	if (!m->owner[key])
		return LIN_NOTHING;
	m->owner[key] = false;
	return --m->count[key] == 0;
}

static long spec_count(void *model, int thread __maybe_unused, int key)
{
	struct hash_model *m = model;

	return m->count[key];
}

static const struct lin_op ops[] = {
	{ "get_rcu", LIN_KEYED | LIN_TAKES, run_get_rcu, spec_get_rcu, got_names },
	{ "get", LIN_KEYED | LIN_NEEDS | LIN_TAKES, run_get, spec_get, NULL },
	{ "get_dec", LIN_KEYED | LIN_NEEDS, run_get_dec, spec_get_dec, NULL },
	{ "put", LIN_KEYED | LIN_DROPS, run_put, spec_put, last_names },
	{ "put_and_lock", LIN_KEYED | LIN_DROPS, run_put_and_lock, spec_put,
	  last_names },
	{ "release", LIN_KEYED, run_release, spec_release, last_names },
	{ "count", LIN_KEYED | LIN_POST, run_count, spec_count, NULL },
};

#define OP(name)	(1u << (name))
enum { GET_RCU, GET, GET_DEC, PUT, PUT_AND_LOCK, RELEASE, COUNT };

static const struct lin_init inits[] = {
	{ "smp", "the SMP build; counts 1 and 2 in one bucket, at 1 each (the "
	  "owners' references)", .mode = LAB4_SMP | SAME },
	{ "smp2", "the SMP build; counts 1 and 2 in buckets of their own, at 1 "
	  "each", .mode = LAB4_SMP },
	{ "n8", "the build with 8 bucket locks; counts 1 and 2 in one bucket",
	  .mode = LAB4_N8 | SAME },
	{ "up", "the UP build on one CPU; counts 1 and 2 at 1 each",
	  .mode = LAB4_UP | SAME, .up = true },
	{ "dying", "the SMP build; count 1 already at 0 (its object on its way "
	  "to be freed), count 2 at 1, in one bucket",
	  .mode = LAB4_SMP | SAME | DYING,
	  .ops = OP(GET_RCU) | OP(RELEASE) | OP(PUT) | OP(PUT_AND_LOCK) |
		 OP(GET) | OP(COUNT) },
};

static void setup(const struct lin_init *init, struct lin_ctx *ctx[] __maybe_unused)
{
	int key;

	cfg = &lab4_configs[init->mode & 0xf];
	counts[1] = lab4_count(OFF_1);
	counts[2] = lab4_count(init->mode & SAME ? OFF_2_SAME : OFF_2_OTHER);
	spin_lock_init(&lock);
	spin_lock_init(&owner_lock);
	for (key = 1; key <= KEYS; key++) {
		cfg->init(counts[key]);
		owner[key] = true;
	}
	if (init->mode & DYING) {
		owner[1] = false;
		cfg->put(counts[1]);
	}
	for (key = 1; key <= KEYS; key++)
		refcount_watch(&counts[key]->count);	/* 0 is final */
}

/* Drop every reference left, the owners' too. */
static void teardown(struct lin_ctx *ctx[], int nr)
{
	refcount_t *rc;
	int i, key;

	for (i = 0; i < nr; i++)
		for (key = 1; key <= KEYS; key++)
			while ((rc = lin_unhold(ctx[i], key)))
				cfg->put(rc);
	for (key = 1; key <= KEYS; key++)
		put_owner(key);
}

static void model_init(void *model, const struct lin_init *init)
{
	struct hash_model *m = model;
	int key;

	for (key = 1; key <= KEYS; key++) {
		m->count[key] = 1;
		m->owner[key] = true;
	}
	if (init->mode & DYING) {
		m->count[1] = 0;
		m->owner[1] = false;
	}
}

/*
 * Shapes drawing would rarely reach: put_and_lock's slow path while an
 * interrupt takes the same bucket; the last put between two gets; a dead
 * count meeting three gets.
 */
static const char *const shapes[] = {
	"smp:get_rcu(1)+release(1)+put_and_lock(1)!get_rcu(2)",
	"n8:get_rcu(1)+release(1)+put_and_lock(1)!release(2)",
	"smp:get_rcu(1)+put(1)|release(1)|get_rcu(1)",
	"dying:get_rcu(1)|get_rcu(1)|get_rcu(1)",
	"up:get_rcu(1)+release(1)+put(1)|get_rcu(1)!get_rcu(1)",
	NULL,
};

LIN_SPEC(hashlock_spec) = {
	.name		= "hashlock",
	.summary	= "get_rcu, get, get_dec, put, put_and_lock, release on two "
			  "counts of one bucket or two, in the SMP, 8-lock and UP "
			  "builds, from threads and from T1's interrupt",
	.ops		= ops,
	.nr_ops		= ARRAY_SIZE(ops),
	.inits		= inits,
	.nr_inits	= ARRAY_SIZE(inits),
	.keys		= KEYS,
	.setup		= setup,
	.teardown	= teardown,
	.model_size	= sizeof(struct hash_model),
	.model_init	= model_init,
	.irq_ops	= OP(GET_RCU) | OP(GET) | OP(GET_DEC) | OP(PUT) | OP(RELEASE),
	.shapes		= shapes,
	.random		= 32,
};
