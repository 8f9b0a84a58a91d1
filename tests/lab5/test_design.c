// SPDX-License-Identifier: GPL-2.0
/*
 * test_design.c - lab 5: fdtable.c says which design it implements
 * (fdtable_design), and the table behaves as that design says.
 */
#include <criterion/criterion.h>

#include "fdtable.h"
#include "shared_files.h"

Test(design, declared_design_is_the_one_built)
{
	struct files_struct *files;

	rcu_register_thread();
	inodes_init();
	cr_assert(fdtable_design == FDTABLE_2004 || fdtable_design == FDTABLE_2005,
		  "fdtable_design must be FDTABLE_2004 or FDTABLE_2005 (README "
		  "\"Two designs\"), not %d", fdtable_design);
	cr_log_info("fdtable.c implements the %d design", fdtable_design);
	files = files_alloc();
	for (int fd = 0; fd < 3 * NR_OPEN_DEFAULT; fd++)
		cr_assert_eq(open_inode(files, fd), fd,
			     "open_inode must install each new file at the lowest free fd");
	if (fdtable_design == FDTABLE_2004) {
		cr_assert_eq(files->fdt, &files->fdtab,
			     "the 2004 design updates files->fdtab in place");
		cr_assert_neq(files->fdtab.fd, files->fd_array,
			      "the 2004 design grows files->fdtab.fd away from the embedded array");
	} else {
		cr_assert_neq(files->fdt, &files->fdtab,
			      "the 2005 design publishes a new struct fdtable");
		cr_assert_eq(files->fdtab.fd, files->fd_array,
			     "the 2005 design never changes the embedded table");
		cr_assert_eq(files->fdtab.max_fds, NR_OPEN_DEFAULT,
			     "the 2005 design keeps the embedded table's size");
	}
	put_files_struct(files);
	rcu_barrier();
	rcu_unregister_thread();
}
