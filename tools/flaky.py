#!/usr/bin/env python3
"""flaky.py - grade one tree of a lab many times and count the failures
(`make flaky LAB=N RUNS=200`): a grade that can fail the reference is a
defect of the kit, however rare.

    python3 tools/flaky.py --lab N [--runs 200] [--impl solutions]
                           [--jobs 1] [--build-root build]

Builds the tree once, then runs the whole grade (every graded part, as
`make lab-N` does) --runs times, --jobs at a time, and prints each failing
grade's failing parts with their details, then
  lab-N: F of R grades failed (T s in all, G s per grade)
and exits 1 if any failed.  --jobs > 1 loads the machine on purpose: a
grade must not depend on how fast it runs.  Standard library only.
"""
import argparse
import concurrent.futures
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import grading, layout, proc  # noqa: E402


def one_grade(lab):
    """(seconds, [failed Part]) of one grade of @lab."""
    t0 = time.time()
    parts = grading.grade_lab(lab)
    return time.time() - t0, [p for p in parts if p.status == grading.FAIL]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", type=int, required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--impl", default="solutions")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    args = ap.parse_args()
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    if lab.problem:
        print("flaky: %s" % lab.problem)
        return 2
    r = proc.make(["build-lab-%d" % lab.n], impl=args.impl, build=args.build_root, jobs=2)
    if not r.ok:
        print("flaky: the build failed (%s)" % r.status())
        print("\n".join(r.tail(20)))
        return 2
    print("flaky: %d grades of lab %d, IMPL=%s, %d at a time"
          % (args.runs, lab.n, args.impl, args.jobs), flush=True)
    start, failed, seconds = time.time(), 0, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(one_grade, lab) for _ in range(args.runs)]
        for i, f in enumerate(concurrent.futures.as_completed(futures), 1):
            took, bad = f.result()
            seconds.append(took)
            if bad:
                failed += 1
                print("grade %d FAILED (%.1f s):" % (i, took))
                for p in bad:
                    print("  %s: %s" % (p.name, p.summary))
                    for d in p.details[:grading.MAX_DETAILS]:
                        print("      " + d)
            if i % 20 == 0 or i == args.runs:
                print("  %d of %d grades done, %d failed" % (i, args.runs, failed), flush=True)
    total = time.time() - start
    print("lab-%d: %d of %d grades failed (%.0f s in all, %.1f s per grade, "
          "slowest %.1f s)" % (lab.n, failed, args.runs, total,
                               sum(seconds) / len(seconds), max(seconds)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
