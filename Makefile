# rcu-refcount lab kit -- the table of targets.
#
#   make deps                 install what the kit needs (Debian, as root)
#   make demo                 the lab-1 race, reproduced, and its fix
#   make lab-N   [IMPL=...]   grade lab N: unit tests (plain, ASan), TSan run,
#                             race scenarios; IMPL=labs (yours, default) or
#                             IMPL=solutions, or any tree with labN-* folders
#   make grade   [IMPL=] [EXTRA_TESTS=dir]   every lab, points, reports in
#                             $(BUILD)/grade/; make grade-N: one lab
#   make grade-all SUBMISSIONS=dir [JOBS=n] [GRADE_LABS="1 2"]
#                             a folder of submissions, in parallel: CSV, summary
#   make dist-student [DEST=dir]   the students' tree (no solutions)
#   make gradescope-zip [EXTRA_TESTS=dir]   the Gradescope autograder
#   make classroom-workflow   a GitHub Classroom workflow, printed
#   make race-N  [IMPL=] [STRATEGY=dfs|pct|random|script] [SEED=] [SCHED=]
#                             run lab N's race scenarios under the reproducer
#   make replay SCHED=file    replay a schedule file and print its timeline
#   make check                the kit's own suite (what CI runs)
#   make bench-race           reproducer figures (a benchmark, not a test)
#   make rr-probe             can rr record on this machine? (rr is optional)
#   make print-labs           the labs' manifests, as JSON (print-lab N=1: one)
#   make clean
#
# Variables: CC (clang by default; gcc builds too), IMPL, BUILD.
# A lab is a folder labs/labN-*/ with a manifest, lab.mk (docs/design.md).

IMPL    ?= labs
BUILD   ?= build
ifeq ($(origin CC),default)
CC      := clang
endif
PYTHON  ?= python3
.DEFAULT_GOAL := help

include mk/labs.mk
include mk/build.mk

DEPS_CHECK := $(call DEPS_OK,check)

.PHONY: help deps demo check clean bench-race rr-probe replay grade grade-all \
	dist-student gradescope-zip classroom-workflow $(addprefix lab-,$(LABS)) $(addprefix grade-,$(LABS)) \
	$(addprefix race-,$(LABS))

help:
	@sed -n '3,26p' Makefile | sed 's/^# \{0,1\}//'
	@echo "Labs: $(foreach n,$(LABS),lab-$(n) ($(LAB_$(n)_folder)))"

deps:
	@bash tools/deps.sh install

# Grading builds each part itself, after the pre-build check (tools/grade.py).
GRADE_ARGS = --build --impl $(IMPL) --build-root $(BUILD) --report-dir $(BUILD)/grade \
	$(if $(EXTRA_TESTS),--extra-tests $(EXTRA_TESTS))
$(foreach n,$(LABS),$(eval lab-$(n) grade-$(n): $(if $(call lab_problem,$(n)),impl-ok-$(n)) \
	| $(DEPS_BUILD) ; @$(PYTHON) tools/grade.py --lab $(n) $(GRADE_ARGS)))

grade: | $(DEPS_BUILD)
	@$(PYTHON) tools/grade.py $(GRADE_ARGS)

JOBS ?= 2
grade-all: | $(DEPS_BUILD)
	@$(PYTHON) tools/grade_all.py --submissions "$(SUBMISSIONS)" --jobs $(JOBS) \
		--build-root $(BUILD) --labs "$(GRADE_LABS)" $(if $(EXTRA_TESTS),--extra-tests $(EXTRA_TESTS))

DEST ?= $(BUILD)/dist-student
dist-student:
	@$(PYTHON) tools/dist_student.py --dest $(DEST)

gradescope-zip:
	@$(PYTHON) tools/autograder/gradescope.py zip --out $(BUILD)/gradescope.zip \
		$(if $(EXTRA_TESTS),--extra-tests $(EXTRA_TESTS))

classroom-workflow:
	@$(PYTHON) tools/autograder/github_classroom.py

$(foreach n,$(LABS),$(eval race-$(n): $(if $(call lab_problem,$(n)),impl-ok-$(n),$(call lab_race_bin,$(n))) ; \
	@$(PYTHON) tools/race.py run --lab $(n) --impl $(IMPL) --build-root $(BUILD) \
	--strategy "$(STRATEGY)" --seed "$(SEED)" --sched "$(SCHED)"))

replay: | $(DEPS_BUILD)
	@$(PYTHON) tools/race.py replay --sched "$(SCHED)" --build-root $(BUILD)

demo: | $(DEPS_BUILD)
	@$(PYTHON) tools/demo.py --build-root $(BUILD)

check: | $(DEPS_CHECK)
	@$(PYTHON) tools/check.py

bench-race: | $(DEPS_BUILD)
	@$(PYTHON) tools/bench_race.py --build-root $(BUILD)

rr-probe:
	@bash tools/rr.sh probe

clean:
	rm -rf $(BUILD)

# Anything else: say what exists instead of make's terse error.
.DEFAULT:
	@echo "make: no target '$@'." >&2
	@echo "Labs: $(foreach n,$(LABS),lab-$(n) ($(LAB_$(n)_folder)))" >&2
	@echo "Run 'make help' for every target." >&2
	@exit 2
