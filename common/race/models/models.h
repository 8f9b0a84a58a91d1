/* SPDX-License-Identifier: GPL-2.0 */
/*
 * models.h - the models of the primitives, one file each, as other models
 * and the exploration call them.  Token passing calls none of these by
 * name: it calls the hooks each model registers (RACE_MODEL, sched.h).
 *
 *   access.c  memory: race_access, race_seen, race_fence; the reports
 *   weak.c    the weak memory model (weak.h)
 *   plain.c   plain C accesses of the code under test, heard through the
 *             compiler's callbacks, for the weak model
 *   lock.c    spinlocks: runnable only while the lock is free
 *   rcu.c     RCU: read-side sections, grace periods, the RCU thread
 *   irq.c     interrupts: a handler per thread; one simulated CPU
 *   slab.c    allocation and freeing: double free, use-after-free, the
 *             type-stable rule
 *   held.c    what a thread holds; the end-of-thread oracle
 *   lockdep.c lockdep's irq-safety rule, at every acquisition
 *   zero.c    "0 is final": a reference count never leaves 0
 *   spin.c    busy waits: a loop that changes nothing waits for a write
 *
 * A new model (a new kind of waiting, of deferred work, an oracle checked
 * at every step) is one more file here: its hooks of race_hooks.h, its
 * struct race_wait, and a RACE_MODEL() if token passing must ask it
 * something.
 */
#ifndef KIT_RACE_MODELS_H
#define KIT_RACE_MODELS_H

#include "race/runtime/sched.h"

/* held.c: what a thread holds, read from the trace */
int race_held_rcu(int id);
bool race_held_lock(int id, const volatile void *lock);

/* slab.c: the oracle of accesses to freed memory */
void race_obj_check(const struct race_thread *t, const volatile void *addr,
		    unsigned int how);
void race_obj_check_access(const struct race_thread *t,
			   const volatile void *addr);
void race_obj_seen(const struct race_thread *t);

/**
 * race_step_addr - "obj#2+16", "obj#2" or "@3": the address step @s
 * accessed, as timelines name it ("?" if it has no name)
 */
static inline void race_step_addr(const struct race_step *s, char *buf,
				  size_t len)
{
	if (s && s->obj_ref == RACE_REF_OBJ && s->obj_off)
		snprintf(buf, len, "obj#%ld+%ld", s->obj, s->obj_off);
	else if (s && s->obj_ref == RACE_REF_OBJ)
		snprintf(buf, len, "obj#%ld", s->obj);
	else if (s && s->obj_ref == RACE_REF_VAR)
		snprintf(buf, len, "@%ld", s->obj);
	else
		snprintf(buf, len, "?");
}

/* held.c: "T1 (lookup)", "IRQ1 (put_in_irq)", "RCU" */
void race_thread_who(int id, char *buf, size_t len);

/* zero.c: what access.c tells it of each access */
void race_zero_before(const struct race_thread *t, const volatile void *addr,
		      unsigned int how);
const char *race_zero_after(const struct race_thread *t);

/* spin.c: what access.c and lock.c tell it before each access */
void race_spin_before(const struct race_thread *t, const volatile void *addr);

/* irq.c */
int race_irqs_off(int id);

/* rcu.c */
void race_rcu_flush(void);
long race_rcu_section_ending(int id);
bool race_rcu_waits_for(int waiter, int reader, long sect);

#endif /* KIT_RACE_MODELS_H */
