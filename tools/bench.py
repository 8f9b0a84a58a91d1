#!/usr/bin/env python3
"""bench.py - make bench: lab 5's fd table, every way of looking an fd up,
measured side by side (docs/bench.md).

A benchmark, not a test: it prints figures and ratios and fails on none of
them.  The measuring is the C program's (tests/bench/, built by
mk/bench.mk), which checks every answer while it runs and exits 1 without
a figure when the table under test is wrong; this script runs it, shows
its progress line, and makes of its runs (one CSV line each):

  * a table: lookups per second per variant and thread count, the median
    of the runs with min and max, and the ratio to the spinlock (the 2.6.6
    lookup): in each round the variant's rate over the spinlock's, measured
    within a second of each other, and the median of those;
  * the seed's claim set against the tiobench-like ratios at 2 threads
    (the 2004 patch: +13% sequential, +21% random reads on a 4-way), and
    how far the patch is from fget_light and from the QSBR read side;
  * OUT/fdtable-runs.csv (every run), OUT/fdtable.csv (every point), and
    with gnuplot OUT/fdtable.png and OUT/fdtable.svg (throughput against
    threads, one line per variant, a panel per workload).

    bench.py --bin BIN --impl TREE [--mode default|quick|smoke]
             [--out DIR] [--threads 1,2,4] [--variants a,b] [--replot [--cores N]]

--mode smoke runs the program's smoke test (every check, no timing) and
passes its exit status on; --replot makes the table, CSV and plots again
from OUT/fdtable-runs.csv, without a run (--cores N: the runs were made on
a machine of N cores, for the plot's title).  Standard library only.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys

BASELINE = "spinlock"
PATCH = "lockfree"
SEED = {"tio-seq": 1.13, "tio-rand": 1.21}     # the 2004 patch's tiobench gains
TARGET_THREADS = 2
LIGHT_TARGET = 0.5                              # within 2x of fget_light


def run_program(args):
    """The program's runs as [dict], or exit with its status."""
    cmd = [args.bin, "--mode", args.mode, "--impl", args.impl]
    if args.threads:
        cmd += ["--threads", args.threads]
    if args.variants:
        cmd += ["--variants", args.variants]
    if args.mode == "smoke":
        sys.exit(subprocess.call(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)     # progress: stderr
    if p.returncode:
        sys.exit(p.returncode)
    return list(csv.DictReader(p.stdout.splitlines()))


def legend(binary):
    """({variant: what}, {workload: what}), in the program's order."""
    out = subprocess.run([binary, "--mode", "list"], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    kinds = {"variant": {}, "workload": {}}
    for line in out.splitlines():
        kind, name, what = line.split(",", 2)
        kinds[kind][name] = what
    return kinds["variant"], kinds["workload"]


class Point:
    """One workload x variant x threads: lookups per second in each round."""

    def __init__(self, by_round):
        self.by_round = by_round
        self.rates = sorted(by_round.values())
        self.median = statistics.median(self.rates)
        self.min, self.max = self.rates[0], self.rates[-1]


def points(runs):
    """{(workload, variant, threads): Point}."""
    rates = {}
    for r in runs:
        key = (r["workload"], r["variant"], int(r["threads"]))
        rates.setdefault(key, {})[int(r["run"])] = int(r["ops"]) / float(r["seconds"])
    return {k: Point(v) for k, v in rates.items()}


def mops(x):
    """Millions, three significant digits."""
    x /= 1e6
    return "%.0f" % x if x >= 99.5 else "%.1f" % x if x >= 9.95 else "%.2f" % x


def ratio(pts, w, v, t, base=BASELINE):
    """The median over the rounds of @v's rate over @base's in the same
    round: the two were measured within a second of each other, so a
    machine whose load drifts between rounds moves both."""
    if (w, v, t) not in pts or (w, base, t) not in pts:
        return None
    mine, theirs = pts[w, v, t].by_round, pts[w, base, t].by_round
    return statistics.median(mine[r] / theirs[r] for r in mine if r in theirs)


def print_tables(pts, variants, workloads, threads):
    cell = 19
    print("Lookups per second, in millions, all readers together: the median "
          "of the runs [min-max]")
    print("%-11s %3s  %s" % ("workload", "thr", "".join("%-*s" % (cell, v) for v in variants)))
    for w in workloads:
        for t in threads:
            row = []
            for v in variants:
                p = pts.get((w, v, t))
                row.append("%-*s" % (cell, "%s [%s-%s]" % (mops(p.median), mops(p.min),
                                                          mops(p.max)) if p else "-"))
            print("%-11s %3d  %s" % (w, t, "".join(row).rstrip()))
    others = [v for v in variants if v != BASELINE]
    print("\nRatio to %s (the 2.6.6 fget): the median over the rounds of the two "
          "measured side by side" % BASELINE)
    print("%-11s %3s  %s" % ("workload", "thr", "".join("%9s" % v for v in others)))
    for w in workloads:
        for t in threads:
            print("%-11s %3d  %s" % (w, t, "".join(
                "%9s" % ("%.2f" % r if r else "-")
                for r in (ratio(pts, w, v, t) for v in others))))


def verdict(r, target):
    return "%.2f (%s)" % (r, "target %.2f met" % target if r >= target
                          else "short of %.2f" % target)


def print_claim(pts, threads, cores):
    """The seed's claim against the tiobench-like ratios at 2 threads (and
    at 4, a 4-way's, where the machine has 4 @cores)."""
    print()
    for t in [t for t in threads if t == TARGET_THREADS or (t == 4 and cores >= 4)]:
        got = {w: ratio(pts, w, PATCH, t) for w in SEED}
        if None in got.values():
            continue
        print("The seed's claim, %d threads: lock-free over the 2.6.6 spinlock "
              "%s sequential, %s random (the 2004 patch: tiobench 1.13, 1.21 on "
              "a 4-way Pentium III Xeon)" % (t, verdict(got["tio-seq"], SEED["tio-seq"]),
                                             verdict(got["tio-rand"], SEED["tio-rand"])))
        light = [ratio(pts, w, PATCH, t, "light") for w in SEED]
        qsbr = [ratio(pts, w, PATCH, t, "qsbr") for w in SEED]
        if None not in light + qsbr:
            print("  the patch does %.2f / %.2f of fget_light's lookups (seq / rand; "
                  "within 2x: %s) and %.2f / %.2f of the QSBR read side's"
                  % (light[0], light[1], "yes" if min(light) >= LIGHT_TARGET else "no",
                     qsbr[0], qsbr[1]))


def write_csv(out, runs, pts, variants, workloads, threads):
    with open(os.path.join(out, "fdtable-runs.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["workload", "variant", "threads", "run", "ops", "seconds", "ops_per_s"])
        for r in runs:
            wr.writerow([r["workload"], r["variant"], r["threads"], r["run"], r["ops"],
                         r["seconds"], "%.0f" % (int(r["ops"]) / float(r["seconds"]))])
    with open(os.path.join(out, "fdtable.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["workload", "variant", "threads", "runs", "median_ops_per_s",
                     "min_ops_per_s", "max_ops_per_s", "ratio_to_" + BASELINE])
        for w in workloads:
            for v in variants:
                for t in threads:
                    p = pts.get((w, v, t))
                    if p:
                        r = ratio(pts, w, v, t)
                        wr.writerow([w, v, t, len(p.rates), "%.0f" % p.median, "%.0f" % p.min,
                                     "%.0f" % p.max, "%.3f" % r if r else ""])


GNUPLOT = """\
set datafile separator whitespace
set key top left font ",9" spacing 0.9 opaque
set grid ytics
set xlabel "reader threads"
set ylabel "lookups / s (millions)"
set xtics (%(xtics)s)
set xrange [%(xmin)s:%(xmax)s]
set style data yerrorlines
set bars small
"""
# One colour per variant, the same in every panel (in the program's order).
COLOURS = ("#9400d3", "#009e73", "#0072b2", "#e69f00", "#7f7f7f", "#d62728",
           "#cc79a7", "#000000")


def panel(w, lo, hi):
    """The y axis of workload @w's panel, whose points lie in [@lo, @hi]
    (millions), with room above them for the key: the lookups alone spread
    over an order of magnitude (fget_light), log scale; the reads do not."""
    if w.startswith("fget"):
        return ('set logscale y\nset yrange [%g:%g]\nset title "%s (log scale)"\n'
                % (lo / 1.5, hi * 8, w))
    return 'unset logscale y\nset yrange [0:%g]\nset title "%s"\n' % (hi * 1.5, w)


def write_plot(out, pts, variants, workloads, threads, title):
    """fdtable.dat and fdtable.gp; with gnuplot, fdtable.png and .svg.
    Returns the line to print."""
    blocks, plots = [], {}
    for w in workloads:
        for n, v in enumerate(variants):
            rows = [(t, pts[w, v, t]) for t in threads if (w, v, t) in pts]
            if rows:
                plots.setdefault(w, []).append((len(blocks), v, COLOURS[n % len(COLOURS)]))
                blocks.append("# %s %s\n" % (w, v) + "".join(
                    "%d %.4f %.4f %.4f\n" % (t, p.median / 1e6, p.min / 1e6, p.max / 1e6)
                    for t, p in rows))
    dat = os.path.join(out, "fdtable.dat")
    with open(dat, "w") as f:
        f.write("\n\n".join(blocks))
    cols = 3 if len(workloads) > 4 else 2
    rows = (len(workloads) + cols - 1) // cols
    script = GNUPLOT % {"xtics": ", ".join(str(t) for t in threads),
                        "xmin": threads[0] - 0.3, "xmax": threads[-1] + 0.3}
    script += 'set multiplot layout %d,%d title "%s" font ",12"\n' % (rows, cols, title)
    for w in [w for w in workloads if w in plots]:
        mine = [p for (w2, _, _), p in pts.items() if w2 == w]
        script += panel(w, min(p.min for p in mine) / 1e6,
                        max(p.max for p in mine) / 1e6) + "plot %s\n" % ", ".join(
            '"%s" index %d using 1:2:3:4 title "%s" lw 2 pt 7 ps 0.6 lc rgb "%s"'
            % (os.path.abspath(dat), i, v, colour) for i, v, colour in plots[w])
    script += "unset multiplot\n"
    gp = os.path.join(out, "fdtable.gp")
    with open(gp, "w") as f:
        f.write(script)
    if not shutil.which("gnuplot"):
        return ("gnuplot is not installed: no plots (make deps installs it); the "
                "figures are in %s/fdtable.csv" % out)
    made = []
    for term, ext in (("pngcairo size 1500,950 font ',10'", "png"),
                      ("svg size 1500,950 dynamic font ',10'", "svg")):
        path = os.path.join(out, "fdtable." + ext)
        r = subprocess.run(["gnuplot", "-e", "set terminal %s; set output '%s'" % (term, path),
                            gp], stderr=subprocess.PIPE, text=True)
        if r.returncode:
            return "gnuplot failed (%s): %s" % (path, r.stderr.strip().splitlines()[-1:])
        made.append(path)
    return "plots: " + ", ".join(made)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--impl", default="solutions")
    ap.add_argument("--mode", default="default", choices=["default", "quick", "smoke"])
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--threads", default="")
    ap.add_argument("--variants", default="")
    ap.add_argument("--replot", action="store_true",
                    help="no runs: the table and plots again from OUT/fdtable-runs.csv")
    ap.add_argument("--cores", type=int, default=os.cpu_count() or 1,
                    help="the cores of the machine the runs were made on (the plot's "
                         "title; with --replot, runs made elsewhere)")
    args = ap.parse_args()

    variants, workloads = legend(args.bin)
    cores = args.cores
    if args.mode != "smoke" and not args.replot:
        print("make bench: lab 5's fd table (%s/lab5-fdtable), %d cores, mode %s; every "
              "variant in one process, taking turns" % (args.impl, cores, args.mode), flush=True)
    if args.replot:
        with open(os.path.join(args.out, "fdtable-runs.csv")) as f:
            runs = list(csv.DictReader(f))
    else:
        runs = run_program(args)
    pts = points(runs)
    threads = sorted({int(r["threads"]) for r in runs})
    nruns = max(len(p.rates) for p in pts.values())
    os.makedirs(args.out, exist_ok=True)

    print("\nVariants:")
    for v, what in variants.items():
        print("  %-9s %s" % (v, what))
    print("Workloads:")
    for w, what in workloads.items():
        print("  %-11s %s" % (w, what))
    print()
    print_tables(pts, list(variants), list(workloads), threads)
    print_claim(pts, threads, cores)
    write_csv(args.out, runs, pts, list(variants), list(workloads), threads)
    title = "make bench: lab 5 fd table (%s), %d cores, median of %d runs, bars min-max" % (
        args.impl, cores, nruns)
    print("\nCSV: %s/fdtable.csv (points), %s/fdtable-runs.csv (runs)" % (args.out, args.out))
    print(write_plot(args.out, pts, list(variants), list(workloads), threads, title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
