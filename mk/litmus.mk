# mk/litmus.mk -- the C-litmus front end of the race reproducer (make litmus).
# Included by Makefile, after mk/build.mk.
#
# common/litmus/ is an interpreter of the kernel's litmus tests, built as a
# race binary of its own (with common/race/, like a lab's), and
# tools/litmus.py reads the litmus files, runs them with it and prints
# herd7's shape of answer.

LITMUS_SRC := $(wildcard common/litmus/*.c)
LITMUS_BIN := $(B)/race/litmus-fe/race

$(LITMUS_BIN): $(call common_objs,race,$(LITMUS_SRC) $(COMMON_SRC) $(RACE_SRC))
	@mkdir -p $(@D)
	$(call quiet,CC)$(CC) $(CFLAGS_race) -o $@ $^ $(KIT_LDLIBS)

# make litmus FILE=x.litmus [SHOW=1] | DIR=d: one test (SHOW=1: and the
# timeline of an execution that reaches its condition), or every *.litmus
# under d.
.PHONY: litmus litmus-bin
litmus-bin: $(LITMUS_BIN)

litmus: $(LITMUS_BIN)
	@$(PYTHON) tools/litmus.py --bin $(LITMUS_BIN) $(if $(SHOW),--show) \
		$(if $(FILE),$(call shq,$(FILE))) \
		$(if $(DIR),$(call shq,$(DIR))) $(if $(FILE)$(DIR),,--usage)

# The kit's own litmus files against the LKMM's answers, and fuzzed files
# (make check runs both through tools/check.py).
.PHONY: litmus-check litmus-fuzz
litmus-check: $(LITMUS_BIN)
	@$(PYTHON) tests/litmus/test_front_end.py --bin $(LITMUS_BIN)

litmus-fuzz: $(LITMUS_BIN)
	@$(PYTHON) tests/litmus/fuzz_litmus.py --bin $(LITMUS_BIN)

# Every race binary of the tree (IMPL): the labs', the reproducer's
# self-tests and litmus shapes, this front end (tools/race_verdicts.py).
.PHONY: race-bins
race-bins: $(foreach n,$(LABS),$(call lab_race_bin,$(n))) $(RACE_SELFTEST_BIN) \
	$(RACE_LITMUS_BIN) $(LITMUS_BIN)

# The partial-order reduction keeps every verdict and every class of
# executions, on every scenario of those binaries and every litmus file
# (make check runs it: tests/race/test_reduction.py).
.PHONY: race-reduction
race-reduction: race-bins
	@$(PYTHON) tests/race/test_reduction.py --litmus-bin $(LITMUS_BIN) \
		--bin $(foreach n,$(LABS),$(call lab_race_bin,$(n))) $(RACE_SELFTEST_BIN) \
		$(RACE_LITMUS_BIN)
