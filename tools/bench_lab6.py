#!/usr/bin/env python3
"""bench_lab6.py - make bench-lab6: lab 6's rcuref get against lab 2's
compare-and-exchange loop, side by side (docs/bench.md, "Lab 6").

A benchmark, not a test: it fails on no figure.  The measuring, the checks
of every count and the table are the C program's (tests/lab6/
bench_rcuref.c, built by mk/bench-lab6.mk); this script runs it, keeping
its table and its exit status, and draws OUT/lab6.csv: with gnuplot,
OUT/lab6.png and OUT/lab6.svg (million pairs per CPU second, summed over
the threads, against threads: a panel per workload, a line per variant,
bars from min to max; and the retries per get of the cmpxchg loop), with
OUT/lab6.gp and OUT/lab6.dat to redraw by hand.

    bench_lab6.py --bin BIN [--out DIR] [--threads 1,2,4] [--smoke]
                  [--replot [--cpus N]]

Standard library only.
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys

COLOURS = {"cmpxchg": "#d55e00", "counted": "#e69f00", "rcuref": "#0072b2",
           "rcusafe": "#56b4e9", "inc": "#009e73"}

GNUPLOT = """set key top left
set grid ytics
set xlabel "threads"
set logscale x 2
set xtics (%(xtics)s)
set xrange [%(xmin)g:%(xmax)g]
set bars small
set style data yerrorlines
"""


def run(args):
    """Run the program; its table goes to our stdout.  Exit with its status
    if it failed."""
    cmd = [args.bin, "--csv", args.out]
    if args.threads:
        cmd += ["--threads", args.threads]
    if args.smoke:
        sys.exit(subprocess.call([args.bin, "--smoke"] +
                                 (["--threads", args.threads] if args.threads else [])))
    rc = subprocess.call(cmd)
    if rc:
        sys.exit(rc)


def points(out):
    with open(os.path.join(out, "lab6.csv")) as f:
        return list(csv.DictReader(f))


def write_plot(out, pts, cpus):
    """lab6.dat and lab6.gp; with gnuplot, lab6.png and lab6.svg (@cpus: of
    the machine the runs were made on, for the title).  Returns the line to
    print."""
    threads = sorted({int(p["threads"]) for p in pts})
    workloads = list(dict.fromkeys(p["workload"] for p in pts))
    variants = list(dict.fromkeys(p["variant"] for p in pts))
    blocks, index = [], {}
    for w in workloads:
        for v in variants:
            rows = [p for p in pts if p["workload"] == w and p["variant"] == v]
            index[w, v] = len(blocks)
            blocks.append("# %s %s\n" % (w, v) + "".join(
                "%s %s %s %s %s\n" % (p["threads"], p["median"], p["min"], p["max"],
                                      p["retries_per_get"]) for p in rows))
    dat = os.path.abspath(os.path.join(out, "lab6.dat"))
    with open(dat, "w") as f:
        f.write("\n\n".join(blocks))
    script = GNUPLOT % {"xtics": ", ".join(str(t) for t in threads),
                        "xmin": threads[0] / 1.3, "xmax": threads[-1] * 1.3}
    script += ('set multiplot layout 1,%d title "make bench-lab6: get + put pairs, '
               '%d CPUs, median and min-max" font ",12"\n' % (len(workloads) + 1, cpus))
    for w in workloads:
        script += 'set ylabel "million pairs per CPU second, summed"\nset yrange [0:*]\n'
        script += 'set title "%s: %s"\n' % (w, "one count, every thread" if w == "one"
                                            else "a count per thread")
        script += "plot %s\n" % ", ".join(
            '"%s" index %d using 1:2:3:4 title "%s" lw 2 pt 7 ps 0.6 lc rgb "%s"'
            % (dat, index[w, v], v, COLOURS.get(v, "#000000")) for v in variants)
    script += ('set title "one: failed cmpxchg per get (lab 2\'s loop)"\n'
               'set ylabel "retries per get"\nset style data linespoints\n'
               'plot "%s" index %d using 1:5 title "counted" lw 2 pt 7 lc rgb "%s"\n'
               % (dat, index["one", "counted"], COLOURS["counted"]))
    script += "unset multiplot\n"
    gp = os.path.join(out, "lab6.gp")
    with open(gp, "w") as f:
        f.write(script)
    if not shutil.which("gnuplot"):
        return ("gnuplot is not installed: no plot (make deps installs it); the "
                "figures are in %s/lab6.csv" % out)
    made = []
    for term, ext in (("pngcairo size 1500,500 font ',10'", "png"),
                      ("svg size 1500,500 dynamic font ',10'", "svg")):
        path = os.path.join(out, "lab6." + ext)
        r = subprocess.run(["gnuplot", "-e", "set terminal %s; set output '%s'" % (term, path),
                            gp], stderr=subprocess.PIPE, text=True)
        if r.returncode:
            return "gnuplot failed (%s): %s" % (path, r.stderr.strip().splitlines()[-1:])
        made.append(path)
    return "plot: " + ", ".join(made)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", default="build/bench/lab6")
    ap.add_argument("--threads", default="")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--replot", action="store_true",
                    help="no run: the plot again from OUT/lab6.csv")
    ap.add_argument("--cpus", type=int, default=os.cpu_count() or 1,
                    help="the CPUs of the machine the runs were made on (the "
                         "plot's title; with --replot, runs made elsewhere)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not args.replot:
        run(args)
    print("\nCSV: %s/lab6.csv (points), %s/lab6-runs.csv (runs)" % (args.out, args.out))
    print(write_plot(args.out, points(args.out), args.cpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
