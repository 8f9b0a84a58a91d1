#!/usr/bin/env python3
"""rr.py - the kit's rr targets, where rr can record; why not, where not.

  rr.py probe                          can rr record here?  (exit 0 either way)
  rr.py record --lab N [--sched FILE]  record the race binary replaying FILE
                                       (default: the newest schedule make
                                       race-N left, BUILD/races/labN-*.sched)
                                       into BUILD/rr/labN-<scenario>/
  rr.py replay --lab N [--batch]       rr replay of the newest recording of
                                       lab N, following the search child,
                                       stopped at the verdict and walked back
                                       (tools/gdb/race-gdb.py, rr-walk-back)
  rr.py chaos  --lab N [--attempts K] [--seconds S]
                                       rr record --chaos of lab N's free-
                                       running stress program, K attempts:
                                       how often luck finds the race
  common options: --impl IMPL --build-root BUILD

Where rr cannot record (no hardware performance counters: every machine
the kit is developed on), record, replay and chaos print rr's own first
line, why, and the command that works here instead (make debug ...), and
exit 1.  Standard library only.
"""
import argparse
import glob
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, layout, proc, race, rr, schedfile  # noqa: E402
from kit.schedfile import SchedError  # noqa: E402

CHAOS_ATTEMPTS, CHAOS_SECONDS = 10, 2
KEPT = "kit-sched"      # in a recording: the schedule file it replayed


def newest(paths):
    paths = [p for p in paths if os.path.exists(p)]
    return max(paths, key=os.path.getmtime) if paths else None


def default_sched(args):
    return newest(glob.glob(os.path.join(args.build_root, "races", "lab%d-*.sched" % args.lab)))


def debug_cmd(args, sched):
    """The command that works without rr."""
    extra = "" if args.impl == "labs" else " IMPL=%s" % shlex.quote(args.impl)
    if sched:
        return "make debug SCHED=%s%s   (the same walk-back by re-execution: " \
               "goto-step, step-back, who-freed; docs/debugging.md)" % (shlex.quote(sched), extra)
    return "make race-%d%s, then make debug SCHED=%s/races/lab%d-<scenario>.sched " \
           "(docs/debugging.md)" % (args.lab, extra, args.build_root, args.lab)


def cannot(args, sched):
    """rr cannot record: say why and what works; exit status 1."""
    print("\n".join(rr.explain(debug_cmd(args, sched))))
    return 1


def cmd_probe(args):
    p = rr.probe()
    if p.ok:
        print("rr can record on this machine (make rr-record-N, make rr-replay-N)")
    else:
        print("\n".join(rr.explain("make debug SCHED=<schedule file> (docs/debugging.md)")))
    return 0


def scenario_of(sched, t):
    """The scenario @sched replays, for the recording's folder name."""
    try:
        found = schedfile.header(schedfile.read(sched), "scenario")
    except SchedError:
        found = None
    name = t.scenario or (found[1][0] if found and found[1] else None)
    return name or os.path.splitext(os.path.basename(sched))[0]


def cmd_record(args):
    sched = args.sched or default_sched(args)
    if not rr.probe().ok:
        return cannot(args, sched)
    if not sched:
        print("rr-record-%d: no schedule to record: 'make race-%d' leaves one in "
              "%s/races/ when a scenario fails, or give SCHED=FILE"
              % (args.lab, args.lab, args.build_root))
        return 2
    try:
        t = race.target(sched, lab=str(args.lab), impl=args.impl, build=args.build_root)
    except (SchedError, layout.LayoutError) as e:
        print("race: " + " ".join(str(e).split()))
        return 2
    err = race.check(t.binary, sched, t.scenario)
    if err:
        print(err)
        return 2
    trace = os.path.join(args.build_root, "rr", "lab%d-%s" % (args.lab, scenario_of(sched, t)))
    print("recording: rr record -o %s %s replay %s" % (trace, t.binary, sched), flush=True)
    r = rr.record([t.binary, "replay", sched] + t.args(), trace)
    print(r.out.rstrip())
    if not os.path.isdir(trace):
        print("rr-record-%d: rr recorded nothing (%s)" % (args.lab, r.status()))
        return 1
    with open(os.path.join(trace, KEPT), "w") as f:
        f.write(sched + "\n")
    print("recorded: %s; walk it back with: make rr-replay-%d" % (trace, args.lab))
    return 0


def cmd_replay(args):
    traces = [d for d in glob.glob(os.path.join(args.build_root, "rr", "lab%d-*" % args.lab))
              if os.path.isfile(os.path.join(d, KEPT))]
    trace = newest(traces)
    sched = None
    if trace:
        with open(os.path.join(trace, KEPT)) as f:
            sched = f.read().strip() or None
    if not rr.probe().ok:
        return cannot(args, sched or default_sched(args))
    if not trace:
        print("rr-replay-%d: no recording of lab %d: make rr-record-%d first"
              % (args.lab, args.lab, args.lab))
        return 2
    cmd = rr.replay_cmd(trace, rr.child_pid(trace), batch=args.batch)
    print("replaying: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    if args.batch:
        r = proc.run(cmd, rr.RECORD_TIMEOUT)
        print(r.out.rstrip())
        return 0 if r.ok else 1
    os.execvp(cmd[0], cmd)


def cmd_chaos(args):
    src = os.path.join(ROOT, "tests", "race", "stress_lab%d.c" % args.lab)
    if not rr.probe().ok:
        return cannot(args, default_sched(args))
    if not os.path.exists(src):
        print("rr-chaos-%d: lab %d has no free-running stress program "
              "(tests/race/stress_lab%d.c)" % (args.lab, args.lab, args.lab))
        return 2
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    stress = os.path.join(lab.build, "asan", "race", "stress_lab%d" % args.lab)
    r = proc.make([stress], impl=args.impl, build=args.build_root)
    if not r.ok:
        print("rr-chaos-%d: the stress program does not build (%s)" % (args.lab, r.status()))
        return 1
    trace = os.path.join(args.build_root, "rr", "lab%d-chaos" % args.lab)
    hits = 0
    for i, res, hit in rr.chaos([stress, str(args.seconds)], trace, args.attempts,
                                lambda out: "STRESS failed" in out):
        hits += hit
        line = next((l for l in res.out.splitlines() if l.startswith("STRESS")), res.status())
        print("attempt %d: %s" % (i, line), flush=True)
    print("rr chaos mode: the race showed in %d of %d attempts (up to %d s each)%s"
          % (hits, args.attempts, args.seconds,
             "; the first is kept in %s" % trace if hits else ""))
    print("the reproducer: 'make race-%d' finds it in a few executions, every time" % args.lab)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("probe")
    for name in ("record", "replay", "chaos"):
        p = sub.add_parser(name)
        p.add_argument("--lab", type=int, required=True)
        p.add_argument("--sched", default="")
        p.add_argument("--impl", default="labs")
        p.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
        p.add_argument("--batch", action="store_true")
        p.add_argument("--attempts", type=int, default=CHAOS_ATTEMPTS)
        p.add_argument("--seconds", type=int, default=CHAOS_SECONDS)
    args = ap.parse_args()
    return {"probe": cmd_probe, "record": cmd_record, "replay": cmd_replay,
            "chaos": cmd_chaos}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
