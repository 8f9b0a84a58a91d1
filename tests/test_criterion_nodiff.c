// SPDX-License-Identifier: GPL-2.0
/*
 * test_criterion_nodiff.c - the diff criterion_nodiff.c draws for
 * Criterion: one hunk, the shared first and last lines left out.
 *
 * Linked into common/'s unit binaries only where they link Criterion's
 * static archive (mk/build.mk): elsewhere git_diff_buffers() is libgit2's.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <git2.h>

/* What the callbacks heard, as Criterion would print it. */
static char out[512];
static int hunks, stop_after;

static int on_hunk(const git_diff_delta *d, const git_diff_hunk *h, void *payload)
{
	(void)d, (void)payload;
	hunks++;
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "@@ -%d,%d +%d,%d @@\n",
		 h->old_start, h->old_lines, h->new_start, h->new_lines);
	return 0;
}

static int on_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l,
		   void *payload)
{
	(void)d, (void)h, (void)payload;
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "%c%.*s", l->origin,
		 (int)l->content_len, l->content);
	return stop_after && !--stop_after ? 7 : 0;
}

/* The diff of @a and @b as text; its return value in *@rc. */
static const char *diff(const char *a, const char *b, int *rc)
{
	out[0] = 0;
	hunks = 0;
	*rc = git_diff_buffers(a, strlen(a), "old", b, strlen(b), "new", NULL, NULL, NULL,
			       on_hunk, on_line, NULL);
	return out;
}

Test(nodiff, equal_texts_have_no_hunk)
{
	int rc;

	cr_assert_str_eq(diff("a\nb\n", "a\nb\n", &rc), "", "equal texts drew a diff");
	cr_assert_eq(hunks, 0, "equal texts gave %d hunk(s)", hunks);
	cr_assert_eq(rc, 0, "equal texts: git_diff_buffers returned %d", rc);
}

Test(nodiff, a_changed_line_between_shared_ones)
{
	int rc;

	cr_assert_str_eq(diff("a\nb\nc\n", "a\nX\nc\n", &rc), "@@ -2,1 +2,1 @@\n-b\n+X\n",
			 "the shared first and last lines must be left out");
	cr_assert_eq(rc, 0, "git_diff_buffers returned %d", rc);
}

Test(nodiff, an_inserted_line)
{
	int rc;

	cr_assert_str_eq(diff("a\nc\n", "a\nb\nc\n", &rc), "@@ -2,0 +2,1 @@\n+b\n",
			 "an insertion is a hunk of no old line and one new");
}

Test(nodiff, texts_without_a_last_newline)
{
	int rc;

	cr_assert_str_eq(diff("7", "8", &rc), "@@ -1,1 +1,1 @@\n-7+8",
			 "a last line without a newline is a line");
}

Test(nodiff, a_callback_that_stops_the_diff)
{
	int rc;

	stop_after = 1;
	cr_assert_str_eq(diff("a\nb\n", "c\nd\n", &rc), "@@ -1,2 +1,2 @@\n-a\n",
			 "the diff must stop at the line whose callback said so");
	cr_assert_eq(rc, 7, "git_diff_buffers must return the callback's %d, not %d", 7, rc);
}
