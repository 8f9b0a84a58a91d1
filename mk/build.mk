# mk/build.mk -- how the kit's programs are built.  Included by Makefile.
#
# Everything goes out of tree, under $(BUILD)/<impl>/<variant>/ (common/'s
# objects under $(BUILD)/common/<variant>/):
#   plain  -O2 -g                               Criterion unit tests
#   asan   AddressSanitizer + UBSan             Criterion unit tests, stress
#   tsan   ThreadSanitizer                      plain stress programs (Criterion
#                                               aborts under TSan, Criterion#274)
#   race   ASan + CONFIG_RACE_HARNESS           the race reproducer's scenarios
#
# Per lab N, from tests/labN/:
#   test_*.c   Criterion tests   -> $(B)/plain/labN/unit, $(B)/asan/labN/unit
#   tsan_*.c   one program each  -> $(B)/tsan/labN/tsan_*
#   race_*.c   scenarios         -> $(B)/race/labN/race (with common/race/)
#   shared_*.c helpers linked into both the unit and the TSan binaries
# The lab's own sources are every .c in $(IMPL)/$(LAB_N)/.

BUILD   ?= build
B       := $(BUILD)/$(subst /,_,$(patsubst %/,%,$(IMPL)))
VARIANTS := plain asan tsan race

COMMON_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -g -pthread -MMD -MP -Icommon
# A lab's headers are its API and live in labs/ only: a tree (solutions/, a
# known-wrong variant) holds the .c files and may override a header.
KIT_CFLAGS := $(COMMON_CFLAGS) -Itests \
	$(foreach n,$(LABS),-I$(IMPL)/$(LAB_$(n)) -Ilabs/$(LAB_$(n)))
CFLAGS_plain := -O2
CFLAGS_asan  := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
CFLAGS_tsan  := -O1 -fno-omit-frame-pointer -fsanitize=thread
# gcc warns (-Wtsan) that TSan ignores fences such as smp_wmb(); clang does
# not, and does not know the option.  The kit's TSan programs rely on the
# annotated primitives, not on fences, so the warning is not an error here.
CFLAGS_tsan  += $(if $(shell $(CC) -v 2>&1 | grep '^gcc version'),-Wno-tsan)
CFLAGS_race  := -O1 -fno-omit-frame-pointer -fsanitize=address \
	-DCONFIG_RACE_HARNESS
KIT_LDLIBS   := -lurcu-memb -pthread

COMMON_SRC := $(wildcard common/*.c)
# Linked into every Criterion binary: a default time limit per test.
UNIT_SRC   := tests/criterion_timeout.c
# Linked into every TSan program: its --list / CASE command line.
TSAN_SRC   := tests/tsan_case.c
RACE_SRC   := $(wildcard common/race/*.c)

# objs VARIANT, SOURCES: common/ does not depend on IMPL, so its objects
# are shared by every tree (labs, solutions, the known-wrong variants).
objs = $(patsubst %.c,$(B)/$(1)/obj/%.o,$(filter-out common/%,$(2))) \
	$(patsubst %.c,$(BUILD)/common/$(1)/%.o,$(filter common/%,$(2)))
lab_src = $(wildcard $(IMPL)/$(LAB_$(1))/*.c)
lab_unit_bin = $(B)/$(1)/lab$(2)/unit
lab_tsan_bins = $(patsubst tests/lab$(1)/%.c,$(B)/tsan/lab$(1)/%,$(wildcard tests/lab$(1)/tsan_*.c))
lab_race_bin = $(if $(wildcard tests/lab$(1)/race_*.c),$(B)/race/lab$(1)/race)

define variant_rules
$(B)/$(1)/obj/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(KIT_CFLAGS) $$(CFLAGS_$(1)) $$(CFLAGS) -c $$< -o $$@

$(BUILD)/common/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(COMMON_CFLAGS) $$(CFLAGS_$(1)) $$(CFLAGS) -c $$< -o $$@
endef
$(foreach v,$(VARIANTS),$(eval $(call variant_rules,$(v))))

# unit_rules LAB, VARIANT
define unit_rules
$(call lab_unit_bin,$(2),$(1)): $(call objs,$(2),$(wildcard tests/lab$(1)/test_*.c tests/lab$(1)/shared_*.c) $(UNIT_SRC) $(call lab_src,$(1)) $(COMMON_SRC)) | deps-ok
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_$(2)) -o $$@ $$^ -lcriterion $$(KIT_LDLIBS)
endef

define lab_rules
$(foreach v,plain asan,$(eval $(call unit_rules,$(1),$(v))))

$(B)/tsan/lab$(1)/tsan_%: $(call objs,tsan,tests/lab$(1)/tsan_%.c $(wildcard tests/lab$(1)/shared_*.c) $(TSAN_SRC) $(call lab_src,$(1)) $(COMMON_SRC)) | deps-ok
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_tsan) -o $$@ $$^ $$(KIT_LDLIBS)

$(B)/race/lab$(1)/race: $(call objs,race,$(wildcard tests/lab$(1)/race_*.c) $(call lab_src,$(1)) $(COMMON_SRC) $(RACE_SRC)) | deps-ok
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_race) -o $$@ $$^ $$(KIT_LDLIBS)

build-lab-$(1): $(call lab_unit_bin,plain,$(1)) $(call lab_unit_bin,asan,$(1)) \
	$(call lab_tsan_bins,$(1)) $(call lab_race_bin,$(1))
endef
$(foreach n,$(LABS),$(eval $(call lab_rules,$(n))))

# Objects reached through pattern rules are kept, not deleted as intermediates.
.SECONDARY:

.PHONY: deps-ok
deps-ok:
	@bash tools/deps.sh verify

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The kit's own tests of common/: tests/common/test_*.c and tsan_*.c.
$(foreach v,plain asan,$(eval $(B)/$(v)/common/unit: \
	$(call objs,$(v),$(wildcard tests/common/test_*.c) $(UNIT_SRC) $(COMMON_SRC)) | deps-ok ; \
	@mkdir -p $$(@D) ; $$(CC) $$(CFLAGS_$(v)) -o $$@ $$^ -lcriterion $$(KIT_LDLIBS)))

$(B)/tsan/common/tsan_%: $(call objs,tsan,tests/common/tsan_%.c $(TSAN_SRC) $(COMMON_SRC)) | deps-ok
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_tsan) -o $@ $^ $(KIT_LDLIBS)

common_bins = $(B)/plain/common/unit $(B)/asan/common/unit \
	$(patsubst tests/common/%.c,$(B)/tsan/common/%,$(wildcard tests/common/tsan_*.c))

.PHONY: build-common
build-common: $(common_bins)

# --- race reproducer
# The reproducer's own scenarios (tests/race/race_*.c) -> $(B)/race/selftest/race,
# built like a lab's race binary but with no lab sources.
RACE_SELFTEST_BIN := $(B)/race/selftest/race

$(RACE_SELFTEST_BIN): $(call objs,race,$(wildcard tests/race/race_*.c) $(COMMON_SRC) $(RACE_SRC)) | deps-ok
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_race) -o $@ $^ $(KIT_LDLIBS)

.PHONY: race-selftest-bin race-selftest
race-selftest-bin: $(RACE_SELFTEST_BIN)

# The reproducer's self-tests (make check runs them through tools/check.py).
race-selftest: $(RACE_SELFTEST_BIN) $(call lab_race_bin,1)
	@$(PYTHON) tests/race/test_race.py --selftest-bin $(RACE_SELFTEST_BIN) \
		--lab1-bin $(call lab_race_bin,1)

# The free-running stress loop the benchmark compares with (make bench-race).
RACE_STRESS_BIN := $(B)/asan/race/stress_lab1

$(RACE_STRESS_BIN): $(call objs,asan,tests/race/stress_lab1.c $(call lab_src,1) $(COMMON_SRC)) | deps-ok
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_asan) -o $@ $^ $(KIT_LDLIBS)

.PHONY: race-bench-bins
race-bench-bins: $(RACE_STRESS_BIN) $(call lab_race_bin,1)
