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

#include "race/report/report.h"

/* The letter of the escape \\, \', \t, \n or \r that stands for @c, or 0. */
static char escape_letter(unsigned char c)
{
	switch (c) {
	case '\\':
	case '\'':
		return c;
	case '\t':
		return 't';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	}
	return 0;
}

/**
 * race_escape - the @n bytes at @src as printable ASCII, for a message
 *
 * Guarantees: @buf holds only bytes ' '..'~'; a backslash, a quote, tab,
 * newline and carriage return become \\, \', \t, \n, \r, every other
 * byte outside ' '..'~' \xNN; what does not fit in @len is left out.
 * tools/kit/schedfile.py escape() writes the same.  Returns @buf.
 */
char *race_escape(char *buf, size_t len, const char *src, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < n && o + 5 <= len; i++) {
		unsigned char c = src[i];

		if (escape_letter(c)) {
			buf[o++] = '\\';
			buf[o++] = escape_letter(c);
		} else if (c < ' ' || c > '~') {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		} else {
			buf[o++] = c;
		}
	}
	if (len)
		buf[o] = 0;
	return buf;
}

/**
 * race_quote - @src (@n bytes) quoted and escaped: 'text', or for a text
 * longer than RACE_QUOTE_MAX bytes its start: 'text...' (5000 bytes)
 *
 * @len should be RACE_QUOTE_LEN.  Returns @buf.
 */
char *race_quote(char *buf, size_t len, const char *src, size_t n)
{
	char esc[RACE_QUOTE_MAX * 4 + 1];
	size_t show = n > RACE_QUOTE_MAX ? RACE_QUOTE_MAX : n;

	race_escape(esc, sizeof(esc), src, show);
	if (show < n)
		snprintf(buf, len, "'%s...' (%zu bytes)", esc, n);
	else
		snprintf(buf, len, "'%s'", esc);
	return buf;
}

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
