// SPDX-License-Identifier: GPL-2.0
/*
 * zero.c - "0 is final" (common/refcount_watch.h), checked at every step
 * of every execution.
 *
 * The counts watched are those the code that creates them names
 * (race_refcount_watch), for the execution: the list starts empty with
 * each one, and a count leaves it when the slab frees its memory.  Every
 * access to a watched count is compared before and after (access.c tells
 * us both): the step that brings it to 0 is remembered, and a step that
 * takes it from 0 to more is a WARN, which access.c notes as WARN_ON's
 * are, naming both steps.  The execution goes on -- a use-after-free that follows is still
 * shown as one -- and ends in the verdict "warn" unless the scenario
 * expects WARNs of its own (.warns: a test of a WARN on a count of 0 uses
 * a count nobody watches).
 */
#include <string.h>

#include "race/models/models.h"
#include "race_hooks.h"

#define ZERO_MAX_WATCHED	64

static struct watched {
	const volatile int *counter;
	const char *fn;			/* who watches it */
	long zero_step;			/* the step that brought it to 0 (0: none) */
	int zero_thread;
} watched[ZERO_MAX_WATCHED];
static int nr_watched;

/* Per thread: the watched count its access in progress touches. */
static struct {
	struct watched *w;
	int before;
} pending[RACE_NR_SLOTS + 1];

static void zero_reset(void)
{
	nr_watched = 0;
	memset(pending, 0, sizeof(pending));
}

RACE_MODEL(zero_model) = {
	.name	= "zero",
	.reset	= zero_reset,
};

static struct watched *find(const volatile void *addr)
{
	int i;

	for (i = 0; i < nr_watched; i++)
		if ((const volatile void *)watched[i].counter == addr)
			return &watched[i];
	return NULL;
}

/* A count's life begins: watched from now on, whatever its value. */
bool race_refcount_watch(const volatile int *counter, const char *fn)
{
	struct watched *w = find(counter);

	if (!w && nr_watched < ZERO_MAX_WATCHED)
		w = &watched[nr_watched++];
	if (w)
		*w = (struct watched){ counter, fn, 0, 0 };
	return true;
}

/* The @size bytes at @addr are freed: the counts there are watched no more. */
bool race_refcount_unwatch(const volatile void *addr, size_t size)
{
	const volatile char *a = addr;
	int i;

	for (i = 0; i < nr_watched; i++) {
		const volatile char *c = (const volatile char *)watched[i].counter;

		if (c >= a && c < a + size)
			watched[i--] = watched[--nr_watched];
	}
	return true;
}

/**
 * race_zero_before - thread @t is about to access @addr (@how): if it is a
 * watched count that the access writes, note its value now
 */
void race_zero_before(const struct race_thread *t, const volatile void *addr,
		      unsigned int how)
{
	struct watched *w = how & RACE_STORE ? find(addr) : NULL;

	pending[t->id].w = w;
	if (w)
		pending[t->id].before = __atomic_load_n(w->counter, __ATOMIC_RELAXED);
}

static char msg[RACE_MSG_LEN];

/* The WARN's text: step @s of @t took @w from 0 to @now. */
static const char *from_zero(const struct race_thread *t, const struct watched *w,
			     const struct race_step *s, int now)
{
	char count[32], who[64], zwho[64], before[160] = "";

	race_step_addr(s, count, sizeof(count));
	race_thread_who(t->id, who, sizeof(who));
	if (w->zero_step) {
		const struct race_step *z = &race_sh->steps[w->zero_step - 1];

		race_thread_who(w->zero_thread, zwho, sizeof(zwho));
		snprintf(before, sizeof(before), " after step %ld (%s %s.%s) "
			 "had brought it to 0", w->zero_step, zwho, z->fn, z->what);
	}
	snprintf(msg, sizeof(msg), "refcount: %s took the reference count %s "
		 "(watched since %s) from 0 to %d at step %ld (%s.%s)%s -- 0 is "
		 "final: once a count reaches 0 its object is on its way to be "
		 "freed, and no get may raise it, not even for a moment (a get "
		 "unless zero tests first, and increments only a count that is "
		 "not 0)", who, count, w->fn, now, race_trace_nr(s), s->fn,
		 s->what, before);
	return msg;
}

/**
 * race_zero_after - thread @t's access has been made: a watched count it
 * brought to 0 is remembered; if it took one from 0 to more, returns the
 * WARN to report (access.c reports it), else NULL
 */
const char *race_zero_after(const struct race_thread *t)
{
	struct watched *w = pending[t->id].w;
	int before = pending[t->id].before, now;

	if (!w || !t->step)
		return NULL;
	pending[t->id].w = NULL;
	now = __atomic_load_n(w->counter, __ATOMIC_RELAXED);
	if (!before && now > 0)
		return from_zero(t, w, t->step, now);
	if (before && !now) {
		w->zero_step = race_trace_nr(t->step);
		w->zero_thread = t->id;
	}
	return NULL;
}
