// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_case.c - "--list" or one named case, run one or more times: see
 * tsan_case.h.
 *
 * When graded, the case runs locked down (kit_lockdown()): no file may be
 * opened for writing from then on, so ThreadSanitizer's log, which it
 * would open at its first report (log_path in TSAN_OPTIONS, the grader's
 * drop), is opened here first, as LOG_PATH.<pid>, and handed to it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence.h"
#include "tsan_case.h"

/* The sanitizers' interface: where their reports go. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/* Open TSan's log now (log_path=PATH in TSAN_OPTIONS), for the lockdown. */
static void open_tsan_log(void)
{
	const char *opts = getenv("TSAN_OPTIONS");
	const char *at = opts ? strstr(opts, "log_path=") : NULL;
	char path[4096];
	size_t n;
	int fd;

	if (!at || !__sanitizer_set_report_fd)
		return;
	at += strlen("log_path=");
	n = strcspn(at, " :,");
	if (n + 32 > sizeof(path))
		return;
	snprintf(path, sizeof(path), "%.*s.%d", (int)n, at, (int)getpid());
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		__sanitizer_set_report_fd((void *)(long)fd);
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s --list | CASE [RUNS]\n", prog);
	return 2;
}

/* RUNS of the command line: 1 to 100, or 0 if it is not one. */
static int parse_runs(const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	return *arg && !*end && n >= 1 && n <= 100 ? (int)n : 0;
}

/*
 * Run @c @runs times, one run after the other, until one returns non-zero;
 * each run that returns notes it in the grader's evidence (evidence.h).
 */
static int run_case(const struct tsan_case *c, int runs)
{
	int i, status = 0;

	for (i = 1; i <= runs && !status; i++) {
		status = c->run(c);
		kit_evidence("case %s done status=%d run=%d", c->name, status, i);
	}
	return status;
}

int tsan_case_main(int argc, char **argv, const struct tsan_case *cases,
		   size_t nr_cases)
{
	int runs = argc == 3 ? parse_runs(argv[2]) : 1;
	size_t i;

	if (argc < 2 || argc > 3 || !runs)
		return usage(argv[0]);
	if (!strcmp(argv[1], "--list")) {
		for (i = 0; i < nr_cases; i++)
			printf("%s %s\n", cases[i].name, cases[i].verdict);
		return 0;
	}
	for (i = 0; i < nr_cases; i++) {
		if (strcmp(argv[1], cases[i].name))
			continue;
		if (getenv("KIT_LOCKDOWN"))
			open_tsan_log();
		kit_lockdown();
		return run_case(&cases[i], runs);
	}
	fprintf(stderr, "%s: no case '%s' (try --list)\n", argv[0], argv[1]);
	return 2;
}
