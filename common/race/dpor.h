/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dpor.h - partial-order reduction for dfs (dpor.c), as the models, the
 * token passer and dfs call it.
 *
 * Before a scheduling point a model says what the step there touches
 * (race_dpor_footprint); what the code after the point does on its way to
 * the next one (an allocation, the start of a grace period) it adds with
 * race_dpor_extra.  A point whose model says nothing touches everything:
 * it is ordered against every other step, which is always sound.
 */
#ifndef KIT_RACE_DPOR_H
#define KIT_RACE_DPOR_H

#include "race/sched.h"
#include "race/strategy.h"

/* What a step touches. */
enum race_fp_kind {
	RACE_FP_ALL,		/* anything: race_point(), unknown points */
	RACE_FP_NONE,		/* nothing shared (smp_wmb, smp_rmb) */
	RACE_FP_LOAD,		/* reads addr */
	RACE_FP_STORE,		/* writes addr (a store, an update) */
	RACE_FP_LOCK,		/* spin_lock of the lock word at addr */
	RACE_FP_UNLOCK,		/* spin_unlock of the lock word at addr */
	RACE_FP_FREE,		/* frees addr..+size */
	RACE_FP_RCU_LOCK,	/* rcu_read_lock */
	RACE_FP_RCU_UNLOCK,	/* rcu_read_unlock */
	RACE_FP_RCU_W,		/* the end of a grace period, rcu_barrier */
	RACE_FP_RCU_CALL,	/* call_rcu of the rcu_head at addr */
	RACE_FP_RCU_INVOKE,	/* the RCU thread runs a callback */
};
#define RACE_FP_MB	0x01	/* a full fence of the weak model */
#define RACE_FP_SLAB	0x02	/* allocates */
#define RACE_FP_GP	0x04	/* starts a grace period */

/* Whether the search in progress records its steps (dfs), and reduces
 * (--reduction on) or only counts classes (--count-classes). */
extern bool race_dpor, race_dpor_reduce;

void race_dpor_footprint(int kind, const volatile void *addr, size_t size,
			 unsigned int flags);
void race_dpor_extra(unsigned int flags);
void race_dpor_reset(void);
void race_dpor_arrive(struct race_thread *t);
void race_dpor_step(int thread);
void race_dpor_done(struct race_thread *t);
void race_dpor_end(void);

/* dfs.c <-> dpor.c */
unsigned int race_dpor_asleep(long node);
bool race_dpor_blocked(void);
void race_dpor_chose(long node, const struct race_choice *c, int thread,
		     bool fresh);
void race_dpor_retire(long node, int thread);
void race_dfs_backtrack(long node, int thread);

#endif /* KIT_RACE_DPOR_H */
