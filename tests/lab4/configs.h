/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configs.h - lab 4's refcount.c in each of its builds, for the tests.
 *
 * labs/lab4-hashlock/lab.mk builds the student's refcount.c three times,
 * all linked into every lab 4 binary:
 *   smp  the lab's own flags: CONFIG_SMP, REFCOUNT_HASH_SIZE 4; lab 2's
 *        names (refcount_get, ...), which lab 2's tests call
 *   n8   the same with REFCOUNT_HASH_SIZE 8: names prefixed n8_
 *   up   without CONFIG_SMP (one CPU): names prefixed up_
 * (config_names.h does the prefixing.)  struct lab4_config lets a test
 * run the same check on each.
 *
 * Where a count lives decides its bucket: lab4_count() hands out counts
 * at fixed offsets of a block aligned to 256 * 8 bytes, so their buckets
 * are the same in every process, whatever malloc does -- what makes the
 * race scenarios' schedules replay byte for byte.
 */
#ifndef LAB4_CONFIGS_H
#define LAB4_CONFIGS_H

#include <stdbool.h>

#include "refcount_hash.h"

#define LAB4_DECLARE_CONFIG(p)						\
	void p##refcount_init(refcount_t *rc);				\
	int p##refcount_read(refcount_t *rc);				\
	void p##refcount_get(refcount_t *rc);				\
	int p##refcount_get_rcu(refcount_t *rc);			\
	int p##refcount_put(refcount_t *rc);				\
	void p##refcount_dec(refcount_t *rc);				\
	int p##refcount_put_and_lock(refcount_t *rc, spinlock_t *lock);	\
	extern spinlock_t p##__refcount_hash[]

LAB4_DECLARE_CONFIG(n8_);
LAB4_DECLARE_CONFIG(up_);

/**
 * struct lab4_config - one build of refcount.c
 * @locks, @nr_locks: its __refcount_hash
 * @smp: built with CONFIG_SMP (else one CPU: no bucket lock)
 */
struct lab4_config {
	const char *name;
	void (*init)(refcount_t *rc);
	int (*read)(refcount_t *rc);
	void (*get)(refcount_t *rc);
	int (*get_rcu)(refcount_t *rc);
	int (*put)(refcount_t *rc);
	void (*dec)(refcount_t *rc);
	int (*put_and_lock)(refcount_t *rc, spinlock_t *lock);
	spinlock_t *locks;
	int nr_locks;
	bool smp;
};

#define LAB4_CONFIG(name, p, nr, is_smp) {				\
	name, p##refcount_init, p##refcount_read, p##refcount_get,	\
	p##refcount_get_rcu, p##refcount_put, p##refcount_dec,		\
	p##refcount_put_and_lock, p##__refcount_hash, (nr), (is_smp) }

enum { LAB4_SMP, LAB4_N8, LAB4_UP, LAB4_NR_CONFIGS };

static const struct lab4_config lab4_configs[LAB4_NR_CONFIGS] __maybe_unused = {
	[LAB4_SMP] = LAB4_CONFIG("smp", , REFCOUNT_HASH_SIZE, true),
	[LAB4_N8]  = LAB4_CONFIG("n8", n8_, 8, true),
	[LAB4_UP]  = LAB4_CONFIG("up", up_, REFCOUNT_HASH_SIZE, false),
};

/* The block the tests' counts live in: 256 * 8 bytes, aligned to its size. */
#define LAB4_BLOCK	(256 * 8)

/**
 * lab4_count - the count at byte @offset of this file's block (a multiple
 * of sizeof(refcount_t), below LAB4_BLOCK); the caller sets it
 */
static inline refcount_t *lab4_count(unsigned long offset)
{
	static char block[LAB4_BLOCK] __attribute__((aligned(LAB4_BLOCK)));

	return (refcount_t *)(block + offset);
}

/** lab4_bucket - the bucket of @rc in @c, by the seed's hash */
static inline int lab4_bucket(const struct lab4_config *c, const refcount_t *rc)
{
	return ((unsigned long)rc >> 8) & (c->nr_locks - 1);
}

#endif /* LAB4_CONFIGS_H */
