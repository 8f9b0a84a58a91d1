# mk/build.mk -- how the kit's programs are built.  Included by Makefile,
# after mk/labs.mk (the labs' manifests).
#
# Four variants of everything:
#   plain  -O2 -g                               Criterion unit tests
#   asan   AddressSanitizer + UBSan             Criterion unit tests, stress
#   tsan   ThreadSanitizer                      plain stress programs (Criterion
#                                               aborts under TSan, Criterion#274)
#   race   ASan + CONFIG_RACE_HARNESS           the race reproducer's scenarios
#
# Lab N is built from what its manifest names, with its own include path and
# CFLAGS (two labs may each have a refcount.h):
#   the files the student edits   $(IMPL)/<folder>/*.c  -> $(B)/<variant>/labN/obj/
#   the given code                labs/<folder>/*.c     -> $(BUILD)/_kit/<variant>/labN/
#   its tests, from each folder of lab.tests (another lab's tests too):
#     test_*.c  Criterion tests   -> $(B)/plain/labN/unit, $(B)/asan/labN/unit
#     tsan_*.c  one program each  -> $(B)/tsan/labN/tsan_*
#     race_*.c  scenarios         -> $(B)/race/labN/race (with common/race/)
#     shared_*.c helpers linked into the unit and the TSan binaries
# Given code and tests do not depend on IMPL: their objects are shared by
# every tree (labs, solutions, the known-wrong variants), unless the lab's
# student files include a header (then the tree's header is used by all).
# common/'s objects are under $(BUILD)/common/<variant>/, built without any
# lab's flags.

# With hidden tests (EXTRA_TESTS), the binaries go to a folder of their own:
# a build without them never links their objects.
B       := $(BUILD)/$(subst /,_,$(patsubst %/,%,$(IMPL)))$(if $(EXTRA_TESTS),+extra$(subst /,_,$(abspath $(EXTRA_TESTS))))
VARIANTS := plain asan tsan race

# What the compiler is (the line of its -v that names it) and the folder of
# its target's libraries (/usr/lib/KIT_CC_MULTIARCH), asked once and
# handed down to the makes this one starts: a clang -v costs a tenth of a
# CPU second, and make check starts hundreds of makes.
ifneq ($(KIT_CC_SEEN),$(CC))
export KIT_CC_SEEN    := $(CC)
export KIT_CC_VERSION := $(shell $(CC) -v 2>&1 | grep -E '^gcc version|clang version')
export KIT_CC_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
endif

# The dependency files (.d) in folders $(1), down to five levels: make's
# own wildcard, not a find (a shell and a process at every make).
dep_files = $(foreach d,$(1),$(wildcard $(d)/*.d $(d)/*/*.d $(d)/*/*/*.d \
	$(d)/*/*/*/*.d $(d)/*/*/*/*/*.d))

COMMON_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -g -pthread -MMD -MP -Icommon
CFLAGS_plain := -O2
CFLAGS_asan  := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
CFLAGS_tsan  := -O1 -fno-omit-frame-pointer -fsanitize=thread
# gcc warns (-Wtsan) that TSan ignores fences such as smp_wmb(); clang does
# not, and does not know the option.  The kit's TSan programs rely on the
# annotated primitives, not on fences, so the warning is not an error here.
CFLAGS_tsan  += $(if $(filter gcc,$(firstword $(KIT_CC_VERSION))),-Wno-tsan)
CFLAGS_race  := -O1 -fno-omit-frame-pointer -fsanitize=address \
	-DCONFIG_RACE_HARNESS
# The code under test (a lab's files, given and edited, and its tests),
# not common/: clang makes each AddressSanitizer check a call the weak
# memory model hears plain C accesses through (common/race/models/plain.c).
CFLAGS_race_code := $(if $(findstring clang version,$(KIT_CC_VERSION)),\
	-mllvm -asan-instrumentation-with-call-threshold=0 \
	-mllvm -asan-memory-access-callback-prefix=race_plain_)
# Every binary links with lld where it is installed (make deps installs
# it): the same program in 55-70% of ld.bfd's CPU time for the kit's
# sanitizer binaries, and a grade links five or more.  (gold is as fast,
# but warns at every ASan link that it cannot export ASan's local symbols.)
KIT_LINKER   := $(if $(wildcard /usr/bin/ld.lld),-fuse-ld=lld)
KIT_LDLIBS   := -lurcu-memb -pthread $(KIT_LINKER)
# The Criterion binaries link Criterion's static archive, with its process
# spawner (BoxFort) and message encoder (nanopb), where the three archives
# are installed (make deps installs libnanopb-dev): Criterion starts a
# process for every test, and its shared library loads 22 libraries into
# each, libgit2's OpenSSL and Kerberos among them, for a string diff the
# kit's tests never draw (tests/criterion_nodiff.c stands in for libgit2).
# A test starts in a quarter of the time.  They link with the default ld:
# lld's layout defeats BoxFort, which patches main() in each test's process.
# Without the archives, the shared library, as before.
CRITERION_ARCHIVES := $(wildcard $(addprefix /usr/lib/$(KIT_CC_MULTIARCH)/,\
	libcriterion.a libboxfort.a libprotobuf-nanopb.a))
ifeq ($(words $(CRITERION_ARCHIVES)),3)
UNIT_LDLIBS  := $(CRITERION_ARCHIVES) -lnanomsg -lffi -lurcu-memb -pthread
CRITERION_NODIFF := tests/criterion_nodiff.c
else
UNIT_LDLIBS  := -lcriterion $(KIT_LDLIBS)
CRITERION_NODIFF :=
endif
# What an unfinished TODO leaves in the files the student edits (an unused
# parameter, a static function not called yet): shown, never fatal.  make
# check builds the solutions with TODO_CFLAGS= to keep them warning-free.
TODO_CFLAGS  ?= -Wno-error=unused-function -Wno-error=unused-parameter \
	-Wno-error=unused-variable -Wno-error=unused-but-set-variable

COMMON_SRC := $(wildcard common/*.c)
# Linked into every Criterion binary: a default time limit per test, and
# the grader's evidence of each test.
UNIT_SRC   := tests/criterion_timeout.c tests/criterion_evidence.c $(CRITERION_NODIFF)
# Linked into every TSan program: its --list / CASE command line.
TSAN_SRC   := tests/tsan_case.c
RACE_SRC   := $(wildcard common/race/*/*.c)

# The kit's packages, checked once per BUILD and compiler (tools/deps.sh);
# every object waits for it, so a missing compiler is one line, not Error 127.
DEPS_OK = $(BUILD)/.deps/$(1)-$(subst /,_,$(CC))
deps_problem = $(shell CC='$(CC)' PYTHON='$(PYTHON)' bash tools/deps.sh missing $(1))
define deps_rule
$(call DEPS_OK,$(1)): tools/deps.sh
	$$(if $$(call deps_problem,$(1)),$$(error $$(call deps_problem,$(1))))
	@mkdir -p $$(@D) && touch $$@
endef
$(foreach g,build check,$(eval $(call deps_rule,$(g))))
DEPS_BUILD := $(call DEPS_OK,build)

# common/ and the kit's test harness: one object per variant, for all labs.
# COMPILER_CACHE: what runs the compiler for the kit's own objects and
# links -- make check's fork server of clang (tools/ccfork/, its default),
# or ccache (COMPILER_CACHE=ccache make check: tools/check.py says why that
# is not the default).  Never for a student's files: they compile in the
# jail.
KIT_CC = $(strip $(COMPILER_CACHE) $(CC))

# make check's fork server of the compiler (tools/ccfork/; tools/check.py
# starts it and sets COMPILER_CACHE to the client): built without
# sanitizers, and with none of the kit's flags.
CCFORK := $(BUILD)/ccfork/ccfork
CCFORK_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror
$(CCFORK): tools/ccfork/ccfork.c tools/ccfork/ccfork.h | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(CC) $(CCFORK_CFLAGS) -o $@ $<
$(CCFORK).so: tools/ccfork/ccfork_server.c tools/ccfork/ccfork.h | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(CC) $(CCFORK_CFLAGS) -shared -fPIC -o $@ $< -ldl
.PHONY: ccfork
ccfork: $(CCFORK) $(CCFORK).so

common_objs = $(patsubst %.c,$(BUILD)/common/$(1)/%.o,$(2))
define common_rules
$(BUILD)/common/$(1)/%.o: %.c | $(DEPS_BUILD)
	@mkdir -p $$(@D)
	$$(call quiet,CC)$$(KIT_CC) $$(COMMON_CFLAGS) -Itests $$(CFLAGS_$(1)) $$(CFLAGS) -c $$< -o $$@
endef
$(foreach v,$(VARIANTS),$(eval $(call common_rules,$(v))))

# The reproducer itself (common/race/) is not instrumented by ASan, as the
# kernel builds its sanitizers' own code with KASAN_SANITIZE := n: ASan
# checks the code under test and common/'s primitives, and the reproducer
# costs what its C costs.  It still tells ASan of its stack switches
# (sanitizer.h, CONFIG_KIT_ASAN: the binary links ASan's runtime).
CFLAGS_race_core := -O2 -fno-omit-frame-pointer -DCONFIG_RACE_HARNESS \
	$(if $(filter -fsanitize=address,$(CFLAGS_race)),-DCONFIG_KIT_ASAN=1)
$(BUILD)/common/race/common/race/%.o: common/race/%.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(COMMON_CFLAGS) -Itests $(CFLAGS_race_core) $(CFLAGS) -c $< -o $@

# --- lab N ---------------------------------------------------------------------

# The files a student edits are compiled in a jail (tools/kit/sandbox.py:
# only the compiler, the lab's headers, common/'s and the student's folder
# are there; time, memory and output limited; a message about any other
# file cut to its name), with an include path of the lab's headers and
# common/'s only: no tests/.  -S: no site-packages (the kit's Python uses
# the standard library only), and none of their start-up at every compile.
# One start compiles every file of a variant, in each configuration: a
# jail each file, but one Python start (a third of a small compile's cost);
# in a grade, the grade's jailed fork server of clang compiles them
# (tools/kit/jailcc.py: KIT_JAILCC names it), which needs $(CCFORK).so.
JAIL_CC    = PYTHONPATH=tools $(PYTHON) -S -m kit.jailcc cc
lab_has_h  = $(filter %.h,$(LAB_$(1)_edit))
lab_student_cflags = $(COMMON_CFLAGS) $(if $(call lab_has_h,$(1)),-I$(call lab_impl,$(1))) \
	-I$(call lab_dir,$(1)) $(addprefix -Ilabs/,$(LAB_$(1)_include)) $(LAB_$(1)_cflags)
lab_cflags = $(call lab_student_cflags,$(1)) $(addprefix -I,$(call lab_tdirs,$(1))) -Itests
# Where lab N's given and test objects go (VARIANT, N).
lab_kitdir = $(if $(call lab_has_h,$(2)),$(B)/$(1)/lab$(2)/kit,$(BUILD)/_kit/$(1)/lab$(2))
# lab_objs VARIANT, N, SOURCES: objects of given or test sources
lab_objs   = $(patsubst %.c,$(call lab_kitdir,$(1),$(2))/%.o,$(3))
# lab_code_objs VARIANT, N: the objects of the files the student edits
lab_code_objs = $(patsubst $(call lab_impl,$(2))/%.c,$(B)/$(1)/lab$(2)/obj/%.o,$(call lab_edit_c,$(2)))
# lab_code VARIANT, N: the objects of the lab's own code, edited and given,
# and the edited files once more in each of the lab's configurations
lab_code   = $(call lab_code_objs,$(1),$(2)) \
	$(call lab_objs,$(1),$(2),$(call lab_given_c,$(2))) \
	$(foreach c,$(LAB_$(2)_configs),$(call lab_config_objs,$(1),$(2),$(c)))
# lab_config_objs VARIANT, N, CONFIG: the edited files built with
# lab.config.CONFIG's flags added (lab 4's UP build beside its SMP one)
lab_config_objs = $(patsubst $(call lab_impl,$(2))/%.c,$(B)/$(1)/lab$(2)/obj-$(3)/%.o,$(call lab_edit_c,$(2)))

lab_unit_bin  = $(B)/$(1)/lab$(2)/unit
lab_tsan_bins = $(addprefix $(B)/tsan/lab$(1)/,$(notdir $(basename $(call lab_tests,$(1),tsan_*.c))))
lab_race_bin  = $(if $(call lab_tests,$(1),race_*.c),$(B)/race/lab$(1)/race)

# lab_variant_rules N, VARIANT: how lab N's objects of VARIANT are compiled:
# the edited files, in every configuration, by one JAIL_CC (a group of
# targets: any out of date builds them all)
define lab_variant_rules
$(if $(call lab_edit_c,$(1)),$(call lab_code_rule,$(1),$(2)))

$(call lab_kitdir,$(2),$(1))/%.o: %.c | $(DEPS_BUILD)
	@mkdir -p $$(@D)
	$$(call quiet,CC)$$(KIT_CC) $$(call lab_cflags,$(1)) $$(CFLAGS_$(2)) $$(CFLAGS_$(2)_code) $$(CFLAGS) -c $$< -o $$@
endef

# lab_code_rule N, VARIANT: lab N's edited files of VARIANT, in obj/ and in
# obj-CONFIG/ with lab.config.CONFIG's flags added (lab 4's UP build
# beside its SMP one)
define lab_code_rule
$(call lab_code_objs,$(2),$(1)) $(foreach c,$(LAB_$(1)_configs),$(call lab_config_objs,$(2),$(1),$(c))) &: \
		$(call lab_edit_c,$(1)) | $(DEPS_BUILD) $(CCFORK).so
	@mkdir -p $(B)/$(2)/lab$(1)/obj $(foreach c,$(LAB_$(1)_configs),$(B)/$(2)/lab$(1)/obj-$(c))
	$$(call quiet_each,CC,$(call lab_code_objs,$(2),$(1)) $(foreach c,$(LAB_$(1)_configs),$(call lab_config_objs,$(2),$(1),$(c))))$$(JAIL_CC) \
		$(call lab_code_group,$(1),$(2),obj,) \
		$(foreach c,$(LAB_$(1)_configs),$(call lab_code_group,$(1),$(2),obj-$(c),$(LAB_$(1)_config_$(c))))
endef

# lab_code_group N, VARIANT, FOLDER, FLAGS: JAIL_CC's group that compiles
# lab N's edited files of VARIANT, with FLAGS added, into FOLDER
lab_code_group = --to $(B)/$(2)/lab$(1)/$(3) -- $(CC) $(call lab_student_cflags,$(1)) $(4) \
	$(TODO_CFLAGS) $(CFLAGS_$(2)) $(CFLAGS_$(2)_code) $(CFLAGS) -c $(call lab_edit_c,$(1))

# lab_tsan_rule N, SOURCE: one TSan program
define lab_tsan_rule
$(B)/tsan/lab$(1)/$(notdir $(basename $(2))): $(call lab_objs,tsan,$(1),$(2) \
		$(call lab_tests,$(1),shared_*.c)) $(call lab_code,tsan,$(1)) \
		$(call common_objs,tsan,$(TSAN_SRC) $(COMMON_SRC))
	@mkdir -p $$(@D)
	$$(call quiet,CC)$$(KIT_CC) $$(CFLAGS_tsan) -o $$@ $$^ $$(KIT_LDLIBS)
endef

define lab_rules
$(foreach v,$(VARIANTS),$(eval $(call lab_variant_rules,$(1),$(v))))

$(foreach v,plain asan,$(eval $(call lab_unit_bin,$(v),$(1)): \
		$(call lab_objs,$(v),$(1),$(call lab_tests,$(1),test_*.c) $(call lab_tests,$(1),shared_*.c)) \
		$(call lab_code,$(v),$(1)) $(call common_objs,$(v),$(UNIT_SRC) $(COMMON_SRC)) ; \
	$$(call quiet,LD)mkdir -p $$(@D) ; $$(KIT_CC) $$(CFLAGS_$(v)) -o $$@ $$^ $$(UNIT_LDLIBS)))

$(foreach s,$(call lab_tests,$(1),tsan_*.c),$(eval $(call lab_tsan_rule,$(1),$(s))))

$(B)/race/lab$(1)/race: $(call lab_objs,race,$(1),$(call lab_tests,$(1),race_*.c)) \
		$(call lab_code,race,$(1)) $(call common_objs,race,$(COMMON_SRC) $(RACE_SRC))
	@mkdir -p $$(@D)
	$$(call quiet,CC)$$(KIT_CC) $$(CFLAGS_race) -o $$@ $$^ $$(KIT_LDLIBS)

# A tree without the lab's folder or files: one line saying which.
.PHONY: impl-ok-$(1) build-lab-$(1) objs-lab-$(1)
impl-ok-$(1):
	$$(error $$(call lab_problem,$(1)) (IMPL names a tree of labN-* folders: labs, the default, or solutions))

# What the pre-build check reads: the student's files, compiled, not linked.
objs-lab-$(1): $(if $(call lab_problem,$(1)),impl-ok-$(1),$(call lab_code_objs,plain,$(1)))

build-lab-$(1): $(if $(call lab_problem,$(1)),impl-ok-$(1),$(call lab_unit_bin,plain,$(1)) \
	$(call lab_unit_bin,asan,$(1)) $(call lab_tsan_bins,$(1)) $(call lab_race_bin,$(1)))
endef
$(foreach n,$(LABS),$(eval $(call lab_rules,$(n))))

# --- the kit's own objects, no student's: what every tree's build shares --------
# make grade-all and the autograders build them once (make kit-objs), so that
# each submission compiles only its own files.  (A lab whose student files
# include a header builds its kit objects per tree: not shared.)
lab_kit_objs = $(if $(call lab_has_h,$(1)),,\
	$(foreach v,$(VARIANTS),$(call lab_objs,$(v),$(1),$(call lab_given_c,$(1)))) \
	$(foreach v,plain asan,$(call lab_objs,$(v),$(1),$(call lab_tests,$(1),test_*.c) \
		$(call lab_tests,$(1),shared_*.c))) \
	$(call lab_objs,tsan,$(1),$(call lab_tests,$(1),tsan_*.c) $(call lab_tests,$(1),shared_*.c)) \
	$(call lab_objs,race,$(1),$(call lab_tests,$(1),race_*.c)))

.PHONY: kit-objs
kit-objs: $(foreach n,$(LABS),$(call lab_kit_objs,$(n))) \
	$(foreach v,$(VARIANTS),$(call common_objs,$(v),$(COMMON_SRC))) \
	$(foreach v,plain asan,$(call common_objs,$(v),$(UNIT_SRC))) \
	$(call common_objs,tsan,$(TSAN_SRC)) $(call common_objs,race,$(RACE_SRC))

# Objects reached through pattern rules are kept, not deleted as intermediates.
.SECONDARY:

# The dependency files of what this invocation builds: the shared objects and
# this tree's (not every other tree under BUILD).
-include $(call dep_files,$(BUILD)/common $(BUILD)/_kit $(B))

# --- the kit's own tests of common/: tests/common/test_*.c and tsan_*.c --------

# (With Criterion's archive, the test of its stand-in for libgit2 too.)
$(foreach v,plain asan,$(eval $(B)/$(v)/common/unit: \
	$(call common_objs,$(v),$(wildcard tests/common/test_*.c) $(UNIT_SRC) $(COMMON_SRC) \
		$(if $(CRITERION_NODIFF),tests/test_criterion_nodiff.c)) ; \
	$$(call quiet,LD)mkdir -p $$(@D) ; $$(KIT_CC) $$(CFLAGS_$(v)) -o $$@ $$^ $$(UNIT_LDLIBS)))

$(B)/tsan/common/tsan_%: $(call common_objs,tsan,tests/common/tsan_%.c $(TSAN_SRC) $(COMMON_SRC))
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(CFLAGS_tsan) -o $@ $^ $(KIT_LDLIBS)

common_bins = $(B)/plain/common/unit $(B)/asan/common/unit \
	$(patsubst tests/common/%.c,$(B)/tsan/common/%,$(wildcard tests/common/tsan_*.c))

.PHONY: build-common
build-common: $(common_bins)

# --- race reproducer
# The reproducer's own scenarios (tests/race/race_*.c) -> $(B)/race/selftest/race,
# built like a lab's race binary but with no lab sources.
RACE_SELFTEST_BIN := $(B)/race/selftest/race

$(RACE_SELFTEST_BIN): $(call common_objs,race,$(wildcard tests/race/race_*.c) $(COMMON_SRC) $(RACE_SRC))
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(CFLAGS_race) -o $@ $^ $(KIT_LDLIBS)

.PHONY: race-selftest-bin race-selftest
race-selftest-bin: $(RACE_SELFTEST_BIN)

# The kernel's litmus shapes under the weak memory model (tests/litmus/):
# their own race binary, and their test (make check runs it).
RACE_LITMUS_BIN := $(B)/race/litmus/race

$(RACE_LITMUS_BIN): $(call common_objs,race,$(wildcard tests/litmus/race_*.c) $(COMMON_SRC) $(RACE_SRC))
	@mkdir -p $(@D)
	$(call quiet,CC)$(KIT_CC) $(CFLAGS_race) -o $@ $^ $(KIT_LDLIBS)

.PHONY: race-litmus
race-litmus: $(RACE_LITMUS_BIN)
	@$(PYTHON) tests/litmus/test_litmus.py --bin $(RACE_LITMUS_BIN)

# The reproducer's self-tests (make check runs them through tools/check.py).
race-selftest: $(RACE_SELFTEST_BIN) $(call lab_race_bin,1) $(call lab_race_bin,4)
	@$(PYTHON) tests/race/test_race.py --selftest-bin $(RACE_SELFTEST_BIN) \
		--lab1-bin $(call lab_race_bin,1)
	@$(PYTHON) tests/race/test_irq.py --selftest-bin $(RACE_SELFTEST_BIN) \
		--lab4-bin $(call lab_race_bin,4)

# The free-running stress loops the benchmark compares with (make bench-race):
# each lab's canonical race (tests/race/stress_labN.c, on tests/race/stress.c),
# built with that lab's flags.
race_stress_bin = $(B)/asan/race/stress_lab$(1)
define race_stress_rule
$(call race_stress_bin,$(1)): $(call lab_objs,asan,$(1),tests/race/stress_lab$(1).c tests/race/stress.c) \
		$(call lab_code,asan,$(1)) $(call common_objs,asan,$(COMMON_SRC))
	@mkdir -p $$(@D)
	$$(call quiet,CC)$$(KIT_CC) $$(CFLAGS_asan) -o $$@ $$^ $$(KIT_LDLIBS)
endef
RACE_STRESS_LABS := $(filter $(LABS),$(patsubst tests/race/stress_lab%.c,%,$(wildcard tests/race/stress_lab*.c)))
$(foreach n,$(RACE_STRESS_LABS),$(eval $(call race_stress_rule,$(n))))

.PHONY: race-bench-bins
race-bench-bins: $(foreach n,$(RACE_STRESS_LABS),$(call race_stress_bin,$(n)) $(call lab_race_bin,$(n))) \
	$(RACE_LITMUS_BIN)
