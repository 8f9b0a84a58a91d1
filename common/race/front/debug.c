// SPDX-License-Identifier: GPL-2.0
/*
 * debug.c - what a debugger stands on: two functions to stop at, and
 * struct race_debug saying where the execution is when it stops.
 *
 *   race_debug_step(nr)  in the thread that takes step nr, once the step is
 *                        recorded (race_sh->steps[nr - 1]) and before its
 *                        access is made; only under --debug
 *   race_debug_stop()    when the execution ends: at its verdict, in the
 *                        thread that found it (an ASan report too), or
 *                        after its last step without one; always, so that
 *                        an rr recording of a plain replay can stop there
 *
 * `race replay FILE --debug` runs the replay's one execution in the race
 * binary's own process (no search child to follow, no watchdog: a person
 * may sit at a breakpoint as long as they like).  The gdb commands of
 * tools/gdb/race-gdb.py stop at these two functions only: going back to
 * step k is running the program again and stopping at race_debug_step(k),
 * since the schedule makes every run the same execution.
 *
 * Under --debug every thread of the execution runs on an OS thread of its
 * own, named T1..Tn, RCU, IRQk (runtime/carrier.c), so that gdb, rr and
 * ps show which is which.  The runtime knows nothing of this file: main()
 * registers it as the runtime's observer (race_debug_attach()).
 */
#define _GNU_SOURCE
#include <string.h>

#include "race/front/front.h"

struct race_debug race_debug;

/* Where the execution is: @nr, its step line, the address it accesses. */
static void note(long nr, const volatile void *addr)
{
	race_debug.step = nr;
	race_debug.addr = addr;
	race_debug.where[0] = 0;
	if (nr > 0)
		race_step_line(&race_sh->steps[nr - 1], nr, race_debug.where,
			       sizeof(race_debug.where));
}

/**
 * race_debug_step - a breakpoint's place: step @nr is about to be made
 *
 * Does nothing but exist (noinline, not folded into another function).
 */
__attribute__((noinline)) void race_debug_step(long nr)
{
	__asm__ volatile("" : : "r"(nr) : "memory");
}

/** race_debug_stop - a breakpoint's place: the execution has ended */
__attribute__((noinline)) void race_debug_stop(void)
{
	__asm__ volatile("" : : "r"(race_debug.verdict) : "memory");
}

/*
 * Step @nr (just recorded, accessing @addr) is about to be made by the
 * calling thread: under --debug, stop at it.
 */
static void at_step(long nr, const volatile void *addr)
{
	if (!race_debug.enabled)
		return;
	note(nr, addr);
	race_debug_step(nr);
}

/*
 * The execution has ended, with the verdict in race_sh if it failed: note
 * where, and stop.  Under --debug nobody reports the execution after: its
 * timeline and verdict are printed here.
 */
static void at_end(void)
{
	struct race_thread *t = race_self();

	race_debug.verdict = race_sh->kind[0] != 0;
	note(race_sh->nr_steps, t && race_debug.verdict ? t->addr : NULL);
	race_debug_stop();
	if (!race_debug.enabled || race_sh->state == RACE_RUN_NONE)
		return;		/* (ASan's report, about to abort: it says) */
	race_timeline_print(stdout, race_sh);
	if (race_sh->state == RACE_RUN_FAIL)
		race_print_verdict();
	else
		printf("verdict: none (every thread finished, the checks held)\n");
	fflush(stdout);
}

static const struct race_observer observer = {
	.step	= at_step,
	.end	= at_end,
};

/**
 * race_debug_attach - stop at the end of every execution; with @enabled
 * (--debug), also at every step, the replay running in this process on
 * OS threads
 */
void race_debug_attach(bool enabled)
{
	race_debug.enabled = enabled;
	race_opt.in_process = enabled;
	race_opt.os_threads |= enabled;
	race_observe(&observer);
}
