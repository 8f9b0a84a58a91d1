/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - token passing (token.c), as the models and strategies see it.
 *
 * Every scenario thread, and the RCU thread, is a struct race_thread.  A
 * thread at a scheduling point may wait for something (a free lock, a
 * grace period): a model says what with a struct race_wait, and the
 * token passer never chooses a thread whose wait is not over.  A new model
 * is one file that defines its waits and the hooks that use them.
 */
#ifndef KIT_RACE_SCHED_H
#define KIT_RACE_SCHED_H

#include <semaphore.h>
#include <pthread.h>

#include "race/race.h"

enum race_thread_state { RACE_TS_IDLE, RACE_TS_POINT, RACE_TS_RUNNING,
			 RACE_TS_DONE };

struct race_thread;

/**
 * struct race_wait - what a thread at a point waits for
 * @ready: true when the thread may perform its step now
 * @why:   for the deadlock verdict: writes "T1 spins in ...; " into @buf
 *         and returns its length, or returns 0 if the thread is not
 *         really waiting (the RCU thread with nothing queued)
 */
struct race_wait {
	bool (*ready)(const struct race_thread *t);
	int (*why)(const struct race_thread *t, char *buf, size_t len);
	bool final;	/* never ready again in this execution: no pending step */
};

/**
 * struct race_thread - a scenario thread (T1..Tn) or the RCU thread
 * @fn, @what, @addr: its point: label and address
 * @wait: what it waits for there (NULL: nothing)
 * @step: the step it is performing, once chosen (NULL between steps)
 */
struct race_thread {
	int id;				/* 1-based; nr_workers + 1 is RCU */
	sem_t sem;
	pthread_t pt;
	enum race_thread_state state;
	const struct race_wait *wait;
	const char *fn, *what;
	const volatile void *addr;
	struct race_step *step;
	void (*body)(void);
};

struct race_thread *race_self(void);
struct race_thread *race_thread_get(int id);
int race_nr_workers(void);
int race_nr_slots(void);

struct race_thread *race_sched_point(const struct race_wait *wait,
				     const char *fn, const char *what,
				     const volatile void *addr);
void race_sched_wait(struct race_thread *t, const struct race_wait *wait,
		     const char *fn, const char *what);
int race_thread_runnable_label(int id, char *buf, size_t len);

void race_sched_init(const struct race_scenario *sc);
void race_sched_start(void);
void race_sched_reset(void);
void race_sched_run(void);

/* rcu.c: the body of the RCU thread, and what it needs at a reset */
void race_rcu_thread(void);
void race_rcu_reset(void);
void race_rcu_flush(void);

/* irq.c: the interrupt threads, and what token passing asks of them */
void race_irq_thread(void);
void race_irq_begin(struct race_thread *t);
void race_irq_reset(void);
bool race_irq_interrupted(const struct race_thread *t);
int race_irq_why(const struct race_thread *t, char *buf, size_t len);
struct race_choice;
void race_irq_filter(struct race_choice *c, const struct race_thread *from);
int race_irq_owner(int id);

/* objects.c */
void race_objects_reset(void);
void race_obj_check_access(const struct race_thread *t,
			   const volatile void *addr);
void race_obj_check(const struct race_thread *t, const volatile void *addr,
		    unsigned int how);
void race_obj_seen(const struct race_thread *t);
long race_objects_live(char *names, size_t len);

struct race_obj;
const struct race_obj *race_obj_find(const volatile void *addr);
unsigned long race_obj_id(const struct race_obj *o);
long race_obj_offset(const struct race_obj *o, const volatile void *addr);
size_t race_obj_size(const struct race_obj *o);
const void *race_obj_start(unsigned long id);

#endif /* KIT_RACE_SCHED_H */
