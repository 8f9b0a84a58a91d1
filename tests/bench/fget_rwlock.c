// SPDX-License-Identifier: GPL-2.0
/*
 * fget_rwlock.c - the benchmark's rwlock build: fget() under the read side
 * of a reader-writer lock, the comparison LKML asked the 2004 patch for
 * (2.4 had file_lock as an rwlock_t; 2.6 made it a spinlock).
 *
 * Strong definitions: they replace fget.c's weak fget() and fget_light(),
 * as fget_locked_given.c's do.  The lock is a pthread_rwlock_t (glibc's:
 * an atomic update of one shared word to take the read side, one more to
 * release it).  struct files_struct has no field for it, and the benchmark
 * runs one shared table at a time, so the lock is one for the build.
 *
 * Updates hold the write side: the driver calls bench_update_begin() and
 * bench_update_end() around every update of a table (lab 5's code still
 * takes file_lock inside, uncontended).  So a reader that finds a file
 * under the read side finds it installed, with the table's reference: the
 * plain get_file() is safe, as under 2.6.6's spinlock.
 */
#include <pthread.h>

#define FDTABLE_LOCKED_FGET	/* this fget is the strong one */
#include "bench_ops.h"
#include "fdtable.h"

static pthread_rwlock_t files_rwlock = PTHREAD_RWLOCK_INITIALIZER;

void bench_update_begin(void)
{
	pthread_rwlock_wrlock(&files_rwlock);
}

void bench_update_end(void)
{
	pthread_rwlock_unlock(&files_rwlock);
}

struct file *fget(struct files_struct *files, unsigned int fd)
{
	struct file *file;

	pthread_rwlock_rdlock(&files_rwlock);
	file = fcheck_files(files, fd);
	if (file)
		get_file(file);	/* installed, and no update can run */
	pthread_rwlock_unlock(&files_rwlock);
	return file;
}
