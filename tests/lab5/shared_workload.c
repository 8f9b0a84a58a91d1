// SPDX-License-Identifier: GPL-2.0
/*
 * shared_workload.c - see shared_workload.h.
 */
#include <errno.h>
#include <pthread.h>

#include "fdtable.h"
#include "shared_files.h"
#include "shared_workload.h"

long workload_failures;

static struct files_struct *files;
static const struct workload *work;

static void failed(void)
{
	__atomic_add_fetch(&workload_failures, 1, __ATOMIC_RELAXED);
}

static unsigned int next_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

/* One lookup: fget or fget_light, read through the file, check, put. */
static void read_one(unsigned int *seed)
{
	unsigned int fd = next_rand(seed) % FD_SPAN;
	struct file *file;
	int fput_needed = 1;

	if (next_rand(seed) % 2)
		file = fget(files, fd);
	else
		file = fget_light(files, fd, &fput_needed);
	if (!file)
		return;
	if (file_is_sane(file, next_rand(seed)) < 0)
		failed();	/* freed memory, or never a file */
	fput_light(file, fput_needed);
	(void)get_close_on_exec(files, fd);
}

static void *reader(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg;

	rcu_register_thread();
	for (int i = 0; i < work->reads; i++)
		read_one(&seed);
	put_files_struct(files);
	rcu_unregister_thread();
	return NULL;
}

/*
 * fork's copy must hold every fd it copied, each with its own reference.
 * The copy is private, so its slots are read with fcheck_files under
 * rcu_read_lock, not fget: on a copy that a bug left holding a file whose
 * count is 0, fget would retry forever.  A copy found wrong is left alone
 * (a leak, reported at the end): putting references it does not hold would
 * drop the parent's files to 0 while they are installed.
 */
static void fork_and_check(void)
{
	int err = 0, bad = 0;
	struct files_struct *child = dup_files(files, &err);

	if (!child) {
		failed();
		return;
	}
	rcu_read_lock();
	for (unsigned int fd = 0; fd < FD_SPAN; fd++) {
		struct file *file = fcheck_files(child, fd);

		if (file && (file_count(file) < 1 || file_is_sane(file, fd) < 0))
			bad = 1;
	}
	rcu_read_unlock();
	if (bad) {
		failed();
		return;
	}
	close_fd(child, 0);
	put_files_struct(child);
}

static void write_one(unsigned int *seed)
{
	unsigned int fd = next_rand(seed) % FD_SPAN;
	int ret;

	switch (next_rand(seed) % 8) {
	case 0:
	case 1:
	case 2:
		ret = open_inode(files, next_rand(seed));
		if (ret >= FD_SPAN)
			ret = close_fd(files, ret);	/* keep to the span */
		else if (ret < 0)
			failed();
		break;
	case 3:
	case 4:
		ret = close_fd(files, fd);
		if (ret && ret != -EBADF)
			failed();
		break;
	case 5:
		ret = dup2_fd(files, fd, next_rand(seed) % FD_SPAN);
		if (ret < 0 && ret != -EBADF && ret != -EBUSY)
			failed();
		break;
	case 6:
		set_close_on_exec(files, fd, next_rand(seed) % 2);
		break;
	case 7:
		if (next_rand(seed) % 4 == 0)
			fork_and_check();
		break;
	}
}

/*
 * A writer ends its round by closing every fd of the span, as a process
 * closes its files before it exits.  On a table that a bug left holding a
 * file whose count is 0, that is also what lets the readers' fget stop
 * retrying that slot: the round ends, and its checks fail, at once.
 */
static void close_all(void)
{
	for (unsigned int fd = 0; fd < FD_SPAN; fd++)
		close_fd(files, fd);
}

static void *writer(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg * 7919u;

	rcu_register_thread();
	for (int i = 0; i < work->writes; i++)
		write_one(&seed);
	close_all();
	put_files_struct(files);
	rcu_unregister_thread();
	return NULL;
}

/*
 * One round: a fresh table with PREOPEN files (grown once already, so that
 * readers find files from the start), every worker a user of it, all
 * joined.  The writers' opens grow it twice more under the readers.
 */
static void run_round(int round)
{
	pthread_t tid[NR_READERS + NR_WRITERS];
	long i;

	files = files_alloc();
	if (!files) {
		failed();
		return;
	}
	for (i = 0; i < PREOPEN; i++)
		open_inode(files, i);
	for (i = 0; i < NR_READERS + NR_WRITERS; i++)
		get_files_struct(files);
	for (i = 0; i < NR_READERS + NR_WRITERS; i++)
		pthread_create(&tid[i], NULL, i < NR_READERS ? reader : writer,
			       (void *)(round * 16 + i + 1));
	put_files_struct(files);	/* the last worker's put frees it */
	for (i = 0; i < NR_READERS + NR_WRITERS; i++)
		pthread_join(tid[i], NULL);
}

long run_workload(const struct workload *w)
{
	inodes_init();
	work = w;
	workload_failures = 0;
	for (int round = 0; round < w->rounds; round++)
		run_round(round);
	return workload_failures;
}
