/* SPDX-License-Identifier: GPL-2.0 */
/*
 * litmus.h - the C-litmus front end of the race reproducer: a small
 * interpreter of the kernel's litmus tests (make litmus FILE=x.litmus).
 *
 * tools/litmus_parse.py reads the LKMM's litmus format and writes the
 * test as a small program (the "IR", below); this interpreter runs it as a
 * race scenario under the reproducer's weak memory model, every access
 * made with the kit's own primitives (READ_ONCE, smp_store_release,
 * atomic_t, spin_lock, rcu_read_lock, ...) or, for the kernel's
 * ordering variants that common/ does not have, with the hooks of
 * race_hooks.h exactly as common/atomic.h makes its atomics.  It sits on
 * top of the reproducer: it registers scenarios (race/scenario.h) and
 * calls primitives, nothing else of common/race/.
 *
 *   ir.c    reads the IR into a struct litmus_prog
 *   ops.c   the kernel's primitives, one case each
 *   run.c   the scenarios litmus2..4: setup, the processes, the final
 *           states written to $LITMUS_STATES
 *
 * The IR, one item per line (tools/litmus_parse.py writes it):
 *
 *   litmus-ir 1
 *   name <test name>
 *   vars <n>
 *   var <i> int|atomic|lock n:<value>|a:<var> <name>    n lines
 *   procs <n>
 *   proc <i> <registers>
 *   reg <r> n:<value>|a:<var>                           initial registers
 *   body <statement>
 *   ...
 *   end
 *
 * A statement or expression is an s-expression:
 *   (seq S...)  (line N S)  (if E S S)  (set R E)  (eval E)
 *   (int N)  (reg R)  (addr V)  (un OP E)  (bin OP E E)  (cond E E E)
 *   (call PRIMITIVE E...)
 */
#ifndef KIT_LITMUS_H
#define KIT_LITMUS_H

#include <stdbool.h>
#include <stddef.h>

#define LITMUS_MAX_PROCS	4	/* RACE_MAX_THREADS */
#define LITMUS_MAX_REGS		32
#define LITMUS_MAX_VARS		32
#define LITMUS_MAX_DEPTH	64	/* nesting of an s-expression */
#define LITMUS_NAME_LEN		64

enum litmus_var_kind { LITMUS_INT, LITMUS_ATOMIC, LITMUS_LOCK };

enum litmus_node_kind {
	LN_SEQ, LN_LINE, LN_IF, LN_SET, LN_EVAL,
	LN_INT, LN_REG, LN_ADDR, LN_UN, LN_BIN, LN_COND, LN_CALL,
};

/**
 * struct litmus_node - one statement or expression of a process
 * @kind: what it is
 * @op:   LN_UN, LN_BIN: the operator (enum litmus_op); LN_CALL: the
 *        primitive (its index in litmus_prims[])
 * @val:  LN_INT: the number; LN_REG, LN_SET: the register; LN_ADDR: the
 *        variable; LN_LINE: the line of the litmus file
 * @nr, @kid: the children
 */
struct litmus_node {
	enum litmus_node_kind kind;
	int op;
	long val;
	int nr;
	struct litmus_node **kid;
};

enum litmus_op {
	LO_NOT, LO_BNOT, LO_NEG,
	LO_ADD, LO_SUB, LO_MUL, LO_DIV, LO_MOD, LO_AND, LO_OR, LO_XOR,
	LO_SHL, LO_SHR, LO_EQ, LO_NE, LO_LT, LO_GT, LO_LE, LO_GE,
	LO_LAND, LO_LOR,
};

/* An initial value: a number, or the address of variable @var. */
struct litmus_value {
	bool is_addr;
	long n;
};

struct litmus_var {
	enum litmus_var_kind kind;
	struct litmus_value init;
	char name[LITMUS_NAME_LEN];
};

struct litmus_proc {
	int nr_regs;
	struct litmus_value init[LITMUS_MAX_REGS];
	struct litmus_node *body;
};

struct litmus_prog {
	char name[LITMUS_NAME_LEN];
	int nr_vars, nr_procs;
	struct litmus_var vars[LITMUS_MAX_VARS];
	struct litmus_proc procs[LITMUS_MAX_PROCS];
};

/**
 * struct litmus_prim - a primitive the interpreter knows
 * @name:   the kernel's name
 * @nargs:  how many arguments it takes
 * @kind:   the kind of variable its first pointer argument must be, or -1
 * @ptr:    which argument is the pointer (-1: none)
 */
struct litmus_prim {
	const char *name;
	int nargs;
	int kind;
	int ptr;
};

extern const struct litmus_prim litmus_prims[];
extern const int litmus_nr_prims;

/**
 * litmus_load - read the IR at @path into @prog
 *
 * Returns 0, or -1 with a message "PATH:LINE: what" in @err.
 */
int litmus_load(const char *path, struct litmus_prog *prog, char *err, size_t len);

/**
 * struct litmus_mem - the variables of one execution: where each lives
 */
struct litmus_mem {
	const struct litmus_prog *prog;
	void *obj[LITMUS_MAX_VARS];
};

/**
 * litmus_call - perform primitive @n (an LN_CALL) with the argument
 * values @args, in the calling scenario thread; returns its value (0 for
 * those that return none)
 *
 * @line is the litmus file's line, for the verdict "litmus" when an
 * address is no variable's or the variable is of the wrong kind.
 */
long litmus_call(const struct litmus_mem *mem, const struct litmus_node *n,
		 const long *args, long line);

#endif /* KIT_LITMUS_H */
