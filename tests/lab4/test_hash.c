// SPDX-License-Identifier: GPL-2.0
/*
 * test_hash.c - lab 4, one thread: which bucket lock each call takes, in
 * each build of refcount.c (configs.h), as refcount_hash.h promises.
 *
 * Every spinlock_t counts its acquisitions (nr_acquired): a call took lock
 * i of the array iff that count moved while it ran.
 */
#include <criterion/criterion.h>

#include "bug.h"
#include "configs.h"

static const struct lab4_config *smp = &lab4_configs[LAB4_SMP];
static const struct lab4_config *n8 = &lab4_configs[LAB4_N8];
static const struct lab4_config *up = &lab4_configs[LAB4_UP];

enum op { INIT, READ, GET, GET_RCU, PUT, DEC, PUT_AND_LOCK_FAST,
	  PUT_AND_LOCK_LAST, NR_OPS };
static const char *const op_names[NR_OPS] = {
	"refcount_init", "refcount_read", "refcount_get", "refcount_get_rcu",
	"refcount_put", "refcount_dec", "refcount_put_and_lock (count 2)",
	"refcount_put_and_lock (count 1)",
};

/* Run @op of @c on @rc (its count set first so that the op makes sense). */
static void run_op(const struct lab4_config *c, enum op op, refcount_t *rc)
{
	DEFINE_SPINLOCK(lock);

	atomic_set(&rc->count, op == PUT_AND_LOCK_LAST ? 1 : 2);
	switch (op) {
	case INIT:	c->init(rc); break;
	case READ:	c->read(rc); break;
	case GET:	c->get(rc); break;
	case GET_RCU:	c->get_rcu(rc); break;
	case PUT:	c->put(rc); break;
	case DEC:	c->dec(rc); break;
	case PUT_AND_LOCK_FAST:
	case PUT_AND_LOCK_LAST:
		if (c->put_and_lock(rc, &lock))
			spin_unlock(&lock);
		break;
	default:	break;
	}
}

/* The locks of @c's array that @op took on @rc, as a bit mask. */
static unsigned int locks_taken(const struct lab4_config *c, enum op op,
				refcount_t *rc)
{
	unsigned long before[8];
	unsigned int taken = 0;
	int i;

	for (i = 0; i < c->nr_locks; i++)
		before[i] = c->locks[i].nr_acquired;
	run_op(c, op, rc);
	for (i = 0; i < c->nr_locks; i++) {
		if (c->locks[i].nr_acquired != before[i])
			taken |= 1u << i;
		cr_assert_not(spin_is_locked(&c->locks[i]),
			      "%s (%s build) returned holding bucket lock %d",
			      op_names[op], c->name, i);
	}
	return taken;
}

/* Every read-modify-write of the count at @offset takes its bucket only. */
static void each_update_takes_its_bucket(const struct lab4_config *c,
					 unsigned long offset)
{
	refcount_t *rc = lab4_count(offset);
	unsigned int want = 1u << lab4_bucket(c, rc);
	enum op op;

	for (op = GET; op < NR_OPS; op++) {
		unsigned int got = locks_taken(c, op, rc);

		cr_assert_eq(got, want, "%s (%s build) on a count at +%lu took "
			     "bucket locks 0x%x, expected only lock %d "
			     "((address >> 8) & %d)", op_names[op], c->name,
			     offset, got, lab4_bucket(c, rc), c->nr_locks - 1);
	}
}

Test(bucket, every_update_takes_its_bucket_lock_only)
{
	unsigned long offset;

	warn_set_quiet(1);
	for (offset = 0; offset < LAB4_BLOCK; offset += 64 + 4)
		each_update_takes_its_bucket(smp, offset);
}

Test(bucket, read_takes_no_lock)
{
	refcount_t *rc = lab4_count(256);

	cr_assert_eq(locks_taken(smp, READ, rc), 0,
		     "refcount_read took a bucket lock");
	cr_assert_eq(locks_taken(n8, READ, rc), 0,
		     "refcount_read took a bucket lock (8-bucket configuration)");
}

Test(bucket, init_takes_no_other_bucket)
{
	refcount_t *rc = lab4_count(512 + 8);
	unsigned int got = locks_taken(smp, INIT, rc);

	cr_assert_eq(got & ~(1u << lab4_bucket(smp, rc)), 0,
		     "refcount_init took bucket locks 0x%x", got);
	cr_assert_eq(smp->read(rc), 1, "refcount_init must start the count at 1");
}

Test(bucket, one_block_shares_a_lock)
{
	refcount_t *a = lab4_count(256), *b = lab4_count(256 + 252);

	cr_assert_eq(locks_taken(smp, GET, a), locks_taken(smp, GET, b),
		     "counts 252 bytes apart in one 256-byte block took "
		     "different locks");
}

Test(bucket, blocks_256_apart_do_not)
{
	int k;

	for (k = 0; k + 1 < 4; k++)
		cr_assert_neq(locks_taken(smp, GET, lab4_count(256 * k)),
			      locks_taken(smp, GET, lab4_count(256 * (k + 1))),
			      "counts at +%d and +%d share a lock", 256 * k,
			      256 * (k + 1));
}

Test(bucket, n_is_respected)
{
	int k;

	for (k = 0; k < 8; k++) {
		refcount_t *rc = lab4_count(256 * k + 16);

		cr_assert_eq(locks_taken(smp, GET, rc), 1u << (k % 4),
			     "with 4 locks the count at +%d must take lock %d",
			     256 * k + 16, k % 4);
		cr_assert_eq(locks_taken(n8, GET, rc), 1u << k,
			     "with REFCOUNT_HASH_SIZE 8 the count at +%d must "
			     "take lock %d", 256 * k + 16, k);
	}
}

Test(bucket, n8_build_takes_its_bucket_lock_only)
{
	unsigned long offset;

	warn_set_quiet(1);
	for (offset = 0; offset < LAB4_BLOCK; offset += 256 - 4)
		each_update_takes_its_bucket(n8, offset);
}

Test(up, takes_no_bucket_lock)
{
	refcount_t *rc = lab4_count(768);
	enum op op;

	warn_set_quiet(1);
	for (op = INIT; op < NR_OPS; op++) {
		cr_assert_eq(locks_taken(up, op, rc), 0,
			     "%s of the UP build took a lock of its array",
			     op_names[op]);
	}
}

/* What each build does, one thread: lab 2's contracts, briefly. */
static void semantics(const struct lab4_config *c)
{
	refcount_t *rc = lab4_count(1024 + 4);
	DEFINE_SPINLOCK(lock);

	warn_reset();
	c->init(rc);
	refcount_watch(&rc->count);	/* 0 is final, until the WARN's test */
	cr_assert_eq(c->read(rc), 1, "%s: init", c->name);
	c->get(rc);
	cr_assert_eq(c->get_rcu(rc), 2, "%s: get_rcu returns the count found",
		     c->name);
	cr_assert_eq(c->read(rc), 3, "%s: get, get_rcu", c->name);
	c->dec(rc);
	cr_assert_eq(c->put_and_lock(rc, &lock), 0, "%s: put_and_lock of 2",
		     c->name);
	cr_assert_eq(lock.nr_acquired, 0, "%s: put_and_lock's fast path locked",
		     c->name);
	cr_assert_eq(c->put(rc), 1, "%s: the last put", c->name);
	cr_assert_eq(c->get_rcu(rc), 0, "%s: get_rcu on 0", c->name);
	cr_assert_eq(c->read(rc), 0, "%s: get_rcu resurrected 0", c->name);
	cr_assert_eq(warn_count(), 0, "%s: warned", c->name);
	refcount_unwatch(&rc->count);	/* the WARN's test: a get on 0 */
	warn_set_quiet(1);
	c->get(rc);
	cr_assert_eq(warn_count(), 1, "%s: get on 0 must WARN", c->name);
	cr_assert_eq(c->read(rc), 1, "%s: get on 0 still increments", c->name);
	cr_assert_eq(c->put_and_lock(rc, &lock), 1, "%s: put_and_lock of 1",
		     c->name);
	cr_assert(spin_is_locked(&lock), "%s: returned 1 without the lock",
		  c->name);
	spin_unlock(&lock);
}

Test(configs, every_build_keeps_lab_2s_contracts)
{
	semantics(smp);
	semantics(n8);
	semantics(up);
}
