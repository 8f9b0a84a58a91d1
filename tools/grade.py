#!/usr/bin/env python3
"""grade.py - grade one lab (make lab-N runs it after building).

    python3 tools/grade.py --lab N [--impl IMPL] [--build-root BUILD]
                           [--report FILE]
    python3 tools/grade.py --limits

Prints one line per part (unit-plain, unit-asan, tsan, race: PASS, FAIL or
SKIP, with its points from the lab's manifest), what failed and what to do
next, "score: X/Y", and last "lab-N: P passed, F failed".  Exits 0 iff no
part failed.  --report writes the parts as JSON.  --limits prints the time
limits in force (kit/limits.py).  Standard library only.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import grading, layout, limits  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", type=int)
    ap.add_argument("--impl", default="labs")
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--report", help="write the parts as JSON to this file")
    ap.add_argument("--limits", action="store_true")
    args = ap.parse_args()
    if args.limits:
        for name, value, what in limits.table():
            print("%-18s %8d  %s" % (name, value, what))
        return 0
    if args.lab is None:
        ap.error("--lab is required")
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    parts = grading.grade_lab(lab)
    failed = grading.print_report(lab, parts)
    if args.report:
        got, most = grading.score(parts)
        with open(args.report, "w") as f:
            json.dump(dict(lab=lab.n, folder=lab.folder, impl=lab.impl, score=got,
                           max_score=most, parts=[p.to_dict() for p in parts]), f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
