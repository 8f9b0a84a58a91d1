#!/usr/bin/env bash
# tools/deps.sh - what the kit needs, found by what it is (a program, a
# header, a library the compiler links), and the Debian package that brings
# it.  No package database is asked: a machine where clang or Criterion came
# from elsewhere is as good.
#
#   deps.sh missing GROUP   one line naming what GROUP lacks and the fix, or
#                           nothing (make runs it once per BUILD and CC)
#   deps.sh verify [GROUP]  exit 1 with that line if something is missing
#   deps.sh install         install the packages of everything missing,
#                           optional tools included (root, apt-get); never
#                           upgrades what is there; idempotent
#
# Groups: build (make lab-N, race-N, demo), check (make check: also gcc and
# patch, gdb: make check walks a race back under gdb), optional (rr: only
# the rr targets want it; bwrap: without it the grader's sandbox keeps its
# limits but not its walls, and says so; gnuplot: make bench's plots,
# without it make bench says so in one line and writes its CSV; lld: the
# binaries link with it where it is there, else with the default ld;
# nanopb's archive: with it the unit binaries link Criterion's static
# archive, whose tests start faster, else its shared library).
# Environment: CC (default clang), PYTHON (default python3).
set -uo pipefail

CC=${CC:-clang}
PYTHON=${PYTHON:-python3}
CC_PROG=${CC%% *}		# CC may carry words: "ccache clang"
CC_NAME=${CC_PROG##*/}
TRY=$(mktemp -d)
trap 'rm -rf "$TRY"' EXIT

# The package of the compiler's sanitizer runtimes.
runtime_pkg() {
	[[ $CC_NAME == gcc* ]] && echo gcc || echo libclang-rt-dev
}

# Each requirement: group|what it is|how to find it|Debian package.
REQS=(
	"build|$CC_NAME, the compiler|program $CC_PROG|$([[ $CC_NAME == gcc* ]] && echo gcc || echo clang)"
	"build|make|program make|make"
	"build|$PYTHON, the kit's tools|program $PYTHON|python3"
	"build|Criterion's headers and library|link criterion/criterion.h -lcriterion|libcriterion-dev"
	"build|liburcu's headers and library|link urcu/urcu-memb.h -lurcu-memb|liburcu-dev"
	"build|$CC_NAME's AddressSanitizer and UBSan runtimes|sanitize address,undefined|$(runtime_pkg)"
	"build|$CC_NAME's ThreadSanitizer runtime|sanitize thread|$(runtime_pkg)"
	"build|readelf, the grader's pre-build check|program readelf|binutils"
	"check|gcc, the second compiler the kit must build with|program gcc|gcc"
	"check|patch, for the known-wrong solutions|program patch|patch"
	"check|gdb, for make debug (and make check, which tests it)|program gdb|gdb"
	"optional|rr, to record a replay where the CPU allows|program rr|rr"
	"optional|bwrap, the walls of the grader's sandbox|program bwrap|bubblewrap"
	"optional|gnuplot, the plots of make bench|program gnuplot|gnuplot-nox"
	"optional|ccache, for COMPILER_CACHE=ccache make check|program ccache|ccache"
	"optional|lld, the faster linker the kit links with where it is there|program ld.lld|lld"
	"optional|Criterion's static archive and nanopb's, which start each unit test in a quarter of the time|archive libcriterion.a libboxfort.a libprotobuf-nanopb.a|libnanopb-dev"
)

have_program() { command -v "$1" >/dev/null 2>&1; }

# have_link HEADER LIB: the compiler finds HEADER and links LIB.
have_link() {
	printf '#include <%s>\nint main(void) { return 0; }\n' "$1" >"$TRY/t.c"
	# shellcheck disable=SC2086
	$CC "$TRY/t.c" -o "$TRY/t" "$2" >/dev/null 2>&1
}

# have_archive NAME...: every static library NAME is in the folder of the
# compiler's target's libraries, where mk/build.mk looks for them.
have_archive() {
	local a dir
	dir=/usr/lib/$($CC -print-multiarch 2>/dev/null)
	for a; do
		[[ -f $dir/$a ]] || return 1
	done
}

# have_sanitizer KINDS: the compiler links a program with -fsanitize=KINDS.
have_sanitizer() {
	printf 'int main(void) { return 0; }\n' >"$TRY/s.c"
	# shellcheck disable=SC2086
	$CC -fsanitize="$1" "$TRY/s.c" -o "$TRY/s" >/dev/null 2>&1
}

have() {
	local kind=$1
	shift
	case $kind in
	program) have_program "$1" ;;
	link) have_link "$1" "$2" ;;
	sanitize) have_sanitizer "$1" ;;
	archive) have_archive "$@" ;;
	esac
}

# in_group REQ GROUP: build is in check; optional only in itself.
in_group() {
	local g=${1%%|*}
	case $2 in
	build) [[ $g == build ]] ;;
	check) [[ $g == build || $g == check ]] ;;
	all) true ;;
	*) [[ $g == "$2" ]] ;;
	esac
}

# missing_reqs GROUP: the requirements of GROUP not met, one a line.
missing_reqs() {
	local r test
	for r in "${REQS[@]}"; do
		in_group "$r" "$1" || continue
		IFS='|' read -r _ _ test _ <<<"$r"
		# Without the compiler, what it would find cannot be asked.
		[[ $test == program* ]] || have_program "$CC_PROG" || continue
		# shellcheck disable=SC2086
		have $test || echo "$r"
	done
}

# join SEP WORDS...: the words with SEP between them
join() {
	local sep=$1 out=$2
	shift 2 || return 0
	for w in "$@"; do out+="$sep$w"; done
	echo "$out"
}

# One line from missing_reqs' lines: what is missing, and the fix.
explain() {
	local whats=() pkgs=() r what pkg
	while IFS= read -r r; do
		[[ -n $r ]] || continue
		IFS='|' read -r _ what _ pkg <<<"$r"
		whats+=("$what")
		[[ " ${pkgs[*]} " == *" $pkg "* ]] || pkgs+=("$pkg")
	done
	((${#whats[@]})) || return 0
	local fix
	fix="run 'make deps' as root (it installs $(join ', ' "${pkgs[@]}"))"
	[[ $CC_NAME != gcc* ]] && ! have_program "$CC_PROG" && have_program gcc &&
		fix+=", or build with CC=gcc"
	echo "missing: $(join '; ' "${whats[@]}"): $fix"
}

cmd=${1:-verify}
case $cmd in
missing)
	missing_reqs "${2:-build}" | explain
	;;
verify)
	line=$(missing_reqs "${2:-build}" | explain)
	[[ -z $line ]] || { echo "$line" >&2; exit 1; }
	;;
install)
	mapfile -t need < <(missing_reqs check | cut -d'|' -f4 | sort -u)
	mapfile -t want < <(missing_reqs optional | cut -d'|' -f4 | sort -u)
	if ((${#need[@]} + ${#want[@]} == 0)); then
		echo "deps: everything is installed."
		exit 0
	fi
	if ((EUID != 0)); then
		missing_reqs all | explain >&2
		echo "deps: not root; run as root:" >&2
		echo "  apt-get update && apt-get install -y --no-install-recommends --no-upgrade ${need[*]} ${want[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q || exit 1
	# --no-upgrade: a package that is there already stays as it is.
	if ((${#need[@]})); then
		echo "deps: installing ${need[*]}"
		apt-get install -y -q --no-install-recommends --no-upgrade "${need[@]}" || exit 1
		# What the compiler finds could not be asked before it was there.
		mapfile -t want < <(missing_reqs optional | cut -d'|' -f4 | sort -u)
	fi
	if ((${#want[@]})); then
		echo "deps: installing ${want[*]} (optional)"
		apt-get install -y -q --no-install-recommends --no-upgrade "${want[@]}" ||
			echo "deps: ${want[*]} could not be installed: the kit works without them, as deps.sh's optional lines say" >&2
	fi
	line=$(missing_reqs check | explain)
	[[ -z $line ]] || { echo "deps: still $line" >&2; exit 1; }
	echo "deps: done."
	;;
*)
	echo "usage: deps.sh missing GROUP | verify [GROUP] | install" >&2
	exit 2
	;;
esac
