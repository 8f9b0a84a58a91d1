# rcu-refcount lab kit -- the table of targets.  'make help' prints this.
#
# Students (work in labs/labN-*/, start with its README.md):
#   make lab-N                grade your lab N: each part's tests, with points;
#                             the failures, each with its hint and the command
#                             that runs it alone; exit 0 only at full marks
#   make test-N TEST=name [VARIANT=asan]
#                             one test, TSan case, scenario or exercise of lab N
#                             alone, as 'make lab-N' names it
#   make hint-N [TEST=name]   the hints of the tests that failed in the last grade
#   make watch-N              grade lab N's quick parts each time you save a file
#   make race-N  [STRATEGY=dfs|pct|random|script] [SEED=] [SCHED=]
#                [MEMORY=sc|weak] [REDUCTION=on|off]
#                             lab N's race scenarios under the reproducer
#   make replay SCHED=file [LAB=N]
#                             replay a schedule file and print its timeline
#   make debug  SCHED=file [STEP=k]
#                             the replay under gdb, stopped at its verdict (or
#                             step k): goto-step, step-back, who-freed
#   make demo                 the lab-1 race, reproduced, and its fix
#   make deps                 install what the kit needs (Debian, as root)
#   Any of them takes IMPL=dir (a tree with labN-* folders; default labs,
#   IMPL=solutions for the reference) and V=1 (every command, every line).
#
# Instructors (docs/instructor.md):
#   make grade   [IMPL=] [EXTRA_TESTS=dir] [PARTS=p,p]   every lab, points,
#                             reports in $(BUILD)/grade/; make grade-N: one lab
#   make grade-all SUBMISSIONS=dir [JOBS=n] [GRADE_LABS="1 2"]
#                             a folder of submissions, in parallel: CSV, summary
#   make dist-student [DEST=dir]   the students' tree (no solutions), its
#                             files to edit from the committed skeletons
#   make gradescope-zip [EXTRA_TESTS=dir]   the Gradescope autograder
#   make classroom-workflow   a GitHub Classroom workflow, printed
#   make flaky LAB=N [RUNS=200] [JOBS=1] [IMPL=solutions]
#                             grade a tree RUNS times, count the failures
#   make bench [IMPL=] [BENCH=quick|smoke] [THREADS=1,2,4]
#                [BENCH_VARIANTS=spinlock,lockfree,...]
#                             lab 5's lock-free fget against the locked one
#                             and the others, side by side: table, ratios,
#                             build/bench/*.csv, plots (IMPL: default
#                             solutions; docs/bench.md)
#   make bench-lab4 [IMPL=]   lab 4's hashed-lock refcount_t against lab 2's
#                             cmpxchg one: ratios (IMPL: default solutions)
#   make bench-lab6 [IMPL=] [THREADS=1,2,4] [BENCH=smoke]
#                             lab 6's rcuref get against lab 2's cmpxchg
#                             loop and atomic_inc: ratios, retries, CSV,
#                             plot (IMPL: default solutions; docs/bench.md)
#   make rr-probe             can rr record on this machine? (rr is optional)
#   make rr-record-N [SCHED=] record lab N's failing schedule under rr
#   make rr-replay-N          rr replay of it, walked back to the write that
#                             freed the object (gdb, reverse-continue)
#   make rr-chaos-N           rr's chaos mode on lab N's stress program
#   make hw-bundle            rr, Criterion and liburcu packed to travel to a
#                             machine that lacks them (build/hw/bundle)
#   make hw-run               on that machine: the probe, make bench at 1-16
#                             threads, each lab's race under rr (tools/hw/)
#
# Developing the kit (docs/design.md):
#   make check [JOBS=n]       the kit's own suite (CI runs it first), n rows
#                             at a time (default: as many as cores)
#   make check-catalogues [LAB=N] [JOBS=n]
#                             every lab's (lab N's) known-wrong solutions
#                             rejected and correct alternatives at full
#                             marks: the proof its tests can fail and are
#                             fair (CI runs it after make check)
#   make litmus FILE=x.litmus | DIR=d
#                             run a kernel-style C litmus test (or every
#                             *.litmus under d) under the reproducer's weak
#                             memory model: herd7's shape of answer
#   make bench-race [AGAINST=rev]
#                             reproducer figures (a benchmark, not a test);
#                             AGAINST: only executions/s, side by side with
#                             commit rev's reproducer (e2c210d: issue 19's)
#   make print-labs           the labs' manifests, as JSON (print-lab N=1: one)
#   make clean
#
# Variables: CC (clang by default; gcc builds too), IMPL, BUILD, V=1.
# A lab is a folder labs/labN-*/ with a manifest, lab.mk (docs/design.md).

# No built-in rules: every rule the kit needs is its own, and make would
# otherwise try each built-in one (RCS, SCCS, yacc...) on every makefile and
# every header a dependency file names: an up-to-date build of lab 5 took
# 78 CPU ms, 34 without them; print-manifest 78, 22.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

IMPL    ?= labs
BUILD   ?= build
ifeq ($(origin CC),default)
CC      := clang
endif
# The interpreter itself, found once and handed down: a version manager's
# shim (pyenv's) costs a shell and a few processes at every call, and every
# jailed compile is one (about a third of a lab's build CPU).
ifeq ($(origin PYTHON),undefined)
PYTHON  := $(or $(shell python3 -c 'import sys; print(sys.executable)' 2>/dev/null),python3)
endif
export PYTHON
# Its bytecode kept under BUILD, whatever the environment says: with none
# (a fresh clone, or PYTHONDONTWRITEBYTECODE set) every start compiles the
# kit's modules again, a grade's start 0.4 CPU s instead of 0.1.
export PYTHONPYCACHEPREFIX := $(abspath $(BUILD))/pycache
unexport PYTHONDONTWRITEBYTECODE
.DEFAULT_GOAL := help

include mk/labs.mk
include mk/build.mk
include mk/bench-lab4.mk
include mk/bench-lab6.mk
include mk/bench.mk
include mk/litmus.mk

DEPS_CHECK := $(call DEPS_OK,check)

# Quiet by default, as Kbuild: a build step prints one short line ("  CC
# file.o") and a tool only what a student needs; V=1 shows every command
# and the tools' own lines.  mk/*.mk start each command with $(call quiet,WHAT).
export V
quiet = $(if $(filter 1,$(V)),,@printf '  %-7s %s\n' '$(1)' '$@';)
# The same for a command that makes several files: a line each (WHAT, FILES).
quiet_each = $(if $(filter 1,$(V)),,@printf '  %-7s %s\n' $(foreach f,$(2),'$(1)' '$(f)');)

RR_KINDS := record replay chaos
STUDENT  := test hint watch
.PHONY: help deps demo check check-catalogues clean litmus bench-race bench-lab4 bench-lab6 bench rr-probe replay debug flaky \
	hw-bundle hw-run \
	grade grade-all dist-student gradescope-zip classroom-workflow \
	$(addprefix lab-,$(LABS)) $(addprefix grade-,$(LABS)) $(addprefix race-,$(LABS)) \
	$(foreach k,$(RR_KINDS),$(addprefix rr-$(k)-,$(LABS))) \
	$(foreach k,$(STUDENT),$(addprefix $(k)-,$(LABS)))

help:
	@sed -n '3,/^# A lab is a folder/p' Makefile | sed 's/^# \{0,1\}//'
	@echo "Labs: $(foreach n,$(LABS),lab-$(n) ($(LAB_$(n)_folder)))"

deps:
	@bash tools/deps.sh install

# Grading builds each part itself, after the pre-build check (tools/grade.py).
GRADE_ARGS = --build --impl $(IMPL) --build-root $(BUILD) --report-dir $(BUILD)/grade \
	$(if $(EXTRA_TESTS),--extra-tests $(EXTRA_TESTS)) $(if $(PARTS),--parts $(PARTS))
$(foreach n,$(LABS),$(eval lab-$(n) grade-$(n): $(if $(call lab_problem,$(n)),impl-ok-$(n)) \
	| $(DEPS_BUILD) ; @$(PYTHON) tools/grade.py --lab $(n) $(GRADE_ARGS)))

grade: | $(DEPS_BUILD)
	@$(PYTHON) tools/grade.py $(GRADE_ARGS)

# The student's loop (tools/student.py): one test alone, the hints of the
# last grade, a grade on each save.
STUDENT_ARGS = --impl $(call shq,$(IMPL)) --build-root $(call shq,$(BUILD))
$(foreach n,$(LABS),$(eval test-$(n): | $(DEPS_BUILD) ; @$(PYTHON) tools/student.py test \
	--lab $(n) --test $$(call shq,$$(TEST)) --variant $$(call shq,$$(VARIANT)) $$(STUDENT_ARGS)))
$(foreach n,$(LABS),$(eval hint-$(n): ; @$(PYTHON) tools/student.py hint \
	--lab $(n) --test $$(call shq,$$(TEST)) $$(STUDENT_ARGS)))
$(foreach n,$(LABS),$(eval watch-$(n): | $(DEPS_BUILD) ; @$(PYTHON) tools/student.py watch \
	--lab $(n) $$(STUDENT_ARGS)))

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

# A schedule file is data: the program that replays it is its lab's race
# binary (LAB=, the lab folder it is in, its "lab N" line).  A wrong file
# or command is one line (tools/race.py check LAB [EXTRA]), made make's
# own error: sched_ok expands to nothing, or stops make with that line.
shq         = '$(subst ','\'',$(1))'
SCHED_ARGS  = --sched $(call shq,$(SCHED)) --impl $(call shq,$(IMPL)) \
	--build-root $(call shq,$(BUILD))
sched_error = $(shell $(PYTHON) tools/race.py check $(SCHED_ARGS) \
	--lab $(call shq,$(1)) --step $(call shq,$(STEP)) $(2))
sched_ok    = $(call die_if,$(call sched_error,$(1),$(2)))
die_if      = $(if $(1),$(error $(1)))

$(foreach n,$(LABS),$(eval race-$(n): $(if $(call lab_problem,$(n)),impl-ok-$(n),$(call lab_race_bin,$(n))) ; \
	$$(if $$(SCHED),$$(call sched_ok,$(n)))@$(PYTHON) tools/race.py run --lab $(n) \
	--impl $(IMPL) --build-root $(BUILD) --strategy "$(STRATEGY)" --seed "$(SEED)" \
	--memory "$(MEMORY)" --reduction "$(REDUCTION)" --sched $$(call shq,$$(SCHED))))

replay: | $(DEPS_BUILD)
	$(call sched_ok,$(LAB))
	@$(PYTHON) tools/race.py replay $(SCHED_ARGS) --lab $(call shq,$(LAB))

debug: | $(DEPS_BUILD)
	$(call sched_ok,$(LAB),--debug)
	@$(PYTHON) tools/race.py debug $(SCHED_ARGS) --lab $(call shq,$(LAB)) \
		--step $(call shq,$(STEP))

demo: | $(DEPS_BUILD)
	@$(PYTHON) tools/demo.py --build-root $(BUILD)

check: | $(DEPS_CHECK)
	@$(PYTHON) tools/check.py

check-catalogues: | $(DEPS_CHECK)
	@$(PYTHON) tools/check.py --catalogues $(if $(LAB),$(call shq,lab-$(LAB):))

# The reference unless IMPL is given on the command line.
flaky: | $(DEPS_BUILD)
	@$(PYTHON) tools/flaky.py --lab "$(LAB)" --runs "$(or $(RUNS),200)" \
	--jobs "$(if $(filter command line,$(origin JOBS)),$(JOBS),1)" --build-root $(BUILD) \
	--impl $(if $(filter command line,$(origin IMPL)),$(IMPL),solutions)

bench-race: | $(DEPS_BUILD)
	@$(PYTHON) tools/bench_race.py --build-root $(BUILD) $(if $(AGAINST),--against $(AGAINST))

bench-lab4: $(BENCH4_BIN)
	@$(BENCH4_BIN)

bench-lab6: $(BENCH6_OK)
	@$(PYTHON) tools/bench_lab6.py --bin $(BENCH6_BIN) --out $(BUILD)/bench/lab6 \
		$(if $(THREADS),--threads $(THREADS)) $(if $(filter smoke,$(BENCH)),--smoke)

bench: $(BENCH_OK)
	@$(PYTHON) tools/bench.py --bin $(BENCH_BIN) --impl $(BENCH_IMPL) \
		--mode $(or $(BENCH),default) --out $(BUILD)/bench $(if $(THREADS),--threads $(THREADS)) \
		$(if $(BENCH_VARIANTS),--variants $(BENCH_VARIANTS))

hw-bundle:
	@$(PYTHON) tools/hw/bundle.py --dest $(BUILD)/hw/bundle

hw-run:
	@bash tools/hw/device_run.sh $(BUILD)/hw/bundle

rr-probe:
	@$(PYTHON) tools/rr.py probe

# rr-record-N, rr-replay-N, rr-chaos-N: where rr cannot record, each says
# why and what works here instead, and fails.
$(foreach n,$(LABS),$(foreach k,$(RR_KINDS),$(eval rr-$(k)-$(n): | $(DEPS_BUILD) ; \
	@$(PYTHON) tools/rr.py $(k) --lab $(n) $(SCHED_ARGS))))

clean:
	rm -rf $(BUILD)

# Anything else: say what exists instead of make's terse error.
.DEFAULT:
	@echo "make: no target '$@'." >&2
	@echo "Labs: $(foreach n,$(LABS),lab-$(n) ($(LAB_$(n)_folder)))" >&2
	@echo "Run 'make help' for every target." >&2
	@exit 2
