# mk/bench.mk -- make bench: lab 5's fd table, every way of looking an fd
# up, side by side (tests/bench/, tools/bench.py, docs/bench.md).
# Included by Makefile after mk/build.mk.
#
# Lab 5's code -- fdtable.c and fget.c of the tree below, and the lab's
# given files -- is built
# five times, plain -O2, each time with something else under it:
#   lockfree  as the lab builds it
#   spinlock  -DCONFIG_FDTABLE_LOCKED: the 2.6.6 fget of fget_locked_given.c
#   rwlock    tests/bench/fget_rwlock.c's fget (a strong definition)
#   hashlock  the file count through lab 4's refcount_t: every source with
#             tests/bench/file_refcount.h forced in, file_given.c as
#             tests/bench/file_given_refcount.c, and lab 4's refcount.c (of
#             the same tree) with interrupt masking compiled out
#             (tests/lab4/bench_noirq.h)
#   qsbr      tests/bench/rcupdate_qsbr.c: RCU of liburcu's QSBR flavour
# Each build is linked into one relocatable object (ld -r) in which only
# its table, bench_ops_<build>, stays global (objcopy): the five builds'
# fget, fput, ... and the students' own helpers cannot clash.  The driver
# (bench_fdtable.c, bench_run.c) and common/ are linked once.

# The tree: IMPL if given on the command line, else solutions/ (labs/ in a
# students' tree, which has no solutions/).
BENCH_DEFAULT := $(if $(wildcard solutions/$(LAB_5_folder)/.),solutions,labs)
BENCH_IMPL   := $(if $(filter command line,$(origin IMPL)),$(patsubst %/,%,$(IMPL)),$(BENCH_DEFAULT))
BENCH_DIR    := $(BUILD)/bench/fdtable/$(subst /,_,$(BENCH_IMPL))
BENCH_BIN    := $(BENCH_DIR)/bench_fdtable
BENCH_BUILDS := lockfree spinlock rwlock hashlock qsbr
OBJCOPY      ?= objcopy

BENCH_EDIT_C  := $(addprefix $(BENCH_IMPL)/$(LAB_5_folder)/,$(filter %.c,$(LAB_5_edit)))
BENCH_GIVEN_C := $(call lab_given_c,5)
BENCH_COMMON  := $(BENCH_EDIT_C) $(BENCH_GIVEN_C) tests/bench/bench_ops.c
BENCH_LAB4_C  := $(BENCH_IMPL)/$(LAB_4_folder)/refcount.c

bench_src.lockfree := $(BENCH_COMMON)
bench_src.spinlock := $(BENCH_COMMON)
bench_src.rwlock   := $(BENCH_COMMON) tests/bench/fget_rwlock.c
bench_src.hashlock := $(filter-out %/file_given.c,$(BENCH_COMMON)) \
	tests/bench/file_given_refcount.c
bench_src.qsbr     := $(BENCH_COMMON) tests/bench/rcupdate_qsbr.c

bench_cflags.spinlock := -DCONFIG_FDTABLE_LOCKED
bench_cflags.hashlock := $(addprefix -Ilabs/,$(LAB_4_include)) \
	-include tests/bench/file_refcount.h

# bench_obj BUILD, SOURCE: where SOURCE's object of BUILD goes
bench_obj  = $(BENCH_DIR)/$(1)/$(notdir $(2:.c=.o))
bench_objs = $(foreach s,$(bench_src.$(1)),$(call bench_obj,$(1),$(s))) \
	$(if $(filter hashlock,$(1)),$(BENCH_DIR)/hashlock/lab4_refcount.o)

# bench_obj_rule BUILD, SOURCE (the students' files may be unfinished:
# TODO_CFLAGS, as for every build of them)
define bench_obj_rule
$(call bench_obj,$(1),$(2)): $(2) | $(DEPS_BUILD)
	@mkdir -p $$(@D)
	$$(call quiet,CC)$$(KIT_CC) $$(call lab_cflags,5) $(if $(filter $(BENCH_EDIT_C),$(2)),$$(TODO_CFLAGS)) \
		$$(CFLAGS_plain) $$(CFLAGS) $(bench_cflags.$(1)) -DBENCH_OPS=bench_ops_$(1) \
		-c $$< -o $$@
endef

# bench_build_rule BUILD: its objects, as one object exporting bench_ops_BUILD
define bench_build_rule
$(foreach s,$(bench_src.$(1)),$(eval $(call bench_obj_rule,$(1),$(s))))
$(BENCH_DIR)/$(1).o: $(call bench_objs,$(1))
	$$(call quiet,CC)$$(KIT_CC) -r -nostdlib -o $$@ $$^
	$$(OBJCOPY) --keep-global-symbol=bench_ops_$(1) $$@
endef
$(foreach b,$(BENCH_BUILDS),$(eval $(call bench_build_rule,$(b))))

$(BENCH_DIR)/hashlock/lab4_refcount.o: $(BENCH_LAB4_C) | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(call lab_cflags,4) $(TODO_CFLAGS) $(CFLAGS_plain) $(CFLAGS) \
		-include tests/lab4/bench_noirq.h -c $< -o $@

$(BENCH_DIR)/driver/%.o: tests/bench/%.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(call lab_cflags,5) $(CFLAGS_plain) $(CFLAGS) -c $< -o $@

$(BENCH_BIN): $(BENCH_DIR)/driver/bench_fdtable.o $(BENCH_DIR)/driver/bench_run.o \
		$(patsubst %,$(BENCH_DIR)/%.o,$(BENCH_BUILDS)) \
		$(call common_objs,plain,$(COMMON_SRC))
	$(call quiet,CC)$(KIT_CC) $(CFLAGS_plain) -o $@ $^ $(KIT_LDLIBS) -lurcu-qsbr

# A tree without lab 5's (or lab 4's) files: one line saying which.
bench_missing := $(filter-out $(wildcard $(BENCH_EDIT_C) $(BENCH_LAB4_C)),$(BENCH_EDIT_C) $(BENCH_LAB4_C))
BENCH_OK := $(if $(bench_missing),bench-impl-ok,$(BENCH_BIN))

.PHONY: bench-impl-ok bench-bin
bench-impl-ok:
	$(error make bench: no $(subst $(space),$(comma)$(space),$(bench_missing)) (IMPL names a tree with lab4-hashlock and lab5-fdtable folders: solutions, the default, or labs))

bench-bin: $(BENCH_OK)

-include $(call dep_files,$(BENCH_DIR))
