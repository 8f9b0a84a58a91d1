// SPDX-License-Identifier: GPL-2.0
/*
 * fget_locked_given.c - GIVEN: the 2.6.6 lookups, before the 2004 patch:
 * fget() and fget_light() find the file and take the reference under
 * file_lock.
 *
 * Built only with -DCONFIG_FDTABLE_LOCKED (the benchmark's "locked"
 * variant, never the lab's own builds): then these definitions replace
 * fget.c's, which fdtable.h declares weak.  Same API, same contracts,
 * except that these take the lock.
 */
#ifdef CONFIG_FDTABLE_LOCKED
#define FDTABLE_LOCKED_FGET	/* these definitions are the strong ones */
#include "fdtable.h"

struct file *fget(struct files_struct *files, unsigned int fd)
{
	struct file *file;

	spin_lock(&files->file_lock);
	file = fcheck_files(files, fd);
	if (file)
		get_file(file);	/* installed, so its count is not 0 */
	spin_unlock(&files->file_lock);
	return file;
}

struct file *fget_light(struct files_struct *files, unsigned int fd,
			int *fput_needed)
{
	struct file *file;

	*fput_needed = 0;
	if (atomic_read(&files->count) == 1)
		return fcheck_files(files, fd);
	spin_lock(&files->file_lock);
	file = fcheck_files(files, fd);
	if (file) {
		get_file(file);
		*fput_needed = 1;
	}
	spin_unlock(&files->file_lock);
	return file;
}
#endif /* CONFIG_FDTABLE_LOCKED */
