#!/usr/bin/env python3
"""grade.py - grade one lab: unit tests (plain, ASan), TSan runs, race scenarios.

Invoked by `make lab-N` after make has built the binaries:

    python3 tools/grade.py --lab N --dir labN-xxx --impl IMPL --build B

Parts, each PASS, FAIL or SKIP:
  unit-plain  B/plain/labN/unit   (Criterion)
  unit-asan   B/asan/labN/unit    (Criterion, AddressSanitizer + UBSan)
  tsan        every B/tsan/labN/tsan_* program: `prog --list` prints
              "<case> clean|race"; each case runs as `prog <case>` and TSan's
              verdict must match (Criterion cannot run under TSan)
  race        B/race/labN/race through `tools/race.py grade` (SKIP when the
              lab has no scenarios or tools/race.py is absent)

Ends with the line "lab-N: P passed, F failed"; exits 0 iff nothing failed.
Every child runs under a wall-clock timeout: a hang is TIMEOUT, never a hang.
Standard library only.
"""
import argparse
import os
import re
import signal
import subprocess
import sys

UNIT_TIMEOUT = int(os.environ.get("KIT_UNIT_TIMEOUT", 180))  # s, a Criterion binary
TEST_TIMEOUT = int(os.environ.get("KIT_TEST_TIMEOUT", 10))  # s, one Criterion test
TSAN_TIMEOUT = int(os.environ.get("KIT_TSAN_TIMEOUT", 60))  # s, one TSan case
RACE_TIMEOUT = 300          # seconds, the race part
RACE_ATTEMPTS = 3           # a "race" case may take this many runs to show it
CLEAN_RUNS = 3             # a "clean" case must stay clean this many runs
MAX_DETAILS = 12            # lines of detail per failing part

SYNTHESIS = re.compile(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| "
                       r"Failing: (\d+) \| Crashing: (\d+)")
TSAN_WARNING = "WARNING: ThreadSanitizer"
TSAN_EXIT = 66


class Part:
    """The verdict of one part: status, a one-line summary, details."""

    def __init__(self, name, status, summary, details=(), hint=None):
        self.name, self.status, self.summary = name, status, summary
        self.details, self.hint = list(details), hint


def run(cmd, timeout, env=None):
    """Run @cmd in its own process group; return (exit status or 'TIMEOUT',
    stdout+stderr text).  On timeout the whole group is killed, so no test
    process is left spinning."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=env, start_new_session=True)
    except OSError as e:
        return "ERROR", str(e)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        return "TIMEOUT", out.decode("utf-8", "replace")


def strip_color(text):
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def criterion_failures(out):
    """The failing tests of a Criterion run, each with its first message,
    then the distinct sanitizer/BUG lines printed (tests run in parallel, so
    those cannot be pinned to one test)."""
    found, pending, extra = [], [], []
    for line in out.splitlines():
        line = line.rstrip()
        body = re.sub(r"^\[----\]\s*", "", line).strip()
        if line.startswith(("[FAIL]", "[CRASH]")) or "crashed" in line:
            msg = re.sub(r"\s*\(\d+\.\d+s\)", "", line)
            found.append(msg + (" " + pending[0] if pending else ""))
            pending = []
        elif line.startswith("[----]") and body and \
                "Assertion Failed" not in body:
            pending.append(body)
        elif re.match(r"^(BUG: (?!leak)|==\d+==ERROR|.*runtime error)", line) \
                and line not in extra:
            extra.append(line)
    return sorted(found) + ["  " + l for l in extra[:4]]
def unfinished_tests(out):
    """Tests that Criterion --verbose started and never reported on."""
    started = re.findall(r"^\[RUN \] (\S+)", out, re.M)
    done = set(re.findall(r"^\[(?:PASS|FAIL|SKIP|CRASH)\s*\] (\S+):(?:\s|$)", out, re.M))
    return [t for t in started if t not in done]


def grade_unit(name, binary, lab_dir):
    """A Criterion binary: PASS iff every test ran and passed."""
    if not os.path.exists(binary):
        return Part(name, "FAIL", "not built: " + binary)
    env = dict(os.environ, KIT_TEST_TIMEOUT=str(TEST_TIMEOUT))  # tests/criterion_timeout.c
    rc, out = run([binary, "--color=never", "--verbose"], UNIT_TIMEOUT, env)
    out = strip_color(out)
    m = SYNTHESIS.search(out)
    hint = ("Read each failing test's message above, fix %s, and run "
            "'make lab-N' again.  One suite alone: %s --filter 'SUITE/*'"
            % (lab_dir, binary))
    if rc == "TIMEOUT":
        hung = ["[TIMEOUT] %s: started, never finished (an endless loop? a "
                "lock never released?)" % t for t in unfinished_tests(out)]
        return Part(name, "FAIL", "TIMEOUT after %ds" % UNIT_TIMEOUT,
                    hung + criterion_failures(out), hint)
    if not m:
        tail = out.strip().splitlines()[-MAX_DETAILS:]
        return Part(name, "FAIL", "CRASH: the test binary died (exit %s) before "
                    "its summary" % rc, tail, hint)
    tested, passing, failing, crashing = map(int, m.groups())
    summary = "%d tests: %d passed, %d failed, %d crashed" % (
        tested, passing, failing, crashing)
    if tested and passing == tested and not failing and not crashing:
        return Part(name, "PASS", summary)
    return Part(name, "FAIL", summary, criterion_failures(out), hint)


def tsan_env():
    env = dict(os.environ)
    opts = env.get("TSAN_OPTIONS", "")
    env["TSAN_OPTIONS"] = (opts + " exitcode=%d halt_on_error=1" % TSAN_EXIT).strip()
    return env


def tsan_verdict(rc, out):
    """'race', 'clean', or an explanation of why neither."""
    if TSAN_WARNING in out or rc == TSAN_EXIT:
        return "race"
    if "BUG: use-after-free" in out:
        # The slab's poison check stopped the program while TSan was still
        # writing its report: the race was caught all the same.
        return "race"
    if rc == 0:
        return "clean"
    if rc == "TIMEOUT":
        return "TIMEOUT after %ds" % TSAN_TIMEOUT
    last = [l for l in out.strip().splitlines() if l.strip()][-1:] or ["no output"]
    return "exit %s: %s" % (rc, last[0])


def run_tsan_case(prog, case, expect):
    """Run one case; return (ok, what was seen)."""
    runs = RACE_ATTEMPTS if expect == "race" else CLEAN_RUNS
    for i in range(runs):
        rc, out = run([prog, case], TSAN_TIMEOUT, env=tsan_env())
        verdict = tsan_verdict(rc, out)
        if verdict not in ("race", "clean"):
            return False, verdict
        if expect == "race" and verdict == "race":
            return True, "race reported (run %d)" % (i + 1)
        if expect == "clean" and verdict == "race":
            first = next((l for l in out.splitlines()
                          if TSAN_WARNING in l or l.startswith("BUG:")), "")
            return False, "race reported in run %d: %s" % (i + 1, first.strip())
    if expect == "race":
        return False, "no race reported in %d runs" % runs
    return True, "clean in %d runs" % runs


def grade_tsan(bindir, lab_dir):
    progs = sorted(p for p in (os.listdir(bindir) if os.path.isdir(bindir) else [])
                   if p.startswith("tsan_") and not p.endswith((".o", ".d")))
    if not progs:
        return Part("tsan", "SKIP", "no TSan programs for this lab")
    details, ok, cases = [], True, 0
    for p in progs:
        prog = os.path.join(bindir, p)
        rc, out = run([prog, "--list"], 20)
        pairs = [l.split() for l in out.splitlines() if len(l.split()) == 2]
        if rc != 0 or not pairs:
            ok = False
            details.append("%s --list failed (exit %s)" % (p, rc))
            continue
        hung = False
        for case, expect in pairs:
            cases += 1
            if hung:
                good, seen = False, "not run: the previous case hung"
            else:
                good, seen = run_tsan_case(prog, case, expect)
                hung = seen.startswith("TIMEOUT")
            ok &= good
            details.append("%-4s %s %s: expected %s, %s" % (
                "ok" if good else "BAD", p, case, expect, seen))
    hint = None if ok else (
        "A case expected 'clean' that races means a reference is taken or "
        "dropped outside the rule (see %s/README.md); one expected 'race' "
        "that is not reported usually means the code under it does not work "
        "yet: run the unit tests first.  Rerun one case: "
        "TSAN_OPTIONS=halt_on_error=1 %s/<prog> <case>" % (lab_dir, bindir))
    return Part("tsan", "PASS" if ok else "FAIL",
                "%d case(s) in %d program(s)" % (cases, len(progs)),
                details if not ok else [], hint)


def grade_race(args, race_bin):
    if not os.path.exists(race_bin):
        return Part("race", "SKIP", "no race scenarios built for this lab")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "race.py")
    if not os.path.exists(tool):
        return Part("race", "SKIP", "tools/race.py is not there yet")
    rc, out = run([sys.executable, tool, "grade", "--lab", str(args.lab),
                   "--bin", race_bin, "--impl-dir",
                   os.path.join(args.impl, args.dir)], RACE_TIMEOUT)
    lines = [l for l in out.strip().splitlines() if l.strip()]
    summary = lines[-1] if lines else "no output"
    if rc == 0:
        return Part("race", "PASS", summary)
    if rc == "TIMEOUT":
        summary = "TIMEOUT after %ds" % RACE_TIMEOUT
    hint = ("See the timelines, one column per thread: 'make race-%d IMPL=%s'."
            % (args.lab, args.impl))
    sched = os.path.join(args.impl, args.dir, "race.sched")
    if os.path.exists(sched):
        hint += "  Replay your schedule step by step: 'make replay SCHED=%s'." % sched
    return Part("race", "FAIL", summary, lines[-MAX_DETAILS:-1], hint)


def report(args, parts):
    print("lab-%d (%s, IMPL=%s)" % (args.lab, args.dir, args.impl))
    for p in parts:
        print("  %-10s %-4s  %s" % (p.name, p.status, p.summary))
    for p in parts:
        if p.status != "FAIL":
            continue
        print("\n%s failed:" % p.name)
        for d in p.details[:MAX_DETAILS]:
            print("    " + d)
        if len(p.details) > MAX_DETAILS:
            print("    ... %d more" % (len(p.details) - MAX_DETAILS))
        if p.hint:
            print("  next: " + p.hint.replace("lab-N", "lab-%d" % args.lab))
    passed = sum(p.status == "PASS" for p in parts)
    failed = sum(p.status == "FAIL" for p in parts)
    skipped = [p.name for p in parts if p.status == "SKIP"]
    print()
    if skipped:
        print("skipped: %s" % ", ".join(skipped))
    print("lab-%d: %d passed, %d failed" % (args.lab, passed, failed))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", type=int, required=True)
    ap.add_argument("--dir", required=True, help="the lab's folder, labN-xxx")
    ap.add_argument("--impl", default="labs")
    ap.add_argument("--build", required=True, help="$(B): BUILD/<impl>")
    args = ap.parse_args()
    lab_dir = os.path.join(args.impl, args.dir)
    b, n = args.build, args.lab
    plain = grade_unit("unit-plain", os.path.join(b, "plain", "lab%d" % n, "unit"),
                       lab_dir)
    asan = grade_unit("unit-asan", os.path.join(b, "asan", "lab%d" % n, "unit"),
                      lab_dir)
    if plain.status == asan.status == "FAIL" and plain.details == asan.details:
        asan.details, asan.hint = ["the same failures as unit-plain"], None
    parts = [
        plain,
        asan,
        grade_tsan(os.path.join(b, "tsan", "lab%d" % n), lab_dir),
        grade_race(args, os.path.join(b, "race", "lab%d" % n, "race")),
    ]
    sys.exit(1 if report(args, parts) else 0)


if __name__ == "__main__":
    main()
