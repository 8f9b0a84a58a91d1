# rcu-refcount lab kit -- the table of targets.
#
#   make deps                 install what the kit needs (Debian, as root)
#   make demo                 the lab-1 race, reproduced, and its fix
#   make lab-N   [IMPL=...]   grade lab N: unit tests (plain, ASan), TSan run,
#                             race scenarios; IMPL=labs (yours, default) or
#                             IMPL=solutions, or any tree with labN-* folders
#   make race-N  [IMPL=] [STRATEGY=dfs|pct|random|script] [SEED=] [SCHED=]
#                             run lab N's race scenarios under the reproducer
#   make replay SCHED=file    replay a schedule file and print its timeline
#   make check                the kit's own suite (what CI runs)
#   make bench-race           reproducer figures (a benchmark, not a test)
#   make bench-lab4 [IMPL=]   lab 4's hashed-lock refcount_t against lab 2's
#                             cmpxchg one: ratios (IMPL: default solutions)
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
include mk/bench-lab4.mk

DEPS_CHECK := $(call DEPS_OK,check)

.PHONY: help deps demo check clean bench-race bench-lab4 rr-probe replay \
	$(addprefix lab-,$(LABS)) $(addprefix race-,$(LABS))

help:
	@sed -n '3,21p' Makefile | sed 's/^# \{0,1\}//'
	@echo "Labs: $(foreach n,$(LABS),lab-$(n) ($(LAB_$(n)_folder)))"

deps:
	@bash tools/deps.sh install

$(foreach n,$(LABS),$(eval lab-$(n): build-lab-$(n) ; \
	@$(PYTHON) tools/grade.py --lab $(n) --impl $(IMPL) --build-root $(BUILD)))

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

bench-lab4: $(BENCH4_BIN)
	@$(BENCH4_BIN)

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
