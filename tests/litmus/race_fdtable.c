// SPDX-License-Identifier: GPL-2.0
/*
 * race_fdtable.c - the barriers of the 2004 patch "Lock free fd lookup",
 * in miniature, under the weak memory model.
 *
 * An fd table is an array of file pointers and its size.  expand_fd_array
 * copies the old array into a larger one, smp_wmb(), publishes the new
 * array, smp_wmb(), publishes the new size; a lock-free reader reads the
 * size, smp_rmb(), then the array, then the slot.  Leave out any of the
 * three barriers and a reader can see the new size with the old (smaller)
 * array, or the new array before the copy into it: invisible under
 * sequential consistency, found by the weak model.  These are the shapes
 * lab 5's barrier bugs take; tests/litmus/test_litmus.py runs them in both
 * models.
 */
#include <stdbool.h>

#include "barrier.h"
#include "litmus.h"
#include "rwonce.h"
#include "slab.h"

#define OLD_FDS		2
#define NEW_FDS		4
#define FD_COPIED	0	/* open before the expansion: copied */
#define FD_NEW		3	/* installed in the new array only */

struct fdtable {
	void **fd;
	int max_fds;
};

/* Two open files, as the slots hold them (numbers: a trace shows them so). */
#define FILE0	((void *)100)
#define FILE3	((void *)103)

static struct fdtable files;
static void *old_fds, *new_fds;
static void *seen0, *seen3;		/* what the reader found */
static bool past_end;			/* it indexed the old array at fd 3 */
static bool copy_wmb, publish_wmb, reader_rmb;	/* the barriers present */

/* Fd 0 open in a table of 2; which barriers the expansion and the reader use. */
static void open_table(bool copy, bool publish, bool rmb)
{
	void **fd = kzalloc(OLD_FDS * sizeof(void *), GFP_KERNEL);

	fd[FD_COPIED] = FILE0;
	files.fd = fd;
	files.max_fds = OLD_FDS;
	old_fds = fd;
	new_fds = NULL;
	seen0 = seen3 = NULL;
	past_end = false;
	copy_wmb = copy;
	publish_wmb = publish;
	reader_rmb = rmb;
}

static void all_barriers(void)		{ open_table(true, true, true); }
static void no_copy_wmb(void)		{ open_table(false, true, true); }
static void no_publish_wmb(void)	{ open_table(true, false, true); }
static void no_reader_rmb(void)		{ open_table(true, true, false); }

/* Copy, install fd 3, publish the array, then the size. */
static void expand_fd_array(void)
{
	void **fd = kzalloc(NEW_FDS * sizeof(void *), GFP_KERNEL);
	int i;

	for (i = 0; i < OLD_FDS; i++)
		WRITE_ONCE(fd[i], READ_ONCE(files.fd[i]));
	WRITE_ONCE(fd[FD_NEW], FILE3);
	new_fds = fd;
	if (copy_wmb)
		smp_wmb();
	WRITE_ONCE(files.fd, fd);
	if (publish_wmb)
		smp_wmb();
	WRITE_ONCE(files.max_fds, NEW_FDS);
}

/*
 * fcheck_files_rcu of the patch: size, barrier, array, slot.  Indexing
 * the old array past its end is noted (and not done: its bytes past the
 * end are the allocator's, not a slot).
 */
static void *fcheck(int fd)
{
	void **array;

	if (fd >= READ_ONCE(files.max_fds))
		return NULL;
	if (reader_rmb)
		smp_rmb();
	array = READ_ONCE(files.fd);
	if (array == old_fds && fd >= OLD_FDS) {
		past_end = true;
		return NULL;
	}
	return READ_ONCE(array[fd]);
}

static void reader(void)
{
	seen3 = fcheck(FD_NEW);
	seen0 = fcheck(FD_COPIED);
}

static const char *no_file_lost(void)
{
	if (past_end)
		return "the reader read the new max_fds and the old array: fd 3 "
		       "indexes past its end";
	return seen0 == FILE0 ? NULL :
	       "fd 0 was open before and after the expansion, the reader found no file";
}

static bool saw_new_fd(void)
{
	return seen3 == FILE3;
}

static void free_tables(void)
{
	kfree(old_fds);
	kfree(new_fds);
}

LITMUS_NEVER(fd_expand,
	"the patch's expand_fd_array and fcheck_files_rcu, every barrier in place (holds)",
	all_barriers, no_file_lost, (expand_fd_array, reader),
	saw_new_fd, "the reader finds fd 3 in the new array",
	.teardown = free_tables);

LITMUS_SOMETIMES(fd_expand_no_copy_wmb,
	"no smp_wmb between the copy and publishing the array: a copied fd is lost",
	no_copy_wmb, no_file_lost, (expand_fd_array, reader),
	.teardown = free_tables);

LITMUS_SOMETIMES(fd_expand_no_publish_wmb,
	"no smp_wmb between the array and max_fds: the new size indexes the old array",
	no_publish_wmb, no_file_lost, (expand_fd_array, reader),
	.teardown = free_tables);

LITMUS_SOMETIMES(fd_expand_no_reader_rmb,
	"no smp_rmb between max_fds and the array: the new size indexes the old array",
	no_reader_rmb, no_file_lost, (expand_fd_array, reader),
	.teardown = free_tables);
