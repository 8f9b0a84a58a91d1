// SPDX-License-Identifier: GPL-2.0
/*
 * fdtable.c - YOURS: the fd table's lock-free reads (fcheck_files,
 * get_close_on_exec), its growth, install, close, dup2 and fork.
 *
 * Lab 5, parts 2-4: write the functions marked TODO.  fdtable.h has the
 * contracts, README.md the why.  The skeleton is set up for the 2004
 * patch's design: the array, the bitmaps and their sizes are the fields
 * of the embedded files->fdtab, replaced in place (files->fdt never moves).
 * For the 2005 design, see README "Two designs" and change fdtable_design.
 *
 * Given code you call: fdtable_given.c (alloc/free of arrays and bitmaps,
 * expand_files, get_unused_fd), file_given.c, bitops.h; the primitives of
 * common/ (rcupdate.h, rwonce.h, barrier.h, spinlock.h, slab.h).
 */
#include <errno.h>
#include <string.h>

#include "barrier.h"
#include "fdtable.h"
#include "rwonce.h"
#include "slab.h"

/* The design this file implements: FDTABLE_2004 or FDTABLE_2005. */
const int fdtable_design = FDTABLE_2004;

struct file *fcheck_files(struct files_struct *files, unsigned int fd)
{
	/*
	 * TODO (part 1): the lock-free read of slot @fd.  Check @fd against
	 * max_fds, then read the array pointer, then the slot -- in an order,
	 * and with barriers, that pair with how expand_fd_array publishes a
	 * new array (README "Part 2").
	 */
	(void)files;
	(void)fd;
	return NULL;
}

int get_close_on_exec(struct files_struct *files, unsigned int fd)
{
	/* TODO (part 2): fcheck_files' twin for the close_on_exec bitmap. */
	(void)files;
	(void)fd;
	return 0;
}

int expand_fd_array(struct files_struct *files, unsigned int nr)
{
	/*
	 * TODO (part 2): allocate a larger array (alloc_fd_array), copy the
	 * old one into it, publish it for lock-free readers, free the old one
	 * after a grace period (call_rcu) -- never the embedded fd_array.
	 * You may drop file_lock while you allocate, as the kernel did; then
	 * somebody may have expanded meanwhile.
	 */
	(void)files;
	(void)nr;
	return -ENOMEM;
}

int expand_fdset(struct files_struct *files, unsigned int nr)
{
	/*
	 * TODO (part 2): the same for open_fds and close_on_exec (alloc_fdset,
	 * bitmap_copy).  Free the old bitmaps with the size they had.
	 */
	(void)files;
	(void)nr;
	return -ENOMEM;
}

void fd_install(struct files_struct *files, unsigned int fd, struct file *file)
{
	/* TODO (part 3): store @file in the reserved slot @fd, under file_lock. */
	(void)files;
	(void)fd;
	(void)file;
}

int close_fd(struct files_struct *files, unsigned int fd)
{
	/*
	 * TODO (part 3): under file_lock, empty the slot, clear both bits and
	 * lower next_fd; drop the table's reference (fput) -- a lock-free
	 * reader may still hold the file.  -EBADF if nothing is installed.
	 */
	(void)files;
	(void)fd;
	return -EBADF;
}

int dup2_fd(struct files_struct *files, unsigned int oldfd, unsigned int newfd)
{
	/*
	 * TODO (part 3): POSIX dup2 (README "Part 3" lists the cases).  Grow
	 * the table with expand_files() -- it may drop the lock -- and take
	 * newfd's reference before you publish the file there.
	 */
	(void)files;
	(void)oldfd;
	(void)newfd;
	return -EBADF;
}

struct files_struct *dup_files(struct files_struct *oldf, int *errorp)
{
	/*
	 * TODO (part 4): fork's copy.  files_alloc() a new table; under
	 * oldf's file_lock, grow the copy to hold oldf's open fds, copy the
	 * bitmaps and the slots, and take a reference on every file copied.
	 */
	(void)oldf;
	*errorp = -ENOMEM;
	return NULL;
}
