#!/usr/bin/env python3
"""check.py - the kit's own test suite (`make check`, what CI runs).

The suite is the table SUITES below: one row per check, each with
  name     what is checked, as printed
  build    make targets to build first (run with -j2; a build failure fails
           the row, except where the row expects the build to fail)
  cmd      the command that is the check (a list), or None if the build is
           the check
  expect   how its result is judged: see EXPECT
  timeout  seconds for cmd (a hang fails the row, never hangs the suite)
Labs add rows through lab_rows(); a row may also be a function that returns
rows (lab_rows, tsan_proof_rows, mutant_rows), evaluated when the suite runs.

Ends with the line "N passed, N failed"; exits 1 if anything failed.
Environment: BUILD (default build), CC -- as given to make.  Standard
library only.
"""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", "build")
PY = sys.executable
TSAN_PROOF_RUNS = 5
TSAN_EXIT = 66
MAKE_TIMEOUT = 600
SYNTHESIS = re.compile(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| "
                       r"Failing: (\d+) \| Crashing: (\d+)")


def impl_build(impl):
    """$(B) of mk/build.mk for IMPL=@impl."""
    return os.path.join(BUILD, impl.rstrip("/").replace("/", "_"))


def labs():
    """(number, folder) of every lab that has a reference solution."""
    found = []
    text = open(os.path.join(ROOT, "Makefile")).read()
    for n, d in re.findall(r"^LAB_(\d+)\s*:=\s*(\S+)", text, re.M):
        if os.path.isdir(os.path.join(ROOT, "solutions", d)):
            found.append((int(n), d))
    return sorted(found)


# --- expectations: (exit status, output) -> (ok, detail) ----------------------

def exp_pass(rc, out):
    return rc == 0, "exit %s" % rc


def exp_criterion(rc, out):
    m = SYNTHESIS.search(out)
    if not m:
        return False, "no Criterion summary (exit %s): crashed?" % rc
    t, p, f, c = map(int, m.groups())
    return rc == 0 and t > 0 and p == t, "%d tests, %d passed, %d failed, %d crashed" % (t, p, f, c)


def exp_graded_pass(rc, out):
    last = grade_line(out)
    return rc == 0 and last is not None and " 0 failed" in last, last or "no grade line (exit %s)" % rc


def exp_graded_fail(rc, out):
    """Built, graded, and at least one part failed (not: failed to build)."""
    last = grade_line(out)
    if last is None:
        return False, "did not reach the grader (build error?), exit %s" % rc
    return rc != 0 and not last.endswith(" 0 failed"), last


def exp_mutant_rejected(rc, out):
    lines = [l for l in out.strip().splitlines() if l.strip()]
    return rc == 0, lines[-1] if lines else "exit %s" % rc


EXPECT = {
    "pass": exp_pass,
    "criterion": exp_criterion,
    "graded-pass": exp_graded_pass,
    "graded-fail": exp_graded_fail,
    "mutant-rejected": exp_mutant_rejected,
}


def grade_line(out):
    m = re.findall(r"^lab-\d+: \d+ passed, \d+ failed$", out, re.M)
    return m[-1] if m else None


# --- rows ---------------------------------------------------------------------

def row(name, build=(), cmd=None, expect="pass", timeout=300):
    return dict(name=name, build=list(build), cmd=cmd, expect=expect,
                timeout=timeout)


def common_rows():
    b = impl_build("labs")
    return [
        row("common: unit tests (plain)", ["build-common"],
            [os.path.join(b, "plain", "common", "unit")], "criterion"),
        row("common: unit tests (ASan+UBSan)", ["build-common"],
            [os.path.join(b, "asan", "common", "unit")], "criterion"),
    ]


def tsan_proof_rows():
    """Each case of each tests/common/tsan_*.c program, TSAN_PROOF_RUNS times:
    'clean' cases must give 0 reports in every run, 'race' cases a report in
    every run (the RCU annotation proof of DESIGN.md)."""
    rows = []
    tdir = os.path.join(ROOT, "tests", "common")
    for src in sorted(os.listdir(tdir)):
        if not (src.startswith("tsan_") and src.endswith(".c")):
            continue
        prog = os.path.join(impl_build("labs"), "tsan", "common", src[:-2])
        rows.append(row("TSan proof: %s" % src[:-2], [prog],
                        [PY, os.path.abspath(__file__), "--tsan-proof", prog],
                        "pass", timeout=600))
    return rows


def lab_rows():
    rows = []
    for n, d in labs():
        rows += [
            row("lab-%d: solutions pass" % n, [], ["make", "-j2", "lab-%d" % n,
                "IMPL=solutions"], "graded-pass", MAKE_TIMEOUT),
            row("lab-%d: skeleton fails (the tests can fail)" % n, [],
                ["make", "-j2", "lab-%d" % n, "IMPL=labs"], "graded-fail",
                MAKE_TIMEOUT),
        ]
        rows += mutant_rows(n, d)
        rows.append(row("lab-%d: gcc builds the solutions" % n, [],
                        ["make", "-j2", "CC=gcc",
                         "BUILD=%s" % os.path.join(BUILD, "gcc"),
                         "build-lab-%d" % n, "IMPL=solutions"], "pass",
                        MAKE_TIMEOUT))
    return rows


def mutant_rows(n, d):
    tool = os.path.join(ROOT, "tools", "mutants.py")
    mdir = os.path.join(ROOT, "tests", "mutants", d)
    if not os.path.isdir(mdir):
        return []
    return [row("lab-%d: known-wrong '%s' is rejected" % (n, p[:-6]), [],
                [PY, tool, "run", "--lab-dir", d, "--name", p[:-6]],
                "mutant-rejected", MAKE_TIMEOUT)
            for p in sorted(os.listdir(mdir)) if p.endswith(".patch")]


def race_rows():
    """The race reproducer's self-tests (tests/race/test_race.py)."""
    return [row("race reproducer: self-tests", [],
                ["make", "race-selftest", "IMPL=solutions"], "pass", 300)]


# The table.  Append rows (or functions returning rows) here.
SUITES = [
    common_rows,
    tsan_proof_rows,
    race_rows,
    lab_rows,
]


# --- running ------------------------------------------------------------------

def child_env():
    env = dict(os.environ)
    # IMPL too: each row names the tree it builds, or means the default.
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "IMPL"):
        env.pop(k, None)
    env["BUILD"] = BUILD
    return env


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout,
                           env=child_env(), start_new_session=True)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return "TIMEOUT", (e.stdout or b"").decode("utf-8", "replace")


def run_row(r):
    """Build, run, judge one row: (ok, detail, output)."""
    if r["build"]:
        rc, out = run(["make", "-j2"] + r["build"], MAKE_TIMEOUT)
        if rc != 0:
            return False, "build failed (exit %s)" % rc, out
    if r["cmd"] is None:
        return True, "built", ""
    rc, out = run(r["cmd"], r["timeout"])
    if rc == "TIMEOUT":
        return False, "TIMEOUT after %ds" % r["timeout"], out
    ok, detail = EXPECT[r["expect"]](rc, out)
    return ok, detail, out


def tsan_proof(prog):
    """Run every case of @prog TSAN_PROOF_RUNS times; exit 0 iff each case
    got its verdict in every run.  Prints one line per case."""
    env = dict(os.environ)
    env["TSAN_OPTIONS"] = (env.get("TSAN_OPTIONS", "") + " exitcode=%d" % TSAN_EXIT).strip()
    p = subprocess.run([prog, "--list"], stdout=subprocess.PIPE, timeout=20)
    cases = [l.split() for l in p.stdout.decode().splitlines() if len(l.split()) == 2]
    bad = not cases
    for case, expect in cases:
        reports, failures = [], 0
        for _ in range(TSAN_PROOF_RUNS):
            try:
                q = subprocess.run([prog, case], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, env=env, timeout=120)
                out, rc = q.stdout.decode("utf-8", "replace"), q.returncode
            except subprocess.TimeoutExpired:
                out, rc = "", "TIMEOUT"
            n = out.count("WARNING: ThreadSanitizer")
            reports.append(n)
            if rc not in (0, TSAN_EXIT) or (rc == TSAN_EXIT) != (n > 0):
                failures += 1
            elif (n > 0) != (expect == "race"):
                failures += 1
        bad |= failures > 0
        print("%s %s: expected %s; TSan reports per run: %s -> %s" % (
            os.path.basename(prog), case, expect, reports,
            "ok" if not failures else "WRONG in %d of %d runs" % (failures, len(reports))))
    print("%d case(s), %d runs each" % (len(cases), TSAN_PROOF_RUNS))
    return 1 if bad else 0


def expand(suites):
    for s in suites:
        if callable(s):
            yield from s()
        else:
            yield s


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--tsan-proof":
        sys.exit(tsan_proof(sys.argv[2]))
    start, passed, failed = time.time(), 0, 0
    print("make check: BUILD=%s CC=%s" % (BUILD, os.environ.get("CC", "clang")))
    for r in expand(SUITES):
        t0 = time.time()
        ok, detail, out = run_row(r)
        print("%s  %-56s %5.1fs  %s" % ("PASS" if ok else "FAIL", r["name"],
                                         time.time() - t0, detail), flush=True)
        if r["name"].startswith("TSan proof") or not ok:
            for line in out.strip().splitlines()[-(8 if ok else 25):]:
                print("      | " + line)
        passed, failed = passed + ok, failed + (not ok)
    print("make check took %.0fs" % (time.time() - start))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
