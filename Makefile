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
#   make rr-probe             can rr record on this machine?
#   make clean
#
# Variables: CC (clang by default; gcc builds too), IMPL, BUILD.

LABS    := 1 2 3 5
LAB_1   := lab1-kref
LAB_2   := lab2-refcount
LAB_3   := lab3-rcu-free
LAB_5   := lab5-fdtable

IMPL    ?= labs
ifeq ($(origin CC),default)
CC      := clang
endif
PYTHON  ?= python3
.DEFAULT_GOAL := help

include mk/build.mk

.PHONY: help deps demo check clean bench-race rr-probe replay \
	$(addprefix lab-,$(LABS)) $(addprefix race-,$(LABS)) \
	$(addprefix build-lab-,$(LABS))

help:
	@sed -n '3,16p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@bash tools/deps.sh install

$(foreach n,$(LABS),$(eval lab-$(n): build-lab-$(n) ; \
	@$(PYTHON) tools/grade.py --lab $(n) --dir $(LAB_$(n)) --impl $(IMPL) --build $(B)))

$(foreach n,$(LABS),$(eval race-$(n): $(call lab_race_bin,$(n)) ; \
	@$(PYTHON) tools/race.py run --lab $(n) --bin $(call lab_race_bin,$(n)) \
	--strategy "$(STRATEGY)" --seed "$(SEED)" --sched "$(SCHED)"))

replay:
	@$(PYTHON) tools/race.py replay --sched "$(SCHED)" --build-root $(BUILD)

demo:
	@bash tools/deps.sh verify
	@$(PYTHON) tools/demo.py --build $(BUILD)

check:
	@bash tools/deps.sh verify
	@$(PYTHON) tools/check.py

bench-race:
	@$(PYTHON) tools/bench_race.py --build $(BUILD)

rr-probe:
	@bash tools/rr.sh probe

clean:
	rm -rf $(BUILD)

# Anything else: say what exists instead of make's terse error.
.DEFAULT:
	@echo "make: no target '$@'." >&2
	@echo "Labs: $(foreach n,$(LABS),lab-$(n) ($(LAB_$(n))))" >&2
	@echo "Run 'make help' for every target." >&2
	@exit 2
