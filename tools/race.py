#!/usr/bin/env python3
"""race.py - run, replay, check, debug and grade a lab's race scenarios.

  race.py run    --lab N [--impl IMPL] [--build-root BUILD]
                 [--strategy S] [--seed N] [--sched FILE]
                 [--memory sc|weak] [--reduction on|off]
      every scenario of lab N's race binary (dfs by default), demos too; a
      failure's schedule goes to BUILD/races/labN-<scenario>.sched, and the
      commands to replay it, to walk it back under gdb and (where rr can
      record) to record it under rr are printed.  With --sched, replays
      that file instead.  --memory weak runs every scenario under the
      weak memory model (default: each scenario's own); --reduction off
      runs dfs without partial-order reduction.  Exit 0 iff every graded
      scenario met its expectation (a demo is shown, never counted).
  race.py replay --sched FILE [--lab N] [--impl IMPL] [--build-root BUILD]
      replays FILE with the race binary of the lab it is for (kit.race
      target(): LAB, the lab folder it is in, its "lab N" line, its name)
      and tree IMPL -- never a program the file names; a file in a lab's
      folder takes the scenario and verdict of the lab's exercise if it
      has none.  Exit 0 iff the recorded (or the exercise's) result recurs.
  race.py debug  --sched FILE [--step K] [--lab N] [--impl IMPL] [--build-root BUILD]
      prints the replay, then runs it under gdb with tools/gdb/race-gdb.py,
      stopped at the verdict (or step K).
  race.py check  --sched FILE [--step K] [--debug] [--lab N] [--impl IMPL] [--build-root BUILD]
      what replay and debug check first, alone: prints nothing if the file
      (and STEP, and gdb for --debug) will do, else one line; make turns
      that line into its error.
  race.py grade  --lab N --bin BIN --impl-dir DIR
      one line per graded scenario, then each exercise of lab N (its file
      in DIR, replayed); the last line is the summary.  Exit 0 iff all
      passed.

A malformed schedule file, or one that names no lab, is one line on
stderr, "race: FILE:LINE: expected ..., got '...'", and exit status 2.
Standard library only.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, layout, race, rr, schedfile  # noqa: E402
from kit.schedfile import SchedError, escape  # noqa: E402

GDB_SCRIPT = os.path.relpath(os.path.join(ROOT, "tools", "gdb", "race-gdb.py"))


def cmd_run(args):
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    binary = lab.bins["race"]
    if not binary or not os.path.exists(binary):
        sys.exit("race.py: no race binary for lab %d: build it with 'make race-%d'"
                 % (lab.n, lab.n))
    if args.sched:
        args.lab, args.step = str(lab.n), ""
        return cmd_replay(args)
    races = os.path.join(args.build_root, "races")
    os.makedirs(races, exist_ok=True)
    todo = race.scenarios(binary)
    failed = 0
    for sc in todo:
        sched = os.path.join(races, "lab%d-%s.sched" % (lab.n, sc.name))
        r, o = race.run(binary, sc.name, out=sched, lab=lab.n,
                        args=race.strategy_args(args.strategy, args.seed,
                                                args.memory, args.reduction))
        print(race.with_legend(r.out.rstrip()))
        if o and o.schedule:
            t = race.Target(lab=lab, impl=args.impl)
            print("\n".join(race.commands(t, o.schedule, rr.probe().ok)))
        if not sc.graded:
            print("-> %s is a demo of test-local broken code: shown, not graded" % sc.name)
        elif r.rc != 0 or not o or not o.met:
            failed += 1
            print("-> %s did NOT meet its expectation (%s)" % (sc.name, r.status()))
        print()
    graded = sum(sc.graded for sc in todo)
    print("lab %d: %d scenario(s) graded, %d met their expectation, %d did not%s"
          % (lab.n, graded, graded - failed, failed,
             "" if graded == len(todo) else "; %d demo(s)" % (len(todo) - graded)))
    return 1 if failed else 0


def resolve(args, for_debug=False):
    """(Target, None) for args.sched, checked by its binary; or (None, the
    one-line error)."""
    if not args.sched:
        return None, "race: SCHED=<schedule file> is missing: make %s SCHED=FILE" % (
            "debug" if for_debug else "replay")
    if for_debug and args.step and not (args.step.isdigit() and int(args.step) > 0):
        return None, "race: STEP: expected a step number (1, 2, ...), got %s" % (
            schedfile.quote(args.step))
    if for_debug and not shutil.which("gdb"):
        return None, "race: make debug needs gdb, which is not installed (make deps)"
    try:
        t = race.target(args.sched, lab=args.lab, impl=args.impl, build=args.build_root)
    except (SchedError, layout.LayoutError) as e:
        return None, "race: " + " ".join(str(e).split())
    err = race.check(t.binary, args.sched, t.scenario)
    if err:
        return None, err
    try:
        data = schedfile.read(args.sched)
    except SchedError as e:
        return None, "race: %s" % e
    ex = t.lab.exercise(os.path.basename(args.sched)) if t.scenario else None
    problem = schedfile.exercise_problem(data, ex) if ex else schedfile.header_problem(data)
    if problem:
        return None, "race: %s: %s" % (escape(args.sched), problem)
    return t, None


def recorded_by(sched, binary):
    """A note if the file says another binary recorded it."""
    try:
        found = schedfile.header(schedfile.read(sched), "binary")
    except SchedError:
        return None
    if found and found[1] and found[1][0] != binary:
        return ("note: %s was recorded by %s; a schedule file never chooses what runs: "
                "this is %s" % (escape(sched), found[1][0], binary))
    return None


def cmd_replay(args):
    t, err = resolve(args)
    if err:
        print(err, file=sys.stderr)
        return 2
    note = recorded_by(args.sched, t.binary)
    if note:
        print(note)
    r, o = race.replay(t.binary, args.sched, args=t.args())
    print(race.with_legend(r.out.rstrip()))
    for line in race.diverged_help(t.lab.n, args.sched, r.out):
        print(line)
    if o and o.got not in ("none", "diverged"):
        print(race.commands(t, args.sched, False)[1])
    return 0 if r.rc == 0 else 1


def cmd_check(args):
    _, err = resolve(args, for_debug=args.debug)
    if err:
        print(err)
        return 2
    return 0


def cmd_debug(args):
    t, err = resolve(args, for_debug=True)
    if err:
        print(err, file=sys.stderr)
        return 2
    r, o = race.replay(t.binary, args.sched, args=t.args())
    print("\n".join(l for l in r.out.splitlines() if not l.startswith("REPLAY ")))
    print("\nUnder gdb: the same execution, stopped at %s.  Commands: goto-step K, "
          "step-back, step-forward, who-freed [EXPR], race-where; 'help goto-step'."
          % ("step " + args.step if args.step else "its verdict"))
    sys.stdout.flush()
    cmd = ["gdb", "-q", "-x", GDB_SCRIPT, "-ex", ("goto-step " + args.step).strip(),
           "--args", t.binary, "replay", args.sched, "--debug"]
    cmd += ["--scenario", t.scenario] if t.scenario else []
    os.execvp("gdb", cmd)


def cmd_grade(args):
    lab = layout.lab(args.lab)
    try:
        lines = race.grade(args.bin, lab.exercises, args.impl_dir)
    except race.BinaryError as e:
        print("race: %s" % e)
        return 1
    for _, text in lines:
        print(text)
    passed = sum(ok for ok, _ in lines)
    print("race: %d/%d passed" % (passed, len(lines)))
    return 0 if passed == len(lines) else 1


def sched_args(p):
    p.add_argument("--sched", default="")
    p.add_argument("--lab", default="")
    p.add_argument("--impl", default="labs")
    p.add_argument("--step", default="")
    p.add_argument("--build-root", default=os.environ.get("BUILD", "build"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--lab", type=int, required=True)
    r.add_argument("--impl", default="labs")
    r.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    r.add_argument("--strategy", default="")
    r.add_argument("--seed", default="")
    r.add_argument("--sched", default="")
    r.add_argument("--memory", default="")
    r.add_argument("--reduction", default="")
    for name in ("replay", "debug", "check"):
        sched_args(sub.add_parser(name))
    sub.choices["check"].add_argument("--debug", action="store_true")
    g = sub.add_parser("grade")
    g.add_argument("--lab", type=int, required=True)
    g.add_argument("--bin", required=True)
    g.add_argument("--impl-dir", required=True)
    args = ap.parse_args()
    return {"run": cmd_run, "replay": cmd_replay, "debug": cmd_debug,
            "check": cmd_check, "grade": cmd_grade}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
