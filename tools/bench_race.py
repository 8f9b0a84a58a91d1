#!/usr/bin/env python3
"""bench_race.py - figures of the race reproducer (make bench-race).

A benchmark, not a test: it prints figures and ratios and never fails on
them.  Against the solutions, in one run:

  * for each lab's canonical race (every must-fail and demo scenario that
    has a free-running peer, tests/race/stress_labN.c): the time to the
    first failure with dfs, pct and random (RUNS runs each, pct and random
    with seeds 1..RUNS; the search's own time as the race binary reports
    it, and the wall time of the whole command: process start, ASan, the
    immediate replay), and the same race free running on real cores
    (the two sides lined up by a barrier every iteration, ASan watching;
    STRESS_RUNS runs of at most STRESS_SECONDS), as ratios;
  * the executions dfs needs to exhaust every must-hold scenario of the
    labs within its bound, and every litmus test under the weak memory
    model, with and without the partial-order reduction;
  * executions per equivalence class (--count-classes) of every must-hold
    scenario of the labs, within its own bound, with the reduction;
  * dfs executions per second, under sequential consistency and under the
    weak model, with and without the reduction (RATES), side by side: the
    threads of an execution as contexts on one OS thread (the default) and
    on OS threads of their own (--os-threads, the hand-off of semaphores
    the reproducer used before), against the figures before issue 19
    (BEFORE, docs/reproducer.md).  Each rate is the median of RATE_RUNS
    runs, twice: executions per second of the search as the race binary
    times it (wall clock: the child process's start and exit included,
    and whatever else the machine runs), and per CPU second of the
    executions themselves (--cpu-time: each OS thread's own clock, to the
    nanosecond; neither the process's start nor other work on the machine
    counts), with the page faults of those executions (13 us or more each
    on the kit's VMs: what a short search's CPU varies with most).  The
    load average is printed with them.

With --against REV (make bench-race AGAINST=REV), only the rate rows, side
by side with the reproducer of commit REV: its tree (git archive) built
under BUILD/bench-race/REV, and its race binaries run in turn with this
tree's, RATE_RUNS times each, on the same machine in the same minutes.
That build is timed as its binary times its search (wall clock, as
before issue 19 every figure was); this one both so and by its
executions' CPU.  Against e2c210d it is the figure of issue 19 measured,
not recalled.

Targets (issues 3, 10 and 19, 2 cores): first failure <= 50 ms median,
>= 20x faster than stress, >= 10,000 executions/s, >= 10x fewer executions
with the reduction on the largest scenario, >= 5x the executions/s before
issue 19 on every rate row, <= 1.5 executions per class.  Standard
library only.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, layout, proc, race  # noqa: E402

RUNS = 11
STRESS_RUNS = 3
STRESS_SECONDS = 5
RATE_RUNS = 5
# The canonical races that have a free-running peer, by lab.
PEERS = {1: ("lookup_unlocked_vs_remove",), 2: ("read_then_inc",),
         3: ("immediate_free_reuse", "typesafe_no_recheck")}
# (what, lab, scenario, options) of the executions/s figures.
RATES = (("sequential consistency, no reduction", 1, "two_lookups_vs_remove",
          ("--bound", "4", "--reduction", "off")),
         ("weak memory model, no reduction", 1, "two_lookups_vs_remove",
          ("--bound", "4", "--reduction", "off", "--memory", "weak")),
         ("sequential consistency, reduction", 3, "two_lookups_vs_delete",
          ("--bound", "3")),
         ("weak memory model, reduction", 3, "two_lookups_vs_delete",
          ("--memory", "weak")))
# Executions/s of the RATES rows before issue 19 (docs/reproducer.md at
# e2c210d: median of 5, wall clock, the 2-core VM unloaded).
BEFORE = (18243, 15651, 13057, 10421)
# The figures the race binary and the stress loop print (not verdicts).
FOUND = re.compile(r"^found after (\d+) executions? in ([\d.]+) ms", re.M)
HELD = re.compile(r"^held: (\d+) executions? in ([\d.]+) ms \((\d+)/s\)", re.M)
CPU = re.compile(r"^cpu: .* in its executions \((\d+)/s\), (\d+) page faults", re.M)
CLASSES = re.compile(r"^classes: (\d+) distinct partial orders in (\d+) executions", re.M)
STRESS = re.compile(r"^STRESS (failed after|no failure in) (\d+) iterations in ([\d.]+) ms", re.M)


def sh(cmd, timeout=300):
    """(output, wall ms) of @cmd."""
    r = proc.run(cmd, timeout)
    return r.out, r.seconds * 1e3


def first_failure(binary, scenario, strategy):
    """[(executions, search ms, wall ms)] over RUNS runs."""
    res = []
    for seed in range(1, RUNS + 1):
        cmd = [binary, "run", scenario, "--strategy", strategy]
        if strategy != "dfs":
            cmd += ["--seed", str(seed)]
        out, wall = sh(cmd)
        m = FOUND.search(out)
        if not m:
            sys.exit("bench: %s found nothing in %s:\n%s" % (strategy, scenario, out))
        res.append((int(m.group(1)), float(m.group(2)), wall))
    return res


def stress(binary, scenario):
    """The free-running peer: (median ms to fail, or the shortest run if it
    never did, '> ' then, and a line saying what happened)."""
    res = []
    for _ in range(STRESS_RUNS):
        out, wall = sh([binary, str(STRESS_SECONDS), scenario], timeout=STRESS_SECONDS + 60)
        m = STRESS.search(out)
        res.append((m.group(1) == "failed after", int(m.group(2)), float(m.group(3)))
                   if m else (False, 0, wall))
    found = [x for x in res if x[0]]
    if found:
        return statistics.median(x[2] for x in found), "", \
            "%.1f ms median over %d/%d runs that failed (%s iterations)" % (
                statistics.median(x[2] for x in found), len(found), len(res),
                "/".join(str(x[1]) for x in found))
    return min(x[2] for x in res), "> ", "no failure in %d runs of %d s (%s iterations)" % (
        len(res), STRESS_SECONDS, "/".join(str(x[1]) for x in res))


def canonical_race(lab, binary, stress_bin, scenario):
    """Time to first failure per strategy against the peer; the worst
    strategy's (search ms, wall ms) and the smallest ratio."""
    print("lab %d: %s, %d runs per strategy" % (lab, scenario, RUNS))
    print("  %-8s %12s %14s %14s" % ("", "executions", "search ms", "wall ms"))
    medians = {}
    for strategy in ("dfs", "pct", "random"):
        r = first_failure(binary, scenario, strategy)
        medians[strategy] = tuple(statistics.median(x[i] for x in r) for i in range(3))
        print("  %-8s %12g %14.2f %14.1f   (median)" % ((strategy,) + medians[strategy]))
    st, bound, what = stress(stress_bin, scenario)
    print("  %-8s %s" % ("stress", what))
    ratios = []
    for strategy, (_, ms, wall) in medians.items():
        ratios.append(st / max(wall, 1e-3))
        print("  ratio stress / %-6s %s%.0fx (search time), %s%.0fx (wall time)"
              % (strategy, bound, st / max(ms, 1e-3), bound, st / max(wall, 1e-3)))
    print()
    return (max(m[1] for m in medians.values()), max(m[2] for m in medians.values()),
            min(ratios))


def executions(binary, scenario, *args):
    """'held N' or 'found N' of a dfs run, and N."""
    out, _ = sh([binary, "run", scenario] + list(args))
    m, verb = HELD.search(out), "held"
    if not m:
        m, verb = FOUND.search(out), "found"
    if not m:
        sys.exit("bench: %s gave no figure:\n%s" % (scenario, out))
    return verb, int(m.group(1))


def exhaust_table(rows):
    """Executions with and without the reduction; the ratio on the
    largest scenario (by executions without it)."""
    print("executions to exhaust each scenario within its bound (dfs)")
    print("  %-38s %-8s %10s %10s %7s" % ("scenario", "memory", "reduced", "full", "ratio"))
    largest = (0, 0, "")
    for label, binary, scenario, memory in rows:
        extra = ["--memory", memory] if memory else []
        verb, on = executions(binary, scenario, *extra)
        _, off = executions(binary, scenario, "--reduction", "off", *extra)
        note = "" if verb == "held" else "  (found the outcome)"
        print("  %-38s %-8s %10d %10d %6.1fx%s" % (label, memory or "weak", on, off,
                                                  off / max(on, 1), note))
        if verb == "held" and off > largest[1]:
            largest = (on, off, label)
    print("  largest: %s, %d -> %d executions: %.1fx fewer" % (
        largest[2], largest[1], largest[0], largest[1] / max(largest[0], 1)))
    print()
    return largest[1] / max(largest[0], 1)


def search(binary, scenario, args, cpu=True):
    """One dfs search that holds: (executions, ms, executions/s) as the race
    binary times it, then, with @cpu, (executions/s, page faults) of its
    executions' own CPU (--cpu-time); None if it printed no such figure."""
    out, _ = sh([binary, "run", scenario] + (["--cpu-time"] if cpu else []) + list(args))
    m, c = HELD.search(out), CPU.search(out)
    if not m or (cpu and not c):
        return None
    held = (int(m.group(1)), float(m.group(2)), int(m.group(3)))
    return held + ((int(c.group(1)), int(c.group(2))) if cpu else ())


def medians(runs):
    """The median of each field of @runs (tuples of one shape)."""
    return [statistics.median(x[k] for x in runs) for k in range(len(runs[0]))]


def rate(binary, scenario, args):
    """Median dfs executions/s over RATE_RUNS runs: (of the search, wall
    clock; of its executions, CPU time; their page faults)."""
    runs = [r for r in (search(binary, scenario, args) for _ in range(RATE_RUNS)) if r]
    return tuple(medians(runs)[2:]) if runs else (0, 0, 0)


def rate_table(labs):
    """The RATES rows, contexts against OS threads against BEFORE; the
    ratios of the contexts' CPU rate to BEFORE, and their search rates."""
    print("dfs executions/s (median of %d runs; load average %s)" % (
        RATE_RUNS, " ".join("%.1f" % x for x in os.getloadavg())))
    print("  %-38s %8s %17s %17s %7s %7s" % ("", "before", "OS threads", "contexts", "ratio",
                                              "faults"))
    print("  %-38s %8s %8s %8s %8s %8s" % ("", "", "search", "CPU", "search", "CPU"))
    ratios, searches = [], []
    for (what, n, scenario, extra), before in zip(RATES, BEFORE):
        binary = labs[n].bins["race"]
        old = rate(binary, scenario, list(extra) + ["--os-threads"])
        new = rate(binary, scenario, extra)
        ratios.append(new[1] / before)
        searches.append(new[0])
        print("  %-38s %8d %8d %8d %8d %8d %6.1fx %7d   lab %d %s %s" % (
            what, before, old[0], old[1], new[0], new[1], ratios[-1], new[2], n, scenario,
            " ".join(extra)))
    print("  (before: docs/reproducer.md before issue 19, unloaded; search: as the race "
          "binary times it, process start and exit included; CPU: the executions' own; "
          "ratio: contexts' CPU rate / before; faults: the contexts' executions' page "
          "faults; load average now %s)" % (
              " ".join("%.1f" % x for x in os.getloadavg())))
    print()
    return ratios, searches


def build_rev(rev, build_root):
    """The race binaries of commit @rev, built from its tree under
    BUILD/bench-race/REV: {lab: binary}."""
    where = os.path.join(os.path.abspath(build_root), "bench-race", rev)
    if not os.path.isdir(where):
        os.makedirs(where + ".tmp", exist_ok=True)
        tree = subprocess.run(["git", "-C", ROOT, "archive", rev],
                              stdout=subprocess.PIPE, check=False)
        if tree.returncode or subprocess.run(["tar", "-x", "-C", where + ".tmp"],
                                             input=tree.stdout, check=False).returncode:
            shutil.rmtree(where + ".tmp")
            sys.exit("bench: no tree of %s (git archive): is it a commit of this clone?" % rev)
        os.rename(where + ".tmp", where)
    r = proc.make(["race-bench-bins"], impl="solutions", build="build", jobs=2,
                  timeout=1800, extra=["-C", where])
    if not r.ok:
        sys.exit("bench: %s's race binaries did not build:\n%s" % (rev, "\n".join(r.tail(20))))
    return {n: os.path.join(where, "build", "solutions", "race", "lab%d" % n, "race")
            for n in {row[1] for row in RATES}}


def against_table(labs, rev, old_bins):
    """The RATES rows, this tree against commit @rev's binaries, run in
    turn: executions/s (the search's, and this tree's executions' CPU)
    and the time the whole search took; the ratios of this tree's CPU
    rate to rev's search rate."""
    print("dfs against %s, side by side (median of %d runs each, in turn; load average %s)"
          % (rev, RATE_RUNS, " ".join("%.1f" % x for x in os.getloadavg())))
    print("  %-38s %-23s %-33s %s" % ("", rev[:9], "this tree", "ratios"))
    print("  %-38s %6s %8s %7s %6s %8s %8s %7s %6s %6s %6s" % (
        "", "execs", "ms", "/s", "execs", "ms", "/s", "CPU/s", "/s", "CPU/s", "ms"))
    cpu_ratios = []
    for what, n, scenario, extra in RATES:
        old, new = [], []
        for _ in range(RATE_RUNS):
            old.append(search(old_bins[n], scenario, extra, cpu=False))
            new.append(search(labs[n].bins["race"], scenario, extra))
        old, new = [r for r in old if r], [r for r in new if r]
        if not (old and new):
            sys.exit("bench: %s gave no rate with one of the two builds" % scenario)
        o, (*w, c, _) = medians(old), medians(new)
        cpu_ratios.append(c / o[2])
        print("  %-38s %6d %8.1f %7d %6d %8.1f %8d %7d %5.1fx %5.1fx %5.1fx   lab %d %s %s" % (
            what, o[0], o[1], o[2], w[0], w[1], w[2], c, w[2] / o[2], c / o[2],
            o[1] / max(w[1], 1e-3), n, scenario, " ".join(extra)))
    print("  (execs, ms, /s: the search, as each race binary times it, process start and exit "
          "included; CPU/s: this tree's executions per second of their own CPU; ratios: this "
          "tree's to %s's, ms the time %s took over this tree's; load average now %s)" % (
              rev[:9], rev[:9], " ".join("%.1f" % x for x in os.getloadavg())))
    print()
    return cpu_ratios


def class_table(labs):
    """Executions per class of every must-hold scenario of the labs (dfs
    within its own bound, with the reduction); the worst ratio."""
    print("executions per equivalence class, every must-hold scenario (dfs, its bound, "
          "reduction)")
    print("  %-44s %10s %8s %8s" % ("scenario", "executions", "classes", "per class"))
    worst = (0.0, "")
    for n, lab in sorted(labs.items()):
        binary = lab.bins["race"]
        for sc in race.scenarios(binary) if binary else ():
            if sc.expect != "must-hold" or sc.name.startswith("lincheck:"):
                continue
            out, _ = sh([binary, "run", sc.name, "--count-classes"])
            m = CLASSES.search(out)
            if not m:
                print("  lab %d %-38s no classes line" % (n, sc.name))
                continue
            classes, runs = int(m.group(1)), int(m.group(2))
            per = runs / max(classes, 1)
            worst = max(worst, (per, "lab %d %s" % (n, sc.name)))
            print("  lab %d %-38s %10d %8d %8.2f" % (n, sc.name, runs, classes, per))
    print("  worst: %s, %.2f executions per class" % (worst[1], worst[0]))
    print()
    return worst[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--against", metavar="REV",
                    help="only the rate rows, side by side with commit REV's reproducer")
    args = ap.parse_args()
    r = proc.make(["race-bench-bins"], impl="solutions", build=args.build_root, jobs=2)
    if not r.ok:
        sys.exit("bench: build failed:\n" + r.out)
    labs = {lab.n: lab for lab in layout.labs(impl="solutions", build=args.build_root)}
    if args.against:
        ratios = against_table(labs, args.against, build_rev(args.against, args.build_root))
        print("target >= 5x executions/s (CPU):      %s (%s, against %s)" % (
            "met" if min(ratios) >= 5 else "NOT met", ", ".join("%.1fx" % r for r in ratios),
            args.against))
        return 0
    litmus = os.path.join(labs[min(labs)].build, "race", "litmus", "race")
    print("race reproducer figures, %d CPUs\n" % os.cpu_count())
    worst_ms = worst_wall = 0.0
    worst_ratio = float("inf")
    rows = []
    for n, lab in sorted(labs.items()):
        binary = lab.bins["race"]
        if not binary:
            continue
        for sc in race.scenarios(binary):
            if sc.name.startswith("lincheck:"):
                continue        # generated scenarios: each a search of its own
            if sc.expect == "must-hold":
                rows += [("lab %d %s" % (n, sc.name), binary, sc.name, memory)
                         for memory in ("sc", "weak")]
            elif sc.name in PEERS.get(n, ()):
                ms, wall, ratio = canonical_race(
                    n, binary, os.path.join(lab.build, "asan", "race", "stress_lab%d" % n),
                    sc.name)
                worst_ms, worst_wall = max(worst_ms, ms), max(worst_wall, wall)
                worst_ratio = min(worst_ratio, ratio)
            else:
                print("lab %d: %s has no free-running peer (tests/race/stress_lab%d.c)\n"
                      % (n, sc.name, n))
    rows += [("litmus %s" % sc.name, litmus, sc.name, None) for sc in race.scenarios(litmus)]
    reduction = exhaust_table(rows)
    per_class = class_table(labs)
    ratios, searches = rate_table(labs)
    print("target first failure <= 50 ms median: %s (worst strategy %.1f ms search, "
          "%.1f ms wall)" % ("met" if worst_wall <= 50 else "NOT met", worst_ms, worst_wall))
    print("target >= 20x faster than stress:     %s (smallest ratio %.0fx)" % (
        "met" if worst_ratio >= 20 else "NOT met", worst_ratio))
    print("target >= 10,000 executions/s:        %s (%s)" % (
        "met" if min(searches) >= 10000 else "NOT met", ", ".join("%d" % v for v in searches)))
    print("target >= 10x fewer with reduction:   %s (%.1fx on the largest)" % (
        "met" if reduction >= 10 else "NOT met", reduction))
    print("target >= 5x executions/s (CPU):      %s (%s)" % (
        "met" if min(ratios) >= 5 else "NOT met", ", ".join("%.1fx" % r for r in ratios)))
    print("target <= 1.5 executions per class:   %s (worst %.2f)" % (
        "met" if per_class <= 1.5 else "NOT met", per_class))
    return 0


if __name__ == "__main__":
    sys.exit(main())
