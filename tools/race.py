#!/usr/bin/env python3
"""race.py - run, replay and grade a lab's race scenarios.

  race.py run    --lab N [--impl IMPL] [--build-root BUILD]
                 [--strategy S] [--seed N] [--sched FILE]
                 [--memory sc|weak] [--reduction on|off]
      every scenario of lab N's race binary (dfs by default), demos too; a
      failure's schedule goes to BUILD/races/labN-<scenario>.sched, and the
      commands to replay it and to record it under rr are printed.  With
      --sched, replays that file instead.  --memory weak runs every
      scenario under the weak memory model (default: each scenario's own);
      --reduction off runs dfs without partial-order reduction.  Exit 0 iff every graded scenario
      met its expectation (a demo is shown, never counted).
  race.py replay --sched FILE [--build-root BUILD]
      replays FILE with the binary its header names, or, for a file in a
      lab's folder (IMPL/labN-xxx/race.sched), that tree's binary of lab N
      and the scenario and verdict of the lab's exercise; exit 0 iff the
      recorded (or the exercise's) result recurs.
  race.py grade  --lab N --bin BIN --impl-dir DIR
      one line per graded scenario, then each exercise of lab N (its file
      in DIR, replayed); the last line is the summary.  Exit 0 iff all
      passed.

Standard library only.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import layout, proc, race  # noqa: E402


def cmd_run(args):
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    binary = lab.bins["race"]
    if not binary or not os.path.exists(binary):
        sys.exit("race.py: no race binary for lab %d: build it with 'make race-%d'"
                 % (lab.n, lab.n))
    if args.sched:
        return replay_file(args.sched, binary, lab)
    races = os.path.join(args.build_root, "races")
    os.makedirs(races, exist_ok=True)
    todo = race.scenarios(binary)
    failed = 0
    for sc in todo:
        sched = os.path.join(races, "lab%d-%s.sched" % (lab.n, sc.name))
        r, o = race.run(binary, sc.name, out=sched,
                        args=race.strategy_args(args.strategy, args.seed,
                                                args.memory, args.reduction))
        print(r.out.rstrip())
        if o and o.schedule:
            print("replay it:      make replay SCHED=%s" % o.schedule)
            print(race.rr_hint(binary, o.schedule))
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


def replay_file(sched, binary, lab):
    """Replay @sched with @binary; the lab's exercise fills in what the
    file's header leaves out."""
    try:
        scenario, result = race.header(sched, "scenario"), race.header(sched, "result")
    except OSError as e:
        sys.exit("race.py: %s: %s" % (sched, e.strerror))
    ex = lab.exercise(os.path.basename(sched)) if lab else None
    r, _ = race.replay(binary, sched,
                       scenario=None if scenario or not ex else ex.scenario,
                       expect=None if result or not ex else ex.verdict)
    print(r.out.rstrip())
    print(race.rr_hint(binary, sched))
    return 0 if r.rc == 0 else 1


def cmd_replay(args):
    if not args.sched:
        sys.exit("race.py: replay needs SCHED=<schedule file>")
    try:
        binary = race.header(args.sched, "binary")
    except OSError as e:
        sys.exit("race.py: %s: %s" % (args.sched, e.strerror))
    lab, impl = layout.find(args.sched, build=args.build_root)
    if not binary and lab:
        binary = lab.bins["race"]
        proc.make(["-s", binary], impl=impl, build=args.build_root)
    if not binary:
        sys.exit("race.py: %s names no binary and is not in a lab's folder: "
                 "replay it with 'make race-N SCHED=%s'" % (args.sched, args.sched))
    if not os.path.exists(binary):
        sys.exit("race.py: %s is not built: run 'make race-N' for its lab first" % binary)
    return replay_file(args.sched, binary, lab)


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
    p = sub.add_parser("replay")
    p.add_argument("--sched", default="")
    p.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    g = sub.add_parser("grade")
    g.add_argument("--lab", type=int, required=True)
    g.add_argument("--bin", required=True)
    g.add_argument("--impl-dir", required=True)
    args = ap.parse_args()
    return {"run": cmd_run, "replay": cmd_replay, "grade": cmd_grade}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
