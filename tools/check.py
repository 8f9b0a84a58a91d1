#!/usr/bin/env python3
"""check.py - the kit's own test suites (`make check` and `make
check-catalogues`; CI runs both, in that order).

A suite is a table below, SUITES (make check) or CATALOGUES (make
check-catalogues): functions that return rows.  A row is
a name and a check, a function returning (ok, detail, lines): PASS or FAIL,
a one-line detail, and lines shown under the row (always for the rows that
print a table, else only on failure).  Every child runs under the limits of
kit/limits.py: a hang fails its row, never the suite.

make check, for every lab (make print-labs) with a solutions/ folder:
  * the solutions pass every graded part, with full points;
  * the untouched skeleton (labs/) builds and FAILS EVERY graded part;
  * gcc builds the solutions with no warning (TODO_CFLAGS= makes every
    warning an error again).
make check-catalogues, for every such lab, the proof that its tests can
fail and are fair -- a graded tree each, so half of the work of both
suites; make check stays within its 10 minutes on 2 cores without it:
  * every known-wrong solution of tests/mutants/<folder>/ builds and is
    rejected by some graded part, and the mutant x part matrix shows, for
    each graded part, which mutants it rejects: a graded part that rejects
    none fails the suite (it is not shown to be able to fail);
  * every correct alternative of tests/alternatives/<folder>/ scores full
    marks (a test that rejects one checks the reference's shape, not a
    contract).
Before them: the primitives' tests, the TSan proof, CONFIG_NO_CMPXCHG's
compile-time refusals, the reproducer's self-tests; after: set-up errors,
the limits in docs.
Then the grader itself (check_grader.py): its sandbox, the hostile and
careless submissions of tests/grader/, the students' tree, the autograder
layouts, make grade-all.

    check.py [--jobs N] [--catalogues] [WORD]
                                 every row of make check (of make
                                 check-catalogues), or only those whose
                                 names contain WORD (none: exits 1)

Rows run JOBS at a time (--jobs, else $JOBS, else the number of cores),
and print in the table's order, each with its own time.  First, alone,
make builds what rows share (prebuild(): the kit's objects, the solutions'
and the skeleton's builds, the reproducer's binaries; for the catalogues
the kit's objects and the solutions' builds), so that two rows
never build one file at once; rows that share something built later (the
gcc build folder, the students' tree) have a group and run one after the
other, and a row that reads what others found (a lab's mutant x part
table) runs after them.  The rows that took longest last time
(BUILD/check-times.json) start first, so that no long row is left to run
alone at the end; the table keeps its order.  The kit's own objects and
links go through a fork server of clang (kit.ccfork, tools/ccfork/: a
compile skips clang's start); COMPILER_CACHE=ccache puts them through
ccache instead (compiler_cache() says why it is not the default), and
COMPILER_CACHE=none through neither.  Ends with "N passed, N
failed", how long it took, the sum of the rows' own times and the CPU
time of this process and of the commands it ran (and how much of the
latter the kernel spent); exits 1 if anything
failed.
Environment: BUILD (default build), CC -- as given to make;
COMPILER_CACHE (default: the fork server where CC is clang).  Standard
library only.
"""
import argparse
import concurrent.futures
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import (ROOT, ccfork, criterion, grading, jailcc, layout, limits,  # noqa: E402
                 mutants, proc, rr, tsan)
import check_grader  # noqa: E402

BUILD = os.environ.get("BUILD", "build")


class Row:
    """A row of the table: @check() returns (ok, detail, lines); @show:
    print its lines even when it passes; @group: rows of one group never
    run at once; @after: rows that must have finished before it starts."""

    def __init__(self, name, check, show=False, group=None, after=()):
        self.name, self.check, self.show = name, check, show
        self.group, self.after = group, list(after)


def built(targets, impl=None, build=BUILD, extra=()):
    """None if make built @targets, else (False, detail, lines)."""
    r = proc.make(targets, impl=impl, build=build, jobs=2, extra=extra)
    if r.ok:
        return None
    return False, "build failed (%s)" % r.status(), r.tail(25)


# --- common/ and the reproducer ------------------------------------------------

def kit_build():
    """$(B) of mk/build.mk for IMPL=labs: where common/'s test binaries go."""
    return layout.labs(build=BUILD)[0].build


def criterion_row(name, variant):
    def check():
        b = kit_build()
        failed = built(["build-common"])
        if failed:
            return failed
        report = criterion.run(os.path.join(b, variant, "common", "unit"))
        return report.passed, report.summary(), report.details()
    return Row(name, check)


def common_rows():
    return [criterion_row("common: unit tests (plain)", "plain"),
            criterion_row("common: unit tests (ASan+UBSan)", "asan")]


def tsan_proof_rows():
    """Each case of each tests/common/tsan_*.c program, TSAN_PROOF_RUNS
    times: 'clean' cases clean in every run, 'race' cases reported in every
    run (the RCU annotation proof of docs/design.md)."""
    rows = []
    b = kit_build()
    for src in sorted(os.listdir(os.path.join(ROOT, "tests", "common"))):
        if src.startswith("tsan_") and src.endswith(".c"):
            rows.append(Row("TSan proof: %s" % src[:-2],
                            tsan_proof(os.path.join(b, "tsan", "common", src[:-2])),
                            show=True))
    return rows


def tsan_proof(prog):
    def check():
        failed = built([prog])
        if failed:
            return failed
        try:
            cases = tsan.cases(prog)
        except tsan.ListError as e:
            return False, str(e), []
        lines, ok = [], True
        for case in cases:
            good, seen, verdicts = tsan.run_case(case, limits.TSAN_PROOF_RUNS, every_run=True)
            ok &= good
            lines.append("%s: expected %s; per run: %s -> %s" % (
                case, case.expect, " ".join(verdicts), "ok" if good else "WRONG: " + seen))
        return ok, "%d case(s), %d runs each" % (len(cases), limits.TSAN_PROOF_RUNS), lines
    return check


def race_rows():
    """The race reproducer's self-tests (tests/race/test_race.py), the
    litmus tests of its weak memory model (tests/litmus/test_litmus.py),
    the reduction against the full search (tests/race/test_reduction.py),
    and its layers (tools/race_layers.py: no circle, no call up a layer)."""
    def target(name):
        def check():
            r = proc.make([name], impl="solutions", build=BUILD, jobs=2)
            return r.ok, r.status(), r.tail(25)
        return check
    return [Row("race reproducer: self-tests", target("race-selftest")),
            Row("race reproducer: litmus tests, the kernel's answers", target("race-litmus")),
            Row("race reproducer: the reduction keeps every verdict and class",
                target("race-reduction")),
            tool_row("race reproducer: layers, no circle of includes and calls",
                     [os.path.join(ROOT, "tools", "race_layers.py")])]


def litmus_rows():
    """The C-litmus front end (make litmus): the kit's own litmus files
    against the LKMM's answers (tests/litmus/test_front_end.py), and broken
    and mutated files (tests/litmus/fuzz_litmus.py)."""
    def target(name):
        def check():
            r = proc.make([name], build=BUILD, jobs=2)
            return r.ok, r.status(), r.tail(25)
        return check
    return [Row("litmus front end: the kit's *.litmus, the LKMM's answers",
                target("litmus-check")),
            Row("litmus front end: fuzzed files, FILE:LINE each", target("litmus-fuzz"))]


def lab1_race_bin():
    """Lab 1's race binary, of the solutions: (path, None) or (None, failure)."""
    path = layout.lab(1, impl="solutions", build=BUILD).bins["race"]
    return path, built([path], impl="solutions")


def selftest(script, *args):
    """A check that runs the unittest program @script (tests/...) on lab 1's
    race binary; the lines it prints to say what it measured are shown."""
    def check():
        binary, failed = lab1_race_bin()
        if failed:
            return failed
        r = proc.run([sys.executable, os.path.join(ROOT, script), "--lab1-bin", binary]
                     + list(args), limits.MAKE_TIMEOUT)
        shown = [l for l in r.out.splitlines() if l.startswith(("fuzz:", "parse "))]
        return r.ok, r.status() + ", " + (r.tail(1) or [""])[0], \
            shown + ([] if r.ok else r.tail(30))
    return check


def rr_check(needs_rr, cls):
    """@cls of tests/debug/test_debug.py where rr can record (@needs_rr) or
    cannot; elsewhere a SKIP saying why (ok None)."""
    def check():
        p = rr.probe()
        if p.ok != needs_rr:
            return None, "rr records here" if p.ok else "rr cannot record here: " + p.line, []
        return selftest("tests/debug/test_debug.py", cls)()
    return check


def debug_rows():
    """Schedule files no input breaks, and walking a race back (issues 10, 13)."""
    return [Row("schedule files: one line for any bad input; fuzz",
                selftest("tests/race/test_schedfile.py"), show=True),
            Row("make debug: who-freed names cache_obj_release in T2",
                selftest("tests/debug/test_debug.py", "Gdb")),
            Row("rr: record the lab 1 race, walk it back to the free",
                rr_check(True, "RrRecords"), show=True),
            Row("rr: where rr cannot record, every rr target says why",
                rr_check(False, "RrCannot")),
            Row("tools/hw: the bundle, and the device script up to rr's answer",
                hw_check)]


def hw_check():
    """tests/hw/test_hw.py: tools/hw/'s bundle and device script, run here
    (issue 23: what the lent machine runs is tested first where rr refuses)."""
    r = proc.run([sys.executable, os.path.join(ROOT, "tests", "hw", "test_hw.py")],
                 limits.MAKE_TIMEOUT, env=proc.clean_env(BUILD=BUILD))
    return r.ok, r.status() + ", " + (r.tail(1) or [""])[0], [] if r.ok else r.tail(30)


# --- the labs ----------------------------------------------------------------------

def graded(lab, impl, check=True, only=None, first_failure=False):
    """Build tree @impl's lab and grade every part (or the parts @only, as
    a mutant's "Parts:" line names them: only their binaries are built),
    the later parts even when the unit tests fail: (parts, None) or (None,
    failure).  @check: the pre-build check first; @first_failure: a part
    stops at its first failing item (grading.grade_lab)."""
    tree = layout.lab(lab.n, impl=impl, build=BUILD)
    targets = [t for n in only or () for t in grading.part_targets(tree, n)]
    failed = built(targets or ["build-lab-%d" % lab.n], impl=impl)
    if failed:
        return None, failed
    return grading.grade_lab(tree, parts=only, parents=False, check=check,
                             first_failure=first_failure), None


def verdicts(parts):
    return ", ".join("%s %s" % (p.name, p.status) for p in parts if p.graded)


def solutions_row(lab):
    def check():
        parts, failure = graded(lab, "solutions")
        if failure:
            return failure
        got, most = grading.score(parts)
        bad = [p for p in parts if p.graded and p.status != grading.PASS]
        lines = ["%s: %s" % (p.name, d) for p in bad for d in [p.summary] + p.details]
        return not bad and got == most, "score %d/%d: %s" % (got, most, verdicts(parts)), lines
    return Row("lab-%d: solutions pass every part" % lab.n, check)


def skeleton_row(lab):
    def check():
        parts, failure = graded(lab, "labs")
        if failure:
            return failure
        passing = [p for p in parts if p.graded and p.status == grading.PASS]
        lines = ["%s passes on the untouched skeleton: %s" % (p.name, p.summary)
                 for p in passing]
        # Points per test: what passes on the skeleton must be worth 0
        # (lab.weights), or the skeleton shows progress it has not made.
        lines += ["%s: %s passes on the skeleton and is worth %s points: give it weight 0 "
                  "in lab.mk (or fix the test)" % (p.name, i.name, i.max_points)
                  for p in parts for i in p.items if i.ok and i.cents]
        got = grading.score(parts)[0]
        return not lines and not got, "score %s; %s" % (got, verdicts(parts)), lines
    return Row("lab-%d: skeleton fails every graded part, scores 0" % lab.n, check)


def tree_group(m):
    """The group of the rows that build mutant @m's tree (mutants.tree):
    one at a time, or one would delete the tree the other builds."""
    return "tree %s/%s-%s" % (os.path.basename(m.root), m.folder, m.name)


def mutant_row(lab, m, matrix):
    def check():
        try:
            tree = mutants.tree(m, BUILD)
        except mutants.PatchError as e:
            return False, "NOT VALID: " + str(e), []
        unknown = [n for n in m.parts or () if n not in lab.parts]
        if unknown:
            return False, "NOT VALID: Parts: names %s (parts: %s)" % (
                ", ".join(unknown), ", ".join(lab.parts)), []
        parts, failure = graded(lab, tree, check=False, only=m.parts, first_failure=True)
        if failure:
            return False, "NOT VALID: it does not build", failure[2]
        matrix[m.name] = {p.name: p.status for p in parts if p.graded}
        rejected = [p.name for p in parts if p.status == grading.FAIL]
        passed = [p.name for p in parts if p.status == grading.PASS]
        if m.parts and passed:
            return False, "its Parts: line says %s reject(s) it; %s passed" % (
                ", ".join(m.parts), ", ".join(passed)), ["# " + l for l in m.header]
        if rejected:
            return True, "rejected by " + ", ".join(rejected), []
        return False, "NOT REJECTED: every part passed -- the tests miss this bug", \
            ["# " + l for l in m.header]
    return Row("lab-%d: known-wrong '%s' is rejected" % (lab.n, m.name), check,
               group=tree_group(m))


def alternative_row(lab, alt):
    def check():
        try:
            tree = mutants.tree(alt, BUILD)
        except mutants.PatchError as e:
            return False, "NOT VALID: " + str(e), []
        parts, failure = graded(lab, tree)
        if failure:
            return False, "it does not build", failure[2]
        got, most = grading.score(parts)
        bad = [p for p in parts if p.graded and p.status != grading.PASS]
        lines = ["%s: %s" % (p.name, d) for p in bad for d in [p.summary] + p.details]
        return not bad and got == most, "score %d/%d: %s" % (got, most, verdicts(parts)), \
            lines + ["# " + l for l in alt.header if bad]
    return Row("lab-%d: correct alternative '%s' scores full marks" % (lab.n, alt.name), check)


def matrix_row(lab, matrix, wrong):
    """The mutant x part table, once the rows @wrong have filled @matrix;
    FAIL if a graded part rejects no mutant."""
    def check():
        if not matrix:
            return False, "no known-wrong solution was graded", []
        cols = lab.parts
        width = max(len(n) for n in matrix)
        lines = ["%-*s  %s" % (width, "known-wrong \\ part", "  ".join(cols))]
        for name in sorted(matrix):
            lines.append("%-*s  %s" % (width, name, "  ".join(
                "%-*s" % (len(c), {"FAIL": "X", "PASS": "."}.get(matrix[name].get(c), "-"))
                for c in cols)))
        counts = {c: sum(v.get(c) == "FAIL" for v in matrix.values()) for c in cols}
        lines.append("%-*s  %s" % (width, "rejected by part", "  ".join(
            "%-*d" % (len(c), counts[c]) for c in cols)))
        blind = [c for c in cols if not counts[c]]
        lines.append("X: the part rejects it; '.': it passes the part; '-': not graded "
                     "(the mutant's Parts: line names the parts make check-catalogues runs)")
        if blind:
            return False, "FLAG: %s reject(s) no known-wrong solution" % ", ".join(blind), lines
        return True, "every graded part rejects at least one", lines
    return Row("lab-%d: every graded part rejects a known-wrong solution" % lab.n,
               check, show=True, after=wrong)


def gcc_row(lab):
    def check():
        failed = built(["build-lab-%d" % lab.n], impl="solutions",
                       build=os.path.join(BUILD, "gcc"), extra=["CC=gcc", "TODO_CFLAGS="])
        return failed or (True, "built, no warnings", [])
    return Row("lab-%d: gcc builds the solutions warning-free" % lab.n, check,
               group="gcc")     # one build folder, BUILD/gcc


def graded_labs():
    """The labs with a solutions/ folder: those whose tests make check and
    make check-catalogues can prove."""
    return [lab for lab in layout.labs(build=BUILD)
            if os.path.isdir(os.path.join(ROOT, "solutions", lab.folder))]


def lab_rows():
    """make check's rows of each lab: the solutions pass, the skeleton
    fails, gcc builds the solutions."""
    return [row for lab in graded_labs()
            for row in (solutions_row(lab), skeleton_row(lab), gcc_row(lab))]


def catalogue_rows():
    """make check-catalogues' rows of each lab: every known-wrong solution
    rejected (and the mutant x part table), every correct alternative at
    full marks -- what proves a lab's tests can fail and are fair."""
    rows = []
    for lab in graded_labs():
        matrix = {}
        wrong = [mutant_row(lab, m, matrix) for m in mutants.catalogue(lab.folder)]
        rows += wrong + [matrix_row(lab, matrix, wrong)]
        rows += [alternative_row(lab, a) for a in mutants.alternatives(lab.folder)]
    return rows


# --- set-up and errors -------------------------------------------------------------

def one_line_error(cmd, want):
    def check():
        r = proc.run(cmd, 60, env=proc.clean_env())
        lines = r.tail(10)
        ok = r.rc not in (0, None) and len(lines) == 1 and want in lines[0]
        return ok, lines[0] if len(lines) == 1 else "%d lines" % len(lines), lines
    return check


def error_rows():
    return [
        Row("errors: IMPL without the lab's folder is one line",
            one_line_error(["make", "lab-1", "IMPL=nope"], "no folder nope/lab1-kref")),
        Row("errors: a missing compiler is one line",
            one_line_error(["make", "lab-1", "CC=no-such-cc",
                            "BUILD=" + os.path.join(BUILD, "no-cc")],
                           "missing: no-such-cc, the compiler")),
    ]


def limits_rows():
    """docs/instructor.md states the grader's limits as kit/limits.py has
    them (one source of truth: the code; the doc must agree)."""
    def check():
        text = open(os.path.join(ROOT, "docs", "instructor.md")).read()
        wrong = ["%s = %s is not in docs/instructor.md" % (name, value)
                 for name, value, _ in limits.table()
                 if "`%s` | %s " % (name, value) not in text]
        return not wrong, "%d limits" % len(limits.table()), wrong
    return [Row("docs: instructor.md states the grader's limits", check)]


def no_cmpxchg_rows():
    """CONFIG_NO_CMPXCHG (common/atomic.h): cmpxchg and its kin fail at
    compile time with a message naming the flag; the rest compiles
    (tests/common/no_cmpxchg.c)."""
    ops = ["cmpxchg", "xchg", "atomic_cmpxchg", "atomic_inc_not_zero"]
    flag = "-DCONFIG_NO_CMPXCHG"

    def compiles(*defines):
        cc = os.environ.get("COMPILER_CACHE", "").split() + os.environ.get("CC", "clang").split()
        return proc.run(cc + ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-Icommon",
                              "-fsyntax-only", "tests/common/no_cmpxchg.c"]
                        + list(defines), 60)

    def check():
        wrong = []
        r = compiles(flag)
        if r.rc != 0:
            wrong.append("with %s, the operations that stay do not compile: %s"
                         % (flag, r.tail(3)))
        for op in ops:
            r = compiles(flag, "-DTRY_" + op)
            if r.rc == 0 or "%s() does not exist with CONFIG_NO_CMPXCHG" % op not in r.out:
                wrong.append("%s with %s: compiled, or failed without naming the flag"
                             % (op, flag))
            if compiles("-DTRY_" + op).rc != 0:
                wrong.append("%s without %s does not compile" % (op, flag))
        return not wrong, "%d operations refused, the rest compiles" % len(ops), wrong
    return [Row("atomic.h: CONFIG_NO_CMPXCHG refuses cmpxchg at compile time", check)]


def grader_rows():
    """The grader itself: its sandbox, the hostile and careless submissions
    of tests/grader/, the students' tree, the autograder layouts, the batch
    (tools/check_grader.py)."""
    return [Row(name, check, show, group=check_grader.group(name))
            for name, check, show in check_grader.rows(BUILD)]


def tool_row(name, cmd):
    """A row that runs @cmd (a tools/ or tests/ script): PASS iff it exits 0."""
    def check():
        r = proc.run([sys.executable] + cmd, 120, env=proc.clean_env())
        last = r.tail(1)
        return r.ok, last[0] if last else r.status(), r.tail(25)
    return Row(name, check)


def kit_rows():
    """The grader's own readings, on fixed inputs (tests/kit/test_kit.py),
    make check's fork server of clang (tests/kit/test_ccfork.py), and a
    grade's, in its jail (tests/kit/test_jailcc.py)."""
    return [tool_row("kit: Criterion messages, exercises graded by meaning, pre-check dumps",
                     [os.path.join(ROOT, "tests", "kit", "test_kit.py")]),
            tool_row("kit: a compile through the fork server is clang's own (ccfork)",
                     [os.path.join(ROOT, "tests", "kit", "test_ccfork.py")]),
            tool_row("kit: a grade's compiles share one jailed clang, walls and limits kept",
                     [os.path.join(ROOT, "tests", "kit", "test_jailcc.py")])]


def contracts_rows():
    """Every "Guarantees:" sentence of every lab header maps to a check that
    exists (tools/contracts.py), and docs/contracts.md is that mapping."""
    tool = os.path.join(ROOT, "tools", "contracts.py")

    def doc():
        r = proc.run([sys.executable, tool, "--markdown", "--build-root", BUILD], 60,
                     env=proc.clean_env())
        path = os.path.join(ROOT, "docs", "contracts.md")
        have = open(path).read() if os.path.exists(path) else ""
        ok = r.ok and have.rstrip("\n") == r.out.rstrip("\n")
        return ok, "up to date" if ok else \
            "out of date: python3 tools/contracts.py --markdown > docs/contracts.md", []
    return [tool_row("contracts: every Guarantees sentence has a check",
                     [tool, "--build-root", BUILD]),
            Row("docs: contracts.md lists the mapping", doc)]


def bench_rows():
    """make bench's smoke test (BENCH=smoke: every variant and workload,
    tiny, no timing; tests/bench/): every answer checked, on the solutions;
    and a known-wrong table refused (a benchmark of it would be worthless).
    No row looks at a figure."""
    def smoke(impl):
        failed = built(["bench-bin"], impl=impl)
        return failed, None if failed else proc.make(["bench"], impl=impl, build=BUILD,
                                                     extra=["BENCH=smoke"])

    def solutions():
        failed, r = smoke("solutions")
        return failed or (r.ok, r.status() + ", " + (r.tail(1) or [""])[0], r.tail(10))

    wrong = [m for m in mutants.catalogue("lab5-fdtable") if m.name == "close-never-puts"][0]

    def refused(m):
        def check():
            failed, r = smoke(mutants.tree(m, BUILD))
            if failed:
                return failed
            ok = r.rc not in (0, None) and not r.timed_out
            why = [l for l in r.tail(6) if "thread(s):" in l] or r.tail(1) or [""]
            return ok, ("refused: " if ok else "NOT REFUSED: ") + why[0], r.tail(6)
        return check
    return [Row("bench: smoke on the solutions, every answer checked", solutions),
            Row("bench: smoke refuses a known-wrong table (close-never-puts)",
                refused(wrong), group=tree_group(wrong))]


def bench6_rows():
    """make bench-lab6's smoke test (BENCH=smoke: every variant, workload
    and thread count, a few thousand pairs, every count checked, no
    timing): on the solutions, and refused on the skeleton, whose gets fail
    (a benchmark of a wrong count would be worthless).  No row looks at a
    figure."""
    def smoke(impl):
        return proc.make(["bench-lab6"], impl=impl, build=BUILD, extra=["BENCH=smoke"])

    def solutions():
        r = smoke("solutions")
        return r.ok, r.status() + ", " + (r.tail(1) or [""])[0], r.tail(10)

    def skeleton():
        r = smoke("labs")
        why = [l for l in r.tail(6) if l.startswith("bench-lab6:")] or r.tail(1) or [""]
        ok = r.rc not in (0, None) and not r.timed_out
        return ok, ("refused: " if ok else "NOT REFUSED: ") + why[0], r.tail(6)
    return [Row("bench-lab6: smoke on the solutions, every count checked", solutions),
            Row("bench-lab6: smoke refuses the skeleton's count", skeleton)]


# The table.  Append functions returning rows here.
SUITES = [
    common_rows,
    tsan_proof_rows,
    no_cmpxchg_rows,
    race_rows,
    litmus_rows,
    debug_rows,
    kit_rows,
    contracts_rows,
    lab_rows,
    bench_rows,
    bench6_rows,
    grader_rows,
    error_rows,
    limits_rows,
]

# make check-catalogues: the proofs about the labs' tests, each lab's
# catalogues graded whole (CI runs it after make check).
CATALOGUES = [
    catalogue_rows,
]


def prebuild(jobs, catalogues=False):
    """Build, once and alone, what several rows share: the kit's objects
    (make kit-objs), common/'s tests, the solutions' and the skeleton's
    builds of every lab, the reproducer's binaries -- for @catalogues, the
    kit's objects and the solutions' builds alone (they make the test
    objects every tree of a lab links).  A tree's jailed compiles share
    one jail and clang (kit.jailcc: the kit's own trees).  None, or the
    failure (the rows then build, and report, for themselves)."""
    numbers = ["build-lab-%d" % lab.n for lab in layout.labs(build=BUILD)]
    steps = ((None, ["kit-objs", "build-common", "litmus-bin"]),
             ("solutions", numbers + ["race-bins"]),
             ("labs", numbers))
    if catalogues:
        steps = ((None, ["kit-objs"]), ("solutions", numbers))
    for impl, targets in steps:
        with jailcc.serving_labs(layout.labs(impl=impl, build=BUILD) if impl else []) as client:
            r = proc.make(targets, impl=impl, build=BUILD, jobs=jobs,
                          env_add=jailcc.env_of(client))
        if not r.ok:
            return "make %s%s: %s" % (" ".join(targets), " IMPL=" + impl if impl else "",
                                      r.status())
    return None


def run_row(row):
    """(ok, detail, lines, seconds) of @row; an exception is a FAIL."""
    t0 = time.time()
    try:
        ok, detail, lines = row.check()     # ok None: skipped, detail says why
    except Exception:                       # noqa: BLE001 -- a broken row fails
        ok, detail, lines = False, "the row raised", traceback.format_exc().splitlines()
    return ok, detail, lines, time.time() - t0


def compiler_cache():
    """What COMPILER_CACHE is, or "none" (the default).

    A fresh clone, what CI checks, misses the cache at nearly every
    compile, and in its default mode ccache runs the preprocessor as well
    at each miss: the prebuild's first make took 84 CPU s with ccache, 52
    without.  The one row a warm cache sped up (tools/hw: 52 hits) saved
    8 of them.  So make check compiles without one unless asked:
    COMPILER_CACHE=ccache puts the kit's own objects through ccache in
    depend mode (a miss costs the compile alone), its cache in
    BUILD/ccache."""
    cache = os.environ.get("COMPILER_CACHE", "")
    if cache.split()[:1] == ["ccache"]:
        for k, v in (("CCACHE_DIR", os.path.abspath(os.path.join(BUILD, "ccache"))),
                     ("CCACHE_BASEDIR", ROOT), ("CCACHE_NOHASHDIR", "true"),
                     ("CCACHE_DEPEND", "true")):
            os.environ.setdefault(k, v)
    return cache or "none"


def compiler_server():
    """Where no COMPILER_CACHE is set, the fork server of clang
    (kit.ccfork: the kit's own objects and links skip clang's start, some
    70 ms of CPU each); what the header line says of it.
    COMPILER_CACHE=none: neither."""
    if os.environ.get("COMPILER_CACHE") == "none":
        del os.environ["COMPILER_CACHE"]
        return "none"
    if os.environ.get("COMPILER_CACHE"):
        return compiler_cache()
    why = ccfork.start(BUILD, os.environ.get("CC", "clang"))
    return "none (no fork server: %s)" % why if why else "ccfork (tools/ccfork)"


def times_file():
    return os.path.join(BUILD, "check-times.json")


def last_times():
    """{row name: seconds} of the last run, or {}."""
    try:
        with open(times_file()) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def save_times(seconds):
    """Keep @seconds ({row name: seconds}) over the last run's."""
    times = last_times()
    times.update(seconds)
    try:
        os.makedirs(BUILD, exist_ok=True)
        with open(times_file(), "w") as f:
            json.dump(times, f, indent=0, sort_keys=True)
    except OSError:
        pass


# The rows that take longest (a minute or two each on the 2-core VM): with
# no times of a last run (a fresh clone), they start first all the same.
LONGEST = ("grader: dist-student builds", "race reproducer: self-tests",
           "race reproducer: the reduction", "grader: grade-all", "grader: Gradescope")


def run_rows(rows, jobs):
    """Run @rows, @jobs at a time (groups and afters kept), the longest of
    the last run (or LONGEST) first; yield each row's (row, ok, detail,
    lines, seconds) in the order of @rows."""
    before = last_times()

    def cost(row):
        return before.get(row.name, 100.0 if row.name.startswith(LONGEST) else 0.0)
    pending, running, done = sorted(rows, key=lambda r: -cost(r)), {}, {}
    with concurrent.futures.ThreadPoolExecutor(max(jobs, 1)) as pool:
        printed = 0
        while printed < len(rows):
            busy = {r.group for r in running.values() if r.group}
            for row in list(pending):
                if len(running) >= max(jobs, 1):
                    break
                if (row.group and row.group in busy) or \
                        any(a not in done for a in row.after if a in rows):
                    continue
                pending.remove(row)
                running[pool.submit(run_row, row)] = row
                busy.add(row.group)
            finished, _ = concurrent.futures.wait(
                running, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in finished:
                done[running.pop(f)] = f.result()
            while printed < len(rows) and rows[printed] in done:
                yield (rows[printed],) + done[rows[printed]]
                printed += 1


def main():
    """Every row, or with a word only the rows whose names contain it
    (python3 tools/check.py grader)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int,
                    default=int(os.environ.get("JOBS") or os.cpu_count() or 1))
    ap.add_argument("--catalogues", action="store_true",
                    help="the labs' catalogues (make check-catalogues), not make check")
    ap.add_argument("only", nargs="?", default="")
    args = ap.parse_args()
    start, passed, failed, skipped, own = time.time(), 0, 0, 0, 0.0
    name = "make check-catalogues" if args.catalogues else "make check"
    print("%s: BUILD=%s CC=%s JOBS=%d COMPILER_CACHE=%s"
          % (name, BUILD, os.environ.get("CC", "clang"), args.jobs, compiler_server()),
          flush=True)
    rows = [row for suite in (CATALOGUES if args.catalogues else SUITES)
            for row in suite() if args.only in row.name]
    if not rows:
        why = ("no row's name holds %r (LAB=N names a lab with a solutions/ folder)" % args.only
               if args.only else "no lab here has a solutions/ folder, the tree its rows grade")
        print("%s: nothing to run: %s" % (name, why))
        return 1
    if args.jobs > 1 and len(rows) > 1:
        t0 = time.time()
        problem = prebuild(args.jobs, args.catalogues)
        print("prebuild: %s (%.1fs)" % (problem or "what the rows share is built",
                                        time.time() - t0), flush=True)
    took = {}
    for row, ok, detail, lines, seconds in run_rows(rows, args.jobs):
        own += seconds
        took[row.name] = round(seconds, 1)
        print("%s  %-58s %5.1fs  %s" % ({None: "SKIP", True: "PASS"}.get(ok, "FAIL"),
                                         row.name, seconds, detail), flush=True)
        if (row.show and ok is not None) or ok is False:
            for line in lines[:40]:
                print("      | " + line)
        passed, failed, skipped = passed + (ok is True), failed + (ok is False), \
            skipped + (ok is None)
    save_times(took)
    ccfork.stop()               # its CPU time counts in the commands' below
    cpu = os.times()
    print("%s took %.0fs (the rows' own times add up to %.0fs, %d at a time; "
          "CPU: %.0fs in this process, %.0fs in the commands it ran, %.0fs of it in "
          "the kernel)"
          % (name, time.time() - start, own, args.jobs, cpu.user + cpu.system,
             cpu.children_user + cpu.children_system, cpu.children_system))
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    if not args.catalogues and not args.only:
        print("not in make check: the labs' known-wrong solutions and correct alternatives "
              "(make check-catalogues; CI runs both)")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        ccfork.stop()
