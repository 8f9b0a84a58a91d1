# env.sh - source this on the machine a bundle travelled to (tools/hw/bundle.py):
#   . BUNDLE/env.sh
# It puts the bundle's programs first on PATH, its headers and libraries on
# the compiler's search paths (C_INCLUDE_PATH, LIBRARY_PATH), and on
# LD_LIBRARY_PATH only the libraries this machine lacks (a link each in
# BUNDLE/usr/lib/active/), so that the machine's own programs keep their
# own, newer libraries.  It returns 1, with a line saying why, where the
# bundle cannot work: a C library older than the one it was made with.
HW_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export HW_BUNDLE

hw_glibc_ok() {
	local want have
	want=$(cat "$HW_BUNDLE/GLIBC")
	have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
	[ -n "$have" ] || { echo "env.sh: this machine's C library is not glibc"; return 1; }
	if [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" != "$want" ]; then
		echo "env.sh: glibc $have here, the bundle was made with $want: make it on an older machine"
		return 1
	fi
}

# Link into usr/lib/active every bundled library whose soname this machine lacks.
hw_link_missing() {
	local active="$HW_BUNDLE/usr/lib/active" have lib name
	rm -rf "$active" && mkdir -p "$active"
	have=$(ldconfig -p 2>/dev/null | awk '{print $1}')
	for lib in "$HW_BUNDLE"/usr/lib/x86_64-linux-gnu/*.so.* "$HW_BUNDLE"/usr/lib/bundle/*.so*; do
		[ -e "$lib" ] || continue
		name=$(basename "$lib")
		grep -qxF "$name" <<<"$have" || ln -sf "$lib" "$active/$name"
	done
}

if hw_glibc_ok; then
	hw_link_missing
	export PATH="$HW_BUNDLE/usr/bin:$PATH"
	export C_INCLUDE_PATH="$HW_BUNDLE/usr/include:$HW_BUNDLE/usr/include/x86_64-linux-gnu${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}"
	export LIBRARY_PATH="$HW_BUNDLE/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
	export LD_LIBRARY_PATH="$HW_BUNDLE/usr/lib/active${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
	return 1 2>/dev/null || exit 1
fi
