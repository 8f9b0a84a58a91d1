#!/usr/bin/env python3
"""grade.py - grade a tree's labs (make lab-N, make grade, make grade-N).

    python3 tools/grade.py [--lab N ...] [--impl IMPL] [--build-root BUILD]
                           [--build] [--extra-tests DIR] [--report-dir DIR]
                           [--parts P,P] [--no-parents] [--no-precheck]
                           [--verbose] [--as-student]
    python3 tools/grade.py --lab N --impl IMPL --precheck
    python3 tools/grade.py --limits

For each lab (every lab without --lab): the pre-build check, then each part
(unit-plain, unit-asan, tsan, race) jailed, with its verdict and the points
its passing tests earn (kit/grading.py); what failed, part by part in the
handout's order, each with its hint and the command that reruns it alone,
and what to do next; "score: X/Y" and "lab-N: P passed, F failed".  With
more than one lab, "Score: X/Y" over all.  Exits 0 only at full score.

--build builds each part first (a part that does not build scores 0 with
the compiler's message); without it the binaries must be built.
--report-dir writes results.json, junit.xml and gradescope.json there
(kit/reports.py), and labN/report.txt: every failure of lab N, where the
screen shows the first few.  --extra-tests adds an instructor's hidden
tests.  --parts grades only those parts; --no-parents leaves out the note
that a part depends on the unit tests; --no-precheck skips the pre-build
check (to see what the sandbox alone does with a submission).
--verbose (make V=1) adds the sandbox's and the kit's lines, which a
student need not read unless the kit changed.  --as-student shows every
command as the student would type it in their own tree (no IMPL, BUILD or
hidden tests: Gradescope's trees are temporary).  --precheck runs only the
pre-build check.  --limits prints the limits in force (kit/limits.py).
Standard library only.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import grading, integrity, layout, limits, precheck, reports, sandbox  # noqa: E402


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", type=int, action="append")
    ap.add_argument("--impl", default="labs")
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--build", action="store_true", help="build each part first")
    ap.add_argument("--extra-tests", default=os.environ.get("EXTRA_TESTS") or None)
    ap.add_argument("--report-dir", help="write the reports into this folder")
    ap.add_argument("--parts", help="grade only these parts (comma-separated)")
    ap.add_argument("--no-parents", action="store_true")
    ap.add_argument("--no-precheck", action="store_true")
    ap.add_argument("--precheck", action="store_true", help="only the pre-build check")
    ap.add_argument("--limits", action="store_true")
    ap.add_argument("--verbose", action="store_true", default=os.environ.get("V") == "1")
    ap.add_argument("--as-student", action="store_true")
    return ap.parse_args()


BUDGET = 60     # s per lab on 2 cores, building included: docs/instructor.md


def overrun(lab, seconds, parts):
    """What to say when grading @lab took longer than BUDGET: the slowest
    part, and what makes it slow."""
    slow = max(parts, key=lambda p: p.seconds)
    why = {"unit-plain": "a test that waits or loops; run it alone (make test-%d TEST=...) "
                         "and time it" % lab.n,
           "unit-asan": "a test that waits or loops (ASan slows code about 2x)",
           "tsan": "a case that runs to its time limit, a thread that never ends or a lock "
                   "never released",
           "race": "a loop that retries without end (a cmpxchg that never succeeds) or a "
                   "lock never released makes the scenarios long"}.get(slow.name, "")
    return ("lab-%d took %.0f s, over the kit's budget of %d s on 2 cores.  On a busy "
            "machine that is expected: try again when it is idle.  If it is still slow, "
            "look at the slowest part, %s (%.0f s): %s."
            % (lab.n, seconds, BUDGET, slow.name, slow.seconds, why))


def only_precheck(lab):
    lines = precheck.includes(lab)
    r = None if lines else lab.make(["objs-lab-%d" % lab.n])
    if r and not r.ok:
        print("\n".join(r.tail(20)))
        return 1
    lines = lines or precheck.check(lab)
    for line in lines:
        print("REFUSED " + line)
    print("lab-%d: %s" % (lab.n, "refused" if lines else "accepted by the pre-build check"))
    return 1 if lines else 0


def main():
    args = parse()
    if args.limits:
        for name, value, what in limits.table():
            print("%-18s %10d  %s" % (name, value, what))
        print(sandbox.notice())
        return 0
    try:
        labs = layout.labs(args.impl, args.build_root, args.extra_tests)
    except layout.LayoutError as e:
        sys.exit("grade.py: %s" % e)
    if args.lab:
        unknown = set(args.lab) - {l.n for l in labs}
        if unknown:
            sys.exit("grade.py: no lab %s: the labs are %s" % (
                ", ".join(map(str, sorted(unknown))), " ".join(str(l.n) for l in labs)))
        labs = [l for l in labs if l.n in args.lab]
    if args.precheck:
        return max(only_precheck(lab) for lab in labs)
    checked = integrity.check(students=integrity.student_files(labs))
    grade = reports.Grade(args.impl, args.extra_tests, sandbox.notice(), checked)
    if args.verbose or checked.state == "changed":
        print(grade.sandbox if args.verbose else "", end="\n" if args.verbose else "")
        print(checked.what)
    for lab in labs:
        lab.as_student = args.as_student
        if lab is not labs[0] or args.verbose or checked.state == "changed":
            print()
        start = time.time()
        if lab.problem:
            parts = grading.missing(lab)
        else:
            parts = grading.grade_lab(lab, parts=args.parts.split(",") if args.parts else None,
                                      parents=not args.no_parents,
                                      check=not args.no_precheck, build=args.build)
        report = reports.lab_report_path(args.report_dir, lab) if args.report_dir else None
        grading.print_report(lab, parts, report)
        took = time.time() - start
        if args.build and took > BUDGET:
            print(overrun(lab, took, parts))
        elif args.build and args.verbose:
            print("lab-%d took %.0f s, building included (the kit's budget: %d s "
                  "on 2 cores)" % (lab.n, took, BUDGET))
        grade.add(lab, parts)
    after = integrity.check(students=integrity.student_files(labs))
    grown = sorted(set(after.files) - set(checked.files))
    if grown:       # only without bwrap's walls can the code under test do this
        print("\nkit: CHANGED DURING THE GRADE: %s -- every part scores 0" % ", ".join(grown))
        for _, parts in grade.labs:
            for p in parts:
                if p.graded:
                    p.status, p.verdict = grading.FAIL, grading.FAIL
                    p.summary = "the kit changed during the grade: " + ", ".join(grown)
                    p.items = []
        grade.integrity = after
    got, most = grade.score()
    if len(labs) > 1:
        print("\nScore: %s/%d (%s)" % (grading.fmt(got), most, ", ".join(
            "lab-%d %s/%d" % (lab.n, grading.fmt(grading.score(parts)[0]),
                              grading.score(parts)[1]) for lab, parts in grade.labs)))
    if args.report_dir:
        paths = reports.write(grade, args.report_dir)
        if args.verbose:
            print("reports: %s" % ", ".join(paths))
    if not grade.full and os.environ.get("MAKELEVEL"):
        print("(not full marks yet: make reports it as 'Error 1' below)")
    return 0 if grade.full else 1


if __name__ == "__main__":
    sys.exit(main())
