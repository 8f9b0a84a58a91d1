# mk/labs.mk -- the labs, as their manifests declare them.  Included by
# Makefile before mk/build.mk.
#
# Every labs/labN-*/lab.mk is a manifest (format: docs/design.md, "The lab
# manifest").  Reading them defines, for each lab N:
#   LAB_N_folder                    labN-xxx, where the manifest is
#   LAB_N_<field>                   each lab.<field> of the manifest
#   LAB_N_exercise_<file>           each lab.exercise.<file>
#   LAB_N_config_<name>             each lab.config.<name>
# and LABS, the numbers of the labs, in order.  The kit's tools ask make for
# these (make print-labs, make print-lab N=); nothing else reads manifests.

LAB_FIELDS := title edit given tests include cflags exercises points configs api symbols
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
	__preempt_disable __preempt_enable preempt_count \
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

comma := ,
empty :=
space := $(empty) $(empty)
json_join = $(subst $(space),$(comma),$(strip $(1)))
# json_list WORDS: ["w1","w2"]
json_list = [$(call json_join,$(foreach w,$(1),"$(w)"))]
# json_map K=V WORDS, QUOTE: {"K":V,...}, each V in QUOTE
json_map = {$(call json_join,$(foreach kv,$(1),"$(firstword $(subst =, ,$(kv)))":$(2)$(patsubst $(firstword $(subst =, ,$(kv)))=%,%,$(kv))$(2)))}

lab_exercises_json = [$(call json_join,$(foreach e,$(LAB_$(1)_exercises),\
	$(call json_map,file=$(e) $(LAB_$(1)_exercise_$(e)),")))]

# lab_compile_json N, VARIANT: "VARIANT":"how a student's file is compiled"
lab_compile_json = "$(2)":"$(strip $(CC) $(call lab_cflags,$(1)) $(CFLAGS_$(2)) $(CFLAGS))"

# lab_json N: everything the tools need to know about lab N, for $(IMPL)
# and $(BUILD).
lab_json = {"n":$(1),"folder":"$(LAB_$(1)_folder)","title":"$(LAB_$(1)_title)",\
"dir":"$(call lab_dir,$(1))","impl":"$(IMPL)","impl_dir":"$(call lab_impl,$(1))",\
"build_root":"$(BUILD)","extra_tests":"$(EXTRA_TESTS)",\
"test_dirs":$(call json_list,$(call lab_tdirs,$(1))),\
"handout":"$(call lab_dir,$(1))/README.md","problem":"$(call lab_problem,$(1))",\
"edit":$(call json_list,$(LAB_$(1)_edit)),"given":$(call json_list,$(LAB_$(1)_given)),\
"tests":$(call json_list,$(LAB_$(1)_tests)),"include":$(call json_list,$(LAB_$(1)_include)),\
"cflags":"$(strip $(LAB_$(1)_cflags))","exercises":$(call lab_exercises_json,$(1)),\
"points":$(call json_map,$(LAB_$(1)_points),),"build":"$(B)",\
"api":$(call json_list,$(LAB_$(1)_api)),"symbols":$(call json_list,$(LAB_$(1)_symbols)),\
"kit_symbols":$(call json_list,$(KIT_SYMBOLS)),"objs":$(call json_list,$(call lab_code_objs,plain,$(1))),\
"compile":{$(call lab_compile_json,$(1),plain),$(call lab_compile_json,$(1),asan),\
$(call lab_compile_json,$(1),tsan),$(call lab_compile_json,$(1),race)},\
"bins":{"unit-plain":"$(call lab_unit_bin,plain,$(1))","unit-asan":"$(call lab_unit_bin,asan,$(1))",\
"tsan":$(call json_list,$(call lab_tsan_bins,$(1))),"race":"$(call lab_race_bin,$(1))"}}

.PHONY: print-labs print-lab
print-labs:
	$(info [$(foreach n,$(LABS),$(if $(filter-out $(firstword $(LABS)),$(n)),$(comma))$(call lab_json,$(n)))])
	@:

print-lab:
	$(if $(filter $(N),$(LABS)),,$(error no lab '$(N)': the labs are $(LABS)))
	$(info $(call lab_json,$(N)))
	@:
