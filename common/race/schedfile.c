// SPDX-License-Identifier: GPL-2.0
/*
 * schedfile.c - schedule files: the versioned text of one interleaving.
 *
 *	race-schedule 1
 *	scenario lookup_unlocked_vs_remove
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
 * must not fail).  Lines starting with '#' are comments.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "race/race.h"

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
 *
 * Returns 0, or -errno if the file cannot be written.
 */
int race_schedfile_write(const char *path, const struct race_shared *sh,
			 const char *binary, const char *strategy_desc)
{
	char line[256];
	FILE *f = fopen(path, "w");
	long i;

	if (!f)
		return -errno;
	fprintf(f, "# A schedule of the race reproducer: replay it with\n"
		"#   make replay SCHED=%s\n"
		"# Format: docs/reproducer.md (\"Schedule files\").\n", path);
	fprintf(f, "race-schedule 1\nscenario %s\nbinary %s\nbuild %s\n"
		"strategy %s\nseed %lu\nbounds preemptions=%d steps=%ld\n",
		race_sc->name, binary, race_build_id(), strategy_desc,
		race_opt.seed, race_opt.bound, sh->cap_steps);
	for (i = 0; i < sh->nr_steps; i++) {
		race_step_line(&sh->steps[i], i + 1, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	fprintf(f, "result %s\n", sh->state == RACE_RUN_FAIL ? sh->kind : "none");
	if (fclose(f))
		return -errno;
	return 0;
}

/* IRQk is thread k's interrupt thread, resolved by check_thread(). */
#define IRQ_TOKEN(k)	(-100 - (k))

/* "T3", "RCU" or "IRQ1" -> 3, -1 or IRQ_TOKEN(1) (resolved later); 0 if
 * none of them */
static int parse_thread(const char *s, size_t len)
{
	char *end;
	long n;

	if (len == 3 && !strncmp(s, "RCU", 3))
		return -1;
	if (len > 3 && !strncmp(s, "IRQ", 3) && isdigit((unsigned char)s[3])) {
		n = strtol(s + 3, &end, 10);
		return (size_t)(end - s) == len && n >= 1 && n <= 99 ?
			IRQ_TOKEN(n) : 0;
	}
	if (len < 2 || s[0] != 'T' || !isdigit((unsigned char)s[1]))
		return 0;
	n = strtol(s + 1, &end, 10);
	if ((size_t)(end - s) != len || n < 1 || n > 99)
		return 0;
	return n;
}

/* "line 7", or "the script" for tokens from the command line (line 0). */
static const char *where(int line)
{
	static char buf[32];

	if (!line)
		return "the script";
	snprintf(buf, sizeof(buf), "line %d", line);
	return buf;
}

/* Make thread numbers concrete and check they exist. */
static int check_thread(struct race_token *tok, const char *word, int nr_threads,
			char *err, size_t errlen)
{
	int id = tok->thread;

	if (id == -1)
		id = nr_threads + 1;
	else if (id <= IRQ_TOKEN(1) && id >= IRQ_TOKEN(nr_threads))
		id = nr_threads + 1 + IRQ_TOKEN(0) - id;
	else if (id < 1 || id > nr_threads)
		id = 0;
	if (id) {
		tok->thread = id;
		return 0;
	}
	snprintf(err, errlen, "%s: thread %s does not exist (this "
		 "scenario has T1..T%d, RCU and IRQ1..IRQ%d)", where(tok->line),
		 word, nr_threads, nr_threads);
	return -1;
}

/* Append a zeroed token to the array; abort if memory is exhausted. */
static struct race_token *new_token(struct race_token **tokens, int *nr)
{
	struct race_token *t;

	t = realloc(*tokens, (*nr + 1) * sizeof(**tokens));
	if (!t)
		abort();
	*tokens = t;
	memset(&t[*nr], 0, sizeof(t[*nr]));
	return &t[(*nr)++];
}

/**
 * race_script_parse - append the tokens of @text ("T1@kref_get.read T2 T2+")
 * @line: the schedule-file line they come from (0: the command line)
 *
 * Returns 0, or -1 with @err saying which word is wrong and what was
 * expected.
 */
int race_script_parse(const char *text, struct race_token **tokens, int *nr,
		      int nr_threads, int line, char *err, size_t errlen)
{
	const char *p = text, *w, *at;
	struct race_token *tok;
	char word[RACE_LABEL_LEN + 16];
	size_t len, tlen;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0;
		for (w = p; *p && !isspace((unsigned char)*p); p++)
			;
		len = p - w;
		snprintf(word, sizeof(word), "%.*s", (int)len, w);
		at = memchr(w, '@', len);
		tlen = at ? (size_t)(at - w) : len;
		if (!at && len && w[len - 1] == '+')
			tlen = len - 1;
		tok = new_token(tokens, nr);
		tok->line = line;
		tok->thread = parse_thread(w, tlen);
		tok->mode = at ? RACE_TOK_UNTIL : tlen < len ? RACE_TOK_REST : RACE_TOK_ONE;
		if (!tok->thread || (at && (len - tlen < 2 ||
					    len - tlen > RACE_LABEL_LEN))) {
			snprintf(err, errlen, "%s: expected a thread step "
				 "like T1, T1@kref_get.read or T1+, got '%s'",
				 where(line), word);
			return -1;
		}
		if (at)
			snprintf(tok->label, sizeof(tok->label), "%.*s",
				 (int)(len - tlen - 1), at + 1);
		if (check_thread(tok, word, nr_threads, err, errlen))
			return -1;
	}
}

/* "step N THREAD LABEL [OBJ VALUE]" */
static int parse_step(struct race_schedfile *sf, char *rest, int line,
		      int nr_threads, char *err, size_t errlen)
{
	char thread[16], label[RACE_LABEL_LEN], extra[2][64];
	struct race_token *tok;
	long n;
	int k;

	k = sscanf(rest, "%ld %15s %63s %63s %63s", &n, thread, label,
		   extra[0], extra[1]);
	if (k < 3 || k == 4) {
		snprintf(err, errlen, "line %d: expected 'step <number> <thread> "
			 "<function.op> [<object> <value>]', got 'step %s'",
			 line, rest);
		return -1;
	}
	if (n != sf->nr_step_lines + 1) {
		snprintf(err, errlen, "line %d: expected step %d, got step %ld",
			 line, sf->nr_step_lines + 1, n);
		return -1;
	}
	tok = new_token(&sf->tokens, &sf->nr_tokens);
	tok->line = line;
	tok->mode = RACE_TOK_ONE;
	tok->thread = parse_thread(thread, strlen(thread));
	snprintf(tok->label, sizeof(tok->label), "%s", label);
	if (!tok->thread) {
		snprintf(err, errlen, "line %d: expected a thread (T1, T2, ..., "
			 "RCU, IRQ1, ...), got '%s'", line, thread);
		return -1;
	}
	if (check_thread(tok, thread, nr_threads, err, errlen))
		return -1;
	sf->step_lines = realloc(sf->step_lines,
				 (sf->nr_step_lines + 1) * sizeof(char *));
	sf->step_lines[sf->nr_step_lines] = NULL;
	if (k == 5 && asprintf(&sf->step_lines[sf->nr_step_lines],
			       "step %ld %s %s %s %s", n, thread, label,
			       extra[0], extra[1]) < 0)
		abort();
	sf->nr_step_lines++;
	return 0;
}

/* Copy @src into @dst, cut to fit. */
static void set_field(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* One line of a schedule file; 0 or -1 with @err set. */
static int parse_line(struct race_schedfile *sf, char *s, int line,
		      int nr_threads, char *err, size_t errlen)
{
	char *key = s, *rest;

	while (*s && !isspace((unsigned char)*s))
		s++;
	if (*s)
		*s++ = 0;
	while (isspace((unsigned char)*s))
		s++;
	rest = s;
	if (!strcmp(key, "race-schedule")) {
		if (strcmp(rest, "1")) {
			snprintf(err, errlen, "line %d: expected 'race-schedule 1' "
				 "(the only version), got version '%s'", line, rest);
			return -1;
		}
	} else if (!strcmp(key, "scenario")) {
		set_field(sf->scenario, sizeof(sf->scenario), rest);
	} else if (!strcmp(key, "binary")) {
		set_field(sf->binary, sizeof(sf->binary), rest);
	} else if (!strcmp(key, "build")) {
		set_field(sf->build, sizeof(sf->build), rest);
	} else if (!strcmp(key, "result")) {
		set_field(sf->result, sizeof(sf->result), rest);
	} else if (!strcmp(key, "step")) {
		return parse_step(sf, rest, line, nr_threads, err, errlen);
	} else if (!strcmp(key, "run")) {
		return race_script_parse(rest, &sf->tokens, &sf->nr_tokens,
				    nr_threads, line, err, errlen);
	} else if (strcmp(key, "strategy") && strcmp(key, "lab") &&
		   strcmp(key, "seed") && strcmp(key, "bounds")) {
		snprintf(err, errlen, "line %d: expected 'step', 'run', 'result', "
			 "'scenario' or another header keyword, got '%s'",
			 line, key);
		return -1;
	}
	return 0;
}

/**
 * race_schedfile_read - parse the schedule file at @path
 * @nr_threads: the scenario's threads, to check thread names; 0 to read
 *              only the header (the scenario is named there)
 *
 * Returns 0, or -1 with @err naming the line and what was expected.
 */
int race_schedfile_read(const char *path, struct race_schedfile *sf,
			int nr_threads, char *err, size_t errlen)
{
	char buf[1024], *s, *e;
	FILE *f = fopen(path, "r");
	int line = 0;

	memset(sf, 0, sizeof(*sf));
	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		for (s = buf; isspace((unsigned char)*s); s++)
			;
		for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); )
			*--e = 0;
		if (!*s || *s == '#')
			continue;
		if (!nr_threads && (!strncmp(s, "step", 4) || !strncmp(s, "run", 3)))
			continue;
		if (parse_line(sf, s, line, nr_threads, err, errlen)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}
