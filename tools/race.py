#!/usr/bin/env python3
"""race.py - run, replay and grade a lab's race scenarios.

  race.py run    --lab N --bin BIN [--strategy S] [--seed N] [--sched FILE]
      every scenario of BIN (`BIN list`) under strategy S (dfs by default);
      a failure's schedule goes to <BUILD>/races/labN-<scenario>.sched, and
      the commands to replay it and to record it under rr are printed.
      With --sched, replays that file instead.  Exit 0 iff every scenario
      met its expectation.
  race.py replay --sched FILE [--build-root BUILD]
      replays FILE with the binary its header names; exit 0 iff the
      recorded result recurs.
  race.py grade  --lab N --bin BIN --impl-dir DIR
      one line per scenario, then (lab 1) the student's DIR/race.sched,
      which must replay to the increment of the freed object; the last
      line is the summary.  Exit 0 iff everything passed.
      Lab 1's race.sched passes only if the verdict is use-after-free at
      kref_get.inc: the count was read while the object lived, and the
      increment hit it freed -- the interleaving of the 2004 article.

Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 240
# Lab 1's exercise: the scenario the student's race.sched drives.
# (scenario, verdict kind, where the verdict must happen: a label prefix)
EXERCISES = {1: ("lookup_unlocked_vs_remove", "use-after-free", "kref_get.inc")}
RESULT = re.compile(r"^RESULT (\S+) expect=(\S+) got=(\S+) met=(\S+) executions=(\d+)", re.M)
REPLAY = re.compile(r"^REPLAY (\S+) expect=(\S+) got=(\S+) ok=(\S+)", re.M)


def execute(cmd, timeout=TIMEOUT):
    """(exit status, stdout+stderr) of @cmd; status 'TIMEOUT' if it hung."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, cwd=ROOT)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if e.stdout else ""
        return "TIMEOUT", out


def scenarios(binary):
    """[(name, expectation)] of @binary, sorted by name."""
    rc, out = execute([binary, "list"])
    if rc != 0:
        sys.exit("race.py: %s list failed (exit %s):\n%s" % (binary, rc, out))
    return [tuple(l.split()[:2]) for l in out.splitlines() if l.strip()]


def build_root(binary):
    """BUILD for a binary at BUILD/<impl>/race/labN/race."""
    return os.path.normpath(os.path.join(os.path.dirname(binary), "..", "..", ".."))


def strategy_args(args):
    a = []
    if args.strategy:
        a += ["--strategy", args.strategy]
    if args.seed:
        a += ["--seed", args.seed]
    return a


def rr_hint(binary, sched):
    return "record under rr: bash tools/rr.sh record %s replay %s" % (binary, sched)


def lab_dirs():
    """{folder: lab number} from the Makefile's LAB_N := folder lines."""
    text = open(os.path.join(ROOT, "Makefile")).read()
    return {d: int(n) for n, d in re.findall(r"^LAB_(\d+)\s*:=\s*(\S+)", text, re.M)}


def locate(sched, build):
    """(lab, binary) for a hand-written file under IMPL/labN-xxx/, building
    the binary if needed; (None, None) if the path says nothing."""
    parts = os.path.normpath(sched).split(os.sep)
    dirs = lab_dirs()
    for i, part in enumerate(parts[:-1]):
        if part in dirs:
            impl = os.sep.join(parts[:i]) or "."
            binary = os.path.join(build, impl.rstrip("/").replace("/", "_"),
                                  "race", "lab%d" % dirs[part], "race")
            subprocess.run(["make", "-s", "BUILD=" + build, "IMPL=" + impl, binary],
                           cwd=ROOT, stdout=subprocess.DEVNULL)
            return dirs[part], binary
    return None, None


def cmd_run(args):
    if not args.bin or not os.path.exists(args.bin):
        sys.exit("race.py: no race binary %r: build it with 'make race-%s'" % (args.bin, args.lab))
    if args.sched:
        return cmd_replay(argparse.Namespace(sched=args.sched, build_root=None,
                                             bin=args.bin, lab=args.lab))
    races = os.path.join(build_root(args.bin), "races")
    os.makedirs(races, exist_ok=True)
    failed = 0
    todo = scenarios(args.bin)
    for name, _ in todo:
        sched = os.path.join(races, "lab%s-%s.sched" % (args.lab, name))
        rc, out = execute([args.bin, "run", name, "--out", sched, "--binary", args.bin]
                          + strategy_args(args))
        print(out.rstrip())
        m = RESULT.search(out)
        if "schedule: " + sched in out:
            print("replay it:      make replay SCHED=%s" % sched)
            print(rr_hint(args.bin, sched))
        if rc != 0 or not m or m.group(4) != "yes":
            failed += 1
            print("-> %s did NOT meet its expectation (exit %s)" % (name, rc))
        print()
    print("lab %s: %d scenario(s), %d met their expectation, %d did not"
          % (args.lab, len(todo), len(todo) - failed, failed))
    return 1 if failed else 0


def header(sched, key):
    try:
        for line in open(sched):
            if line.startswith(key + " "):
                return line.split(None, 1)[1].strip()
    except OSError as e:
        sys.exit("race.py: %s: %s" % (sched, e.strerror))
    return None


def cmd_replay(args):
    if not args.sched:
        sys.exit("race.py: replay needs SCHED=<schedule file>")
    binary = getattr(args, "bin", None) or header(args.sched, "binary")
    lab = getattr(args, "lab", None)
    if not binary:
        lab, binary = locate(args.sched, args.build_root or "build")
    if not binary:
        sys.exit("race.py: %s names no binary and is not in a lab folder: "
                 "replay it with 'make race-N SCHED=%s'" % (args.sched, args.sched))
    if not os.path.exists(binary):
        sys.exit("race.py: %s is not built: run 'make race-N' for its lab first" % binary)
    cmd = [binary, "replay", args.sched]
    if not header(args.sched, "scenario") and lab in EXERCISES:
        cmd += ["--scenario", EXERCISES[lab][0]]
    if not header(args.sched, "result") and lab in EXERCISES:
        cmd += ["--expect", EXERCISES[lab][1]]
    rc, out = execute(cmd)
    print(out.rstrip())
    print(rr_hint(binary, args.sched))
    return 0 if rc == 0 else 1


def grade_scenario(binary, name):
    rc, out = execute([binary, "run", name, "--binary", binary])
    m = RESULT.search(out)
    if not m:
        last = out.strip().splitlines()[-1:] or ["no output"]
        return False, "FAIL %s: no result (exit %s): %s" % (name, rc, last[0])
    held = re.search(r"^held: (.*)$", out, re.M)
    verdict = re.search(r"^verdict: (.*)$", out, re.M)
    what = verdict.group(1) if verdict else held.group(1) if held else ""
    ok = rc == 0 and m.group(4) == "yes"
    return ok, "%s %s (%s, got %s): %s" % ("PASS" if ok else "FAIL", name, m.group(2),
                                          m.group(3), what[:160])


def grade_exercise(lab, binary, impl_dir):
    scenario, kind, where = EXERCISES[lab]
    sched = os.path.join(impl_dir, "race.sched")
    if not os.path.exists(sched):
        return False, "FAIL race.sched: %s does not exist" % sched
    rc, out = execute([binary, "replay", sched, "--scenario", scenario,
                       "--expect", kind])
    m = REPLAY.search(out)
    verdict = re.search(r"^verdict: (.*)$", out, re.M)
    if not m:
        last = out.strip().splitlines()[-1:] or ["no output"]
        return False, "FAIL race.sched: %s" % last[0]
    text = verdict.group(1) if verdict else ""
    ok = m.group(4) == "yes" and (": " + where) in text
    if ok:
        return True, "PASS race.sched replays to: %s" % text[:160]
    return False, ("FAIL race.sched must end in %s at %s (the increment of the "
                   "freed object); it replays to: %s" % (kind, where,
                                                         text[:160] or m.group(3)))


def cmd_grade(args):
    if not os.path.exists(args.bin):
        print("race: no race binary %s" % args.bin)
        return 1
    # demos run broken code of the tests themselves: shown, never graded
    lines = [grade_scenario(args.bin, name) for name, expect in scenarios(args.bin)
             if expect.split(":")[0] != "demo"]
    if args.lab in EXERCISES:
        lines.append(grade_exercise(args.lab, args.bin, args.impl_dir))
    for _, text in lines:
        print(text)
    passed = sum(ok for ok, _ in lines)
    print("race: %d/%d passed" % (passed, len(lines)))
    return 0 if passed == len(lines) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--lab", type=int, required=True)
    r.add_argument("--bin", required=True)
    r.add_argument("--strategy", default="")
    r.add_argument("--seed", default="")
    r.add_argument("--sched", default="")
    p = sub.add_parser("replay")
    p.add_argument("--sched", default="")
    p.add_argument("--build-root", default=None)
    g = sub.add_parser("grade")
    g.add_argument("--lab", type=int, required=True)
    g.add_argument("--bin", required=True)
    g.add_argument("--impl-dir", required=True)
    args = ap.parse_args()
    return {"run": cmd_run, "replay": cmd_replay, "grade": cmd_grade}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
