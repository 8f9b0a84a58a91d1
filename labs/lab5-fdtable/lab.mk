# labs/lab5-fdtable/lab.mk -- lab 5's manifest (docs/design.md, "The lab
# manifest").  fget_locked_given.c compiles to nothing unless a build adds
# -DCONFIG_FDTABLE_LOCKED (the 2.6.6 lookups, for the benchmark; README
# "The 2.6.6 lookup"): the lab's own builds never do.
lab.title     := the lock-free fd table
lab.edit      := fdtable.c fget.c
lab.given     := file_given.c fdtable_given.c fget_locked_given.c
lab.tests     := lab5
lab.api       := fdtable_design fcheck_files get_close_on_exec expand_fd_array \
	expand_fdset fd_install close_fd dup2_fd dup_files fget fget_light
lab.symbols   := files_alloc get_files_struct put_files_struct alloc_fd_array \
	free_fd_array alloc_fdset free_fdset expand_files get_unused_fd \
	put_unused_fd set_close_on_exec alloc_file fput file_read file_pread \
	file_llseek
lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30

# Sharing of the points, and the handout's order (lab 1's manifest says
# how).  Weight 0: the given code's own tests (the allocators, struct
# file, the bit operations: they pass on the untouched skeleton, and no
# code of the student's changes them) and a close of a reserved fd, which
# the skeleton's close refuses too.  They must still pass for the part
# to pass.
lab.weights   := alloc::*=0 file::*=0 bitops::*=0 fdtable::close_of_a_reserved_fd_is_ebadf=0
lab.order     := fdtable::* design::* stress::* tsan_fdtable::*
