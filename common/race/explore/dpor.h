/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dpor.h - partial-order reduction for dfs (dpor.c): a service dfs calls,
 * which never calls dfs back.
 *
 * It learns what each step touches from the runtime: before a scheduling
 * point a model says it (race_sched_footprint, into the thread's struct
 * race_footprint); what the code after the point does on its way to the
 * next one (an allocation, the start of a grace period) it adds with
 * race_sched_extra.  A point whose model says nothing touches everything:
 * it is ordered against every other step, which is always sound.  The
 * runtime tells it of arrivals, steps and returns through the scheduler
 * the search registers (search.c).
 */
#ifndef KIT_RACE_DPOR_H
#define KIT_RACE_DPOR_H

#include "race/explore/strategy.h"

/* Whether the search in progress records its steps (dfs), and reduces
 * (--reduction on) or only counts classes (--count-classes). */
extern bool race_dpor, race_dpor_reduce;

void race_dpor_reset(void);
void race_dpor_arrive(struct race_thread *t);
void race_dpor_step(int thread);
void race_dpor_done(struct race_thread *t);
void race_dpor_end(void);

/* what dfs asks and tells at its choice nodes */
unsigned int race_dpor_asleep(long node);
unsigned int race_dpor_asleep_now(const struct race_choice *c);
unsigned int race_dpor_drowsy_now(void);
unsigned int race_dpor_wanted(long node);
void race_dpor_refused(void);
bool race_dpor_blocked(void);
void race_dpor_chose(long node, const struct race_choice *c, int thread,
		     bool fresh);
void race_dpor_retire(long node, int thread);
void race_dpor_read(long step, long store);

#endif /* KIT_RACE_DPOR_H */
