"""kit.grading - grade one lab, part by part.

The parts, in order (mk/labs.mk LAB_PARTS):
  unit-plain   the Criterion binary, -O2
  unit-asan    the same tests under AddressSanitizer + UBSan
  tsan         every case of every TSan program (kit.tsan)
  race         every graded race scenario and every exercise (kit.race)
A part is graded when the lab's manifest gives it points; it then scores
its points if it passes and 0 otherwise.

grade_lab() first checks the submission (kit.precheck): a refused one
scores 0 on every part, REFUSED, and none of it runs.  With build=True it
then builds each part (a part that does not build scores 0 with the
compiler's message).  Each part runs jailed (kit.sandbox).  When the unit
tests (unit-plain) fail, the later parts are not run: "skipped: unit tests
fail", 0 points, as gradelib's parent= does -- their PASS would mislead.

Each Part has a status (PASS, FAIL, or SKIP: not graded) that decides its
points, and a verdict that says what happened:

  PASS      every test, case and scenario as expected
  FAIL      a test's assertion (its own text), a case's or scenario's
            expectation not met, or the part does not build
  CRASH     a signal (named)
  TIMEOUT   a time limit (named, with its setting)
  OOM       the memory limit
  DEADLOCK, LIVELOCK   the reproducer's verdict on a scenario
  REFUSED   the pre-build check
  SUSPECT   the part's evidence does not add up (kit.integrity,
            kit.sandbox): no points, for the instructor to look at
  SKIPPED   not run: the unit tests fail
Every failure comes with the command that reruns it alone.
"""
import hashlib
import os
import time

from . import criterion, integrity, limits, precheck, race, sandbox, tsan

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
CRASH, TIMEOUT, OOM, REFUSED, SKIPPED = "CRASH", "TIMEOUT", "OOM", "REFUSED", "SKIPPED"
DEADLOCK, LIVELOCK, SUSPECT = "DEADLOCK", "LIVELOCK", "SUSPECT"
VERDICTS = (PASS, FAIL, CRASH, TIMEOUT, OOM, DEADLOCK, LIVELOCK, REFUSED, SUSPECT, SKIPPED)
# Worst first: a part's verdict is the worst of its failures.
SEVERITY = (OOM, TIMEOUT, CRASH, DEADLOCK, LIVELOCK, FAIL)
PARTS = ("unit-plain", "unit-asan", "tsan", "race")
PARENT = "unit-plain"       # when it fails, the later parts are skipped
MAX_DETAILS = 16            # lines of detail shown per failing part


class Part:
    """The verdict of one part of a grade.

    name        unit-plain, unit-asan, tsan or race
    status      PASS, FAIL or SKIP (not graded: no points, nothing to run)
    verdict     one of VERDICTS (SKIP parts: SKIPPED)
    summary     one line
    details     the lines that explain a failure, with the commands that
                rerun each failure alone
    hint        what to do next, or None
    max_points  what the manifest gives the part (0: not graded)
    seconds     how long it took
    """

    def __init__(self, name, status, summary, details=(), hint=None, max_points=0,
                 verdict=None):
        self.name, self.status, self.summary = name, status, summary
        self.details, self.hint, self.max_points = list(details), hint, max_points
        self.verdict = verdict or {PASS: PASS, FAIL: FAIL, SKIP: SKIPPED}[status]
        self.seconds = 0.0

    @property
    def graded(self):
        return self.status != SKIP

    @property
    def points(self):
        return self.max_points if self.status == PASS else 0

    def to_dict(self):
        return dict(name=self.name, status=self.status, verdict=self.verdict,
                    summary=self.summary, details=self.details, hint=self.hint,
                    points=self.points, max_points=self.max_points,
                    seconds=round(self.seconds, 2))


def failed(name, verdict, summary, details=(), hint=None):
    return Part(name, FAIL, summary, details, hint, verdict=verdict)


def suspect(name, why):
    """A SUSPECT Part: the evidence does not add up (@why, lines)."""
    return failed(name, SUSPECT, "the evidence does not add up: " + why[0][:120], why,
                  "An instructor should look at this submission by hand: the grader "
                  "found its evidence inconsistent, and gave the part no points.")


def worst(verdicts):
    """The worst of @verdicts (FAIL if none is known)."""
    return next((v for v in SEVERITY if v in verdicts), FAIL)


def make_command(lab, target):
    """The make command line that reruns @target for this lab's tree."""
    impl = "" if lab.impl == "labs" else " IMPL=%s" % lab.impl
    extra = " EXTRA_TESTS=%s" % lab.extra_tests if lab.extra_tests else ""
    return "make %s-%d%s%s" % (target, lab.n, impl, extra)


def edited_sources(lab):
    return ", ".join(os.path.join(lab.impl_dir, f) for f in lab.edit if f.endswith(".c"))


# --- the parts ---------------------------------------------------------------------

def grade_unit(lab, name):
    """A Criterion binary: PASS iff every declared test ran to its end and
    passed, and the binary exited 0."""
    binary = lab.bins[name]
    if not os.path.exists(binary):
        return failed(name, FAIL, "not built: " + binary)
    report = criterion.run(binary)
    verdict, summary = report.verdict()
    odd = integrity.unit_suspicions(binary, report)
    if odd:
        return suspect(name, odd)
    if verdict == PASS:
        return Part(name, PASS, summary)
    hint = ("Read each failing test's message above, fix %s (the handout: %s), "
            "and run '%s' again." % (edited_sources(lab), lab.handout, make_command(lab, "lab")))
    return failed(name, verdict, summary, report.details(), hint)


def _case_verdict(seen):
    word = seen.split(":")[0].split()[0]
    return word if word in SEVERITY else FAIL


def grade_tsan(lab):
    """Every case of every TSan program gets its listed verdict."""
    progs = lab.bins["tsan"]
    if not progs:
        return Part("tsan", SKIP, "no TSan programs for this lab")
    details, bad, count = [], [], 0
    for prog in progs:
        if not os.path.exists(prog):
            bad.append(FAIL)
            details.append("not built: " + prog)
            continue
        try:
            todo = tsan.cases(prog)
        except tsan.ListError as e:
            bad.append(CRASH)
            details += [str(e), "    alone: %s --list" % prog]
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
            details.append("%-4s %s: expected %s, %s" % ("ok" if good else "BAD",
                                                       case, case.expect, seen))
            if not good:
                bad.append(_case_verdict(seen))
                details.append("    alone: " + case.alone())
    summary = "%d case(s) in %d program(s)" % (count, len(progs))
    if not bad:
        return Part("tsan", PASS, summary)
    hint = ("A case expected 'clean' that races means a reference is taken or "
            "dropped outside the rule (see %s); one that fails its own checks "
            "(exit 1) means the code does not work yet: run the unit tests first."
            % lab.handout)
    return failed("tsan", worst(bad), summary, details, hint)


def grade_race(lab):
    """Every graded scenario meets its expectation; every exercise replays
    to its verdict."""
    binary = lab.bins["race"]
    if not binary:
        return Part("race", SKIP, "no race scenarios for this lab")
    try:
        items = race.grade_items(binary, lab.exercises, lab.impl_dir)
    except race.BinaryError as e:
        return failed("race", CRASH, str(e), ["    alone: %s list" % binary])
    passed = sum(i.ok for i in items)
    summary = "%d/%d scenarios and exercises passed" % (passed, len(items))
    if passed == len(items):
        return Part("race", PASS, summary)
    details = []
    for i in items:
        details.append(i.line)
        if not i.ok:
            details.append("    alone: " + i.alone)
    hint = ("See the timelines, one column per thread: '%s'."
            % make_command(lab, "race"))
    for ex in lab.exercises:
        hint += ("  Replay your schedule step by step: 'make replay SCHED=%s'."
                 % os.path.join(lab.impl_dir, ex.file))
    return failed("race", worst([i.verdict for i in items if not i.ok]), summary,
                  details, hint)


GRADERS = {
    "unit-plain": lambda lab: grade_unit(lab, "unit-plain"),
    "unit-asan": lambda lab: grade_unit(lab, "unit-asan"),
    "tsan": grade_tsan,
    "race": grade_race,
}


def _targets(lab, name):
    b = lab.bins[name]
    return [t for t in (b if isinstance(b, list) else [b]) if t]


# --- before the parts: the pre-build check, the build --------------------------

def refused(lab, only=None):
    """[Part] all REFUSED if the pre-build check refuses tree lab.impl, or
    all FAIL if its files do not compile; None if it is accepted.  What
    the files include is checked before they are first compiled."""
    try:
        lines = precheck.includes(lab)
    except precheck.PrecheckError as e:
        return _every(lab, only, FAIL, "the pre-build check could not run: %s" % e)
    if lines:
        return _refusal(lab, only, lines)
    r = lab.make(["objs-lab-%d" % lab.n])
    if not r.ok:
        return _every(lab, only, FAIL, "does not build: %s" % _first_error(r),
                      r.tail(20) + ["    alone: " + _make_line(lab, ["objs-lab-%d" % lab.n])],
                      "Fix the compiler's errors above and run '%s' again."
                      % make_command(lab, "lab"))
    try:
        lines = precheck.check(lab)
    except precheck.PrecheckError as e:
        return _every(lab, only, FAIL, "the pre-build check could not run: %s" % e)
    if not lines:
        return None
    return _refusal(lab, only, lines)


def _refusal(lab, only, lines):
    return _every(lab, only, REFUSED, "refused before it ran: " + lines[0].split(": ", 1)[-1][:100],
                  lines + ["    alone: python3 tools/grade.py --lab %d --impl %s --precheck"
                           % (lab.n, lab.impl)],
                  "Your files may define only the lab's functions (and static helpers) and "
                  "call only what %s allows -- the kit's primitives, the given functions, "
                  "printf for debugging: no exit, no malloc, no files, no processes, "
                  "nothing that depends on how the file is built." % lab.handout)


def missing(lab):
    """[Part], all FAIL: the tree has no folder, or not all the files, for
    @lab (lab.problem says which)."""
    return _every(lab, None, FAIL, lab.problem)


def _every(lab, only, verdict, summary, details=(), hint=None):
    parts = []
    for name in PARTS:
        if name not in lab.points or (only and name not in only):
            parts.append(Part(name, SKIP, "not graded"))
            continue
        first = not any(p.graded for p in parts)
        p = failed(name, verdict, summary if first else "see %s" % next(
            q.name for q in parts if q.graded), details if first else (), hint if first else None)
        p.max_points = lab.points[name]
        parts.append(p)
    return parts


def _first_error(r):
    return next((l.strip() for l in r.out.splitlines() if "error" in l), r.status())[:120]


def _unbuilt(lab, name):
    """None if part @name's binaries build, else its failed Part."""
    targets = _targets(lab, name)
    if not targets:
        return None
    r = lab.make(targets)
    if r.ok:
        return None
    return failed(name, FAIL, "does not build: %s" % _first_error(r),
                  r.tail(20) + ["    alone: " + _make_line(lab, targets)],
                  "Fix the compiler's errors above and run '%s' again."
                  % make_command(lab, "lab"))


def _make_line(lab, targets):
    """The make command that builds @targets of this lab's tree."""
    words = ["make", "IMPL=" + lab.impl, "BUILD=" + lab.build_root]
    words += ["EXTRA_TESTS=" + lab.extra_tests] if lab.extra_tests else []
    return " ".join(words + list(targets))


def _fingerprint(lab):
    """The content of every binary of the lab: what a part must not change.
    Behind bwrap's walls it cannot (they are read-only): nothing to look at."""
    prints = {}
    if sandbox.mode()[0] == "bwrap":
        return prints
    for name in PARTS:
        for path in _targets(lab, name):
            try:
                with open(path, "rb") as f:
                    prints[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                prints[path] = None
    return prints


# --- a lab --------------------------------------------------------------------------

def grade_lab(lab, parts=None, parents=True, check=True, build=False):
    """[Part] for every part of @lab, in PARTS order.

    @parts: grade only these (the others are SKIP); @parents: skip the
    later parts when unit-plain fails; @check: the pre-build check first;
    @build: build each part first (else its binaries must be built).
    """
    if check:
        refusal = refused(lab, parts)
        if refusal:
            return refusal
    run = _Run(lab, [n for n in PARTS if n in lab.points and (not parts or n in parts)], build)
    result = []
    for name in PARTS:
        if name not in lab.points:
            result.append(Part(name, SKIP, "not graded: no points in %s/lab.mk" % lab.dir))
        elif parts and name not in parts:
            result.append(Part(name, SKIP, "not graded in this run"))
        else:
            parent = next((p for p in result if p.name == PARENT and p.graded), None)
            result.append(run.part(name, parents and parent and parent.status != PASS))
    plain, asan = result[0], result[1]
    if plain.status == asan.status == FAIL and plain.details == asan.details and plain.details:
        asan.details, asan.hint = ["the same failures as unit-plain"], None
    return result


class _Run:
    """The parts of one grade of @lab: built as they are needed (the parent
    first: when it fails, the rest need not be), run, and checked for a
    binary the code under test changed (kit.sandbox's walls forbid it; this
    catches it where they cannot stand)."""

    def __init__(self, lab, todo, build):
        self.lab, self.todo, self.build = lab, todo, build
        self.built, self.broken = set(), {}
        self.prints = _fingerprint(lab)

    def make(self, name):
        now = [name] if name == PARENT else [n for n in self.todo if n not in self.built]
        self.built.update(now)
        if not self.lab.make(sum((_targets(self.lab, n) for n in now), [])).ok:
            self.broken.update({n: _unbuilt(self.lab, n) for n in now})
        self.prints.update(_fingerprint(self.lab))

    def part(self, name, skip):
        t0 = time.monotonic()
        if self.build and name not in self.built and not skip:
            self.make(name)
        sandbox.suspicions()            # what earlier runs left is not this part's
        if self.broken.get(name):
            part = self.broken[name]
        elif skip:
            part = failed(name, SKIPPED, "skipped: unit tests fail")
        else:
            part = GRADERS[name](self.lab)
        odd = sandbox.suspicions()
        if odd:
            part = suspect(name, odd)
        if part.status == SKIP:
            part = failed(name, FAIL, "lab.mk gives it points, but " + part.summary)
        changed = [p for p, h in _fingerprint(self.lab).items() if h != self.prints.get(p)]
        if changed:
            part = failed(name, FAIL, "the code under test changed a built binary: %s"
                          % ", ".join(changed))
        part.max_points, part.seconds = self.lab.points[name], time.monotonic() - t0
        return part


def score(parts):
    """(points, max points)."""
    return sum(p.points for p in parts), sum(p.max_points for p in parts)


def print_report(lab, parts):
    """The table `make lab-N` prints; returns the number of failed parts."""
    print("lab-%d (%s, IMPL=%s%s)" % (lab.n, lab.folder, lab.impl,
                                      ", EXTRA_TESTS=" + lab.extra_tests if lab.extra_tests else ""))
    for p in parts:
        pts = "%3d/%-3d" % (p.points, p.max_points) if p.graded else "   -   "
        print("  %-10s %-8s %s  %s" % (p.name, p.verdict if p.graded else "-", pts, p.summary))
    for p in parts:
        if p.status != FAIL or not p.details:
            continue
        print("\n%s: %s" % (p.name, p.verdict))
        for d in p.details[:MAX_DETAILS]:
            print("    " + d)
        if len(p.details) > MAX_DETAILS:
            print("    ... %d more" % (len(p.details) - MAX_DETAILS))
        if p.hint:
            print("  next: " + p.hint)
    got, most = score(parts)
    failed_parts = sum(p.status == FAIL for p in parts)
    skipped = [p.name for p in parts if p.status == SKIP]
    print()
    if skipped:
        print("not graded: %s" % ", ".join(skipped))
    print("score: %d/%d" % (got, most))
    print("lab-%d: %d passed, %d failed" % (lab.n, sum(p.status == PASS for p in parts),
                                            failed_parts))
    return failed_parts
