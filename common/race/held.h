/* SPDX-License-Identifier: GPL-2.0 */
/*
 * held.h - what a thread holds: RCU read-side sections it is inside, and
 * spinlocks it has taken and not released (held.c).
 *
 * Both are read from the trace of the execution, the one record of what
 * each thread did: no primitive needs to report more than its steps.
 */
#ifndef KIT_RACE_HELD_H
#define KIT_RACE_HELD_H

#include <stdbool.h>

struct race_thread;

int race_held_rcu(int id);
bool race_held_lock(int id, const volatile void *lock);
void race_thread_exit_check(const struct race_thread *t);

#endif /* KIT_RACE_HELD_H */
