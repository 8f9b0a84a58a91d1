#!/usr/bin/env bash
# rr.sh - record a race replay under rr, where this machine allows it.
#
#   tools/rr.sh probe               can rr record here?  (always exit 0)
#   tools/rr.sh record BIN ARGS...  record `BIN ARGS...` (e.g. a race
#                                   binary's "replay FILE") under rr
#
# rr needs hardware performance counters.  Many VMs have none: then
# `rr record` fails, and this script prints rr's own message and the
# alternative that needs no rr -- the reproducer's replay is already
# deterministic, and runs under gdb as an ordinary program.  It never fails
# a build: exit 0 whenever the reason is rr's, not the command's.
set -u

probe() {
	local dir out
	if ! command -v rr >/dev/null 2>&1; then
		echo "rr: not installed (make deps installs it)"
		return 1
	fi
	dir=$(mktemp -d)
	out=$(rr record -o "$dir/trace" true 2>&1)
	local rc=$?
	rm -rf "$dir"
	if [ $rc -ne 0 ]; then
		echo "rr cannot record on this machine; rr says:"
		echo "$out" | grep -v '^$' | head -5 | sed 's/^/    /'
		return 1
	fi
	echo "rr can record on this machine"
	return 0
}

alternative() {
	echo "without rr: the reproducer's replay is deterministic by itself --"
	echo "    $*"
	echo "  runs the same interleaving every time, and under gdb (the"
	echo "  execution runs in a forked child, stopped at its verdict):"
	echo "    gdb -ex 'set follow-fork-mode child' -ex 'break race_fail' --args $*"
	echo "  see docs/rr.md"
}

case "${1:-}" in
probe)
	probe || alternative "BUILD/IMPL/race/labN/race replay SCHED_FILE"
	exit 0
	;;
record)
	shift
	[ $# -ge 1 ] || { echo "usage: tools/rr.sh record BIN ARGS..." >&2; exit 2; }
	if ! probe; then
		alternative "$@"
		exit 0
	fi
	dir="${RR_TRACE_DIR:-build/rr}/$(basename "$1")-$(date +%s)"
	mkdir -p "$(dirname "$dir")"
	rr record -o "$dir" "$@"
	echo "recorded: rr replay $dir"
	exit 0
	;;
*)
	echo "usage: tools/rr.sh probe | record BIN ARGS..." >&2
	exit 2
	;;
esac
