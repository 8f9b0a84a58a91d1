"""kit.grading - grade one lab, part by part.

The parts, in order (mk/labs.mk LAB_PARTS):
  unit-plain   the Criterion binary, -O2
  unit-asan    the same tests under AddressSanitizer + UBSan
  tsan         every case of every TSan program (kit.tsan)
  race         every graded race scenario and every exercise (kit.race)
A part is graded when the lab's manifest gives it points.  Its points are
shared among its items -- each Criterion test, TSan case, race scenario
and exercise (Item) -- by weight (lab.weights, default 1: share()), and
the part scores what its passing items are worth: a student half way
sees how far.  A part whose run as a whole cannot be trusted (a binary
killed by a limit, one that never declared its tests or wrote its report,
a refusal, a build failure) scores 0.

grade_lab() first checks the submission (kit.precheck): a refused one
scores 0 on every part, REFUSED, and none of it runs.  With build=True it
then builds each part (a part that does not build scores 0 with the
compiler's message).  Each part runs jailed (kit.sandbox).  Every part
runs even when the unit tests fail: a TSan report or a race timeline is
what teaches; the later parts then say in their line that they depend on
the unit tests (Part.note), and score what they pass.

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
  SKIPPED   not run (only where a caller asks for some parts)
Every failure comes with the command that reruns it alone, in the
student's terms (make test-N TEST=...), and its hint if its test has one
(kit.testsrc).  print_report() lists failures part by part, in the
handout's order (lab.order, then where the tests are declared).
"""
import fnmatch
import hashlib
import os
import time

from . import criterion, integrity, jailcc, limits, precheck, race, sandbox, testsrc, tsan

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
CRASH, TIMEOUT, OOM, REFUSED, SKIPPED = "CRASH", "TIMEOUT", "OOM", "REFUSED", "SKIPPED"
DEADLOCK, LIVELOCK, SUSPECT = "DEADLOCK", "LIVELOCK", "SUSPECT"
VERDICTS = (PASS, FAIL, CRASH, TIMEOUT, OOM, DEADLOCK, LIVELOCK, REFUSED, SUSPECT, SKIPPED)
# Worst first: a part's verdict is the worst of its failures.
SEVERITY = (OOM, TIMEOUT, CRASH, DEADLOCK, LIVELOCK, FAIL)
PARTS = ("unit-plain", "unit-asan", "tsan", "race")
PARENT = "unit-plain"       # when it fails, the later parts say so
MAX_FAILURES = 6            # failing items shown per part (all: the report file)
MAX_DETAILS = 16            # lines of a part's details shown (make flaky)


class Item:
    """One graded test of a part: a Criterion test, a TSan case, a race
    scenario or an exercise.

    name        as the handout names it: suite::test, program::case, the
                scenario, the exercise's file
    verdict     PASS, FAIL, CRASH, TIMEOUT, OOM, DEADLOCK or LIVELOCK
    why         one line: the assertion's message, what was seen
    alone       the command that reruns it alone, in the student's terms
    details     lines under it: TSan's two accesses, a timeline excerpt
    weight      its share of the part's points (lab.weights; default 1)
    cents       what it is worth, in hundredths of a point (share())
    hint        what to try, declared beside the test (kit.testsrc), or None
    """

    def __init__(self, name, verdict, why="", alone="", details=(), weight=1):
        self.name, self.verdict, self.why, self.alone = name, verdict, why, alone
        self.details, self.weight = list(details), weight
        self.cents, self.hint, self.rank = 0, None, 0

    @property
    def ok(self):
        return self.verdict == PASS

    @property
    def points(self):
        return _num(self.cents / 100.0 if self.ok else 0)

    @property
    def max_points(self):
        return _num(self.cents / 100.0)

    def line(self):
        """"[FAIL] suite::test: why", as the report shows it."""
        return "[%s] %s: %s" % (self.verdict, self.name, self.why) if self.why else \
            "[%s] %s" % (self.verdict, self.name)

    def to_dict(self):
        return dict(name=self.name, verdict=self.verdict, why=self.why,
                    points=self.points, max_points=self.max_points, alone=self.alone,
                    details=self.details, hint=self.hint)


def _num(x):
    """@x as an int if it is whole, else rounded to hundredths."""
    return int(round(x)) if abs(x - round(x)) < 1e-9 else round(x, 2)


def fmt(x):
    """A number of points as the report prints it: 30, 12.31."""
    return ("%.2f" % x).rstrip("0").rstrip(".")


def share(items, points, weights=None):
    """Give @items their shares of @points, in hundredths, by weight (the
    first pattern of @weights that an item's name matches; default 1):
    largest remainder, so that the shares add up to @points exactly."""
    for i in items:
        i.weight = next((w for pat, w in (weights or {}).items()
                         if fnmatch.fnmatchcase(i.name, pat)), i.weight)
    total = sum(i.weight for i in items)
    if not total:
        return
    exact = [points * 100.0 * i.weight / total for i in items]
    for i, x in zip(items, exact):
        i.cents = int(x)
    left = points * 100 - sum(i.cents for i in items)
    by_rest = sorted(range(len(items)), key=lambda k: exact[k] - int(exact[k]), reverse=True)
    for k in by_rest[:left]:
        items[k].cents += 1


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
    items       [Item]: its tests, cases, scenarios and exercises, each
                with its share of the points; empty when the part failed
                as a whole (it then scores 0)
    note        why its verdict may depend on another part, or ""
    diagnostics lines about the whole run (a sanitizer's report that
                cannot be pinned to one test), shown after the items
    """

    def __init__(self, name, status, summary, details=(), hint=None, max_points=0,
                 verdict=None, items=()):
        self.name, self.status, self.summary = name, status, summary
        self.details, self.hint, self.max_points = list(details), hint, max_points
        self.verdict = verdict or {PASS: PASS, FAIL: FAIL, SKIP: SKIPPED}[status]
        self.seconds = 0.0
        self.items, self.note, self.diagnostics = list(items), "", []

    @property
    def graded(self):
        return self.status != SKIP

    @property
    def cents(self):
        """What it scores, in hundredths of a point."""
        if self.items and self.verdict not in WHOLE:
            return sum(i.cents for i in self.items if i.ok)
        return self.max_points * 100 if self.status == PASS else 0

    @property
    def points(self):
        return _num(self.cents / 100.0)

    @property
    def failing(self):
        """Its failing items, in the handout's order."""
        return sorted((i for i in self.items if not i.ok), key=lambda i: i.rank)

    def to_dict(self):
        return dict(name=self.name, status=self.status, verdict=self.verdict,
                    summary=self.summary, note=self.note, details=self.details,
                    hint=self.hint, points=self.points, max_points=self.max_points,
                    seconds=round(self.seconds, 2),
                    items=[i.to_dict() for i in sorted(self.items, key=lambda i: i.rank)])


# Verdicts that a part earns as a whole, whatever its items passed: the
# grader could not trust the run (or nothing ran).
WHOLE = (REFUSED, SUSPECT)


def failed(name, verdict, summary, details=(), hint=None, items=()):
    return Part(name, FAIL, summary, details, hint, verdict=verdict, items=items)


def itemized(name, items, summary, hint=None, whole=None):
    """The Part of @items: PASS iff each passed (and @whole, a verdict of
    the run as a whole, is None); its details list each failing item with
    the command that reruns it alone."""
    bad = [i for i in items if not i.ok]
    if not bad and not whole:
        return Part(name, PASS, summary, items=items)
    return failed(name, whole or worst([i.verdict for i in bad]), summary, (), hint, items)


def suspect(name, why):
    """A SUSPECT Part: the evidence does not add up (@why, lines)."""
    return failed(name, SUSPECT, "the evidence does not add up: " + why[0][:120], why,
                  "An instructor should look at this submission by hand: the grader "
                  "found its evidence inconsistent, and gave the part no points.")


def worst(verdicts):
    """The worst of @verdicts (FAIL if none is known)."""
    return next((v for v in SEVERITY if v in verdicts), FAIL)


def shown(lab):
    """(tree, hidden tests) as the student names them: lab.impl and
    lab.extra_tests, unless the grade shows commands for the student's own
    tree (lab.as_student: Gradescope, whose trees are temporary)."""
    if getattr(lab, "as_student", False):
        return "labs", ""
    return lab.impl, lab.extra_tests


def make_command(lab, target, *args):
    """The make command line that reruns @target for this lab's tree."""
    impl, extra = shown(lab)
    words = ["make", "%s-%d" % (target, lab.n)] + list(args)
    words += [] if impl == "labs" else ["IMPL=%s" % impl]
    words += ["EXTRA_TESTS=%s" % extra] if extra else []
    return " ".join(words)


def test_command(lab, name, variant=None):
    """make test-N TEST=NAME: runs one item alone, in the student's terms."""
    return make_command(lab, "test", "TEST=%s" % name,
                        *(["VARIANT=%s" % variant] if variant else []))


def edited_sources(lab, failing=()):
    """The student's C files, as the student names them: those named like
    the suite of a failing test of @failing (test_cache.c's cache:: tests
    call cache.c), or all of them when none is."""
    impl = os.path.join(shown(lab)[0], lab.folder)
    files = [f for f in lab.edit if f.endswith(".c")]
    suites = {i.name.split("::")[0] for i in failing}
    named = [f for f in files if f[:-2] in suites]
    return ", ".join(os.path.join(impl, f) for f in named or files)


def _finish(lab, part, hints=None):
    """Share @part's points among its items (lab.weights), rank them in
    the handout's order (lab.order) and give each its hint."""
    part.max_points = lab.points.get(part.name, 0)
    share(part.items, part.max_points, lab.weights)
    hints = testsrc.hints(lab) if hints is None else hints
    declared = testsrc.declared(lab)
    declared = dict(declared, **_ranks(lab))
    for k, i in enumerate(part.items):
        i.rank = ordered_key(lab.order, declared, i.name, k)
        i.hint = hints.get(i.name)
    if part.items and part.status == FAIL:
        part.details = [d for i in part.failing for d in
                        [i.line()] + ["    " + x for x in i.details] + ["    alone: " + i.alone]]
        part.details += part.diagnostics
    return part


def ordered_key(order, declared, name, k):
    """Where @name comes in the handout's order: the first pattern of
    @order it matches, then where it is declared (@declared: {name: n}),
    then @k."""
    first = next((n for n, pat in enumerate(order) if fnmatch.fnmatchcase(name, pat)),
                 len(order))
    return (first, declared.get(name, 1 << 30), k)


def _ranks(lab):
    """{item name: place} for the exercises: before anything else in their
    part, unless lab.order places them."""
    return {ex.file: -1 for ex in lab.exercises}


# --- the parts ---------------------------------------------------------------------

def grade_unit(lab, name, first_failure=False):
    """A Criterion binary: an item per declared test, PASS iff it ran to
    its end and passed; the part passes iff every test does and the binary
    exited 0.  A binary killed by a limit, or that never declared its tests
    or wrote its report, fails as a whole.  @first_failure: Criterion stops
    starting tests at the first that fails (--fail-fast); the tests it did
    not run are not in its report, so they fail too -- the part's verdict
    is the same, only its list of failures is short."""
    binary = lab.bins[name]
    if not os.path.exists(binary):
        return failed(name, FAIL, "not built: " + binary)
    report = criterion.run(binary, args=["--fail-fast"] if first_failure else ())
    verdict, summary = report.verdict()
    odd = integrity.unit_suspicions(binary, report)
    if odd:
        return suspect(name, odd)
    variant = "asan" if name == "unit-asan" else None
    if not report.trusted():
        return failed(name, verdict, summary, report.details(), _unit_hint(lab))
    items = []
    for t in report.tests:
        v, why = t.verdict()
        if t.undeclared:
            v, why = FAIL, "reported, but the binary does not declare it"
        items.append(Item(t.display, v, why, test_command(lab, t.display, variant)))
    part = itemized(name, items, summary, _unit_hint(lab, [i for i in items if not i.ok]),
                    whole=verdict if verdict != PASS and all(i.ok for i in items) else None)
    if part.status == FAIL:
        part.diagnostics = report.diagnostics()
    return part


def _unit_hint(lab, failing=()):
    return ("Read each failing test's message above, fix %s (the handout: %s), "
            "and run '%s' again; '%s' shows the failing tests' hints."
            % (edited_sources(lab, failing), lab.handout, make_command(lab, "lab"),
               make_command(lab, "hint")))


def _case_verdict(seen):
    word = seen.split(":")[0].split()[0]
    return word if word in SEVERITY else FAIL


def grade_tsan(lab, first_failure=False):
    """Every case of every TSan program gets its listed verdict: an item
    per case (@first_failure: none after the first that fails)."""
    progs = lab.bins["tsan"]
    if not progs:
        return Part("tsan", SKIP, "no TSan programs for this lab")
    details, bad, items = [], [], []
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
            name = "%s::%s" % (os.path.basename(prog), case.name)
            if hung:
                good, seen, report = False, "not run: the previous case hung", []
            else:
                report = []
                good, seen, _ = tsan.run_case(
                    case, limits.TSAN_RACE_RUNS if case.expect == "race"
                    else limits.TSAN_CLEAN_RUNS, log=report)
                hung = seen.startswith("TIMEOUT")
            why = "expected %s, %s" % (case.expect, seen)
            items.append(Item(name, PASS if good else _case_verdict(seen), why,
                              test_command(lab, name),
                              tsan.accesses("\n".join(report), shown(lab)[0], lab.impl)
                              if not good else ()))
            if first_failure and not good:
                break
        if first_failure and items and not items[-1].ok:
            break
    summary = "%d case(s) in %d program(s): %d passed" % (
        len(items), len(progs), sum(i.ok for i in items))
    hint = ("A case expected 'clean' that races means a reference is taken or "
            "dropped outside the rule (see %s); one that fails its own checks "
            "(exit 1) means the code does not work yet: run the unit tests first."
            % lab.handout)
    if bad:
        return failed("tsan", worst(bad), summary, details, hint)
    return itemized("tsan", items, summary, hint)


def grade_race(lab, first_failure=False):
    """Every graded scenario meets its expectation; every exercise replays
    to its verdict: an item each, the exercises first (@first_failure:
    none after the first scenario that fails)."""
    binary = lab.bins["race"]
    if not binary:
        return Part("race", SKIP, "no race scenarios for this lab")
    try:
        found = race.grade_items(binary, lab.exercises, lab.impl_dir,
                                 shown_dir=os.path.join(shown(lab)[0], lab.folder),
                                 first_failure=first_failure)
    except race.BinaryError as e:
        return failed("race", CRASH, str(e), ["    alone: %s list" % binary])
    found = [i for i in found if i.exercise] + [i for i in found if not i.exercise]
    items = []
    for i in found:
        alone = "make replay SCHED=%s" % i.sched if i.exercise else test_command(lab, i.name)
        items.append(Item(i.name, i.verdict, i.why, alone, i.excerpt))
    passed = sum(i.ok for i in items)
    summary = "%d/%d scenarios and exercises passed" % (passed, len(items))
    hint = ("See the timelines, one column per thread: '%s'."
            % make_command(lab, "race"))
    for ex in lab.exercises:
        hint += ("  Replay your schedule step by step: 'make replay SCHED=%s'."
                 % os.path.join(shown(lab)[0], lab.folder, ex.file))
    return itemized("race", items, summary, hint)


# name -> grader(lab, first_failure).
GRADERS = {
    "unit-plain": lambda lab, first_failure=False: grade_unit(lab, "unit-plain", first_failure),
    "unit-asan": lambda lab, first_failure=False: grade_unit(lab, "unit-asan", first_failure),
    "tsan": grade_tsan,
    "race": grade_race,
}


def part_targets(lab, name):
    """The binaries part @name of @lab runs (what `make` must build)."""
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
                           % (lab.n, shown(lab)[0])],
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
    targets = part_targets(lab, name)
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
    """The make command that builds @targets of this lab's tree (for the
    student: the grade's own command, which builds first)."""
    if getattr(lab, "as_student", False):
        return make_command(lab, "lab")
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
        for path in part_targets(lab, name):
            try:
                with open(path, "rb") as f:
                    prints[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                prints[path] = None
    return prints


# --- a lab --------------------------------------------------------------------------

def grade_lab(lab, parts=None, parents=True, check=True, build=False, first_failure=False):
    """[Part] for every part of @lab, in PARTS order.

    @parts: grade only these (the others are SKIP); @parents: a later part
    says in its note that the unit tests (unit-plain) fail, when they do --
    every part runs whatever the others did; @check: the pre-build check
    first; @build: build each part first (else its binaries must be built);
    @first_failure: a part stops at its first failing item (make
    check-catalogues' known-wrong rows, which ask only whether a part
    rejects; never a student's grade, which shows every failure).
    Its compiles share one jail and one loaded clang (kit.jailcc).
    """
    with jailcc.serving(lab):
        return _grade_lab(lab, parts, parents, check, build, first_failure)


def _grade_lab(lab, parts, parents, check, build, first_failure):
    if check:
        refusal = refused(lab, parts)
        if refusal:
            return refusal
    run = _Run(lab, [n for n in PARTS if n in lab.points and (not parts or n in parts)], build,
               first_failure)
    result = []
    for name in PARTS:
        if name not in lab.points:
            result.append(Part(name, SKIP, "not graded: no points in %s/lab.mk" % lab.dir))
        elif parts and name not in parts:
            result.append(Part(name, SKIP, "not graded in this run"))
        else:
            result.append(run.part(name))
            parent = next((p for p in result if p.name == PARENT and p.graded), None)
            if parents and name != PARENT and parent and parent.status != PASS:
                result[-1].note = DEPENDS.get(name, "")
    plain, asan = result[0], result[1]
    if plain.status == asan.status == FAIL and plain.failing and \
            [i.line() for i in plain.failing] == [i.line() for i in asan.failing] and \
            plain.diagnostics == asan.diagnostics:
        asan.details, asan.hint = [SAME], None
    return result


SAME = "the same failures as unit-plain"
# What a part's verdict means while the unit tests fail.
DEPENDS = {
    "unit-asan": "the unit tests fail: ASan runs the same tests",
    "tsan": "the unit tests fail: a case may fail its own checks, not TSan's",
    "race": "the unit tests fail: a scenario may fail on code that does not work yet",
}


class _Run:
    """The parts of one grade of @lab: built as they are needed (the parent
    first), run, and checked for a binary the code under test changed
    (kit.sandbox's walls forbid it; this catches it where they cannot
    stand)."""

    def __init__(self, lab, todo, build, first_failure=False):
        self.lab, self.todo, self.build = lab, todo, build
        self.first_failure = first_failure
        self.built, self.broken = set(), {}
        self.prints = _fingerprint(lab)

    def make(self, name):
        now = [name] if name == PARENT else [n for n in self.todo if n not in self.built]
        self.built.update(now)
        if not self.lab.make(sum((part_targets(self.lab, n) for n in now), [])).ok:
            self.broken.update({n: _unbuilt(self.lab, n) for n in now})
        self.prints.update(_fingerprint(self.lab))

    def part(self, name):
        t0 = time.monotonic()
        if self.build and name not in self.built:
            self.make(name)
        sandbox.suspicions()            # what earlier runs left is not this part's
        if self.broken.get(name):
            part = self.broken[name]
        else:
            part = GRADERS[name](self.lab, self.first_failure)
        odd = sandbox.suspicions()
        if odd:
            part = suspect(name, odd)
        if part.status == SKIP:
            part = failed(name, FAIL, "lab.mk gives it points, but " + part.summary)
        changed = [p for p, h in _fingerprint(self.lab).items() if h != self.prints.get(p)]
        if changed:
            part = failed(name, FAIL, "the code under test changed a built binary: %s"
                          % ", ".join(changed))
        part = _finish(self.lab, part)
        part.seconds = time.monotonic() - t0
        return part


def score(parts):
    """(points, max points)."""
    return _num(sum(p.cents for p in parts) / 100.0), sum(p.max_points for p in parts)


def progress(parts):
    """One line: how far each graded part is, "unit-plain 9/13 · tsan 1/2 ·
    race 3/5 · race.sched not written yet"."""
    bits = []
    for p in parts:
        if not p.graded:
            continue
        if not p.items:
            bits.append("%s %s" % (p.name, p.verdict))
            continue
        bits.append("%s %d/%d" % (p.name, sum(i.ok for i in p.items), len(p.items)))
        bits += ["%s not written yet" % i.name for i in p.items
                 if not i.ok and i.why == race.NOT_WRITTEN]
    return " \u00b7 ".join(bits)


def _part_line(p):
    pts = "%6s/%-3d" % (fmt(p.points), p.max_points) if p.graded else "    -     "
    note = "  (%s)" % p.note if p.note else ""
    return "  %-10s %-8s %s  %s%s" % (p.name, p.verdict if p.graded else "-", pts, p.summary,
                                      note)


def report_lines(lab, parts, limit=None, report_file=None):
    """The lines `make lab-N` prints: the table, then each failing part's
    failures in the handout's order, at most @limit of them per part (the
    rest counted, with @report_file, where every one is), the hint of
    each, and what to do next."""
    impl, extra = shown(lab)
    lines = ["lab-%d (%s%s%s)" % (lab.n, lab.folder, "" if impl == "labs" else ", IMPL=" + impl,
                                 ", EXTRA_TESTS=" + extra if extra else "")]
    lines += [_part_line(p) for p in parts]
    for p in parts:
        if p.status != FAIL or not (p.details or p.items):
            continue
        lines.append("\n%s: %s" % (p.name, p.verdict))
        if p.items and p.verdict not in WHOLE and p.failing:
            if p.details == [SAME]:
                lines.append("    " + SAME)
            else:
                lines += _item_lines(p, limit, report_file)
        else:
            lines += ["    " + d for d in p.details[:limit or None]]
        if p.hint and p.details != [SAME]:
            lines.append("  next: " + p.hint)
    got, most = score(parts)
    skipped = [p.name for p in parts if p.status == SKIP]
    lines.append("")
    if skipped:
        lines.append("not graded: %s" % ", ".join(skipped))
    lines.append("score: %s/%d" % (fmt(got), most))
    lines.append("lab-%d: %d passed, %d failed" % (lab.n, sum(p.status == PASS for p in parts),
                                                    sum(p.status == FAIL for p in parts)))
    return lines


def _item_lines(p, limit, report_file):
    lines, bad = [], p.failing
    for i in bad[:limit or None]:
        lines.append("    " + i.line())
        lines += ["        " + d for d in i.details]
        lines.append("        alone: " + i.alone)
    more = len(bad) - len(bad[:limit or None])
    if more:
        lines.append("    ... %d more failing test%s%s" % (
            more, "s" if more > 1 else "", ": see " + report_file if report_file else ""))
    return lines + ["    " + d for d in p.diagnostics]


def print_report(lab, parts, report_file=None):
    """The table `make lab-N` prints (report_lines, MAX_FAILURES failures
    per part); returns the number of failed parts."""
    print("\n".join(report_lines(lab, parts, MAX_FAILURES, report_file)))
    return sum(p.status == FAIL for p in parts)
