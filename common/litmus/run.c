// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - a litmus test as a race scenario: its variables, its processes
 * interpreted, and every final state it reaches.
 *
 * The program is $LITMUS_IR (tools/litmus.py writes it), read once when
 * the binary starts: a malformed one is one line and exit status 2.  The
 * binary has three scenarios, litmus2, litmus3 and litmus4, the same but
 * for their number of threads (P0..Pn-1; a test of one process runs as
 * litmus2 with an empty P1).  Each is a must-hold under the weak memory
 * model whose check() never fails: it appends the execution's final state
 * to $LITMUS_STATES, once per distinct state, and the front end judges
 * the test's condition on them.  Every variable is an object of its own
 * (kzalloc), so that an address dependency through a pointer to one
 * orders accesses to that one only, as in the LKMM.
 *
 * A state is one line: each process's registers, in the order the IR
 * numbers them, then every variable, the groups separated by '|'; a value
 * that is a variable's address is written "&<variable>"; a last group
 * "data-race" if the execution had one (the scenarios judge their own
 * WARNs, RACE_WARNS_CHECKED, and the weak model's data races are counted
 * with them: race_warn_count()).  With
 * $LITMUS_STOP (make litmus SHOW=1), the first execution that ends in one
 * of the states that file lists fails its check, and the reproducer
 * prints its timeline.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "litmus/litmus.h"
#include "race/scenario.h"
#include "race_hooks.h"
#include "slab.h"
#include "spinlock.h"

#define STATE_LEN	4096
#define SEEN_SLOTS	8192		/* distinct states remembered per search */

static struct litmus_prog prog;
static bool loaded;
static struct litmus_mem mem = { .prog = &prog };
static long regs[LITMUS_MAX_PROCS][LITMUS_MAX_REGS];
static int states_fd = -1;
static char *seen[SEEN_SLOTS];
static int nr_seen;

/* Read $LITMUS_IR before main(); a bad program ends the binary. */
static void __attribute__((constructor)) load(void)
{
	const char *path = getenv("LITMUS_IR");
	char err[512];

	if (!path)
		return;
	if (litmus_load(path, &prog, err, sizeof(err))) {
		fprintf(stderr, "litmus: %s\n", err);
		exit(2);
	}
	loaded = true;
}

/* The size of a variable of @kind. */
static size_t var_size(enum litmus_var_kind kind)
{
	return kind == LITMUS_ATOMIC ? sizeof(atomic_t) :
	       kind == LITMUS_LOCK ? sizeof(spinlock_t) : sizeof(long);
}

static long initial(const struct litmus_value *v)
{
	return v->is_addr ? (long)mem.obj[v->n] : v->n;
}

/* Every variable a fresh object with its initial value; the registers. */
static void setup(void)
{
	int i, j;

	if (!loaded)
		race_report("litmus", "no program: run it as tools/litmus.py does "
			    "(LITMUS_IR names the program)");
	for (i = 0; i < prog.nr_vars; i++)
		mem.obj[i] = kzalloc(var_size(prog.vars[i].kind), GFP_KERNEL);
	for (i = 0; i < prog.nr_vars; i++) {
		if (prog.vars[i].kind == LITMUS_INT)
			*(long *)mem.obj[i] = initial(&prog.vars[i].init);
		else if (prog.vars[i].kind == LITMUS_ATOMIC)
			((atomic_t *)mem.obj[i])->counter = (int)initial(&prog.vars[i].init);
		else
			spin_lock_init(mem.obj[i]);
	}
	for (i = 0; i < prog.nr_procs; i++)
		for (j = 0; j < LITMUS_MAX_REGS; j++)
			regs[i][j] = j < prog.procs[i].nr_regs ?
				     initial(&prog.procs[i].init[j]) : 0;
}

static void teardown(void)
{
	int i;

	for (i = 0; i < prog.nr_vars; i++)
		kfree(mem.obj[i]);
}

static long eval(const struct litmus_node *n, long *r, long line);

/* An operator on its operands' values. */
static long operate(int op, long a, long b)
{
	switch (op) {
	case LO_NOT:	return !a;
	case LO_BNOT:	return ~a;
	case LO_NEG:	return -a;
	case LO_ADD:	return a + b;
	case LO_SUB:	return a - b;
	case LO_MUL:	return a * b;
	case LO_DIV:	return b ? a / b : 0;
	case LO_MOD:	return b ? a % b : 0;
	case LO_AND:	return a & b;
	case LO_OR:	return a | b;
	case LO_XOR:	return a ^ b;
	case LO_SHL:	return b >= 0 && b < 64 ? (long)((unsigned long)a << b) : 0;
	case LO_SHR:	return b >= 0 && b < 64 ? a >> b : 0;
	case LO_EQ:	return a == b;
	case LO_NE:	return a != b;
	case LO_LT:	return a < b;
	case LO_GT:	return a > b;
	case LO_LE:	return a <= b;
	default:	return a >= b;
	}
}

/* The value of expression @n, in a process with registers @r. */
static long eval(const struct litmus_node *n, long *r, long line)
{
	long args[3];
	int i;

	switch (n->kind) {
	case LN_INT:
		return n->val;
	case LN_REG:
		return r[n->val];
	case LN_ADDR:
		return (long)mem.obj[n->val];
	case LN_UN:
		return operate(n->op, eval(n->kid[0], r, line), 0);
	case LN_BIN:
		if (n->op == LO_LAND)
			return eval(n->kid[0], r, line) && eval(n->kid[1], r, line);
		if (n->op == LO_LOR)
			return eval(n->kid[0], r, line) || eval(n->kid[1], r, line);
		args[0] = eval(n->kid[0], r, line);
		return operate(n->op, args[0], eval(n->kid[1], r, line));
	case LN_COND:
		return eval(n->kid[0], r, line) ? eval(n->kid[1], r, line) :
						  eval(n->kid[2], r, line);
	default:			/* LN_CALL: arguments left to right */
		for (i = 0; i < n->nr; i++)
			args[i] = eval(n->kid[i], r, line);
		return litmus_call(&mem, n, args, line);
	}
}

/* Statement @n of a process with registers @r; @line: where it is. */
static void exec(const struct litmus_node *n, long *r, long line)
{
	int i;

	switch (n->kind) {
	case LN_SEQ:
		for (i = 0; i < n->nr; i++)
			exec(n->kid[i], r, line);
		break;
	case LN_LINE:
		exec(n->kid[0], r, n->val);
		break;
	case LN_IF:
		exec(n->kid[eval(n->kid[0], r, line) ? 1 : 2], r, line);
		break;
	case LN_SET:
		r[n->val] = eval(n->kid[0], r, line);
		break;
	default:			/* LN_EVAL */
		eval(n->kid[0], r, line);
		break;
	}
}

/* Process @i, if the test has it. */
static void process(int i)
{
	if (i < prog.nr_procs)
		exec(prog.procs[i].body, regs[i], 0);
}

static void P0(void) { process(0); }
static void P1(void) { process(1); }
static void P2(void) { process(2); }
static void P3(void) { process(3); }

/* " <value>" of @v at the end of @buf: a number, or &<variable>. */
static size_t put_value(char *buf, size_t at, long v)
{
	int i;

	for (i = 0; i < prog.nr_vars; i++)
		if ((long)mem.obj[i] == v && v)
			return at + snprintf(buf + at, STATE_LEN - at, " &%d", i);
	return at + snprintf(buf + at, STATE_LEN - at, " %ld", v);
}

/* The final value of variable @i (every thread has returned). */
static long final(int i)
{
	if (prog.vars[i].kind == LITMUS_INT)
		return __atomic_load_n((long *)mem.obj[i], __ATOMIC_RELAXED);
	if (prog.vars[i].kind == LITMUS_ATOMIC)
		return __atomic_load_n(&((atomic_t *)mem.obj[i])->counter, __ATOMIC_RELAXED);
	return spin_is_locked(mem.obj[i]);
}

/* Whether @state was written before in this search; remembers it. */
static bool already(const char *state)
{
	unsigned long h = 5381;
	const char *c;
	int i;

	for (c = state; *c; c++)
		h = h * 33 + (unsigned char)*c;
	for (i = h % SEEN_SLOTS; seen[i]; i = (i + 1) % SEEN_SLOTS)
		if (!strcmp(seen[i], state))
			return true;
	if (nr_seen < SEEN_SLOTS / 2) {
		seen[i] = strdup(state);
		nr_seen++;
	}
	return false;
}

/*
 * Whether @state is one of $LITMUS_STOP's lines: the states, found by an
 * earlier search, that satisfy the test's condition.  The front end's
 * SHOW=1 runs the search again with them, and the first execution that
 * ends in one fails its check: the reproducer prints its timeline.
 */
static bool stop_at(const char *state)
{
	static char *stop;
	static bool read_stop;
	const char *path = getenv("LITMUS_STOP"), *hit;
	FILE *f;

	if (!read_stop && path && (f = fopen(path, "r"))) {
		stop = calloc(1, 1 << 20);
		if (stop && fread(stop, 1, (1 << 20) - 1, f) == 0)
			stop[0] = 0;
		fclose(f);
	}
	read_stop = true;
	for (hit = stop; hit && (hit = strstr(hit, state)); hit++)
		if (hit == stop || hit[-1] == '\n')
			return true;
	return false;
}

/* The state of the execution that just ended, to $LITMUS_STATES. */
static const char *record(void)
{
	char buf[STATE_LEN];
	size_t at = 0;
	int i, j;

	for (i = 0; i < prog.nr_procs; i++) {
		for (j = 0; j < prog.procs[i].nr_regs; j++)
			at = put_value(buf, at, regs[i][j]);
		at += snprintf(buf + at, STATE_LEN - at, " |");
	}
	for (i = 0; i < prog.nr_vars; i++)
		at = put_value(buf, at, final(i));
	if (race_warn_count())
		at += snprintf(buf + at, STATE_LEN - at, " | data-race");
	at += snprintf(buf + at, STATE_LEN - at, "\n");
	if (at >= STATE_LEN)
		return NULL;
	if (stop_at(buf))
		return "the condition's outcome (make litmus SHOW=1): this execution "
		       "reaches it";
	if (already(buf))
		return NULL;
	if (states_fd < 0) {
		const char *path = getenv("LITMUS_STATES");

		states_fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT, 0644) : 1;
		if (states_fd < 0)
			return "cannot open $LITMUS_STATES";
	}
	if (write(states_fd, buf, at) != (ssize_t)at)
		return "cannot write $LITMUS_STATES";
	return NULL;
}

static bool ran(void)
{
	return true;
}

#define LITMUS_SCENARIO(id, n, ...)					\
	RACE_SCENARIO(id) = {						\
		.name = #id,						\
		.summary = "a litmus test of " #n " processes (make litmus)", \
		.expect = RACE_MUST_HOLD, .setup = setup,		\
		RACE_THREADS(__VA_ARGS__), .check = record,		\
		.witness = ran, .outcome = "an execution runs to its end", \
		.teardown = teardown, .memory = RACE_MEMORY_WEAK,	\
		.warns = RACE_WARNS_CHECKED,				\
	}

LITMUS_SCENARIO(litmus2, 2, P0, P1);
LITMUS_SCENARIO(litmus3, 3, P0, P1, P2);
LITMUS_SCENARIO(litmus4, 4, P0, P1, P2, P3);
