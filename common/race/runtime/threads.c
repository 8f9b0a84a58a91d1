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
struct race_thread race_threads[RACE_NR_SLOTS];
int race_workers;
int race_slots;			/* workers, RCU, interrupt threads */
__thread struct race_thread *race_current;

/** race_set_self - the thread that runs from now on (carrier.c) */
void race_set_self(struct race_thread *t)
{
	race_current = t;
}

/** race_irq_owner - the worker that interrupt thread @id interrupts; 0 if
 * @id is no interrupt thread */
int race_irq_owner(int id)
{
	return id > race_workers + 1 && id <= 2 * race_workers + 1 ?
		id - race_workers - 1 : 0;
}

/** race_thread_name - "T1".."T4", "RCU" for the callback thread, "IRQ1"
 * for the interrupt thread of T1 */
const char *race_thread_name(int id, char *buf, size_t len)
{
	if (id > 0 && id == race_workers + 1)
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
	struct race_thread *t;
	int i;

	race_sc = sc;
	for (race_workers = 0; race_workers < RACE_MAX_THREADS &&
	     sc->threads[race_workers]; race_workers++)
		;
	race_slots = race_workers + 1;
	for (i = 0; i < race_workers; i++)
		if (sc->irqs[i])
			race_slots = 2 * race_workers + 1;
	for (i = 0; i < race_slots; i++) {
		t = &race_threads[i];
		t->id = i + 1;
		t->state = RACE_TS_DONE;
		t->body = i < race_workers ? sc->threads[i] :
			i == race_workers ? slot_body(RACE_SLOT_RCU) :
			sc->irqs[i - race_workers - 1] ? slot_body(RACE_SLOT_IRQ) : NULL;
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
