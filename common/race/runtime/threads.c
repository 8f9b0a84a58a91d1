// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - the threads of an execution, their ids and names, and the
 * models registered with token passing.
 *
 * Ids: T1..Tn are the scenario's threads (n workers), n+1 is the RCU
 * thread (models/rcu.c), and if the scenario has interrupts, n+1+k is
 * IRQk, Tk's interrupt handler (models/irq.c).  A model that runs a thread
 * of its own says which slot with struct race_model's @slot and @body.
 *
 * The models are found in the "race_models" section (RACE_MODEL), once;
 * token passing calls the hooks they fill in.
 */
#include <string.h>

#include "race/runtime/sched.h"

extern const struct race_model *const __start_race_models[];
extern const struct race_model *const __stop_race_models[];

const struct race_scenario *race_sc;
static struct race_thread threads[RACE_NR_SLOTS];
static int nr_workers;
static int nr_slots;		/* workers, RCU, interrupt threads */
static __thread struct race_thread *self;

/** race_self - the calling scenario (or RCU, or IRQ) thread; NULL outside */
struct race_thread *race_self(void)
{
	return self;
}

/** race_set_self - the thread that runs from now on (carrier.c) */
void race_set_self(struct race_thread *t)
{
	self = t;
}

/** race_thread_get - thread @id (1-based; nr_workers + 1 is RCU) */
struct race_thread *race_thread_get(int id)
{
	return &threads[id - 1];
}

/** race_nr_workers - the scenario's thread count (the RCU thread excluded) */
int race_nr_workers(void)
{
	return nr_workers;
}

/** race_nr_slots - thread ids in use: 1 .. race_nr_slots() */
int race_nr_slots(void)
{
	return nr_slots;
}

/** race_irq_owner - the worker that interrupt thread @id interrupts; 0 if
 * @id is no interrupt thread */
int race_irq_owner(int id)
{
	return id > nr_workers + 1 && id <= 2 * nr_workers + 1 ?
		id - nr_workers - 1 : 0;
}

/** race_thread_name - "T1".."T4", "RCU" for the callback thread, "IRQ1"
 * for the interrupt thread of T1 */
const char *race_thread_name(int id, char *buf, size_t len)
{
	if (id > 0 && id == nr_workers + 1)
		snprintf(buf, len, "RCU");
	else if (race_irq_owner(id))
		snprintf(buf, len, "IRQ%d", race_irq_owner(id));
	else
		snprintf(buf, len, "T%d", id);
	return buf;
}

/** race_models_count - the models registered (RACE_MODEL) */
int race_models_count(void)
{
	return __stop_race_models - __start_race_models;
}

/** race_model_at - the @i-th model registered */
const struct race_model *race_model_at(int i)
{
	return __start_race_models[i];
}

/** race_models_reset - every model back to the start of an execution */
void race_models_reset(void)
{
	int i;

	for (i = 0; i < race_models_count(); i++)
		if (race_model_at(i)->reset)
			race_model_at(i)->reset();
}

/* The body of the extra thread of kind @slot, from the model that has one. */
static void (*slot_body(enum race_slot slot))(void)
{
	int i;

	for (i = 0; i < race_models_count(); i++)
		if (race_model_at(i)->slot == slot)
			return race_model_at(i)->body;
	return NULL;
}

/**
 * race_sched_init - make @sc the scenario: count its threads
 *
 * Starts nothing: the parent calls it to name threads, the search process
 * then calls race_sched_start().
 */
void race_sched_init(const struct race_scenario *sc)
{
	int i;

	race_sc = sc;
	for (nr_workers = 0; nr_workers < RACE_MAX_THREADS &&
	     sc->threads[nr_workers]; nr_workers++)
		;
	nr_slots = nr_workers + 1;
	for (i = 0; i < nr_workers; i++)
		if (sc->irqs[i])
			nr_slots = 2 * nr_workers + 1;
	for (i = 0; i < nr_slots; i++) {
		threads[i].id = i + 1;
		threads[i].state = RACE_TS_DONE;
		threads[i].body = i < nr_workers ? sc->threads[i] :
			i == nr_workers ? slot_body(RACE_SLOT_RCU) :
			sc->irqs[i - nr_workers - 1] ? slot_body(RACE_SLOT_IRQ) : NULL;
	}
}

/** race_choice_index - the index of thread @id in @c->ids, or -1 */
int race_choice_index(const struct race_choice *c, int id)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->ids[i] == id)
			return i;
	return -1;
}

/** race_default_pick - the current thread if it may go on, else the lowest */
int race_default_pick(const struct race_choice *c)
{
	int i = c->from_runnable ? race_choice_index(c, c->from) : 0;

	return i < 0 ? 0 : i;
}
