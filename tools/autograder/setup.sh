#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, when it builds the
# autograder's image (tools/autograder/gradescope.py builds the zip).
# It installs the kit's packages and builds the kit's own objects, so that
# each submission compiles only the student's files.
# AUTOGRADER_ROOT stands for /autograder (make check runs it elsewhere).
set -euo pipefail
AG=${AUTOGRADER_ROOT:-/autograder}
cd "$AG/source/kit"
bash tools/deps.sh install
extra=()
[[ -d $AG/source/hidden ]] && extra=("EXTRA_TESTS=$AG/source/hidden")
make -s BUILD="$AG/build" "${extra[@]}" kit-objs
echo "setup.sh: the kit is ready in $AG/source/kit"
