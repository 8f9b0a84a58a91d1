#!/usr/bin/env bash
# device_run.sh - the kit on a bigger machine, in one call (docs/debugging.md
# "rr on another machine", docs/bench.md "16 cores").
#
#   bash tools/hw/device_run.sh [BUNDLE]        (from the kit's root)
#
# BUNDLE (default build/hw/bundle, made by tools/hw/bundle.py) brings what
# the machine may lack: rr, Criterion, liburcu.  The kit is built there with
# the machine's own compiler (CC, default gcc: its sanitizer runtimes are
# its own).  Everything goes to $OUT (default build/hw/out), one log per
# step, as it happens, so a run cut short still leaves what it did:
#
#   probe.txt        the CPU, the counters rr needs (tools/hw/perfprobe.c),
#                    rr's own answer to 'rr record true', make rr-probe
#   deps.log         tools/deps.sh verify build, with the bundle
#   build.log        make build-lab-N for the solutions and the trees below
#   rr-labN.log      lab N's canonical race: make race-N finds it and writes
#                    its schedule; make rr-record-N, rr-replay-N (the walk
#                    back to the write that freed the object), rr-chaos-N
#   bench.log, bench/   make bench THREADS=$THREADS: table, ratios, CSV
#   bench-lab4.log   make bench-lab4
#   summary.txt      one line per step: its exit status and seconds
#
# Each step has a time limit (STEP_LIMIT, seconds); a failing step is
# written down and the next one runs.  Exit 0 once every step has run.
# STEPS (default "probe build rr bench") picks steps; LABS (default "1 2 3 4
# 5 6") the labs of the rr step (make check runs STEPS=probe,rr LABS=1).
set -uo pipefail
cd "$(dirname "$0")/../.."

BUNDLE=${1:-build/hw/bundle}
OUT=${OUT:-build/hw/out}
CC=${CC:-gcc}
THREADS=${THREADS:-1,2,4,8,16}
STEP_LIMIT=${STEP_LIMIT:-300}
BUILD=${BUILD:-build/hw/kit}
STEPS=" ${STEPS:-probe build rr bench} "
STEPS=${STEPS//,/ }
LABS=${LABS:-1 2 3 4 5 6}
export CC BUILD
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"

# The canonical race of each lab: the tree (solutions, or solutions with a
# known-wrong patch of tests/mutants/) in which make race-N finds it.
race_tree() {
	case $1 in
	2) echo lab2-refcount/get-rcu-read-then-inc ;;
	3) echo lab3-rcu-free/get-after-read-unlock ;;
	5) echo lab5-fdtable/fget-no-recheck ;;
	6) echo lab6-rcuref/put-marks-dead-with-store ;;
	*) echo solutions ;;
	esac
}

# step NAME LOG CMD...: run CMD with its output in LOG, under STEP_LIMIT.
step() {
	local name=$1 log=$2 t0 rc
	shift 2
	t0=$(date +%s)
	echo "== $name: $*" | tee -a "$OUT/$log"
	timeout --kill-after=10 "$STEP_LIMIT" bash -c '"$@"' step "$@" >>"$OUT/$log" 2>&1
	rc=$?
	printf '%-28s exit %3d  %4ds\n' "$name" "$rc" "$(($(date +%s) - t0))" | tee -a "$SUMMARY"
	return $rc
}

probe() {
	uname -a
	grep -m1 "model name" /proc/cpuinfo
	echo "cores: $(nproc)"
	echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)"
	echo "PMUs: $(ls /sys/bus/event_source/devices | tr '\n' ' ')"
	"$BUILD/hw/perfprobe"
	echo "rr: $(command -v rr) ($(rr --version 2>&1))"
	echo "rr record true:"
	rr record -o "$BUILD/hw/rr-true" true 2>&1 | head -n 5
	make --no-print-directory rr-probe
}

# race_bin N IMPL: the path of lab N's race binary for tree IMPL.
race_bin() {
	make -s --no-print-directory print-lab N="$1" IMPL="$2" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["bins"]["race"])'
}

# tree N: the IMPL in which lab N's canonical race is found.
tree() {
	local spec dir
	spec=$(race_tree "$1")
	[ "$spec" = solutions ] && { echo solutions; return; }
	dir="$BUILD/trees/${spec//\//-}"
	if [ ! -d "$dir" ]; then
		mkdir -p "$dir" && cp -r solutions/. "$dir" &&
			patch -s -d "$dir" -p1 <"tests/mutants/$spec.patch" >&2 || return 1
	fi
	echo "$dir"
}

rr_lab() {
	local n=$1 impl sched
	impl=$(tree "$n") || { echo "no tree for lab $n"; return 1; }
	echo "lab $n: the race in $impl"
	make --no-print-directory race-"$n" IMPL="$impl"
	sched=$(ls -t "$BUILD"/races/lab"$n"-*.sched 2>/dev/null | head -n 1)
	echo "schedule: ${sched:-none}"
	[ -n "$sched" ] || return 1
	make --no-print-directory rr-record-"$n" IMPL="$impl" SCHED="$sched"
	make --no-print-directory rr-replay-"$n" IMPL="$impl"
	make --no-print-directory rr-chaos-"$n" IMPL="$impl"
	return 0
}

# deps: what the kit lacks here, after the bundle (tools/deps.sh).  If
# something is missing (a sanitizer runtime, say), say so and let make go
# on: the benchmarks and the race binaries need none of the sanitizers.
deps() {
	bash tools/deps.sh verify build && return 0
	echo "deps: going on without it; what needs it will not build"
	mkdir -p "$BUILD/.deps" && touch "$BUILD/.deps/build-${CC//\//_}"
	return 1
}

build_all() {
	local n impl targets=()
	for n in 1 2 3 4 5; do
		impl=$(tree "$n") || return 1
		make --no-print-directory -j"$(nproc)" build-lab-"$n" IMPL="$impl" && continue
		echo "build-lab-$n IMPL=$impl failed with -Werror: once more with -Wno-error"
		make --no-print-directory -j"$(nproc)" build-lab-"$n" IMPL="$impl" \
			CFLAGS=-Wno-error && continue
		echo "build-lab-$n IMPL=$impl failed: its race binary alone"
		make --no-print-directory -j"$(nproc)" "$(race_bin "$n" "$impl")" \
			CFLAGS=-Wno-error IMPL="$impl" || return 1
	done
}

export -f race_bin race_tree tree probe rr_lab build_all deps
export OUT
if ! . "$BUNDLE/env.sh"; then
	echo "bundle: $BUNDLE/env.sh refused this machine" | tee -a "$SUMMARY"
	exit 1
fi
mkdir -p "$BUILD/hw"
want() { [[ $STEPS == *" $1 "* ]]; }
if want probe; then
	step perfprobe probe.txt "$CC" -O2 -o "$BUILD/hw/perfprobe" tools/hw/perfprobe.c
	step probe probe.txt probe
fi
step deps deps.log deps || true
if want bench; then
	step bench bench.log make --no-print-directory bench THREADS="$THREADS"
	mkdir -p "$OUT/bench" && cp "$BUILD"/bench/*.csv "$OUT/bench/" 2>/dev/null
	step bench-lab4 bench-lab4.log make --no-print-directory bench-lab4
fi
want build && step build build.log build_all
if want rr; then
	for n in $LABS; do
		step "rr lab $n" "rr-lab$n.log" rr_lab "$n"
	done
fi
echo "done: $OUT" | tee -a "$SUMMARY"
exit 0
