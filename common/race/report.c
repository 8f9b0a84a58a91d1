// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - how the race binary reports a result: the verdict lines for a
 * person, and the result file (--result FILE) for a program.
 *
 * The result file is one "key=value" per line, in a fixed order, values on
 * one line; tools read it instead of parsing the text a person reads.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "race/race.h"

/** race_print_verdict - "verdict: kind: message", and the first WARN */
void race_print_verdict(void)
{
	printf("verdict: %s: %s\n", race_sh->kind, race_sh->message);
	if (race_sh->note[0] && strcmp(race_sh->kind, "warn"))
		printf("         and at step %ld: %s\n", race_sh->note_step,
		       race_sh->note);
}

/* @value with every control character (a newline) made a space. */
static void put_value(FILE *f, const char *value)
{
	for (; *value; value++)
		fputc((unsigned char)*value < ' ' ? ' ' : *value, f);
	fputc('\n', f);
}

/**
 * race_result_write - write the pairs @key, @value, ..., NULL to @path
 *
 * A NULL @path writes nothing.  Returns 0, or -1 after saying on stderr
 * why the file could not be written.
 */
int race_result_write(const char *path, ...)
{
	const char *key;
	va_list ap;
	FILE *f;

	if (!path)
		return 0;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	va_start(ap, path);
	while ((key = va_arg(ap, const char *))) {
		fprintf(f, "%s=", key);
		put_value(f, va_arg(ap, const char *));
	}
	va_end(ap);
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}
