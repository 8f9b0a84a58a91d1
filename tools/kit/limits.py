"""kit.limits - every time limit and cap of the kit's tools, in one place.

Each can be changed from the environment (the name in brackets); docs/
instructor.md, "Limits", lists them.  Seconds unless said otherwise.
"""
import os


def _setting(name, default):
    value = os.environ.get(name)
    return int(value) if value and value.isdigit() else default


# One Criterion test; tests/criterion_timeout.c applies it to every test that
# sets no .timeout of its own (the stress tests set 60).
TEST_TIMEOUT = _setting("KIT_TEST_TIMEOUT", 10)
# A whole Criterion binary (a backstop: the per-test limits end it first).
UNIT_TIMEOUT = _setting("KIT_UNIT_TIMEOUT", 180)
# One run of one TSan case.
TSAN_TIMEOUT = _setting("KIT_TSAN_TIMEOUT", 60)
# One race scenario explored, or one schedule replayed.
RACE_TIMEOUT = _setting("KIT_RACE_TIMEOUT", 240)
# One make invocation that builds (make check's rows, the mutants).
MAKE_TIMEOUT = _setting("KIT_MAKE_TIMEOUT", 600)
# CPU seconds any one child may burn (RLIMIT_CPU), whatever its wall time.
CPU_LIMIT = _setting("KIT_CPU_LIMIT", 600)
# Output kept of one child, in bytes: its first and last halves.
OUTPUT_CAP = _setting("KIT_OUTPUT_CAP", 4 << 20)

# The sandbox of a graded part (kit/sandbox.py).
# Memory: MiB of all the part's processes together, as a memory cgroup
# counts it (anonymous, shared and tmpfs memory); without one, resident and
# shared memory summed every WATCH_INTERVAL s.  Over it, the part is killed
# whole (OOM).  docs/instructor.md, "The sandbox".
MEM_LIMIT = _setting("KIT_MEM_LIMIT", 2048)
# MiB of the part's private /tmp, and of its /dev/shm (each a tmpfs of
# that size: a write past it fails, ENOSPC).
TMP_LIMIT = _setting("KIT_TMP_LIMIT", 64)
# Processes and threads of one part at once (a pids cgroup, where one can be
# made; Criterion's workers and the stress tests' threads count).
PROC_LIMIT = _setting("KIT_PROC_LIMIT", 512)
# Bytes any one file written by the part may reach (RLIMIT_FSIZE).
FILE_LIMIT = _setting("KIT_FILE_LIMIT", 64 << 20)
# One submission of make grade-all, everything included.
GRADE_TIMEOUT = _setting("KIT_GRADE_TIMEOUT", 1800)
WATCH_INTERVAL = 0.05

# The jailed compiles of the students' files and the pre-build check's
# preprocessor passes (kit.sandbox.compile): wall and CPU seconds of one
# compile, MiB of memory, bytes of one file written (an object), bytes of
# messages kept.
BUILD_TIMEOUT = _setting("KIT_BUILD_TIMEOUT", 60)
BUILD_MEM = _setting("KIT_BUILD_MEM", 1024)
BUILD_FILE_LIMIT = _setting("KIT_BUILD_FILE_LIMIT", 16 << 20)
BUILD_OUTPUT_CAP = _setting("KIT_BUILD_OUTPUT_CAP", 64 << 10)

# How many times a TSan case runs in a grade: a "race" case passes at the
# first run that reports it, a "clean" case must be clean in every run.
TSAN_RACE_RUNS = 3
TSAN_CLEAN_RUNS = 3
# make check's proof of the TSan annotations: every run must give the
# case's verdict.
TSAN_PROOF_RUNS = 5


def table():
    """[(name, value, what)] of the settings, for docs and --limits."""
    return [
        ("KIT_TEST_TIMEOUT", TEST_TIMEOUT, "s, one Criterion test without its own .timeout"),
        ("KIT_UNIT_TIMEOUT", UNIT_TIMEOUT, "s, one Criterion binary"),
        ("KIT_TSAN_TIMEOUT", TSAN_TIMEOUT, "s, one run of one TSan case"),
        ("KIT_RACE_TIMEOUT", RACE_TIMEOUT, "s, one race scenario or replay"),
        ("KIT_MAKE_TIMEOUT", MAKE_TIMEOUT, "s, one build"),
        ("KIT_CPU_LIMIT", CPU_LIMIT, "CPU s, any one child"),
        ("KIT_OUTPUT_CAP", OUTPUT_CAP, "bytes of output kept per child"),
        ("KIT_MEM_LIMIT", MEM_LIMIT, "MiB resident, all processes of one graded part"),
        ("KIT_PROC_LIMIT", PROC_LIMIT, "processes and threads of one graded part"),
        ("KIT_FILE_LIMIT", FILE_LIMIT, "bytes, one file a graded part writes"),
        ("KIT_TMP_LIMIT", TMP_LIMIT, "MiB, a graded part's /tmp, and its /dev/shm"),
        ("KIT_BUILD_TIMEOUT", BUILD_TIMEOUT, "s, one compile of a student's file"),
        ("KIT_BUILD_MEM", BUILD_MEM, "MiB, one compile of a student's file"),
        ("KIT_BUILD_FILE_LIMIT", BUILD_FILE_LIMIT, "bytes, one file such a compile writes"),
        ("KIT_BUILD_OUTPUT_CAP", BUILD_OUTPUT_CAP, "bytes of its messages kept"),
        ("KIT_GRADE_TIMEOUT", GRADE_TIMEOUT, "s, one submission of make grade-all"),
    ]
