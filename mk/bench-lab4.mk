# mk/bench-lab4.mk -- make bench-lab4: lab 4's hashed-lock refcount_t against
# lab 2's cmpxchg one, in one binary (tests/lab4/bench_hashlock.c).
# Included by Makefile after mk/build.mk.
#
# Lab 4's refcount.c comes from IMPL if given on the command line, else from
# solutions/, built as the lab builds it (SMP; UP; 8 locks) and once more
# with interrupt masking compiled out (tests/lab4/bench_noirq.h); lab 2's
# (the cmpxchg back end) always from solutions/.  Names are prefixed
# (tests/lab4/config_names.h).  Plain -O2, no sanitizer.

BENCH4_IMPL := $(if $(filter command line,$(origin IMPL)),$(patsubst %/,%,$(IMPL)),solutions)
BENCH4_DIR  := $(BUILD)/bench/lab4/$(subst /,_,$(BENCH4_IMPL))
BENCH4_BIN  := $(BENCH4_DIR)/bench_hashlock
BENCH4_SRC  := $(BENCH4_IMPL)/lab4-hashlock/refcount.c
BENCH4_CFLAGS = $(call lab_cflags,4) $(CFLAGS_plain) $(CFLAGS)
BENCH4_NAMES := -include tests/lab4/config_names.h

$(BENCH4_DIR)/hash.o: $(BENCH4_SRC) | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(BENCH4_CFLAGS) -c $< -o $@
$(BENCH4_DIR)/up.o: $(BENCH4_SRC) | $(DEPS_BUILD)
	$(call quiet,CC)$(KIT_CC) $(BENCH4_CFLAGS) $(LAB_4_config_up) -c $< -o $@
$(BENCH4_DIR)/n8.o: $(BENCH4_SRC) | $(DEPS_BUILD)
	$(call quiet,CC)$(KIT_CC) $(BENCH4_CFLAGS) $(LAB_4_config_n8) -c $< -o $@
$(BENCH4_DIR)/noirq.o: $(BENCH4_SRC) | $(DEPS_BUILD)
	$(call quiet,CC)$(KIT_CC) $(BENCH4_CFLAGS) -DLAB4_CONFIG=nq_ $(BENCH4_NAMES) \
		-include tests/lab4/bench_noirq.h -c $< -o $@
$(BENCH4_DIR)/cas_%.o: solutions/lab2-refcount/%.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(call lab_cflags,2) $(CFLAGS_plain) $(CFLAGS) -DLAB4_CONFIG=cas_ \
		$(BENCH4_NAMES) -c $< -o $@
$(BENCH4_DIR)/cas_refcount_given.o: labs/lab2-refcount/refcount_given.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(call lab_cflags,2) $(CFLAGS_plain) $(CFLAGS) -DLAB4_CONFIG=cas_ \
		$(BENCH4_NAMES) -c $< -o $@
$(BENCH4_DIR)/bench_hashlock.o: tests/lab4/bench_hashlock.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(BENCH4_CFLAGS) -c $< -o $@

$(BENCH4_BIN): $(addprefix $(BENCH4_DIR)/,bench_hashlock.o hash.o up.o n8.o noirq.o \
		cas_refcount.o cas_refcount_given.o) $(call common_objs,plain,$(COMMON_SRC))
	$(call quiet,CC)$(KIT_CC) $(CFLAGS_plain) -o $@ $^ $(KIT_LDLIBS)
