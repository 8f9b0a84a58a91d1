# mk/labs.mk -- the labs, as their manifests declare them.  Included by
# Makefile before mk/build.mk.
#
# Every labs/labN-*/lab.mk is a manifest (format: docs/design.md, "The lab
# manifest").  Reading them defines, for each lab N:
#   LAB_N_folder                    labN-xxx, where the manifest is
#   LAB_N_<field>                   each lab.<field> of the manifest
#   LAB_N_exercise_<file>           each lab.exercise.<file>
#   LAB_N_hint_<file>               each lab.hint.<file> (an exercise's hint)
#   LAB_N_config_<name>             each lab.config.<name>
# and LABS, the numbers of the labs, in order.  The kit's tools ask make for
# these (make print-labs, make print-lab N=); nothing else reads manifests.

LAB_FIELDS := title edit given tests include cflags exercises points configs api symbols \
	weights order
LAB_PARTS  := unit-plain unit-asan tsan race

# The kit's primitives that any lab's code may call, by the names the
# compiler emits for common/*.h (spin_lock() calls __spin_lock, ...), what
# the compiler calls on its own, and printing for debugging (the grader
# reads no verdict from the output, and keeps a bounded part of it).  With
# a lab's lab.api and lab.symbols, the allow-list of the pre-build check
# (tools/kit/precheck.py).  A new primitive a student may use is added
# here.  Not here: the tests' own helpers (warn_count, slab_*), kit_bug
# and kit_evidence.
KIT_SYMBOLS := __spin_lock __spin_trylock __spin_unlock __warn __bug poison_report \
	__preempt_disable __preempt_enable preempt_count refcount_from_zero \
	__rcu_read_lock __rcu_read_unlock __synchronize_rcu __call_rcu __rcu_barrier \
	__kmalloc __kfree __kmem_cache_alloc __kmem_cache_free kmem_cache_create \
	kmem_cache_destroy __local_irq_save __local_irq_restore irqs_disabled \
	memcpy memset memmove __stack_chk_fail \
	printf puts putchar fprintf fputs fflush stdout stderr __printf_chk __fprintf_chk

# lab_number FOLDER: N of labN-xxx
lab_number = $(patsubst lab%,%,$(firstword $(subst -, ,$(1))))

# A manifest sets lab.* variables; forget the previous lab's first.
define read_manifest
$(foreach v,$(filter lab.%,$(.VARIABLES)),$(eval undefine $(v)))
include labs/$(1)/lab.mk
endef

# keep_manifest N FOLDER: copy what the manifest set to LAB_N_*.
define keep_manifest
LAB_$(1)_folder := $(2)
$(foreach f,$(LAB_FIELDS),$(eval LAB_$(1)_$(f) := $(value lab.$(f))))
$(foreach e,$(lab.exercises),$(eval LAB_$(1)_exercise_$(e) := $(value lab.exercise.$(e))))
$(foreach e,$(lab.exercises),$(eval LAB_$(1)_hint_$(e) := $(value lab.hint.$(e))))
$(foreach c,$(lab.configs),$(eval LAB_$(1)_config_$(c) := $(value lab.config.$(c))))
LABS += $(1)
endef

# check_manifest N: one line naming what is wrong, or nothing.
check_manifest = $(strip \
	$(if $(LAB_$(1)_edit),,labs/$(LAB_$(1)_folder)/lab.mk: lab.edit is empty;) \
	$(if $(LAB_$(1)_tests),,labs/$(LAB_$(1)_folder)/lab.mk: lab.tests is empty;) \
	$(foreach p,$(LAB_$(1)_points),$(if $(filter $(LAB_PARTS),$(firstword $(subst =, ,$(p)))),,\
		labs/$(LAB_$(1)_folder)/lab.mk: no part '$(firstword $(subst =, ,$(p)))' (parts: $(LAB_PARTS));)) \
	$(foreach e,$(LAB_$(1)_exercises),$(if $(LAB_$(1)_exercise_$(e)),,\
		labs/$(LAB_$(1)_folder)/lab.mk: exercise $(e) has no lab.exercise.$(e);)) \
	$(foreach c,$(LAB_$(1)_configs),$(if $(LAB_$(1)_config_$(c)),,\
		labs/$(LAB_$(1)_folder)/lab.mk: configuration $(c) has no lab.config.$(c);)))

LABS :=
$(foreach d,$(notdir $(patsubst %/lab.mk,%,$(wildcard labs/lab*-*/lab.mk))),\
	$(eval $(call read_manifest,$(d)))\
	$(eval $(call keep_manifest,$(call lab_number,$(d)),$(d))))
$(foreach v,$(filter lab.%,$(.VARIABLES)),$(eval undefine $(v)))
LABS := $(sort $(LABS))
$(foreach n,$(LABS),$(if $(call check_manifest,$(n)),$(error $(call check_manifest,$(n)))))

# The paths of lab N's sources:
#   lab_dir     labs/<folder>: handout, manifest, headers, given code
#   lab_impl    $(IMPL)/<folder>: the files the student edits
lab_dir    = labs/$(LAB_$(1)_folder)
lab_impl   = $(patsubst %/,%,$(IMPL))/$(LAB_$(1)_folder)
lab_tdirs  = $(addprefix tests/,$(LAB_$(1)_tests)) $(call lab_extra_tdirs,$(1))
# An instructor's hidden tests (make grade EXTRA_TESTS=dir): dir/<folder>
# for each folder of lab.tests that dir has, built into the same binaries.
lab_extra_tdirs = $(if $(EXTRA_TESTS),$(patsubst %/.,%,$(wildcard \
	$(addsuffix /.,$(addprefix $(abspath $(EXTRA_TESTS))/,$(LAB_$(1)_tests))))))
lab_edit_c = $(addprefix $(call lab_impl,$(1))/,$(filter %.c,$(LAB_$(1)_edit)))
lab_given_c = $(addprefix $(call lab_dir,$(1))/,$(LAB_$(1)_given))
# lab_tests N, PATTERN: the lab's test sources matching PATTERN (test_*.c)
lab_tests  = $(sort $(wildcard $(addsuffix /$(2),$(call lab_tdirs,$(1)))))

# lab_problem N: why lab N cannot be built from $(IMPL), in one line, or
# nothing.
lab_missing = $(filter-out $(wildcard $(call lab_edit_c,$(1))),$(call lab_edit_c,$(1)))
lab_problem = $(strip $(if $(wildcard $(call lab_impl,$(1))/.),\
	$(if $(call lab_missing,$(1)),no $(subst $(space),$(comma)$(space),$(notdir $(call lab_missing,$(1)))) in $(call lab_impl,$(1))),\
	no folder $(call lab_impl,$(1))))

# --- make print-labs / make print-lab N=: the labs as JSON --------------------
#
# make prints each lab as lines "N<tab>KEY<tab>VALUE" (print-manifest), and
# tools/kit/layout.py turns them into JSON with json.dumps: a quote, a
# backslash or a dollar in a manifest reaches the tools as it is written.
# Lists are words; a map is KEY=VALUE words; a key printed twice (exercise,
# compile, bin) is one entry per line.

comma := ,
empty :=
space := $(empty) $(empty)
tab   := $(empty)	$(empty)
# lab_line N, KEY, VALUE: one line of the manifest
lab_line = $(info $(1)$(tab)$(2)$(tab)$(strip $(3)))

# lab_lines N: everything the tools need to know about lab N, for $(IMPL)
# and $(BUILD).
define lab_lines
$(call lab_line,$(1),folder,$(LAB_$(1)_folder))
$(call lab_line,$(1),title,$(LAB_$(1)_title))
$(call lab_line,$(1),dir,$(call lab_dir,$(1)))
$(call lab_line,$(1),impl,$(IMPL))
$(call lab_line,$(1),impl_dir,$(call lab_impl,$(1)))
$(call lab_line,$(1),build_root,$(BUILD))
$(call lab_line,$(1),extra_tests,$(EXTRA_TESTS))
$(call lab_line,$(1),test_dirs,$(call lab_tdirs,$(1)))
$(call lab_line,$(1),handout,$(call lab_dir,$(1))/README.md)
$(call lab_line,$(1),problem,$(call lab_problem,$(1)))
$(foreach f,edit given tests include cflags points api symbols weights order,\
	$(call lab_line,$(1),$(f),$(LAB_$(1)_$(f))))
$(foreach e,$(LAB_$(1)_exercises),$(call lab_line,$(1),exercise,file=$(e) $(LAB_$(1)_exercise_$(e))))
$(foreach e,$(LAB_$(1)_exercises),$(if $(LAB_$(1)_hint_$(e)),$(call lab_line,$(1),hint,$(e) $(LAB_$(1)_hint_$(e)))))
$(call lab_line,$(1),build,$(B))
$(call lab_line,$(1),kit_symbols,$(KIT_SYMBOLS))
$(call lab_line,$(1),objs,$(call lab_code_objs,plain,$(1)))
$(foreach v,plain asan tsan race,$(call lab_line,$(1),compile,$(v) $(CC) $(call lab_student_cflags,$(1)) $(CFLAGS_$(v)) $(CFLAGS)))
$(foreach c,$(LAB_$(1)_configs),$(call lab_line,$(1),config,$(c) $(LAB_$(1)_config_$(c))))
$(call lab_line,$(1),bin,unit-plain $(call lab_unit_bin,plain,$(1)))
$(call lab_line,$(1),bin,unit-asan $(call lab_unit_bin,asan,$(1)))
$(call lab_line,$(1),bin,tsan $(call lab_tsan_bins,$(1)))
$(call lab_line,$(1),bin,race $(call lab_race_bin,$(1)))
endef

.PHONY: print-labs print-lab print-manifest
print-manifest:
	$(if $(N),$(if $(filter $(N),$(LABS)),,$(error no lab '$(N)': the labs are $(LABS))))
	$(foreach n,$(or $(N),$(LABS)),$(call lab_lines,$(n)))
	@:

print-labs print-lab:
	@PYTHONPATH=tools $(PYTHON) -m kit.layout $(if $(filter print-lab,$@),--lab "$(N)")
