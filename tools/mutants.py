#!/usr/bin/env python3
"""mutants.py - the catalogue of known-wrong solutions (tests/mutants/).

A mutant is solutions/ with one patch applied (tests/mutants/README).  It
is graded like any tree, every part; it must be rejected by at least one.

    mutants.py list [--lab-dir DIR]          the catalogue
    mutants.py run --lab-dir DIR --name NAME [-v]
                                             exit 0 iff the mutant built and
                                             was rejected; -v: every part's
                                             details
    mutants.py run-all [--lab-dir DIR]       every mutant, and the mutant x
                                             part table; exit 0 iff all were
                                             rejected

Environment: BUILD (default build).  Standard library only.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import grading, layout, mutants, proc  # noqa: E402

BUILD = os.environ.get("BUILD", "build")


def grade(m, verbose=False):
    """The mutant's Parts, or None if it is not a valid mutant (said why)."""
    lab = next(l for l in layout.labs(build=BUILD) if l.folder == m.folder)
    try:
        tree = mutants.tree(m, BUILD)
    except mutants.PatchError as e:
        print("%s: NOT VALID: %s" % (m, e))
        return None
    r = proc.make(["build-lab-%d" % lab.n], impl=tree, build=BUILD, jobs=2)
    if not r.ok:
        print("\n".join(r.tail(10)))
        print("%s: NOT VALID: it does not build (%s)" % (m, r.status()))
        return None
    parts = grading.grade_lab(layout.lab(lab.n, impl=tree, build=BUILD), parents=False)
    if verbose:
        grading.print_report(layout.lab(lab.n, impl=tree, build=BUILD), parts)
    return parts


def run_one(m, verbose=False):
    """Grade @m and say what caught it; True iff it was rejected."""
    parts = grade(m, verbose)
    if parts is None:
        return False, None
    for line in m.header:
        print("  # " + line)
    rejected = [p.name for p in parts if p.status == grading.FAIL]
    if rejected:
        print("%s: rejected by %s" % (m, ", ".join(rejected)))
    else:
        print("%s: NOT REJECTED: every part passed -- the tests miss this bug" % m)
    return bool(rejected), parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["list", "run", "run-all"])
    ap.add_argument("--lab-dir")
    ap.add_argument("--name")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.command == "list":
        for m in mutants.catalogue(args.lab_dir):
            print("%s: %s" % (m, m.header[0] if m.header else ""))
        return 0
    if args.command == "run":
        if not (args.lab_dir and args.name):
            ap.error("run needs --lab-dir and --name")
        found = [m for m in mutants.catalogue(args.lab_dir) if m.name == args.name]
        if not found:
            sys.exit("mutants: no %s/%s.patch in tests/mutants" % (args.lab_dir, args.name))
        return 0 if run_one(found[0], args.verbose)[0] else 1
    bad, table = 0, []
    for m in mutants.catalogue(args.lab_dir):
        ok, parts = run_one(m, args.verbose)
        bad += not ok
        if parts:
            table.append("%-40s %s" % (m, " ".join(
                "%s=%s" % (p.name, "X" if p.status == grading.FAIL else ".")
                for p in parts if p.graded)))
    print("\n".join([""] + table))
    print("%d mutant(s) not rejected" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
