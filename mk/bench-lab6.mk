# mk/bench-lab6.mk -- make bench-lab6: lab 6's rcuref_t get against lab 2's
# compare-and-exchange loop and a bare atomic_inc, in one binary
# (tests/lab6/bench_rcuref.c, tools/bench_lab6.py, docs/bench.md "Lab 6").
# Included by Makefile after mk/build.mk.
#
# Lab 6's rcuref.c comes from IMPL if given on the command line, else from
# solutions/ (labs/ in a students' tree); lab 2's refcount.c (the cmpxchg
# loop) always from solutions/, else labs/.  Plain -O2, no sanitizer.

bench6_tree  = $(if $(wildcard solutions/$(1)/.),solutions,labs)
BENCH6_IMPL := $(if $(filter command line,$(origin IMPL)),$(patsubst %/,%,$(IMPL)),$(call bench6_tree,$(LAB_6_folder)))
BENCH6_DIR  := $(BUILD)/bench/lab6/$(subst /,_,$(BENCH6_IMPL))
BENCH6_BIN  := $(BENCH6_DIR)/bench_rcuref
BENCH6_RCUREF := $(BENCH6_IMPL)/$(LAB_6_folder)/rcuref.c
BENCH6_LAB2 := $(call bench6_tree,$(LAB_2_folder))/$(LAB_2_folder)/refcount.c

$(BENCH6_DIR)/rcuref.o: $(BENCH6_RCUREF) | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(KIT_CC) $(call lab_cflags,6) $(TODO_CFLAGS) $(CFLAGS_plain) $(CFLAGS) -c $< -o $@
$(BENCH6_DIR)/lab2_refcount.o: $(BENCH6_LAB2) | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(KIT_CC) $(call lab_cflags,2) $(TODO_CFLAGS) $(CFLAGS_plain) $(CFLAGS) -c $< -o $@
$(BENCH6_DIR)/lab2_refcount_given.o: labs/$(LAB_2_folder)/refcount_given.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(KIT_CC) $(call lab_cflags,2) $(CFLAGS_plain) $(CFLAGS) -c $< -o $@
$(BENCH6_DIR)/bench_rcuref.o: tests/lab6/bench_rcuref.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(KIT_CC) $(call lab_cflags,6) -Ilabs/$(LAB_2_folder) $(CFLAGS_plain) $(CFLAGS) -c $< -o $@

$(BENCH6_BIN): $(addprefix $(BENCH6_DIR)/,bench_rcuref.o rcuref.o lab2_refcount.o \
		lab2_refcount_given.o) $(call common_objs,plain,$(COMMON_SRC))
	$(KIT_CC) $(CFLAGS_plain) -o $@ $^ $(KIT_LDLIBS)

# A tree without lab 6's rcuref.c: one line saying which.
BENCH6_OK := $(if $(wildcard $(BENCH6_RCUREF)),$(BENCH6_BIN),bench6-impl-ok)

.PHONY: bench6-impl-ok
bench6-impl-ok:
	$(error make bench-lab6: no $(BENCH6_RCUREF) (IMPL names a tree with a $(LAB_6_folder) folder: solutions, the default, or labs))

-include $(call dep_files,$(BENCH6_DIR))
