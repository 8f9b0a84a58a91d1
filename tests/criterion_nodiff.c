// SPDX-License-Identifier: GPL-2.0
/*
 * criterion_nodiff.c - the three libgit2 functions Criterion calls, for a
 * unit binary linked with Criterion's static archive (mk/build.mk).
 *
 * Criterion starts a process for every test, and its shared library
 * brings libgit2 into each, and with it OpenSSL, Kerberos, libssh2 and a
 * dozen more: 22 libraries loaded, relocated and initialised before a
 * test's first line.  On the kit's machines that was most of a test's cost
 * (a lab 5 unit binary ran its 44 tests in 2.4 s with the shared library,
 * 1.3 s with the archive; 7.5 s and 4.7 s under ASan).  Criterion wants
 * libgit2 for one thing only: the diff that a failed string comparison of
 * its new assertion API (criterion/new/assert.h) prints.  The kit's tests
 * use cr_assert with messages of their own and never draw it.
 *
 * So the archive is linked with these stand-ins, and nothing else of
 * libgit2.  git_diff_buffers() draws a plain diff, not git's: the lines
 * the two texts share at their start and end are left out, and one hunk
 * shows the rest, the old lines ('-') then the new ('+').  A test that
 * does compare strings with the new API still fails as it should, and
 * still shows the difference.
 */
#include <string.h>

#include <git2.h>

/**
 * git_libgit2_init - nothing to set up.
 *
 * Returns: 1, the number of initialisations, as libgit2 counts them.
 */
int git_libgit2_init(void)
{
	return 1;
}

/**
 * git_libgit2_shutdown - nothing to tear down.
 *
 * Returns: 0, the initialisations left.
 */
int git_libgit2_shutdown(void)
{
	return 0;
}

/* The number of lines of @buf[0..@len) (a last one without '\n' counts). */
static int nr_lines(const char *buf, size_t len)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n + (len && buf[len - 1] != '\n');
}

/* The offset in @buf[0..@len) where line @line (0-based) starts. */
static size_t line_start(const char *buf, size_t len, int line)
{
	size_t i = 0;

	while (line > 0 && i < len)
		line -= buf[i++] == '\n';
	return i;
}

/* Whether line @a of @x and line @b of @y are the same text. */
static int same_line(const char *x, size_t xlen, int a, const char *y, size_t ylen, int b)
{
	size_t xs = line_start(x, xlen, a), xe = line_start(x, xlen, a + 1);
	size_t ys = line_start(y, ylen, b), ye = line_start(y, ylen, b + 1);

	return xe - xs == ye - ys && !memcmp(x + xs, y + ys, xe - xs);
}

/* Hand lines [@from, @to) of @buf to @line_cb as @origin lines. */
static int emit(const char *buf, size_t len, int from, int to, char origin,
		git_diff_line_cb line_cb, void *payload)
{
	git_diff_line l = { .origin = origin, .num_lines = 1 };
	int i, rc;

	for (i = from; i < to; i++) {
		size_t s = line_start(buf, len, i);

		l.old_lineno = origin == GIT_DIFF_LINE_DELETION ? i + 1 : -1;
		l.new_lineno = origin == GIT_DIFF_LINE_ADDITION ? i + 1 : -1;
		l.content = buf + s;
		l.content_len = line_start(buf, len, i + 1) - s;
		l.content_offset = (git_off_t)s;
		rc = line_cb(NULL, NULL, &l, payload);
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * git_diff_buffers - the difference of two texts, as one hunk.
 * @old_buffer, @old_len: the first text (Criterion's "expected")
 * @new_buffer, @new_len: the second ("actual")
 * @hunk_cb:  told of the hunk, if the texts differ
 * @line_cb:  told of each line of the hunk, the old ones first
 * @payload:  handed to both
 *
 * The other parameters (names, options, file and binary callbacks) are
 * those of libgit2's function; Criterion passes no options nor those
 * callbacks, and they are not called.
 *
 * Returns: 0, or the first non-zero value a callback returned.
 */
int git_diff_buffers(const void *old_buffer, size_t old_len, const char *old_as_path,
		     const void *new_buffer, size_t new_len, const char *new_as_path,
		     const git_diff_options *options, git_diff_file_cb file_cb,
		     git_diff_binary_cb binary_cb, git_diff_hunk_cb hunk_cb,
		     git_diff_line_cb line_cb, void *payload)
{
	const char *x = old_buffer, *y = new_buffer;
	int xn = nr_lines(x, old_len), yn = nr_lines(y, new_len), head = 0, tail = 0;
	git_diff_hunk h = { 0 };
	int rc;

	(void)old_as_path, (void)new_as_path, (void)options, (void)file_cb, (void)binary_cb;
	while (head < xn && head < yn && same_line(x, old_len, head, y, new_len, head))
		head++;
	while (tail < xn - head && tail < yn - head &&
	       same_line(x, old_len, xn - 1 - tail, y, new_len, yn - 1 - tail))
		tail++;
	if (head + tail == xn && head + tail == yn)
		return 0;
	h.old_start = head + 1, h.old_lines = xn - head - tail;
	h.new_start = head + 1, h.new_lines = yn - head - tail;
	rc = hunk_cb ? hunk_cb(NULL, &h, payload) : 0;
	if (!rc && line_cb)
		rc = emit(x, old_len, head, xn - tail, GIT_DIFF_LINE_DELETION, line_cb, payload);
	if (!rc && line_cb)
		rc = emit(y, new_len, head, yn - tail, GIT_DIFF_LINE_ADDITION, line_cb, payload);
	return rc;
}
