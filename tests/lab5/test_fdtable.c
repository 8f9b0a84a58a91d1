// SPDX-License-Identifier: GPL-2.0
/*
 * test_fdtable.c - lab 5, one thread: what each operation of fdtable.h
 * promises, POSIX-like (lowest fd first, dup2's cases, EBADF, EMFILE),
 * and that every file is freed exactly once.
 *
 * "Freed" is what the slab says (slab_lookup, slab_objects_live), never a
 * count of calls.  A thread inside rcu_read_lock() holds up every grace
 * period, so "not freed yet" is a deterministic observation here.
 */
#include <errno.h>
#include <signal.h>

#include <criterion/criterion.h>

#include "bug.h"
#include "fdtable.h"
#include "shared_files.h"
#include "slab.h"

static struct files_struct *files;
static long live0;		/* slab objects live before the test's table */

static void setup(void)
{
	rcu_register_thread();
	inodes_init();
	warn_reset();
	live0 = slab_objects_live();
	files = files_alloc();
	cr_assert_not_null(files, "files_alloc must return a table");
}

static void teardown(void)
{
	rcu_unregister_thread();
}

/* Whether the slab has freed the object at @p. */
static int freed(const void *p)
{
	struct slab_info info;

	return slab_lookup(p, &info) && info.freed;
}

/*
 * The file installed at @fd, or NULL: fcheck_files, not fget, so that a
 * table broken elsewhere (a file installed with a count of 0) fails the
 * test's assertions instead of sending fget's retry loop round forever.
 */
static struct file *file_at(struct files_struct *f, unsigned int fd)
{
	struct file *file;

	rcu_read_lock();
	file = fcheck_files(f, fd);
	rcu_read_unlock();
	return file;
}

/* Open test_inodes[@ino] and check it landed at @fd, where fget finds it. */
static struct file *open_at(unsigned int ino, int fd)
{
	struct file *file;

	cr_assert_eq(open_inode(files, ino), fd, "open did not return fd %d", fd);
	file = file_at(files, fd);
	cr_assert_not_null(file, "fcheck_files(%d) found nothing at the fd just "
			   "opened", fd);
	return file;
}

/* The last put, the grace period: nothing may be left, nothing warned. */
static void put_and_check(void)
{
	put_files_struct(files);
	files = NULL;
	rcu_barrier();
	cr_assert_eq(slab_objects_live(), live0, "%ld object(s) never freed",
		     slab_objects_live() - live0);
	cr_assert_eq(warn_count(), 0, "a WARN fired (see its message above)");
}

TestSuite(fdtable, .init = setup, .fini = teardown);

Test(fdtable, small_table_allocates_nothing)
{
	long live = slab_objects_live();

	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		open_at(fd, fd);
	cr_assert_eq(slab_objects_live(), live + NR_OPEN_DEFAULT,
		     "only the %d files may be allocated: fds below "
		     "NR_OPEN_DEFAULT use the embedded table", NR_OPEN_DEFAULT);
	put_and_check();
}

Test(fdtable, lowest_fd_first)
{
	for (int fd = 0; fd < 3; fd++)
		open_at(fd, fd);
	cr_assert_eq(close_fd(files, 1), 0, "close_fd of an open fd must return 0");
	open_at(4, 1);
	open_at(5, 3);
	cr_assert_eq(close_fd(files, 0), 0, "close_fd of an open fd must return 0");
	cr_assert_eq(close_fd(files, 2), 0, "close_fd of an open fd must return 0");
	open_at(6, 0);
	open_at(7, 2);
	put_and_check();
}

Test(fdtable, reserved_fd_is_taken_until_given_back)
{
	cr_assert_eq(get_unused_fd(files), 0, "the first free fd of an empty table is 0");
	cr_assert_eq(get_unused_fd(files), 1, "with fd 0 reserved, the lowest free fd is 1");
	cr_assert_null(fget(files, 0), "fget found a file at a reserved fd");
	put_unused_fd(files, 0);
	open_at(0, 0);
	open_at(1, 2);
	put_unused_fd(files, 1);
	open_at(2, 1);
	put_and_check();
}

Test(fdtable, install_passes_the_reference)
{
	struct file *file = alloc_file(&test_inodes[0]);
	int fd = get_unused_fd(files);

	cr_assert_eq(fd, 0, "the first free fd of an empty table is 0");
	fd_install(files, fd, file);
	cr_assert_eq(file_count(file), 1, "fd_install took a reference of its own");
	cr_assert_eq(fcheck_files(files, fd), file,
		     "fcheck_files must find the file fd_install put there");
	put_and_check();
	cr_assert(freed(file), "the table's put must free a file no one else holds");
}

Test(fdtable, fget_takes_a_reference)
{
	struct file *file = open_at(0, 0), *got;
	unsigned long locks = files->file_lock.nr_acquired;

	got = fget(files, 0);
	cr_assert_eq(got, file, "fget must return the file installed at that fd");
	cr_assert_eq(file_count(file), 2, "the table's + fget's");
#ifdef CONFIG_FDTABLE_LOCKED
	cr_assert_eq(files->file_lock.nr_acquired, locks + 1,
		     "the 2.6.6 fget takes file_lock");
#else
	cr_assert_eq(files->file_lock.nr_acquired, locks, "fget took file_lock");
#endif
	cr_assert_eq(file_is_sane(got, 5), 0, "the file fget returned must be intact");
	fput(got);
	cr_assert_eq(file_count(file), 1,
		     "fput of fget's reference must leave the table's (count 1)");
	put_and_check();
}

Test(fdtable, fget_of_a_free_fd_is_null)
{
	open_at(0, 0);
	cr_assert_eq(get_unused_fd(files), 1, "with fd 0 open, the lowest free fd is 1");	/* reserved, not installed */
	cr_assert_null(fget(files, 1), "reserved fd");
	cr_assert_null(fget(files, 2), "free fd");
	cr_assert_null(fget(files, NR_OPEN_DEFAULT), "past the embedded table");
	cr_assert_null(fget(files, NR_OPEN + 7), "past NR_OPEN");
	cr_assert_null(fcheck_files(files, 1000), "past the table");
	put_unused_fd(files, 1);
	put_and_check();
}

Test(fdtable, fcheck_files_takes_no_reference)
{
	struct file *file = open_at(0, 0);
	unsigned long locks = files->file_lock.nr_acquired;

	rcu_read_lock();
	cr_assert_eq(fcheck_files(files, 0), file,
		     "fcheck_files must find the file installed at fd 0");
	rcu_read_unlock();
	cr_assert_eq(file_count(file), 1, "fcheck_files must not take a reference");
	cr_assert_eq(files->file_lock.nr_acquired, locks, "fcheck_files took file_lock");
	put_and_check();
}

Test(fdtable, close_frees_the_fd_and_drops_the_reference)
{
	struct file *a = open_at(0, 0), *b, *held;

	open_at(1, 1);
	cr_assert_eq(set_close_on_exec(files, 0, 1), 0,
		     "set_close_on_exec of an open fd must return 0");
	held = fget(files, 0);
	cr_assert_eq(close_fd(files, 0), 0, "close_fd of an open fd must return 0");
	cr_assert_null(fget(files, 0), "fget found a closed fd");
	cr_assert_eq(file_count(a), 1, "only our fget's reference is left");
	cr_assert_eq(get_close_on_exec(files, 0), 0, "close left the flag set");
	cr_assert_eq(close_fd(files, 0), -EBADF, "closing twice");
	b = open_at(2, 0);	/* the lowest free fd again */
	cr_assert_neq(a, b, "a new file must be a new struct file");
	fput(held);
	rcu_barrier();
	cr_assert(freed(a), "the last reference is gone: the file must be freed");
	put_and_check();
}

Test(fdtable, close_of_a_reserved_fd_is_ebadf)
{
	cr_assert_eq(get_unused_fd(files), 0, "the first free fd of an empty table is 0");
	cr_assert_eq(close_fd(files, 0), -EBADF,
		     "close_fd of a reserved fd (no file installed) must return -EBADF");
	cr_assert_eq(get_unused_fd(files), 1, "the reserved fd 0 must stay reserved");
	cr_assert_eq(close_fd(files, NR_OPEN + 3), -EBADF,
		     "close_fd past NR_OPEN must return -EBADF");
	put_unused_fd(files, 0);
	put_unused_fd(files, 1);
	put_and_check();
}

/* close_fd drops the table's reference through fput: freed after the grace period. */
Test(fdtable, close_frees_after_the_grace_period)
{
	struct file *file = open_at(0, 0), *seen;

	rcu_read_lock();
	seen = fcheck_files(files, 0);	/* a lock-free reader, no reference */
	cr_assert_eq(close_fd(files, 0), 0, "close_fd of an open fd must return 0");
	cr_assert_not(freed(file), "freed while a reader was inside rcu_read_lock()");
	cr_assert_eq(file_count(seen), 0, "close_fd must drop the table's reference, the last one");
	cr_assert_eq(get_file_rcu(seen), 0, "a count of 0 must stay 0");
	rcu_read_unlock();
	rcu_barrier();
	cr_assert(freed(file), "the file must be freed after the grace period");
	put_and_check();
}

Test(fdtable, dup2_onto_itself)
{
	struct file *file = open_at(0, 0);

	cr_assert_eq(dup2_fd(files, 0, 0), 0, "dup2(fd, fd) of an open fd must return fd");
	cr_assert_eq(file_count(file), 1, "dup2(fd, fd) must change nothing");
	cr_assert_eq(dup2_fd(files, 1, 1), -EBADF, "dup2 of a free fd onto itself");
	put_and_check();
}

Test(fdtable, dup2_onto_a_free_fd)
{
	struct file *file = open_at(0, 0);

	cr_assert_eq(dup2_fd(files, 0, 2), 2, "dup2 onto a free fd must return newfd");
	cr_assert_eq(file_at(files, 2), file, "after dup2, newfd must hold oldfd's file");
	cr_assert_eq(file_count(file), 2, "one reference per fd");
	cr_assert_eq(open_inode(files, 1), 1, "fd 1 is still the lowest free");
	cr_assert_eq(open_inode(files, 1), 3, "fd 2 is taken");
	put_and_check();
}

Test(fdtable, dup2_onto_an_open_fd_replaces_it)
{
	struct file *a = open_at(0, 0), *b = open_at(1, 1);

	cr_assert_eq(set_close_on_exec(files, 1, 1), 0,
		     "set_close_on_exec of an open fd must return 0");
	cr_assert_eq(dup2_fd(files, 0, 1), 1, "dup2 onto an open fd must return newfd");
	cr_assert_eq(file_at(files, 1), a, "after dup2, newfd must hold oldfd's file");
	cr_assert_eq(file_count(a), 2, "oldfd and newfd must each hold a reference");
	cr_assert_eq(get_close_on_exec(files, 1), 0,
		     "dup2 must clear newfd's close-on-exec flag");
	rcu_barrier();
	cr_assert(freed(b), "newfd's old file lost its last reference");
	put_and_check();
}

Test(fdtable, dup2_errors)
{
	open_at(0, 0);
	cr_assert_eq(dup2_fd(files, 3, 1), -EBADF, "oldfd not open");
	cr_assert_eq(dup2_fd(files, NR_OPEN + 1, 1), -EBADF, "oldfd past NR_OPEN");
	cr_assert_eq(dup2_fd(files, 0, NR_OPEN), -EBADF, "newfd >= NR_OPEN");
	cr_assert_eq(get_unused_fd(files), 1, "with fd 0 open, the lowest free fd is 1");
	cr_assert_eq(dup2_fd(files, 0, 1), -EBUSY, "newfd reserved, not installed");
	cr_assert_null(fget(files, 1), "a reserved fd must hold no file after a refused dup2");
	put_unused_fd(files, 1);
	put_and_check();
}

Test(fdtable, dup2_grows_the_table)
{
	struct file *file = open_at(0, 0), *other = open_at(1, 1);

	cr_assert_eq(dup2_fd(files, 1, 100), 100,
		     "dup2 past the table's size must grow it and return newfd");
	cr_assert_eq(file_at(files, 100), other, "after dup2, newfd must hold oldfd's file");
	cr_assert_eq(file_at(files, 0), file, "the growth lost fd 0");
	cr_assert_eq(file_at(files, 1), other, "the growth lost fd 1");
	cr_assert_eq(open_inode(files, 2), 2, "fd 2 is still the lowest free fd after the growth");
	put_and_check();
}

Test(fdtable, emfile_past_nr_open)
{
	int fd;

	for (fd = 0; fd < NR_OPEN; fd++)
		cr_assert_eq(open_inode(files, fd), fd,
			     "open_inode must install each new file at the lowest free fd");
	cr_assert_eq(get_unused_fd(files), -EMFILE,
		     "a table with NR_OPEN fds open must refuse another with -EMFILE");
	for (fd = 0; fd < NR_OPEN; fd += 97)
		cr_assert_eq(file_is_sane(file_at(files, fd), fd), fd % TEST_INODES,
			     "every fd must still hold its own file after the growths");
	cr_assert_eq(close_fd(files, 500), 0, "close_fd of an open fd must return 0");
	cr_assert_eq(open_inode(files, 0), 500, "the fd just closed is the only free one");
	cr_assert_eq(get_unused_fd(files), -EMFILE,
		     "a full table must refuse another fd with -EMFILE");
	put_and_check();
}

Test(fdtable, expansion_keeps_files_and_flags)
{
	struct file *opened[40];

	for (int fd = 0; fd < 40; fd++) {
		opened[fd] = open_at(fd, fd);
		if (fd % 3 == 0)
			cr_assert_eq(set_close_on_exec(files, fd, 1), 0,
				     "set_close_on_exec of an open fd must return 0");
	}
	for (int fd = 0; fd < 40; fd++) {
		cr_assert_eq(file_at(files, fd), opened[fd], "fd %d moved", fd);
		cr_assert_eq(get_close_on_exec(files, fd), fd % 3 == 0,
			     "fd %d's close-on-exec flag", fd);
	}
	cr_assert_null(fget(files, 40), "an fd never opened must hold no file after the growth");
	cr_assert_eq(get_close_on_exec(files, 1000), 0, "past the bitmaps");
	put_and_check();
}

Test(fdtable, old_arrays_freed_after_the_grace_period)
{
	struct fdtable *fdt;
	struct file **old_fd;
	unsigned long *old_open, *old_exec;
	int fd;

	for (fd = 0; fd < 2 * NR_OPEN_DEFAULT; fd++)
		open_at(fd, fd);	/* one expansion: allocated arrays now */
	fdt = files_fdtable(files);
	old_fd = fdt->fd;
	old_open = fdt->open_fds;
	old_exec = fdt->close_on_exec;
	cr_assert_neq(old_fd, files->fd_array,
		      "the fd array must have grown away from the embedded one");
	rcu_read_lock();
	open_at(fd, fd);		/* the next expansion, under a reader */
	cr_assert_not(freed(old_fd), "old fd array freed inside a reader's section");
	cr_assert_not(freed(old_open), "old open_fds freed inside a reader's section");
	cr_assert_not(freed(old_exec), "old close_on_exec freed inside a reader's section");
	rcu_read_unlock();
	rcu_barrier();
	cr_assert(freed(old_fd), "old fd array never freed");
	cr_assert(freed(old_open), "old open_fds never freed");
	cr_assert(freed(old_exec), "old close_on_exec never freed");
	put_and_check();
}

Test(fdtable, expand_files_reports_what_it_did)
{
	spin_lock(&files->file_lock);
	cr_assert_eq(expand_files(files, NR_OPEN_DEFAULT - 1), 0, "nothing to do");
	cr_assert_eq(expand_files(files, 10), 1, "it grew the table");
	cr_assert_gt(files_fdtable(files)->max_fds, 10,
		     "expand_files(10) must leave room for fd 10");
	cr_assert_gt(files_fdtable(files)->max_fdset, 10,
		     "expand_files(10) must leave room for fd 10 in the bitmaps");
	cr_assert_eq(expand_files(files, 10), 0, "already big enough");
	cr_assert_eq(expand_files(files, NR_OPEN), -EMFILE,
		     "expand_files past NR_OPEN must return -EMFILE");
	cr_assert_eq(expand_fd_array(files, NR_OPEN), -EMFILE,
		     "expand_fd_array past NR_OPEN must return -EMFILE");
	cr_assert_eq(expand_fdset(files, NR_OPEN + 5), -EMFILE,
		     "expand_fdset past NR_OPEN must return -EMFILE");
	spin_unlock(&files->file_lock);
	open_at(0, 0);
	put_and_check();
}

Test(fdtable, close_on_exec_flag)
{
	open_at(0, 0);
	cr_assert_eq(get_close_on_exec(files, 0), 0, "a new fd's flag is clear");
	cr_assert_eq(set_close_on_exec(files, 0, 1), 0,
		     "set_close_on_exec of an open fd must return 0");
	cr_assert_eq(get_close_on_exec(files, 0), 1, "set_close_on_exec(fd, 1) must set the flag");
	cr_assert_eq(set_close_on_exec(files, 0, 0), 0,
		     "set_close_on_exec of an open fd must return 0");
	cr_assert_eq(get_close_on_exec(files, 0), 0, "set_close_on_exec(fd, 0) must clear the flag");
	cr_assert_eq(set_close_on_exec(files, 1, 1), -EBADF,
		     "set_close_on_exec of a free fd must return -EBADF");
	put_and_check();
}

Test(fdtable, fget_light_single_user_takes_nothing)
{
	struct file *file = open_at(0, 0), *got;
	unsigned long locks = files->file_lock.nr_acquired;
	int fput_needed = -1;

	got = fget_light(files, 0, &fput_needed);
	cr_assert_eq(got, file, "fget_light must return the file installed at that fd");
	cr_assert_eq(fput_needed, 0, "fget_light on an unshared table must not ask for an fput");
	cr_assert_eq(file_count(file), 1, "fget_light took a reference on an unshared table");
	cr_assert_eq(files->file_lock.nr_acquired, locks, "fget_light took file_lock");
	fput_light(got, fput_needed);
	cr_assert_eq(file_count(file), 1,
		     "the count must be unchanged after fget_light on an unshared table");
	cr_assert_null(fget_light(files, 1, &fput_needed),
		       "fget_light of a free fd must return NULL");
	put_and_check();
}

Test(fdtable, fget_light_shared_takes_a_reference)
{
	struct file *file = open_at(0, 0), *got;
	int fput_needed = -1;

	get_files_struct(files);	/* a second user */
	got = fget_light(files, 0, &fput_needed);
	cr_assert_eq(got, file, "fget_light must return the file installed at that fd");
	cr_assert_eq(fput_needed, 1, "fget_light on a shared table must ask for an fput");
	cr_assert_eq(file_count(file), 2, "fget_light on a shared table must take a reference");
	fput_light(got, fput_needed);
	cr_assert_eq(file_count(file), 1, "fput of fget_light's reference must leave the table's");
	fput_needed = -1;
	cr_assert_null(fget_light(files, 1, &fput_needed),
		       "fget_light of a free fd must return NULL");
	cr_assert_eq(fput_needed, 0, "fget_light of a free fd must not ask for an fput");
	put_files_struct(files);	/* the second user leaves */
	cr_assert_eq(file_count(file), 1, "not the last user: nothing closed");
	put_and_check();
}

Test(fdtable, dup_files_copies_and_references)
{
	struct file *opened[3];
	struct files_struct *child;
	int err = 0;

	for (int fd = 0; fd < 3; fd++)
		opened[fd] = open_at(fd, fd);
	cr_assert_eq(close_fd(files, 1), 0, "close_fd of an open fd must return 0");
	cr_assert_eq(set_close_on_exec(files, 2, 1), 0,
		     "set_close_on_exec of an open fd must return 0");
	cr_assert_eq(get_unused_fd(files), 1,
		     "with fd 0 open and fd 1 closed, the lowest free fd is 1");	/* reserved, never installed */
	child = dup_files(files, &err);
	cr_assert_not_null(child, "dup_files failed: %d", err);
	cr_assert_eq(atomic_read(&child->count), 1, "the copy must start with one user");
	cr_assert_eq(file_at(child, 0), opened[0], "the copy's fd 0 must hold the original's file");
	cr_assert_eq(file_at(child, 2), opened[2], "the copy's fd 2 must hold the original's file");
	cr_assert_eq(file_count(opened[0]), 2, "the copy holds its own reference");
	cr_assert_eq(get_close_on_exec(child, 2), 1, "the copy keeps the flags");
	cr_assert_eq(get_close_on_exec(child, 0), 0, "the copy must keep fd 0's clear flag");
	cr_assert_eq(get_unused_fd(child), 1, "a reserved fd is free in the copy");
	put_unused_fd(child, 1);
	cr_assert_eq(close_fd(child, 0), 0, "close_fd in the copy of an open fd must return 0");
	cr_assert_eq(file_at(files, 0), opened[0], "closing in the copy closed the original");
	cr_assert_eq(file_count(opened[0]), 1,
		     "closing in the copy must drop only the copy's reference");
	put_files_struct(child);
	cr_assert_eq(file_count(opened[2]), 1, "the copy's put must drop its references");
	put_unused_fd(files, 1);
	put_and_check();
}

Test(fdtable, dup_files_of_a_grown_table)
{
	struct files_struct *child;
	int err = 0;

	for (int fd = 0; fd < 40; fd++)
		open_at(fd, fd);
	cr_assert_eq(close_fd(files, 39), 0, "close_fd of an open fd must return 0");
	child = dup_files(files, &err);
	cr_assert_not_null(child, "dup_files of a grown table must succeed");
	for (int fd = 0; fd < 39; fd++) {
		cr_assert_eq(file_at(child, fd), file_at(files, fd), "fd %d", fd);
		cr_assert_eq(file_count(file_at(files, fd)), 2,
			     "the copy must hold its own reference on every file");
	}
	cr_assert_null(fget(child, 39), "an fd closed before the copy must be free in the copy");
	cr_assert_eq(open_inode(child, 0), 39,
		     "the copy's lowest free fd is the one closed before the copy");
	put_files_struct(child);
	put_and_check();
}

Test(fdtable, last_user_closes_every_file_once)
{
	struct file *opened[12];

	for (int fd = 0; fd < 12; fd++)
		opened[fd] = open_at(fd, fd);
	cr_assert_eq(dup2_fd(files, 3, 20), 20, "dup2 onto a free fd must return newfd");
	get_files_struct(files);
	put_files_struct(files);
	rcu_barrier();
	for (int fd = 0; fd < 12; fd++)
		cr_assert_not(freed(opened[fd]), "a user left, not the last: fd %d freed", fd);
	put_and_check();
	for (int fd = 0; fd < 12; fd++)
		cr_assert(freed(opened[fd]), "fd %d's file never freed", fd);
}

/* A mixed history; at the end every object was freed, none twice (a BUG). */
Test(fdtable, every_file_freed_exactly_once)
{
	struct files_struct *child;
	int err;

	for (int i = 0; i < 300; i++) {
		unsigned int fd = (i * 7) % 23;

		switch (i % 5) {
		case 0:
		case 1:
			open_inode(files, i);
			break;
		case 2:
			close_fd(files, fd);
			break;
		case 3:
			dup2_fd(files, fd, (i * 11) % 29);
			break;
		case 4:
			child = dup_files(files, &err);
			cr_assert_not_null(child, "dup_files must succeed");
			close_fd(child, fd);
			open_inode(child, i);
			put_files_struct(child);
			break;
		}
	}
	put_and_check();
}

/* The given allocator of arrays and bitmaps: fdtable_given.c. */
TestSuite(alloc, .init = setup, .fini = teardown);

Test(alloc, arrays_start_empty)
{
	struct file **array = alloc_fd_array(16);
	unsigned long *set = alloc_fdset(130);

	for (int i = 0; i < 16; i++)
		cr_assert_null(array[i], "a new fd array must hold no file");
	for (int nr = 0; nr < 130; nr++)
		cr_assert_not(test_bit(nr, set), "a new bitmap must have no bit set");
	free_fd_array(array, 16);
	free_fdset(set, 130);
	put_and_check();
}

Test(alloc, array_freed_with_another_size_is_a_bug, .signal = SIGABRT)
{
	free_fd_array(alloc_fd_array(8), 16);
}

Test(alloc, embedded_array_freed_is_a_bug, .signal = SIGABRT)
{
	free_fd_array(files->fd_array, NR_OPEN_DEFAULT);
}

Test(alloc, bitmap_freed_with_another_size_is_a_bug, .signal = SIGABRT)
{
	free_fdset(alloc_fdset(8), 16);
}

Test(alloc, embedded_bitmap_freed_is_a_bug, .signal = SIGABRT)
{
	free_fdset(files->open_fds_init, NR_OPEN_DEFAULT);
}
