// SPDX-License-Identifier: GPL-2.0
/*
 * ir.c - reads the program tools/litmus_parse.py writes (litmus.h says
 * its format) into a struct litmus_prog.
 *
 * Everything is checked as it is read -- a register, a variable or a
 * primitive that does not exist, an argument count, a statement where an
 * expression must be, nesting past LITMUS_MAX_DEPTH -- so that the
 * interpreter never meets a program it cannot run: a malformed file is
 * one message "PATH:LINE: what", and the binary exits 2 before any search.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "litmus/litmus.h"

#define MAX_IR_SIZE	(1 << 20)

struct reader {
	const char *path;
	int line;
	char *err;
	size_t len;
	const char *p;			/* the s-expression being read */
	const struct litmus_prog *prog;
	int nr_regs;			/* of the process being read */
};

static const char *const ops[] = {
	[LO_NOT] = "not", [LO_BNOT] = "bnot", [LO_NEG] = "neg",
	[LO_ADD] = "add", [LO_SUB] = "sub", [LO_MUL] = "mul", [LO_DIV] = "div",
	[LO_MOD] = "mod", [LO_AND] = "and", [LO_OR] = "or", [LO_XOR] = "xor",
	[LO_SHL] = "shl", [LO_SHR] = "shr", [LO_EQ] = "eq", [LO_NE] = "ne",
	[LO_LT] = "lt", [LO_GT] = "gt", [LO_LE] = "le", [LO_GE] = "ge",
	[LO_LAND] = "land", [LO_LOR] = "lor",
};

static const char *const kinds[] = {
	[LN_SEQ] = "seq", [LN_LINE] = "line", [LN_IF] = "if", [LN_SET] = "set",
	[LN_EVAL] = "eval", [LN_INT] = "int", [LN_REG] = "reg", [LN_ADDR] = "addr",
	[LN_UN] = "un", [LN_BIN] = "bin", [LN_COND] = "cond", [LN_CALL] = "call",
};

/* Record the first error; returns -1. */
static __printf(2, 3) int fail(struct reader *r, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (r->err[0])
		return -1;
	n = snprintf(r->err, r->len, "%s:%d: ", r->path, r->line);
	va_start(ap, fmt);
	if (n < r->len)
		vsnprintf(r->err + n, r->len - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The index of @word in @table (@n entries), or -1. */
static int lookup(const char *const *table, int n, const char *word)
{
	int i;

	for (i = 0; i < n; i++)
		if (table[i] && !strcmp(table[i], word))
			return i;
	return -1;
}

/* The next atom of the s-expression into @buf; false at a parenthesis. */
static bool atom(struct reader *r, char *buf, size_t len)
{
	size_t n = 0;

	while (*r->p == ' ')
		r->p++;
	while (*r->p && *r->p != ' ' && *r->p != '(' && *r->p != ')') {
		if (n + 1 < len)
			buf[n++] = *r->p;
		r->p++;
	}
	buf[n] = 0;
	return n > 0;
}

/* @s as a number (all of it), into @v. */
static bool number(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return *s && !*end && !errno;
}

static struct litmus_node *sexp(struct reader *r, int depth);

/* The children of @n up to its ')'. */
static int children(struct reader *r, struct litmus_node *n, int depth)
{
	for (;;) {
		while (*r->p == ' ')
			r->p++;
		if (*r->p == ')') {
			r->p++;
			return 0;
		}
		if (!*r->p)
			return fail(r, "an s-expression that never ends");
		n->kid = realloc(n->kid, (n->nr + 1) * sizeof(*n->kid));
		if (!n->kid)
			abort();
		n->kid[n->nr] = sexp(r, depth + 1);
		if (!n->kid[n->nr++])
			return -1;
	}
}

/* A number child of a node: (int N), (reg R), (line N S), (set R E) ... */
static int number_arg(struct reader *r, struct litmus_node *n, long lo, long hi,
		      const char *what)
{
	char buf[32];

	if (!atom(r, buf, sizeof(buf)) || !number(buf, &n->val))
		return fail(r, "(%s ...): expected %s", kinds[n->kind], what);
	if (n->val < lo || n->val > hi)
		return fail(r, "(%s %ld): %s out of range", kinds[n->kind], n->val, what);
	return 0;
}

/* The head of a node and what follows it before the children. */
static int head(struct reader *r, struct litmus_node *n)
{
	char buf[LITMUS_NAME_LEN];

	switch (n->kind) {
	case LN_LINE:
		return number_arg(r, n, 1, 1000000, "a line");
	case LN_INT:
		return number_arg(r, n, -(1L << 40), 1L << 40, "a number");
	case LN_REG:
	case LN_SET:
		return number_arg(r, n, 0, r->nr_regs - 1, "a register");
	case LN_ADDR:
		return number_arg(r, n, 0, r->prog->nr_vars - 1, "a variable");
	case LN_UN:
	case LN_BIN:
		atom(r, buf, sizeof(buf));
		n->op = lookup(ops, ARRAY_SIZE(ops), buf);
		if (n->op < 0 || (n->kind == LN_UN) != (n->op <= LO_NEG))
			return fail(r, "(%s %s ...): no such operator", kinds[n->kind], buf);
		return 0;
	case LN_CALL:
		atom(r, buf, sizeof(buf));
		for (n->op = 0; n->op < litmus_nr_prims; n->op++)
			if (!strcmp(litmus_prims[n->op].name, buf))
				return 0;
		return fail(r, "(call %s ...): no such primitive", buf);
	default:
		return 0;
	}
}

/* Whether @n is a statement (else an expression). */
static bool statement(const struct litmus_node *n)
{
	return n->kind <= LN_EVAL;
}

/* The shape of @n: how many children, and which are statements. */
static int shape(struct reader *r, const struct litmus_node *n)
{
	static const int want[] = {
		[LN_SEQ] = -1, [LN_LINE] = 1, [LN_IF] = 3, [LN_SET] = 1,
		[LN_EVAL] = 1, [LN_INT] = 0, [LN_REG] = 0, [LN_ADDR] = 0,
		[LN_UN] = 1, [LN_BIN] = 2, [LN_COND] = 3, [LN_CALL] = -2,
	};
	int nr = want[n->kind], i;

	if (nr == -2)
		nr = litmus_prims[n->op].nargs;
	if (nr >= 0 && n->nr != nr)
		return fail(r, "(%s ...): %d argument(s), expected %d", kinds[n->kind],
			    n->nr, nr);
	for (i = 0; i < n->nr; i++) {
		bool stmt = n->kind == LN_SEQ || n->kind == LN_LINE ||
			    (n->kind == LN_IF && i > 0);

		if (statement(n->kid[i]) != stmt)
			return fail(r, "(%s ...): argument %d must be %s", kinds[n->kind],
				    i + 1, stmt ? "a statement" : "an expression");
	}
	return 0;
}

static struct litmus_node *sexp(struct reader *r, int depth)
{
	struct litmus_node *n;
	char buf[16];
	int kind;

	while (*r->p == ' ')
		r->p++;
	if (*r->p != '(') {
		fail(r, "expected '(' at \"%.20s\"", r->p);
		return NULL;
	}
	if (depth > LITMUS_MAX_DEPTH) {
		fail(r, "nested deeper than %d", LITMUS_MAX_DEPTH);
		return NULL;
	}
	r->p++;
	atom(r, buf, sizeof(buf));
	kind = lookup(kinds, ARRAY_SIZE(kinds), buf);
	if (kind < 0) {
		fail(r, "(%s ...): no such node", buf);
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		abort();
	n->kind = kind;
	if (head(r, n) || children(r, n, depth) || shape(r, n))
		return NULL;
	return n;
}

/* An initial value "n:<number>" or "a:<variable>". */
static int value(struct reader *r, const char *s, struct litmus_value *v)
{
	v->is_addr = !strncmp(s, "a:", 2);
	if ((strncmp(s, "n:", 2) && !v->is_addr) || !number(s + 2, &v->n))
		return fail(r, "expected n:<number> or a:<variable>, got '%s'", s);
	if (v->is_addr && (v->n < 0 || v->n >= r->prog->nr_vars))
		return fail(r, "a:%ld: no such variable", v->n);
	return 0;
}

/* The next line into @buf (without its newline); false at the end. */
static bool next_line(struct reader *r, char **text, char **line)
{
	char *nl;

	if (!**text)
		return false;
	*line = *text;
	nl = strchr(*text, '\n');
	if (nl) {
		*nl = 0;
		*text = nl + 1;
	} else {
		*text += strlen(*text);
	}
	r->line++;
	return true;
}

/* "var I KIND VALUE NAME" */
static int var_line(struct reader *r, struct litmus_prog *prog, int i, const char *line)
{
	static const char *const vkinds[] = { "int", "atomic", "lock" };
	char kind[16], val[32], name[LITMUS_NAME_LEN];
	int idx, k;

	if (sscanf(line, "var %d %15s %31s %63s", &idx, kind, val, name) != 4 || idx != i)
		return fail(r, "expected 'var %d <kind> <value> <name>'", i);
	k = lookup(vkinds, ARRAY_SIZE(vkinds), kind);
	if (k < 0)
		return fail(r, "var %d: no such kind '%s'", i, kind);
	prog->vars[i].kind = k;
	snprintf(prog->vars[i].name, sizeof(prog->vars[i].name), "%s", name);
	return value(r, val, &prog->vars[i].init);
}

/* "proc I NREGS", "reg R VALUE"..., "body SEXP" */
static int proc_lines(struct reader *r, struct litmus_prog *prog, int i, char **text)
{
	struct litmus_proc *p = &prog->procs[i];
	char *line, val[32];
	int idx, reg;

	if (!next_line(r, text, &line) || sscanf(line, "proc %d %d", &idx, &p->nr_regs) != 2 ||
	    idx != i || p->nr_regs < 0 || p->nr_regs > LITMUS_MAX_REGS)
		return fail(r, "expected 'proc %d <registers>' (at most %d)", i, LITMUS_MAX_REGS);
	r->nr_regs = p->nr_regs;
	while (next_line(r, text, &line) && !strncmp(line, "reg ", 4)) {
		if (sscanf(line, "reg %d %31s", &reg, val) != 2 || reg < 0 || reg >= p->nr_regs)
			return fail(r, "expected 'reg <register> <value>'");
		if (value(r, val, &p->init[reg]))
			return -1;
	}
	if (strncmp(line, "body ", 5))
		return fail(r, "expected 'body (...)'");
	r->p = line + 5;
	p->body = sexp(r, 0);
	if (!p->body)
		return -1;
	while (*r->p == ' ')
		r->p++;
	if (*r->p)
		return fail(r, "unexpected \"%.20s\" after the body", r->p);
	if (!statement(p->body))
		return fail(r, "a body must be a statement");
	return 0;
}

/* The whole program from @text. */
static int program(struct reader *r, struct litmus_prog *prog, char *text)
{
	char *line;
	int i;

	if (!next_line(r, &text, &line) || strcmp(line, "litmus-ir 1"))
		return fail(r, "expected 'litmus-ir 1'");
	if (!next_line(r, &text, &line) || strncmp(line, "name ", 5))
		return fail(r, "expected 'name <test>'");
	snprintf(prog->name, sizeof(prog->name), "%s", line + 5);
	if (!next_line(r, &text, &line) || sscanf(line, "vars %d", &prog->nr_vars) != 1 ||
	    prog->nr_vars < 0 || prog->nr_vars > LITMUS_MAX_VARS)
		return fail(r, "expected 'vars <n>' (at most %d)", LITMUS_MAX_VARS);
	for (i = 0; i < prog->nr_vars; i++)
		if (!next_line(r, &text, &line) || var_line(r, prog, i, line))
			return fail(r, "expected 'var %d ...'", i);
	if (!next_line(r, &text, &line) || sscanf(line, "procs %d", &prog->nr_procs) != 1 ||
	    prog->nr_procs < 1 || prog->nr_procs > LITMUS_MAX_PROCS)
		return fail(r, "expected 'procs <n>' (1 to %d)", LITMUS_MAX_PROCS);
	for (i = 0; i < prog->nr_procs; i++)
		if (proc_lines(r, prog, i, &text))
			return -1;
	if (!next_line(r, &text, &line) || strcmp(line, "end"))
		return fail(r, "expected 'end'");
	return 0;
}

/**
 * litmus_load - read the IR at @path into @prog; 0, or -1 and @err
 */
int litmus_load(const char *path, struct litmus_prog *prog, char *err, size_t len)
{
	struct reader r = { .path = path, .err = err, .len = len, .prog = prog };
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int ret;

	err[0] = 0;
	memset(prog, 0, sizeof(*prog));
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	text = malloc(MAX_IR_SIZE + 1);
	if (!text)
		abort();
	n = fread(text, 1, MAX_IR_SIZE + 1, f);
	fclose(f);
	if (n > MAX_IR_SIZE) {
		free(text);
		snprintf(err, len, "%s: larger than %d bytes", path, MAX_IR_SIZE);
		return -1;
	}
	text[n] = 0;
	if (strlen(text) != n)
		ret = fail(&r, "a NUL byte");
	else
		ret = program(&r, prog, text);
	free(text);
	return ret;
}
