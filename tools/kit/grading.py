"""kit.grading - grade one lab, part by part.

The parts, in order (mk/labs.mk LAB_PARTS):
  unit-plain   the Criterion binary, -O2
  unit-asan    the same tests under AddressSanitizer + UBSan
  tsan         every case of every TSan program (kit.tsan)
  race         every graded race scenario and every exercise (kit.race)
A part is graded when the lab's manifest gives it points; it then scores
its points if it passes and 0 otherwise.  grade_lab() returns the Parts;
print_report() prints them the way `make lab-N` shows them.
"""
import os

from . import criterion, limits, race, tsan

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
PARTS = ("unit-plain", "unit-asan", "tsan", "race")
MAX_DETAILS = 12            # lines of detail shown per failing part


class Part:
    """The verdict of one part of a grade.

    name        unit-plain, unit-asan, tsan or race
    status      PASS, FAIL or SKIP (not graded: no points, nothing to run)
    summary     one line
    details     the lines that explain a FAIL
    hint        what to do next, or None
    max_points  what the manifest gives the part (0: not graded)
    """

    def __init__(self, name, status, summary, details=(), hint=None, max_points=0):
        self.name, self.status, self.summary = name, status, summary
        self.details, self.hint, self.max_points = list(details), hint, max_points

    @property
    def graded(self):
        return self.status != SKIP

    @property
    def points(self):
        return self.max_points if self.status == PASS else 0

    def to_dict(self):
        return dict(name=self.name, status=self.status, summary=self.summary,
                    details=self.details, hint=self.hint, points=self.points,
                    max_points=self.max_points)


def make_command(lab, target):
    """The make command line that reruns @target for this lab's tree."""
    impl = "" if lab.impl == "labs" else " IMPL=%s" % lab.impl
    return "make %s-%d%s" % (target, lab.n, impl)


def edited_sources(lab):
    return ", ".join(os.path.join(lab.impl_dir, f) for f in lab.edit if f.endswith(".c"))


def grade_unit(lab, name):
    """A Criterion binary: PASS iff every test ran and passed."""
    binary = lab.bins[name]
    if not os.path.exists(binary):
        return Part(name, FAIL, "not built: " + binary)
    report = criterion.run(binary)
    if report.passed:
        return Part(name, PASS, report.summary())
    hint = ("Read each failing test's message above, fix %s (the handout: %s), "
            "and run '%s' again.  One suite alone: %s --filter 'SUITE/*' --verbose"
            % (edited_sources(lab), lab.handout, make_command(lab, "lab"), binary))
    return Part(name, FAIL, report.summary(), report.details(), hint)


def grade_tsan(lab):
    """Every case of every TSan program gets its listed verdict."""
    progs = lab.bins["tsan"]
    if not progs:
        return Part("tsan", SKIP, "no TSan programs for this lab")
    details, ok, count = [], True, 0
    for prog in progs:
        if not os.path.exists(prog):
            ok = False
            details.append("not built: " + prog)
            continue
        try:
            todo = tsan.cases(prog)
        except tsan.ListError as e:
            ok = False
            details.append(str(e))
            continue
        hung = False
        for case in todo:
            count += 1
            if hung:
                good, seen = False, "not run: the previous case hung"
            else:
                good, seen, _ = tsan.run_case(
                    case, limits.TSAN_RACE_RUNS if case.expect == "race"
                    else limits.TSAN_CLEAN_RUNS)
                hung = seen.startswith("TIMEOUT")
            ok &= good
            details.append("%-4s %s: expected %s, %s" % ("ok" if good else "BAD",
                                                       case, case.expect, seen))
    summary = "%d case(s) in %d program(s)" % (count, len(progs))
    if ok:
        return Part("tsan", PASS, summary)
    hint = ("A case expected 'clean' that races means a reference is taken or "
            "dropped outside the rule (see %s); one that fails its own checks "
            "(exit 1) means the code does not work yet: run the unit tests "
            "first.  Rerun one case: TSAN_OPTIONS=halt_on_error=1 %s <case>"
            % (lab.handout, progs[0]))
    return Part("tsan", FAIL, summary, details, hint)


def grade_race(lab):
    """Every graded scenario meets its expectation; every exercise replays
    to its verdict."""
    binary = lab.bins["race"]
    if not binary:
        return Part("race", SKIP, "no race scenarios for this lab")
    try:
        lines = race.grade(binary, lab.exercises, lab.impl_dir)
    except race.BinaryError as e:
        return Part("race", FAIL, str(e))
    passed = sum(ok for ok, _ in lines)
    summary = "%d/%d scenarios and exercises passed" % (passed, len(lines))
    if passed == len(lines):
        return Part("race", PASS, summary)
    hint = ("See the timelines, one column per thread: '%s'."
            % make_command(lab, "race"))
    for ex in lab.exercises:
        hint += ("  Replay your schedule step by step: 'make replay SCHED=%s'."
                 % os.path.join(lab.impl_dir, ex.file))
    return Part("race", FAIL, summary, [text for _, text in lines], hint)


GRADERS = {
    "unit-plain": lambda lab: grade_unit(lab, "unit-plain"),
    "unit-asan": lambda lab: grade_unit(lab, "unit-asan"),
    "tsan": grade_tsan,
    "race": grade_race,
}


def grade_lab(lab):
    """[Part] for every part of @lab, in PARTS order; a part the manifest
    gives no points is SKIP."""
    parts = []
    for name in PARTS:
        if name not in lab.points:
            parts.append(Part(name, SKIP, "not graded: no points in %s/lab.mk" % lab.dir))
            continue
        part = GRADERS[name](lab)
        part.max_points = lab.points[name]
        if part.status == SKIP:
            part.status = FAIL          # points promised, nothing to run
            part.summary = "lab.mk gives it points, but " + part.summary
        parts.append(part)
    plain, asan = parts[0], parts[1]
    if plain.status == asan.status == FAIL and plain.details == asan.details:
        asan.details, asan.hint = ["the same failures as unit-plain"], None
    return parts


def score(parts):
    """(points, max points)."""
    return sum(p.points for p in parts), sum(p.max_points for p in parts)


def print_report(lab, parts):
    """The table `make lab-N` prints; returns the number of failed parts."""
    print("lab-%d (%s, IMPL=%s)" % (lab.n, lab.folder, lab.impl))
    for p in parts:
        pts = "%2d/%-2d" % (p.points, p.max_points) if p.graded else "  -  "
        print("  %-10s %-4s %s  %s" % (p.name, p.status, pts, p.summary))
    for p in parts:
        if p.status != FAIL:
            continue
        print("\n%s failed:" % p.name)
        for d in p.details[:MAX_DETAILS]:
            print("    " + d)
        if len(p.details) > MAX_DETAILS:
            print("    ... %d more" % (len(p.details) - MAX_DETAILS))
        if p.hint:
            print("  next: " + p.hint)
    got, most = score(parts)
    failed = sum(p.status == FAIL for p in parts)
    skipped = [p.name for p in parts if p.status == SKIP]
    print()
    if skipped:
        print("skipped: %s" % ", ".join(skipped))
    print("score: %d/%d" % (got, most))
    print("lab-%d: %d passed, %d failed" % (lab.n, sum(p.status == PASS for p in parts), failed))
    return failed
