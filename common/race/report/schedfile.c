// SPDX-License-Identifier: GPL-2.0
/*
 * schedfile.c - schedule files: the versioned text of one interleaving.
 *
 *	race-schedule 1
 *	scenario lookup_unlocked_vs_remove
 *	lab 1
 *	binary build/labs/race/lab1/race
 *	build 9c1d3e0f5a7b2c44
 *	strategy dfs bound=1
 *	seed 0
 *	bounds preemptions=2 steps=10000
 *	step 1 T1 cache_lookup_unlocked.spin_lock @1 -
 *	...
 *	result use-after-free
 *
 * "step N THREAD LABEL [OBJECT VALUE]": thread THREAD performs step N, at
 * LABEL; on replay a thread that is not runnable there, or is at another
 * label, is a divergence, and the object and value are compared too.
 * THREAD is T1..Tn, RCU (the call_rcu thread) or IRQk (Tk's interrupt:
 * its step "irq.enter" delivers it there).
 * "run TOKEN..." is the short hand form: "T1" (one step of T1), "T1@LABEL"
 * (T1 up to and including its step at LABEL), "T1+" (T1 until it blocks
 * or ends).  After the last token or step, threads run without preemption.
 * "result KIND" is the verdict the interleaving must end in ("none" if it
 * must not fail).  "lab N" says which lab's binary replays it (the front
 * end reads it); "binary", "build", "strategy", "seed" and "bounds" are a
 * record of how it was found: nothing is ever run because a file names it.
 * Lines starting with '#' are comments.
 *
 * A schedule file is data that anyone may have edited, so reading one
 * survives every input: it must be a regular file of at most
 * RACE_SCHED_MAX_BYTES, read whole and split at '\n' (no line is too
 * long); every line but a comment must be printable ASCII; each kind of
 * line is a row of line_kinds[] whose parser checks its words.  Every
 * error is one line, "FILE:LINE: expected ..., got '...'", with the
 * offending text escaped.  Time and memory are linear in the file's size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "race/report/report.h"
#include "race/models/weak.h"

/**
 * race_build_id - a hash of the running binary, as 16 hex digits
 *
 * Replaying a file recorded by another build may diverge; the id says so.
 */
const char *race_build_id(void)
{
	static char id[17];
	unsigned long long h = 0xcbf29ce484222325ULL;
	unsigned char buf[65536];
	ssize_t n, i;
	int fd;

	if (id[0])
		return id;
	fd = open("/proc/self/exe", O_RDONLY);
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	if (fd >= 0)
		close(fd);
	snprintf(id, sizeof(id), "%016llx", h);
	return id;
}

/**
 * race_schedfile_write - write the execution in @sh as a schedule file
 * @lab:    the lab's number for the "lab" line (0: none)
 * @binary: the program that recorded it, for the "binary" line (a record)
 *
 * Guarantees: every line written is printable ASCII (a path with a newline
 * cannot add a line).  Returns 0, or -errno if the file cannot be written.
 */
int race_schedfile_write(const char *path, const struct race_shared *sh,
			 int lab, const char *binary, const char *strategy_desc)
{
	char line[256], esc_path[512], esc_bin[512];
	FILE *f = fopen(path, "w");
	long i;

	if (!f)
		return -errno;
	race_escape(esc_path, sizeof(esc_path), path, strlen(path));
	race_escape(esc_bin, sizeof(esc_bin), binary, strlen(binary));
	fprintf(f, "# A schedule of the race reproducer: replay it with\n"
		"#   make replay SCHED=%s\n"
		"# Format: docs/reproducer.md (\"Schedule files\").\n", esc_path);
	fprintf(f, "race-schedule 1\nscenario %s\n", race_sc->name);
	if (lab > 0)
		fprintf(f, "lab %d\n", lab);
	fprintf(f, "binary %s\nbuild %s\nstrategy %s\nseed %lu\n"
		"bounds preemptions=%d steps=%ld\n", esc_bin, race_build_id(),
		strategy_desc, race_opt.seed, race_opt.bound, sh->cap_steps);
	if (race_weak)
		fprintf(f, "memory weak\n");
	for (i = 0; i < sh->nr_steps; i++) {
		race_step_line(&sh->steps[i], i + 1, line, sizeof(line));
		fprintf(f, "%s\n", line);
		if (race_sees_line(&sh->steps[i], i + 1, line, sizeof(line)))
			fprintf(f, "%s\n", line);
	}
	fprintf(f, "result %s\n", sh->state == RACE_RUN_FAIL ? sh->kind : "none");
	if (fclose(f))
		return -errno;
	return 0;
}

/* --- reading ------------------------------------------------------------- */

/* A word of a line: not NUL-terminated. */
struct word {
	const char *s;
	size_t len;
};

/**
 * struct sched_parser - the state of reading one file (or --script)
 * @where: the file's name, escaped, for messages ("--script" for tokens)
 * @first: the line of the first line of each kind (0: none yet)
 */
struct sched_parser {
	struct race_schedfile *sf;
	const char *where;
	int line;
	int first[16];
	char *err;
	size_t errlen;
};

/* Set the error, "FILE:LINE: ..." (or "FILE: ..." for line 0); returns -1. */
static int __printf(2, 3) fail(struct sched_parser *p, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (p->line)
		n = snprintf(p->err, p->errlen, "%s:%d: ", p->where, p->line);
	else
		n = snprintf(p->err, p->errlen, "%s: ", p->where);
	if (n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* @w quoted and escaped into @buf (RACE_QUOTE_LEN bytes). */
static const char *q(char *buf, struct word w)
{
	return race_quote(buf, RACE_QUOTE_LEN, w.s, w.len);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next word of [*@s, @end) into @w; false at the end. */
static bool next_word(const char **s, const char *end, struct word *w)
{
	const char *p = *s;

	while (p < end && is_blank(*p))
		p++;
	if (p == end)
		return false;
	w->s = p;
	while (p < end && !is_blank(*p))
		p++;
	w->len = p - w->s;
	*s = p;
	return true;
}

/* Split [@s, @end) into at most @max words; how many there are in all. */
static int split(const char *s, const char *end, struct word *w, int max)
{
	struct word skip;
	int n = 0;

	while (next_word(&s, end, n < max ? &w[n] : &skip))
		n++;
	return n;
}

static bool word_is(struct word w, const char *s)
{
	return w.len == strlen(s) && !memcmp(w.s, s, w.len);
}

/* A decimal number of at most 9 digits, no sign; -1 if @w is not one. */
static long number(struct word w)
{
	long n = 0;
	size_t i;

	if (!w.len || w.len > 9)
		return -1;
	for (i = 0; i < w.len; i++) {
		if (w.s[i] < '0' || w.s[i] > '9')
			return -1;
		n = n * 10 + (w.s[i] - '0');
	}
	return n;
}

/* "T3" -> 3, "RCU" -> RACE_TOK_RCU, "IRQ2" -> RACE_TOK_IRQ(2); 0 if none
 * of them (numbered later, by race_schedfile_threads()). */
static int thread_of(struct word w)
{
	long n;

	if (word_is(w, "RCU"))
		return RACE_TOK_RCU;
	if (w.len > 3 && !memcmp(w.s, "IRQ", 3)) {
		n = number((struct word){ w.s + 3, w.len - 3 });
		return n >= 1 && n <= 99 ? RACE_TOK_IRQ(n) : 0;
	}
	if (w.len < 2 || w.s[0] != 'T')
		return 0;
	n = number((struct word){ w.s + 1, w.len - 1 });
	return n >= 1 && n <= 99 ? n : 0;
}

/* A label "function.op": no '@', a '.' neither first nor last. */
static bool is_label(struct word w)
{
	const char *dot = w.len ? memchr(w.s + 1, '.', w.len - 1) : NULL;

	return w.len < RACE_LABEL_LEN && dot && dot < w.s + w.len - 1 &&
	       !memchr(w.s, '@', w.len);
}

/* Copy @w into @dst of @len bytes; -1 if it does not fit. */
static int copy_word(char *dst, size_t len, struct word w)
{
	if (w.len >= len)
		return -1;
	memcpy(dst, w.s, w.len);
	dst[w.len] = 0;
	return 0;
}

/* A new zeroed token at the end; -1 past RACE_SCHED_MAX_TOKENS. */
static struct race_token *new_token(struct sched_parser *p)
{
	struct race_schedfile *sf = p->sf;
	struct race_token *t;

	if (sf->nr_tokens >= RACE_SCHED_MAX_TOKENS) {
		fail(p, "expected at most %d steps and run tokens in all (no "
		     "execution is that long), got more", RACE_SCHED_MAX_TOKENS);
		return NULL;
	}
	sf->tokens = race_grow(sf->tokens, sf->nr_tokens, &sf->cap_tokens,
			  sizeof(*sf->tokens));
	t = memset(&sf->tokens[sf->nr_tokens++], 0, sizeof(*t));
	t->line = p->line;
	return t;
}

/* One run token: "T1", "T1@kref_get.read" or "T1+". */
static int parse_token(struct sched_parser *p, struct word w)
{
	const char *at = memchr(w.s, '@', w.len);
	struct word thread = { w.s, at ? (size_t)(at - w.s) : w.len };
	struct word label = { at ? at + 1 : NULL, at ? w.len - thread.len - 1 : 0 };
	struct race_token *tok;
	char buf[RACE_QUOTE_LEN];

	if (!at && w.len > 1 && w.s[w.len - 1] == '+')
		thread.len--;
	if (!thread_of(thread) || (at && !is_label(label)))
		return fail(p, "expected a thread step like T1, "
			    "T1@kref_get.read or T1+ (a label is function.op, "
			    "at most %d bytes), got %s", RACE_LABEL_LEN - 1,
			    q(buf, w));
	tok = new_token(p);
	if (!tok)
		return -1;
	tok->thread = thread_of(thread);
	tok->mode = at ? RACE_TOK_UNTIL : thread.len < w.len ? RACE_TOK_REST :
		RACE_TOK_ONE;
	if (at)
		copy_word(tok->label, sizeof(tok->label), label);
	return 0;
}

/* "run TOKEN...": at least one token. */
static int parse_run(struct sched_parser *p, struct word key, const char *s,
		     const char *end)
{
	struct word w;
	int n = 0;

	(void)key;
	while (next_word(&s, end, &w)) {
		if (parse_token(p, w))
			return -1;
		n++;
	}
	if (!n)
		return fail(p, "expected 'run' and thread steps like T1, "
			    "T1@kref_get.read or T1+, got none");
	return 0;
}

/* The recorded text of a step line, its words joined by one space. */
static char *join(const struct word *w, int n)
{
	size_t len = 0, o = 0;
	char *s;
	int i;

	for (i = 0; i < n; i++)
		len += w[i].len + 1;
	s = malloc(len + 6);
	if (!s)
		abort();
	o = snprintf(s, len + 6, "step");
	for (i = 0; i < n; i++) {
		s[o++] = ' ';
		memcpy(s + o, w[i].s, w[i].len);
		o += w[i].len;
	}
	s[o] = 0;
	return s;
}

/* "step N THREAD LABEL [OBJECT VALUE]" */
static int parse_step(struct sched_parser *p, struct word key, const char *s,
		      const char *end)
{
	struct race_schedfile *sf = p->sf;
	struct race_token *tok;
	char buf[RACE_QUOTE_LEN];
	struct word w[5];
	int n = split(s, end, w, 5);

	if (n != 3 && n != 5)
		return fail(p, "expected 'step <number> <thread> <function.op> "
			    "[<object> <value>]', got %s",
			    q(buf, (struct word){ key.s, end - key.s }));
	if (number(w[0]) != sf->nr_step_lines + 1)
		return fail(p, "expected step %d (steps are numbered from 1, "
			    "one by one), got step %s", sf->nr_step_lines + 1,
			    q(buf, w[0]));
	if (!thread_of(w[1]))
		return fail(p, "expected a thread (T1, T2, ..., RCU, IRQ1, ...), got %s",
			    q(buf, w[1]));
	if (!is_label(w[2]))
		return fail(p, "expected a label function.op of at most %d "
			    "bytes, got %s", RACE_LABEL_LEN - 1, q(buf, w[2]));
	if (n == 5 && (w[3].len > 63 || w[4].len > 63))
		return fail(p, "expected an object and a value of at most 63 "
			    "bytes each, got %s", q(buf, (struct word){
			    w[3].s, w[4].s + w[4].len - w[3].s }));
	tok = new_token(p);
	if (!tok)
		return -1;
	tok->mode = RACE_TOK_ONE;
	tok->thread = thread_of(w[1]);
	copy_word(tok->label, sizeof(tok->label), w[2]);
	sf->step_lines = race_grow(sf->step_lines, sf->nr_step_lines,
			      &sf->cap_step_lines, sizeof(char *));
	sf->step_lines[sf->nr_step_lines++] = n == 5 ? join(w, n) : NULL;
	return 0;
}

/* A header line of one word, kept in @dst of @len bytes. */
static int one_word(struct sched_parser *p, struct word key, const char *s,
		    const char *end, char *dst, size_t len, const char *what)
{
	char buf[RACE_QUOTE_LEN];
	struct word w[2];

	if (split(s, end, w, 2) != 1 || copy_word(dst, len, w[0]))
		return fail(p, "expected '%.*s %s' (one word of at most %zu "
			    "bytes), got %s", (int)key.len, key.s, what,
			    len - 1, q(buf, (struct word){ key.s, end - key.s }));
	return 0;
}

static int parse_version(struct sched_parser *p, struct word key,
			 const char *s, const char *end)
{
	char version[8], buf[RACE_QUOTE_LEN];

	if (one_word(p, key, s, end, version, sizeof(version), "1") ||
	    strcmp(version, "1"))
		return fail(p, "expected 'race-schedule 1' (the only version), "
			    "got %s", q(buf, (struct word){ key.s, end - key.s }));
	return 0;
}

static int parse_scenario(struct sched_parser *p, struct word key,
			  const char *s, const char *end)
{
	p->sf->scenario_line = p->line;
	return one_word(p, key, s, end, p->sf->scenario,
			sizeof(p->sf->scenario), "NAME");
}

static int parse_lab(struct sched_parser *p, struct word key, const char *s,
		     const char *end)
{
	char lab[8], buf[RACE_QUOTE_LEN];
	struct word w = { lab, 0 };

	if (!one_word(p, key, s, end, lab, sizeof(lab), "N"))
		w.len = strlen(lab);
	p->sf->lab = number(w);
	if (p->sf->lab < 1)
		return fail(p, "expected 'lab N' (the number of a lab), got %s",
			    q(buf, (struct word){ key.s, end - key.s }));
	return 0;
}

static int parse_build(struct sched_parser *p, struct word key, const char *s,
		       const char *end)
{
	return one_word(p, key, s, end, p->sf->build, sizeof(p->sf->build),
			"ID");
}

static int parse_result(struct sched_parser *p, struct word key,
			const char *s, const char *end)
{
	return one_word(p, key, s, end, p->sf->result, sizeof(p->sf->result),
			"KIND");
}

/* A line kept only as a record of how the schedule was found. */
static int parse_record(struct sched_parser *p, struct word key,
			const char *s, const char *end)
{
	(void)p, (void)key, (void)s, (void)end;
	return 0;
}

/* "memory sc|weak": the memory model the schedule runs under. */
static int parse_memory(struct sched_parser *p, struct word key,
			const char *s, const char *end)
{
	char model[8], buf[RACE_QUOTE_LEN];

	if (one_word(p, key, s, end, model, sizeof(model), "sc|weak") ||
	    (strcmp(model, "sc") && strcmp(model, "weak")))
		return fail(p, "expected 'memory sc' or 'memory weak', got %s",
			    q(buf, (struct word){ key.s, end - key.s }));
	p->sf->memory = strcmp(model, "sc") ? RACE_OPT_MEMORY_WEAK :
		RACE_OPT_MEMORY_SC;
	return 0;
}

/* "sees LOAD STORE|init": the store the load of step LOAD reads (sees.c). */
static int parse_sees(struct sched_parser *p, struct word key, const char *s,
		      const char *end)
{
	char buf[RACE_QUOTE_LEN];
	struct word w[2];
	long load = -1, from = -1;

	if (split(s, end, w, 2) == 2) {
		load = number(w[0]);
		from = word_is(w[1], "init") ? 0 : number(w[1]);
	}
	if (load < 1 || load > RACE_SCHED_MAX_TOKENS || from < 0 ||
	    (from && from >= load))
		return fail(p, "expected 'sees <load step> <earlier store "
			    "step>|init', got %s",
			    q(buf, (struct word){ key.s, end - key.s }));
	race_sees_set(p->sf, load, from);
	return 0;
}

/*
 * The kinds of line.  A new kind is a row: its keyword, whether a file may
 * have it once only, and its parser, called with the keyword and the rest
 * of the line, [s, end), already checked to be printable ASCII.
 */
static const struct line_kind {
	const char *key;
	bool once;
	int (*parse)(struct sched_parser *p, struct word key, const char *s,
		     const char *end);
} line_kinds[] = {
	{ "race-schedule",	true,	parse_version },
	{ "scenario",		true,	parse_scenario },
	{ "lab",		true,	parse_lab },
	{ "binary",		true,	parse_record },
	{ "build",		true,	parse_build },
	{ "strategy",		true,	parse_record },
	{ "seed",		true,	parse_record },
	{ "bounds",		true,	parse_record },
	{ "step",		false,	parse_step },
	{ "run",		false,	parse_run },
	{ "result",		true,	parse_result },
	{ "memory",		true,	parse_memory },
	{ "sees",		false,	parse_sees },
};

/* "'race-schedule', 'scenario', ... or 'result'" */
static void kind_names(char *buf, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(line_kinds) && n < len; i++)
		n += snprintf(buf + n, len - n, "%s'%s'", !i ? "" :
			      i + 1 < ARRAY_SIZE(line_kinds) ? ", " : " or ",
			      line_kinds[i].key);
}

/* The first byte of [@s, @end) that is not printable ASCII, or NULL. */
static const char *unprintable(const char *s, const char *end)
{
	for (; s < end; s++)
		if (((unsigned char)*s < ' ' || (unsigned char)*s > '~') &&
		    *s != '\t')
			return s;
	return NULL;
}

/* One line, without its '\n'; 0 or -1 with the error set. */
static int parse_line(struct sched_parser *p, const char *s, const char *end)
{
	char buf[RACE_QUOTE_LEN], names[256];
	const char *bad;
	struct word key;
	size_t i;

	if (end > s && end[-1] == '\r')
		end--;			/* a file written on Windows */
	if (!next_word(&s, end, &key) || key.s[0] == '#')
		return 0;
	bad = unprintable(key.s, end);
	if (bad)
		return fail(p, "expected printable ASCII text, got byte \\x%02x "
			    "at column %zu in %s", (unsigned char)*bad,
			    (size_t)(bad - key.s) + 1,
			    q(buf, (struct word){ key.s, end - key.s }));
	for (i = 0; i < ARRAY_SIZE(line_kinds); i++) {
		if (!word_is(key, line_kinds[i].key))
			continue;
		if (line_kinds[i].once && p->first[i])
			return fail(p, "expected one '%s' line, got a second "
				    "(the first is line %d)", line_kinds[i].key,
				    p->first[i]);
		p->first[i] = p->line;
		return line_kinds[i].parse(p, key, s, end);
	}
	kind_names(names, sizeof(names));
	return fail(p, "expected a line %s (or a # comment), got %s", names,
		    q(buf, key));
}

/*
 * The whole of regular file @path, at most RACE_SCHED_MAX_BYTES, into
 * *@buf (malloc'd) and *@len; -1 with the error set.  Opened without
 * blocking: a FIFO or a device is refused, never waited on.
 */
static int read_whole(struct sched_parser *p, const char *path, char **buf,
		      size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t cap = 0, n = 0;
	struct stat st;
	ssize_t got;

	if (fd < 0)
		return fail(p, "cannot open it: %s", strerror(errno));
	if (fstat(fd, &st)) {
		close(fd);
		return fail(p, "cannot read it: %s", strerror(errno));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(p, "expected a schedule file (a regular file), got "
			    "%s", S_ISDIR(st.st_mode) ? "a directory" :
			    S_ISFIFO(st.st_mode) ? "a FIFO" :
			    S_ISSOCK(st.st_mode) ? "a socket" : "a device");
	}
	*buf = NULL;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			*buf = realloc(*buf, cap + 1);
			if (!*buf)
				abort();
		}
		got = read(fd, *buf + n, cap - n);
		n += got > 0 ? got : 0;
	} while ((got > 0 || (got < 0 && errno == EINTR)) &&
		 n <= RACE_SCHED_MAX_BYTES);
	close(fd);
	if (got < 0 || n > RACE_SCHED_MAX_BYTES) {
		free(*buf);
		if (got < 0)
			return fail(p, "cannot read it: %s", strerror(errno));
		return fail(p, "expected a schedule file of at most %ld MiB, "
			    "got a bigger file", RACE_SCHED_MAX_BYTES >> 20);
	}
	*len = n;
	return 0;
}

/* A new parser of @sf for messages about @where (raw: escaped here). */
static void parser_init(struct sched_parser *p, struct race_schedfile *sf,
			const char *where, char *esc, size_t esclen, char *err,
			size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->sf = sf;
	p->where = race_escape(esc, esclen, where, strlen(where));
	p->err = err;
	p->errlen = errlen;
}

/**
 * race_schedfile_read - parse the schedule file at @path into @sf
 *
 * Thread names are checked against the scenario afterwards, by
 * race_schedfile_threads().  Returns 0, or -1 with @err one line:
 * "FILE:LINE: expected ..., got '...'", every byte of it printable.
 * @sf is to be freed with race_schedfile_free() either way.
 */
int race_schedfile_read(const char *path, struct race_schedfile *sf,
			char *err, size_t errlen)
{
	struct sched_parser p;
	char esc[256], *buf = NULL, *s, *nl, *end;
	size_t len = 0;
	int ret = 0;

	memset(sf, 0, sizeof(*sf));
	parser_init(&p, sf, path, esc, sizeof(esc), err, errlen);
	if (read_whole(&p, path, &buf, &len))
		return -1;
	for (s = buf, end = buf + len; s < end && !ret; s = nl + 1) {
		nl = memchr(s, '\n', end - s);
		if (!nl)
			nl = end;
		p.line++;
		ret = parse_line(&p, s, nl);
	}
	free(buf);
	return ret;
}

/**
 * race_script_parse - the tokens of --script ("T1@kref_get.read T2 T2+")
 * into @sf, which must be zeroed
 *
 * Returns 0, or -1 with @err saying which word is wrong and what was
 * expected.
 */
int race_script_parse(const char *text, struct race_schedfile *sf,
		      char *err, size_t errlen)
{
	struct sched_parser p;
	char esc[16], buf[RACE_QUOTE_LEN];
	const char *end = text + strlen(text), *bad = unprintable(text, end);

	parser_init(&p, sf, "--script", esc, sizeof(esc), err, errlen);
	if (bad)
		return fail(&p, "expected printable ASCII text, got byte "
			    "\\x%02x in %s", (unsigned char)*bad,
			    q(buf, (struct word){ text, end - text }));
	return parse_run(&p, (struct word){ "run", 3 }, text, end);
}

/**
 * race_schedfile_threads - number the threads of @sf's tokens for a
 * scenario of @nr_threads (RCU is @nr_threads + 1) and check they exist
 * @where: the file's name (raw), for the message
 *
 * Returns 0, or -1 with @err naming the line of the first thread that the
 * scenario does not have.
 */
int race_schedfile_threads(struct race_schedfile *sf, int nr_threads,
			   const char *where, char *err, size_t errlen)
{
	struct sched_parser p;
	struct race_token *t;
	char esc[256];
	int i, id;

	if (sf->nr_threads)
		return 0;		/* numbered already */
	parser_init(&p, sf, where, esc, sizeof(esc), err, errlen);
	for (i = 0; i < sf->nr_tokens; i++) {
		t = &sf->tokens[i];
		id = t->thread;
		if (id == RACE_TOK_RCU)
			t->thread = nr_threads + 1;
		else if (id <= RACE_TOK_IRQ(1) && id >= RACE_TOK_IRQ(nr_threads))
			t->thread = nr_threads + 1 + RACE_TOK_IRQ(0) - id;
		else if (id < 1 || id > nr_threads)
			break;
	}
	if (i < sf->nr_tokens) {
		p.line = t->line;
		return fail(&p, "expected a thread of this scenario (T1..T%d, RCU "
			    "for the callbacks, or IRQ1..IRQ%d for their "
			    "interrupts), got %s%d", nr_threads, nr_threads,
			    id < 0 ? "IRQ" : "T", id < 0 ? RACE_TOK_IRQ(0) - id : id);
	}
	sf->nr_threads = nr_threads;
	return 0;
}

/** race_schedfile_free - free what race_schedfile_read() allocated */
void race_schedfile_free(struct race_schedfile *sf)
{
	int i;

	for (i = 0; i < sf->nr_step_lines; i++)
		free(sf->step_lines[i]);
	race_grow_free(sf->step_lines, sf->cap_step_lines, sizeof(*sf->step_lines));
	race_grow_free(sf->tokens, sf->cap_tokens, sizeof(*sf->tokens));
	race_grow_free(sf->sees, sf->cap_sees, sizeof(*sf->sees));
	memset(sf, 0, sizeof(*sf));
}
