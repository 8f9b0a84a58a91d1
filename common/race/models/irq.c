// SPDX-License-Identifier: GPL-2.0
/*
 * irq.c - the interrupt model: a handler per thread, delivered as one more
 * choice of the strategy; and one simulated CPU.
 *
 * In user space an interrupt is a signal handler that runs on the thread
 * it interrupts; spin_lock_irqsave() blocks signals ("interrupts off",
 * irqflags.c counts it where race_irq_depth() says).  A scenario names a
 * handler per thread (RACE_IRQ in scenario.h).  Each handler is a thread
 * of its own here, "IRQk" for thread Tk, after the RCU thread:
 *
 *   - it is runnable (the interrupt can be delivered) at a step where Tk
 *     is at a point with interrupts on and it has not been delivered yet
 *     in this execution: choosing it is delivering the interrupt, and the
 *     step "irq.enter" records it;
 *   - while the handler runs, Tk is not runnable: the handler runs on its
 *     CPU, Tk resumes when it returns;
 *   - a handler that waits for a lock Tk holds can never go on, and Tk
 *     cannot either: nothing is runnable, and token passing gives its
 *     verdict "deadlock", naming both, with the timeline.
 *
 * One simulated CPU (.up): the thread at the CPU -- the one that made the
 * last step -- keeps it while it has interrupts off, and a handler keeps
 * it until it returns.  So local_irq_save() alone is a critical section,
 * as on a uniprocessor kernel, where code can be preempted (here: another
 * thread chosen) only where interrupts are on.  There each thread starts
 * at a point of its own, "cpu.start", before any of its code: otherwise
 * every thread would run to its first point at the start of an execution,
 * several of them perhaps into a section with interrupts off.
 */
#include "race/models/models.h"
#include "race_hooks.h"

/* Per thread id: interrupts-off nesting; per worker: handler state. */
static unsigned long irqs_off[RACE_NR_SLOTS + 1];
static bool delivered[RACE_MAX_THREADS + 1];
static bool in_handler[RACE_MAX_THREADS + 1];

/* Thread @t's interrupt may be delivered now. */
static bool irq_ready(const struct race_thread *t)
{
	int k = race_irq_owner(t->id);
	const struct race_thread *owner = race_thread_get(k);

	return !delivered[k] && owner->state == RACE_TS_POINT && !irqs_off[k];
}

/* Not delivered yet, or done: nothing waits on it. */
static int irq_why(const struct race_thread *t __maybe_unused,
		   char *buf __maybe_unused, size_t len __maybe_unused)
{
	return 0;
}

static const struct race_wait irq_wait = {
	.ready	= irq_ready,
	.why	= irq_why,
};

static bool never(const struct race_thread *t __maybe_unused)
{
	return false;
}

static const struct race_wait irq_done_wait = {
	.ready	= never,
	.why	= irq_why,
	.final	= true,
};

/* @t is a worker whose handler is running: it may not run. */
static bool interrupted(const struct race_thread *t)
{
	return t->id <= race_nr_workers() && in_handler[t->id];
}

/* "T1 is interrupted at f.x by IRQ1, which must return first; " */
static int interrupted_why(const struct race_thread *t, char *buf, size_t len)
{
	char name[16];

	race_thread_name(t->id, name, sizeof(name));
	return snprintf(buf, len, "%s is interrupted at %s.%s by IRQ%d, which "
			"must return first; ", name, t->fn, t->what, t->id);
}

/* The thread that holds the one CPU now, or NULL if it may change hands. */
static const struct race_thread *cpu_holder(const struct race_thread *from)
{
	int k = race_irq_owner(from->id);

	if (k && in_handler[k])
		return from;		/* a handler runs to its end */
	if (from->state == RACE_TS_DONE || from->id == race_nr_workers() + 1)
		return NULL;
	return irqs_off[from->id] ? from : NULL;
}

/*
 * On one simulated CPU, only the thread at the CPU may run while it has
 * interrupts off (or is a handler): @c, the runnable threads, is cut down
 * in place (maybe to none); @from made the last step.
 */
static void one_cpu(struct race_choice *c, const struct race_thread *from)
{
	const struct race_thread *holder;
	int i;

	if (!race_sc->up || !(holder = cpu_holder(from)))
		return;
	i = race_choice_index(c, holder->id);
	c->nr = i < 0 ? 0 : 1;
	c->ids[0] = holder->id;
}

/*
 * The body of interrupt thread IRQk: deliver the interrupt, run Tk's
 * handler, then wait for the next execution.  Never returns.
 */
static void irq_thread(void)
{
	struct race_thread *t = race_self();
	int k = race_irq_owner(t->id);

	for (;;) {
		race_sched_step(t, "irq", "enter", NULL);
		delivered[k] = true;
		in_handler[k] = true;
		race_sc->irqs[k - 1]();
		in_handler[k] = false;
		t->step = NULL;
		race_sched_wait(t, &irq_done_wait, "irq", "done");
	}
}

/*
 * A worker @t starts its function: on one simulated CPU, at a point
 * "cpu.start", so that it runs none of its code before it is chosen.
 */
static void cpu_start(struct race_thread *t)
{
	if (race_sc->up && t->id <= race_nr_workers())
		race_sched_point(NULL, "cpu", "start", NULL);
}

/* A new execution: interrupts on everywhere; every handler to deliver. */
static void irq_reset(void)
{
	struct race_thread *t;
	int id, k;

	for (id = 0; id <= RACE_NR_SLOTS; id++)
		irqs_off[id] = 0;
	for (id = race_nr_workers() + 2; id <= race_nr_slots(); id++) {
		t = race_thread_get(id);
		k = race_irq_owner(id);
		delivered[k] = in_handler[k] = false;
		t->state = t->body ? RACE_TS_POINT : RACE_TS_DONE;
		t->wait = &irq_wait;
		t->fn = "irq";
		t->what = "enter";
		t->step = NULL;
	}
}

/* Whether @sc has interrupts, or runs on one simulated CPU. */
static bool irq_applies(const struct race_scenario *sc)
{
	int i;

	for (i = 0; i < RACE_MAX_THREADS; i++)
		if (sc->irqs[i])
			return true;
	return sc->up;
}

RACE_MODEL(irq_model) = {
	.name	= "irq",
	.applies = irq_applies,
	.reset	= irq_reset,
	.holds	= interrupted,
	.why	= interrupted_why,
	.filter	= one_cpu,
	.begin	= cpu_start,
	.slot	= RACE_SLOT_IRQ,
	.body	= irq_thread,
};

/** race_irqs_off - how deep thread @id is in local_irq_save() now */
int race_irqs_off(int id)
{
	return irqs_off[id] > 0;
}

/* Where the calling scenario thread counts its local_irq_save()s. */
unsigned long *race_irq_depth(void)
{
	struct race_thread *t = race_self();

	return t ? &irqs_off[t->id] : NULL;
}
