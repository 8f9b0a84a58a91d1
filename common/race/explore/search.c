// SPDX-License-Identifier: GPL-2.0
/*
 * search.c - a search (or a replay) runs in a child process.
 *
 * The parent maps struct race_shared, forks, and waits.  The child pins
 * itself to one CPU (one thread runs at a time anyway, and hand-offs on
 * one CPU are several times cheaper), creates the scenario's threads once
 * and runs executions until the strategy is done or a verdict ends it.
 * A verdict, an ASan report, a signal or a hang in the child ends the
 * child only: the parent still has the steps of the execution that
 * failed, and reports them.  Under --debug (front/debug.c) the search
 * runs in the process itself, without the watchdogs.
 *
 * The search registers itself with token passing as its scheduler: the
 * strategy picks, and the reduction (dpor.c) hears of every arrival, step
 * and return.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "race/explore/dpor.h"
#include "sanitizer.h"

#define WATCHDOG_TICKS	3	/* ticks without a new step: a hang */
#define WATCHDOG_HANG_MS	3000	/* of CPU time, unless --hang-ms says */

const char *__asan_default_options(void);
/*
 * ASan's defaults for race binaries: no LeakSanitizer (a search ends with
 * _exit(), and the parent's few allocations live until exit anyway), and a
 * quarantine of 1 MB (the least but none), not 256, with a thread cache of
 * 16 KB, not 1 MB.  Freed memory stays poisoned, so that a later access is
 * a use-after-free, until the quarantine has taken in that much more
 * (oldest first); one execution frees about a kilobyte, so an object
 * freed in an execution stays poisoned for that execution and hundreds
 * after it.  Every allocation that the quarantine keeps from being reused
 * lands on memory never touched before, and a page fault costs about
 * 13 us on the kit's VMs: with 16 MB a search of 17,736 executions
 * (two_lookups_vs_delete --bound 3 --reduction off) faulted 5,344 times
 * and ran at 74k executions/s; with 1 MB, 510 times, at 132k/s.
 */
const char *__asan_default_options(void)
{
	return "detect_leaks=0:quarantine_size_mb=1:thread_local_quarantine_size_kb=16";
}

/* ASan found something: keep its summary as the verdict, then let it die. */
static void asan_report(const char *report)
{
	const char *s = strstr(report, "SUMMARY: AddressSanitizer: ");
	const char *kind = "crash";
	size_t n;

	if (!s)
		s = report;
	if (strstr(s, "heap-use-after-free"))
		kind = "use-after-free";
	else if (strstr(s, "double-free"))
		kind = "double-free";
	snprintf(race_sh->kind, sizeof(race_sh->kind), "%s", kind);
	n = strcspn(s, "\n");
	snprintf(race_sh->message, sizeof(race_sh->message),
		 "AddressSanitizer during this step: %.*s", (int)n, s);
	race_end();
}

/*
 * Two watchdogs, one handler.  SIGPROF ticks every third of the hang time
 * (3 s, or --hang-ms) of CPU time the search burns: a thread spinning in a
 * loop without a point burns it, a process starved by a loaded machine
 * does not.  SIGALRM ticks every WATCHDOG_BLOCKED_S seconds of real time,
 * for a thread blocked outside the reproducer's models (which burns no
 * CPU).
 */
#define WATCHDOG_BLOCKED_S	10

struct watch {
	long last;		/* progress at the last tick */
	int ticks;		/* ticks since it changed */
	long ms;		/* per tick */
};

static struct watch cpu_watch = { -1, 0, WATCHDOG_HANG_MS / WATCHDOG_TICKS };
static struct watch real_watch = { -1, 0, WATCHDOG_BLOCKED_S * 1000L };

/* A hang: name the last step, and what is probably missing after it. */
static void __noreturn hang(long ms, const char *how)
{
	const struct race_step *s;
	char who[16], span[32];

	snprintf(span, sizeof(span), ms % 1000 ? "%.1f s" : "%.0f s", ms / 1e3);
	if (!race_sh->nr_steps)
		race_fail("livelock", "no scheduling point for %s (%s) in "
			  "setup() or before the first step", span, how);
	s = &race_sh->steps[race_sh->nr_steps - 1];
	race_fail("livelock", "no scheduling point for %s (%s) after step "
		  "%ld (%s at %s.%s): a loop that reads shared state with no "
		  "primitive of common/ (a plain read the compiler may hoist out "
		  "of the loop): read it with READ_ONCE() or an atomic",
		  span, how, race_sh->nr_steps,
		  race_thread_name(s->thread, who, sizeof(who)), s->fn, s->what);
}

/* Each tick: no new step for WATCHDOG_TICKS ticks is a hang. */
static void watchdog(int sig)
{
	struct watch *w = sig == SIGPROF ? &cpu_watch : &real_watch;
	long now = race_sh->executions * 1000003L + race_sh->nr_steps;

	if (now != w->last) {
		w->last = now;
		w->ticks = 0;
		return;
	}
	if (++w->ticks >= WATCHDOG_TICKS)
		hang(w->ticks * w->ms,
		     sig == SIGPROF ? "of CPU time" : "blocked");
}

/* An interval of @ms milliseconds. */
static struct timeval interval(long ms)
{
	return (struct timeval){ ms / 1000, ms % 1000 * 1000 };
}

/* Start both watchdogs. */
static void watchdog_start(void)
{
	struct itimerval cpu, real;

	if (race_opt.hang_ms)
		cpu_watch.ms = race_opt.hang_ms / WATCHDOG_TICKS;
	cpu.it_interval = cpu.it_value = interval(cpu_watch.ms);
	real.it_interval = real.it_value = interval(real_watch.ms);
	signal(SIGPROF, watchdog);
	signal(SIGALRM, watchdog);
	setitimer(ITIMER_PROF, &cpu, NULL);
	setitimer(ITIMER_REAL, &real, NULL);
}

/* Guarantees: this thread, and every thread it creates, runs on one CPU. */
static void pin_to_one_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Token passing asks the strategy, and tells the reduction. */
static const struct race_scheduler scheduler = {
	.pick		= race_strategy_pick,
	.pick_read	= race_strategy_pick_read,
	.arrive		= race_dpor_arrive,
	.step		= race_dpor_step,
	.done		= race_dpor_done,
};

/*
 * The search process: threads once, then executions until the strategy is
 * done.  Guarantees: race_sh->state is RACE_RUN_OK or RACE_RUN_FAIL when it
 * exits normally; anything else is a crash the parent reports.
 */
/* Set the search process up: verdicts from ASan, one CPU, the watchdogs. */
static void child_start(void)
{
	asan_on_report(asan_report);
	pin_to_one_cpu();
	if (!race_opt.in_process)
		watchdog_start();	/* a person at a breakpoint is no hang */
	race_sched_use(&scheduler);
}

/* The page faults of this process so far. */
static long page_faults(void)
{
	struct rusage usage;

	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_minflt + usage.ru_majflt;
}

/* The executions of the current scenario, until the strategy is done. */
static void child_search(void)
{
	double t0;
	long f0;

	race_sched_start(race_opt.os_threads);
	race_strategy_init();
	f0 = page_faults();
	t0 = race_sched_cpu_ms();
	while (race_strategy_begin()) {
		race_run_execution();
		race_sh->executions++;
		race_strategy_end();
	}
	race_sh->exec_cpu_ms = race_sched_cpu_ms() - t0;
	race_sh->exec_faults = page_faults() - f0;
}

static void __noreturn child_exit(void)
{
	__atomic_store_n(&race_sh->state, RACE_RUN_OK, __ATOMIC_SEQ_CST);
	race_end();
	_exit(0);
}

static void __noreturn child_main(void)
{
	child_start();
	child_search();
	child_exit();
}

/* Clear the shared page for a new search, keeping its capacity. */
static void reset_shared(void)
{
	long cap = race_sh->cap_steps;

	memset(race_sh, 0, sizeof(*race_sh));
	race_sh->cap_steps = cap;
	race_sh->note_step = -1;
}

double race_search_cpu_ms;

/**
 * race_search - run the strategy of race_opt on the current scenario
 *
 * Returns RACE_RUN_OK (no verdict in any execution) or RACE_RUN_FAIL; the
 * verdict and the failing execution's steps are in race_sh either way, and
 * the CPU time the search process took in race_search_cpu_ms (0 under
 * --debug, which runs it in this process).
 */
static void (*search_child_fn)(void);

void race_on_search_child(void (*fn)(void))
{
	search_child_fn = fn;
}

/* The parent's side of a search: fork, wait, read what the child left. */
static int search_in_child(void (*child)(void))
{
	struct rusage usage;
	int status;
	pid_t pid;

	reset_shared();
	fflush(NULL);
	if (race_opt.in_process)
		child();	/* in this process, for the debugger */
	pid = fork();
	if (pid < 0) {
		perror("race: fork");
		exit(2);
	}
	if (!pid) {
		if (search_child_fn)
			search_child_fn();
		child();
	}
	while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR)
		;
	race_search_cpu_ms = usage.ru_utime.tv_sec * 1e3 + usage.ru_utime.tv_usec / 1e3 +
		usage.ru_stime.tv_sec * 1e3 + usage.ru_stime.tv_usec / 1e3;
	if (race_sh->state != RACE_RUN_NONE)
		return race_sh->state;
	race_sh->executions++;
	race_sh->state = RACE_RUN_FAIL;
	if (race_sh->kind[0])
		return RACE_RUN_FAIL;	/* ASan told us what */
	snprintf(race_sh->kind, sizeof(race_sh->kind), "crash");
	if (WIFSIGNALED(status))
		snprintf(race_sh->message, sizeof(race_sh->message),
			 "the execution died of signal %d (%s) during its last "
			 "step", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(race_sh->message, sizeof(race_sh->message),
			 "the execution exited with status %d during its last "
			 "step (a BUG or a sanitizer report above)",
			 WEXITSTATUS(status));
	return RACE_RUN_FAIL;
}

int race_search(void)
{
	return search_in_child(child_main);
}

/**
 * race_search_top_first - race_search() for a scenario that must hold
 * @need_witness: a search without an execution that saw the scenario's
 *                witness does not count as holding
 *
 * dfs searches its top bound first, alone: that search explores the
 * lower bounds' executions too (every class with one within the bound,
 * under the reduction: dpor.c), so if it holds, space exhausted, the
 * scenario holds, without the searches of bounds 0 up that dfs runs
 * before it.  Anything else (a verdict, --max-exec, no witness) is
 * searched again from bound 0 up, as dfs always did: its failing
 * execution has the fewest preemptions.  Other strategies, --debug and
 * bound 0: race_search().  Returns what race_search() returns.
 */
int race_search_top_first(bool need_witness)
{
	int state;

	if (race_opt.strategy != &race_dfs || race_opt.in_process || !race_opt.bound)
		return race_search();
	race_opt.bound_min = race_opt.bound;
	state = race_search();
	race_opt.bound_min = 0;
	if (state == RACE_RUN_OK && race_sh->exhausted &&
	    (race_sh->witnessed || !need_witness))
		return state;
	return race_search();
}

/* race_search_many's list, and how far its search process got. */
static struct {
	int n;
	void (*prepare)(int i);
	bool (*held)(int i);
	int *next;		/* shared with the parent */
} many;

static void __noreturn many_main(void)
{
	child_start();
	for (; *many.next < many.n; ++*many.next) {
		many.prepare(*many.next);
		reset_shared();
		child_search();
		if (!many.held(*many.next))
			break;
	}
	child_exit();
}

/**
 * race_search_many - search scenarios @from..@n-1 of a front end's list
 * one after the other in one search process
 * @prepare: makes scenario @i the current one (race_sc, race_opt), as it
 *           would before race_search(); called in the search process
 * @held:    scenario @i held (race_sh has its figures); called in the
 *           search process, so what it counts must be in shared memory
 *           (race_shared_alloc); false: search @i again alone, as one
 *           that did not hold is
 *
 * A process per scenario costs more than most scenarios' searches (a fork
 * of an ASan process, its first touch of every page, its exit): lincheck's
 * hundreds of small scenarios share one.  Each scenario's search is the
 * one race_search() makes: the threads are started afresh, the strategy
 * begins anew, every execution resets what it runs on.
 *
 * Returns the index of the first scenario that did not hold (a verdict, a
 * crash, a hang: the caller searches it again alone, with race_search(),
 * whose fresh process gives the verdict and the steps it reports), or @n.
 * Under --os-threads or --debug, @from: every scenario is searched alone.
 */
int race_search_many(int from, int n, void (*prepare)(int i), bool (*held)(int i))
{
	static int *next;

	if (race_opt.os_threads || race_opt.in_process)
		return from;
	if (!next)
		next = race_shared_alloc(sizeof(*next));
	*next = from;
	many.n = n;
	many.prepare = prepare;
	many.held = held;
	many.next = next;
	if (search_in_child(many_main) == RACE_RUN_OK && *next >= n)
		return n;
	return *next;
}

/** race_shared_alloc - @size zeroed bytes that the search process and its
 * parent share (or exit(2) if there is no memory) */
void *race_shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("race: mmap");
		exit(2);
	}
	return p;
}
