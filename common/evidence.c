// SPDX-License-Identifier: GPL-2.0
/*
 * evidence.c - lines for the grader (evidence.h).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "evidence.h"

void kit_evidence(const char *fmt, ...)
{
	const char *path = getenv("KIT_EVIDENCE");
	char line[512];
	va_list ap;
	int fd, n;

	if (!path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, n) != n)
		n = 0;		/* the grader sees the line missing */
	close(fd);
}
