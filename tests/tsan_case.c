// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_case.c - "--list" or one named case: see tsan_case.h.
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
	fprintf(stderr, "usage: %s --list | CASE\n", prog);
	return 2;
}

int tsan_case_main(int argc, char **argv, const struct tsan_case *cases,
		   size_t nr_cases)
{
	size_t i;

	if (argc != 2)
		return usage(argv[0]);
	if (!strcmp(argv[1], "--list")) {
		for (i = 0; i < nr_cases; i++)
			printf("%s %s\n", cases[i].name, cases[i].verdict);
		return 0;
	}
	for (i = 0; i < nr_cases; i++) {
		int status;

		if (strcmp(argv[1], cases[i].name))
			continue;
		if (getenv("KIT_LOCKDOWN"))
			open_tsan_log();
		kit_lockdown();
		status = cases[i].run(&cases[i]);
		/* The grader's proof that the case ran to its end (evidence.h). */
		kit_evidence("case %s done status=%d", cases[i].name, status);
		return status;
	}
	fprintf(stderr, "%s: no case '%s' (try --list)\n", argv[0], argv[1]);
	return 2;
}
