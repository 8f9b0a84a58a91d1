// SPDX-License-Identifier: GPL-2.0
/*
 * fget.c - YOURS: the lock-free lookups, fget() and fget_light().
 *
 * Lab 5, part 1: write both.  fdtable.h has the contracts; README.md
 * ("Part 1") walks through what the 2004 patch changed here and what the
 * kernel fixed later.  Build on fcheck_files() (fdtable.c) and the file
 * references of file.h: get_file_rcu(), fput().
 */
#include "fdtable.h"

struct file *fget(struct files_struct *files, unsigned int fd)
{
	/*
	 * TODO: inside rcu_read_lock(): read the slot (fcheck_files) and take
	 * a reference with get_file_rcu().  A count of 0 means the file was
	 * closed (or replaced by dup2) after you read the slot: look again.
	 * After a successful get, check that the slot still holds the same
	 * file; if not, fput() it and look again (CVE-2021-4083).
	 */
	(void)files;
	(void)fd;
	return NULL;
}

struct file *fget_light(struct files_struct *files, unsigned int fd,
			int *fput_needed)
{
	/*
	 * TODO: when the table has one user (files->count), return the slot
	 * without a reference (*fput_needed = 0); otherwise fget(), with
	 * *fput_needed = 1 when it returns a file.
	 */
	(void)files;
	(void)fd;
	*fput_needed = 0;
	return NULL;
}
