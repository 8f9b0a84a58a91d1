# labs/lab4-hashlock/lab.mk -- lab 4's manifest (docs/design.md, "The lab
# manifest").  Lab 2's API on another back end: lab 2's refcount.h (its
# folder is on the include path) and lab 2's tests, plus lab 4's own.
lab.title     := refcount_t without cmpxchg: the spinlock hash
lab.edit      := refcount.c
lab.tests     := lab2 lab4
lab.include   := lab2-refcount
lab.cflags    := -DCONFIG_NO_CMPXCHG -DCONFIG_SMP

# The student's refcount.c is built twice more, linked into every binary
# with its names prefixed (tests/lab4/configs.h): on one CPU, and with 8
# bucket locks.
lab.configs   := up n8
lab.config.up := -UCONFIG_SMP -DLAB4_CONFIG=up_ -include tests/lab4/config_names.h
lab.config.n8 := -DREFCOUNT_HASH_SIZE=8 -DLAB4_CONFIG=n8_ \
	-include tests/lab4/config_names.h

# The pre-build check (docs/instructor.md): what refcount.c may define --
# lab 2's API and the bucket locks -- beyond the kit's primitives.
lab.api       := refcount_init refcount_read refcount_get refcount_get_rcu \
	refcount_put refcount_dec refcount_put_and_lock __refcount_hash

lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30

# Sharing of the points, and the handout's order (lab 1's manifest says
# how).  Weight 0: what passes on the untouched skeleton -- it takes no
# lock at all, so "takes no lock" holds, and a get_rcu that does nothing
# never resurrects; the two must-fail scenarios show a configuration's
# own bug (two locks on one count; UP code on SMP) whatever the code.
# They must still pass for the part to pass.
lab.weights   := bucket::one_block_shares_a_lock=0 bucket::read_takes_no_lock=0 \
	refcount::get_rcu_never_resurrects=0 up::takes_no_bucket_lock=0 mixing=0 \
	up_code_on_smp=0
lab.order     := refcount::* put_and_lock::* bucket::* up::* configs::* stress::*
