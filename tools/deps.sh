#!/usr/bin/env bash
# tools/deps.sh - the Debian packages the kit needs.
#
#   deps.sh install   install what is missing (idempotent; root, apt-get)
#   deps.sh verify    exit 0 if everything is there, else say what to run
set -euo pipefail

# package : what needs it
PACKAGES=(
	"make:the build"
	"clang:the default compiler"
	"gcc:the second compiler the kit must build with"
	"libclang-rt-dev:clang's ThreadSanitizer and AddressSanitizer runtimes"
	"libcriterion-dev:the unit tests (Criterion)"
	"liburcu-dev:RCU (liburcu)"
	"rr:recording and replaying a race (where the CPU allows)"
	"gdb:debugging a replayed schedule"
	"python3:the kit's runner scripts"
	"patch:the known-wrong solutions catalogue"
)

missing() {
	local entry pkg
	for entry in "${PACKAGES[@]}"; do
		pkg=${entry%%:*}
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q "install ok installed" || echo "$pkg"
	done
}

explain() {
	local entry pkg
	for pkg in "$@"; do
		for entry in "${PACKAGES[@]}"; do
			[[ ${entry%%:*} == "$pkg" ]] && echo "  $pkg  -- ${entry#*:}" >&2
		done
	done
}

cmd=${1:-verify}
mapfile -t todo < <(missing)

case $cmd in
verify)
	if ((${#todo[@]})); then
		echo "Missing Debian packages:" >&2
		explain "${todo[@]}"
		echo "Run 'make deps' as root (or: apt-get install -y ${todo[*]})." >&2
		exit 1
	fi
	;;
install)
	if ((${#todo[@]} == 0)); then
		echo "deps: everything is installed."
		exit 0
	fi
	if ((EUID != 0)); then
		echo "deps: missing: ${todo[*]}" >&2
		echo "deps: not root; run as root:" >&2
		echo "  apt-get update && apt-get install -y --no-install-recommends ${todo[*]}" >&2
		exit 1
	fi
	echo "deps: installing ${todo[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${todo[@]}"
	;;
*)
	echo "usage: deps.sh install|verify" >&2
	exit 2
	;;
esac
