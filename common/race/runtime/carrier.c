// SPDX-License-Identifier: GPL-2.0
/*
 * carrier.c - what the threads of an execution run on.
 *
 * Exactly one thread of an execution runs at a time; handing the token to
 * another is race_carrier_switch(from, to).  Each thread runs on an OS
 * thread of its own with a semaphore: the switch posts the next thread's
 * semaphore and waits on its own.  The search's main thread (NULL here)
 * starts an execution by switching to T1 and gets the token back when the
 * execution is over.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

#include "race/runtime/sched.h"

struct race_carrier {
	struct race_thread *t;
	void (*fn)(struct race_thread *t);
	pthread_t pt;
	sem_t sem;
};

static struct race_carrier carriers[RACE_NR_SLOTS];
static sem_t main_sem;

static void sem_wait_intr(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/* An OS thread: named after its thread, waits for the token, runs. */
static void *os_main(void *arg)
{
	struct race_carrier *c = arg;
	char name[16];

	race_set_self(c->t);
	pthread_setname_np(pthread_self(), race_thread_name(c->t->id, name,
							     sizeof(name)));
	sem_wait_intr(&c->sem);
	c->fn(c->t);		/* never returns */
	return NULL;
}

/** race_carriers_init - before the first race_carrier_start() */
void race_carriers_init(void)
{
	sem_init(&main_sem, 0, 0);
}

/**
 * race_carrier_start - give @t a carrier on which @fn(@t) will run once
 * the token first comes to @t
 */
void race_carrier_start(struct race_thread *t, void (*fn)(struct race_thread *t))
{
	struct race_carrier *c = &carriers[t->id - 1];

	c->t = t;
	c->fn = fn;
	t->carrier = c;
	sem_init(&c->sem, 0, 0);
	if (pthread_create(&c->pt, NULL, os_main, c))
		race_fail("crash", "pthread_create failed");
}

/**
 * race_carrier_switch - hand the token from @from to @to (NULL: the
 * search's main thread) and wait until it comes back to @from
 */
void race_carrier_switch(struct race_thread *from, struct race_thread *to)
{
	sem_post(to ? &to->carrier->sem : &main_sem);
	sem_wait_intr(from ? &from->carrier->sem : &main_sem);
}
