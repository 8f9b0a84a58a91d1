// SPDX-License-Identifier: GPL-2.0
/*
 * fget.c - the lock-free lookups: fget() and fget_light().
 *
 * Lab 5: the 2004 patch's fget, with what the kernel learnt since: retry
 * when the count was 0 (the file was closed, or replaced by dup2, between
 * the read and the get), and re-check the slot after the get
 * (CVE-2021-4083).  fdtable.h has the contracts.
 */
#include "fdtable.h"

struct file *fget(struct files_struct *files, unsigned int fd)
{
	struct file *file;

	rcu_read_lock();
	for (;;) {
		file = fcheck_files(files, fd);
		if (!file)
			break;
		if (!get_file_rcu(file))
			continue;	/* count 0: closed or replaced, look again */
		if (file == fcheck_files(files, fd))
			break;		/* still installed when we got it */
		fput(file);		/* closed meanwhile: not ours to return */
	}
	rcu_read_unlock();
	return file;
}

struct file *fget_light(struct files_struct *files, unsigned int fd,
			int *fput_needed)
{
	struct file *file;

	*fput_needed = 0;
	if (atomic_read(&files->count) == 1)
		return fcheck_files(files, fd);	/* nobody else can close it */
	file = fget(files, fd);
	if (file)
		*fput_needed = 1;
	return file;
}
