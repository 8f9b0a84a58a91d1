// SPDX-License-Identifier: GPL-2.0
/*
 * fail.c - the page a search shares with its parent, and the failure path.
 *
 * The parent maps struct race_shared before it forks the search process
 * (explore/search.c); the search writes its steps, counters and verdict
 * there, so a child killed by ASan or a signal still leaves them.  Any
 * layer ends a search with race_fail(): the verdict goes into the page and
 * the search process exits.
 *
 * Who watches from above (a debugger's stops: front/debug.c) registers a
 * struct race_observer at start-up; the runtime tells it of every step
 * and of the end, and knows nothing else of it.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "race/runtime/runtime.h"

struct race_shared *race_sh;
static const struct race_observer *observer;

/** race_observe - @o hears of every step and of the end from now on */
void race_observe(const struct race_observer *o)
{
	observer = o;
}

/** race_observe_step - tell the observer that step @nr is about to be made */
void race_observe_step(long nr, const volatile void *addr)
{
	if (observer && observer->step)
		observer->step(nr, addr);
}

/** race_end - the execution or the search has ended: tell the observer */
void race_end(void)
{
	if (observer && observer->end)
		observer->end();
}

/**
 * race_fail - end the search with a verdict
 *
 * Guarantees: the verdict and the steps so far are in the shared page
 * before the search process exits; never returns.
 */
void race_fail(const char *kind, const char *fmt, ...)
{
	va_list ap;

	snprintf(race_sh->kind, sizeof(race_sh->kind), "%s", kind);
	va_start(ap, fmt);
	vsnprintf(race_sh->message, sizeof(race_sh->message), fmt, ap);
	va_end(ap);
	race_sh->executions++;
	__atomic_store_n(&race_sh->state, RACE_RUN_FAIL, __ATOMIC_SEQ_CST);
	race_end();
	_exit(0);
}

/**
 * race_shared_map - map the page the search child reports through
 * @cap_steps: the longest execution it must hold
 */
void race_shared_map(long cap_steps)
{
	size_t size = sizeof(*race_sh) + (cap_steps + 1) * sizeof(struct race_step);

	race_sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (race_sh == MAP_FAILED) {
		perror("race: mmap");
		exit(2);
	}
	race_sh->cap_steps = cap_steps;
}
