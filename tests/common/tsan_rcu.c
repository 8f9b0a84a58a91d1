// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_rcu.c - proof that the kit's RCU annotations work under
 * ThreadSanitizer (see docs/design.md: without them TSan reports false
 * races on correct liburcu code).
 *
 *   tsan_rcu --list           the cases and the verdict each must get
 *   tsan_rcu sync             publish, synchronize_rcu(), then free: clean
 *   tsan_rcu call_rcu         publish, free through call_rcu(): clean
 *   tsan_rcu early_free       publish, free at once, synchronize_rcu()
 *                             after: a reader can still be on the old item,
 *                             so TSan must report
 *
 * Readers load the published pointer under rcu_read_lock() and read the
 * item's fields with plain loads, as kernel readers do.  The updater
 * replaces the item a bounded number of times.  In early_free it first
 * waits until a reader says (with a relaxed store, which orders nothing
 * for TSan) that it has read the current item since the last grace
 * period: so every run has a read that no grace period orders before the
 * free, and TSan must report it -- not only the runs where the scheduler
 * happened to put a reader there.  Exit status 0 when the run
 * ended; TSan's exitcode (TSAN_OPTIONS=exitcode=66) when it reported.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"
#include "tsan_case.h"

#define NR_READERS	2
#define NR_UPDATES	300

struct item {
	long value;
	long check;		/* always -value: a torn or stale read shows */
	struct rcu_head rcu;
};

enum mode { SYNC, CALL_RCU, EARLY_FREE };

static struct item *gp;
static struct item *seen;	/* the item a reader read last (relaxed) */
static int stop;

/* A fresh item for @v, not yet published. */
static struct item *new_item(long v)
{
	struct item *it = kmalloc(sizeof(*it), GFP_KERNEL);

	it->value = v;
	it->check = -v;
	return it;
}

/* call_rcu callback: the grace period is over, free the item. */
static void free_item_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct item, rcu));
}

/* Read the published item under RCU until told to stop. */
static void *reader(void *arg)
{
	long *sum = arg;
	struct item *it;

	rcu_register_thread();
	while (!READ_ONCE(stop)) {
		rcu_read_lock();
		it = rcu_dereference(gp);
		*sum += it->value + it->check;	/* plain loads */
		WRITE_ONCE(seen, it);
		rcu_read_unlock();
	}
	rcu_unregister_thread();
	return NULL;
}

/* Wait until a reader has read @it after this call began. */
static void wait_for_reader(struct item *it)
{
	WRITE_ONCE(seen, NULL);
	while (READ_ONCE(seen) != it)
		sched_yield();
}

/* Replace the item NR_UPDATES times, freeing the old one as @mode says. */
static void update(enum mode mode)
{
	struct item *old;
	long i;

	for (i = 1; i <= NR_UPDATES; i++) {
		old = rcu_dereference_protected(gp, 1);
		if (mode == EARLY_FREE)
			wait_for_reader(old);
		rcu_assign_pointer(gp, new_item(i));
		switch (mode) {
		case SYNC:
			synchronize_rcu();
			kfree(old);
			break;
		case CALL_RCU:
			call_rcu(&old->rcu, free_item_rcu);
			break;
		case EARLY_FREE:
			kfree(old);		/* BUG: before the grace period */
			synchronize_rcu();
			break;
		}
	}
}

/* One bounded run of case @c; 0 unless objects leaked. */
static int run(const struct tsan_case *c)
{
	enum mode mode = (enum mode)(long)c->arg;
	pthread_t t[NR_READERS];
	long sum[NR_READERS] = { 0 };
	int i;

	rcu_register_thread();
	rcu_assign_pointer(gp, new_item(0));
	for (i = 0; i < NR_READERS; i++)
		pthread_create(&t[i], NULL, reader, &sum[i]);
	update(mode);
	WRITE_ONCE(stop, 1);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(t[i], NULL);
	synchronize_rcu();
	kfree(rcu_dereference_protected(gp, 1));
	rcu_barrier();
	rcu_unregister_thread();
	printf("tsan_rcu: %d updates, %d readers, %ld objects live\n",
	       NR_UPDATES, NR_READERS, slab_objects_live());
	return slab_objects_live() != 0;
}

static const struct tsan_case cases[] = {
	{ "sync",       "clean", run, (void *)SYNC },
	{ "call_rcu",   "clean", run, (void *)CALL_RCU },
	{ "early_free", "race",  run, (void *)EARLY_FREE },
};

int main(int argc, char **argv)
{
	return tsan_case_main(argc, argv, cases, ARRAY_SIZE(cases));
}
