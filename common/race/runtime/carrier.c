// SPDX-License-Identifier: GPL-2.0
/*
 * carrier.c - what the threads of an execution run on.
 *
 * Exactly one thread of an execution runs at a time; handing the token to
 * another is race_carrier_switch(from, to).  Two carriers:
 *
 *  - contexts (the default): every thread of the execution is a stack of
 *    its own on the search's one OS thread, and a switch is a few
 *    instructions that save one stack pointer and load another
 *    (ctx_switch below), as loom and shuttle run their threads as
 *    coroutines.  No system call, no kernel scheduler: a hand-off between
 *    OS threads (a semaphore posted, another waited on) cost most of an
 *    execution.  AddressSanitizer is told of every switch
 *    (asan_start_switch_fiber/asan_finish_switch_fiber, sanitizer.h), so
 *    it knows which stack it is on;
 *  - OS threads (race_opt.os_threads: --os-threads, and always under
 *    --debug and for `race replay`): every thread runs on a pthread of its
 *    own, named T1..Tn, RCU, IRQk, so that gdb, rr and ps show them; the
 *    switch posts the next thread's semaphore and waits on its own.
 *
 * The search's main thread (NULL here) starts an execution by switching to
 * T1 and gets the token back when the execution is over.  Either way the
 * execution is the same: the carriers differ in nothing the threads can
 * see but their stacks' addresses (which the trace never prints).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "race/runtime/sched.h"
#include "sanitizer.h"

#define STACK_SIZE	(1UL << 20)	/* per context: scenario code is shallow */
#define GUARD_SIZE	(64UL << 10)	/* unmapped below it: overflow faults */

struct race_carrier {
	struct race_thread *t;		/* NULL: the search's main thread */
	void (*fn)(struct race_thread *t);
	/* an OS thread */
	pthread_t pt;
	sem_t sem;
	/* a context */
	void *sp;			/* its stack pointer while it waits */
	void *stack;			/* the lowest usable byte */
	size_t size;
	void *fake_stack;		/* ASan's, while it waits */
	bool started;			/* it has run */
	bool os;			/* pt is its OS thread */
};

static struct race_carrier carriers[RACE_NR_SLOTS], main_carrier;
static bool os_threads;
static struct race_carrier *entering;	/* a context about to run the first time */
static struct race_carrier *leaving;	/* ... and the one it is entered from */

static void sem_wait_intr(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/* --- contexts ------------------------------------------------------------------ */

void race_ctx_switch(void **save_sp, void *load_sp);

/*
 * race_ctx_switch(save_sp, load_sp): push the callee-saved registers (and
 * the x87 and SSE control words) on this stack, store the stack pointer
 * in *save_sp, load load_sp, pop the same from there and return into the
 * code that last left that stack -- or, the first time, into ctx_entry().
 */
#ifdef __x86_64__
__asm__(".text\n"
	".globl race_ctx_switch\n"
	".type race_ctx_switch, @function\n"
	"race_ctx_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size race_ctx_switch, .-race_ctx_switch\n");
#define CTX_SAVED	7	/* 8-byte words below the return address */
#define HAVE_CONTEXTS	1
#else
#define HAVE_CONTEXTS	0	/* elsewhere: OS threads */
void race_ctx_switch(void **save_sp __maybe_unused, void *load_sp __maybe_unused)
{
	abort();
}
#endif

/*
 * The first code a context runs: tell ASan it is here (it answers with
 * the stack it came from: the main thread's, the first time), run.
 */
static void __noreturn ctx_entry(void)
{
	struct race_carrier *c = entering;
	const void *bottom = NULL;
	size_t size = 0;

	asan_finish_switch_fiber(NULL, &bottom, &size);
	if (leaving == &main_carrier && !main_carrier.stack) {
		main_carrier.stack = (void *)bottom;
		main_carrier.size = size;
	}
	c->fn(c->t);		/* never returns */
	abort();
}

/*
 * A stack for @c, with its first switch set to enter ctx_entry().  A
 * carrier started again (the next scenario of the same search process,
 * race_search_many) keeps its stack: what the old context left on it is
 * abandoned, and ASan forgets the frames it had poisoned there.
 */
static void ctx_make(struct race_carrier *c)
{
	char *map;
	uintptr_t *sp;

	if (c->stack) {
		asan_unpoison(c->stack, c->size);
	} else {
		map = mmap(NULL, GUARD_SIZE + STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (map == MAP_FAILED)
			race_fail("crash", "no memory for a context's stack");
		mprotect(map, GUARD_SIZE, PROT_NONE);
		c->stack = map + GUARD_SIZE;
		c->size = STACK_SIZE;
	}
	c->started = false;
	c->fake_stack = NULL;
	sp = (uintptr_t *)((char *)c->stack + c->size);
	*--sp = 0;				/* ctx_entry's "return address" */
	*--sp = (uintptr_t)ctx_entry;		/* where the switch returns */
	sp -= CTX_SAVED - 1;			/* rbp .. r15: 0 */
	*--sp = 0x037f00001f80ULL;		/* fcw 0x37f, mxcsr 0x1f80 */
	c->sp = sp;
}

static void ctx_switch(struct race_carrier *from, struct race_carrier *to)
{
	if (!to->started) {
		to->started = true;
		entering = to;
		leaving = from;
	}
	asan_start_switch_fiber(&from->fake_stack, to->stack, to->size);
	race_ctx_switch(&from->sp, to->sp);
	asan_finish_switch_fiber(from->fake_stack, NULL, NULL);
}

/* --- both ---------------------------------------------------------------------- */

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

/**
 * race_carriers_init - before the first race_carrier_start(); @threads:
 * OS threads rather than contexts
 */
void race_carriers_init(bool threads)
{
	os_threads = threads || !HAVE_CONTEXTS;
	main_carrier.started = true;
	sem_init(&main_carrier.sem, 0, 0);
}

/**
 * race_carrier_start - give @t a carrier on which @fn(@t) will run once
 * the token first comes to @t
 *
 * With contexts it may be called again for the same slot, once the search
 * is between executions: the slot's old context is abandoned where it
 * waits, and the new one starts from @fn.
 */
void race_carrier_start(struct race_thread *t, void (*fn)(struct race_thread *t))
{
	struct race_carrier *c = &carriers[t->id - 1];

	c->t = t;
	c->fn = fn;
	t->carrier = c;
	if (!os_threads) {
		ctx_make(c);
		return;
	}
	sem_init(&c->sem, 0, 0);
	if (pthread_create(&c->pt, NULL, os_main, c))
		race_fail("crash", "pthread_create failed");
	c->os = true;
}

/**
 * race_carrier_switch - hand the token from @from to @to (NULL: the
 * search's main thread) and wait until it comes back to @from
 *
 * Guarantees: when it returns, @from holds the token and race_self() is
 * @from again.
 */
void race_carrier_switch(struct race_thread *from, struct race_thread *to)
{
	struct race_carrier *f = from ? from->carrier : &main_carrier;
	struct race_carrier *n = to ? to->carrier : &main_carrier;

	if (os_threads) {
		sem_post(&n->sem);
		sem_wait_intr(&f->sem);
		return;
	}
	race_set_self(to);
	ctx_switch(f, n);
	race_set_self(from);
}

/**
 * race_clock_ms - the time of @clock, in ms (CLOCK_MONOTONIC: a wall
 * clock; a CPU-time clock: the CPU its thread or process used so far); 0
 * if it cannot be read
 */
double race_clock_ms(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/**
 * race_carriers_cpu_ms - the CPU time, in ms, that the calling OS thread
 * and the carriers' own OS threads have used so far
 *
 * Each OS thread's own clock, to the nanosecond, and not the process's:
 * while a process CPU timer is armed (the search's watchdog, ITIMER_PROF),
 * Linux moves the process's clock on only at the scheduler's tick, 4 ms on
 * the kit's VMs, as long as a short search.  With contexts every thread of
 * an execution runs on the calling OS thread, and its clock is the whole.
 */
double race_carriers_cpu_ms(void)
{
	double ms = race_clock_ms(CLOCK_THREAD_CPUTIME_ID);
	clockid_t clock;
	int i;

	for (i = 0; i < RACE_NR_SLOTS; i++)
		if (carriers[i].os && !pthread_getcpuclockid(carriers[i].pt, &clock))
			ms += race_clock_ms(clock);
	return ms;
}
