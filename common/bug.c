// SPDX-License-Identifier: GPL-2.0
/*
 * bug.c - where WARN_ON and BUG_ON report.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bug.h"
#include "evidence.h"
#include "race_hooks.h"

static unsigned long warnings;
static int quiet;

unsigned long warn_count(void)
{
	return __atomic_load_n(&warnings, __ATOMIC_SEQ_CST);
}

void warn_reset(void)
{
	__atomic_store_n(&warnings, 0, __ATOMIC_SEQ_CST);
}

void warn_set_quiet(int q)
{
	__atomic_store_n(&quiet, q, __ATOMIC_RELAXED);
}

void __warn(const char *file, int line, const char *fn, const char *cond)
{
	char msg[256];

	__atomic_add_fetch(&warnings, 1, __ATOMIC_SEQ_CST);
	snprintf(msg, sizeof(msg), "WARNING: %s:%d in %s: WARN_ON(%s)",
		 file, line, fn, cond);
	if (race_report("warn", msg))
		return;		/* the reproducer notes it */
	if (!__atomic_load_n(&quiet, __ATOMIC_RELAXED))
		fprintf(stderr, "%s\n", msg);
}

static void __noreturn bug_stop(const char *kind, const char *msg)
{
	race_report(kind, msg);		/* under the reproducer: the verdict */
	kit_evidence("bug %s", msg);	/* for the grader, whatever is printed */
	fprintf(stderr, "%s\n", msg);
	fflush(stderr);
	abort();
}

void __bug(const char *file, int line, const char *fn, const char *cond)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "BUG: %s:%d in %s: BUG_ON(%s)",
		 file, line, fn, cond);
	bug_stop("bug", msg);
}

void kit_bug(const char *kind, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "BUG: %s: ", kind);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	bug_stop(kind, msg);
}
