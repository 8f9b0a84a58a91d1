"""kit.integrity - is the kit that grades the kit that was released?

A release (make dist-student) carries KIT.sha256: the SHA-256 of every
file of the kit a student must not change -- Makefile, mk/, common/,
tests/, tools/, and in labs/ everything but the files the students edit
(lab.edit) -- one "HASH  PATH" line each, like sha256sum.  check() compares
the tree with it: a file changed or missing, or a new file in one of the
kit's folders (a new tests/labN/test_*.c would be built into the tests),
is reported by name.  A tree without KIT.sha256 (the kit's own repository)
is compared with git's HEAD instead, where git can say; otherwise it is not
checked, and check() says so.  The grade goes on either way: the report
carries what was found, and the instructor decides.

unit_suspicions() says where a unit part's evidence does not add up -- a
test the binary does not list, one it lists that the runner never
declared, a test Criterion's report passes that the runner saw fail or
never saw end: the grader then reports the part SUSPECT, with no points,
for the instructor to look at (kit.grading).
"""
import hashlib
import os
import re

from . import ROOT, proc, sandbox

MANIFEST = "KIT.sha256"
FOLDERS = ("mk", "common", "tests", "tools")       # no new file may appear there
FILES = ("Makefile",)
SKIP_DIRS = ("__pycache__",)


class Check:
    """state: "intact", "changed" or "unchecked"; what: one line;
    files: the paths that differ (changed, missing or added)."""

    def __init__(self, state, what, files=()):
        self.state, self.what, self.files = state, what, list(files)

    @property
    def intact(self):
        return self.state == "intact"

    def to_dict(self):
        return dict(state=self.state, what=self.what, files=self.files)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def kit_files(root, student_files):
    """The kit's files under @root, relative, sorted: FILES, everything in
    FOLDERS, and labs/ without @student_files (relative paths)."""
    found = [f for f in FILES if os.path.isfile(os.path.join(root, f))]
    for top in FOLDERS + ("labs",):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), root)
                if not f.endswith(".pyc") and rel not in student_files:
                    found.append(rel)
    return sorted(found)


def write_manifest(root, student_files):
    """Write @root/KIT.sha256; return its own SHA-256 (say it where the
    instructor keeps the release's)."""
    path = os.path.join(root, MANIFEST)
    with open(path, "w") as f:
        for rel in kit_files(root, student_files):
            f.write("%s  %s\n" % (sha256(os.path.join(root, rel)), rel))
    return sha256(path)


def student_files(labs):
    """The paths, relative to the root, of the files students edit in
    labs/ (each lab's lab.edit)."""
    return {os.path.join(l.dir, f) for l in labs for f in l.edit}


def check(root=ROOT, students=()):
    """A Check of the kit at @root; @students: the files in labs/ that are
    the students' (student_files()), not the kit's."""
    path = os.path.join(root, MANIFEST)
    if os.path.exists(path):
        return _against_manifest(root, path)
    if os.path.exists(os.path.join(root, ".git")):
        return _against_git(root, set(students))
    return Check("unchecked", "kit: not checked (no %s and no git history)" % MANIFEST)


def _against_manifest(root, path):
    want = {}
    with open(path) as f:
        for line in f:
            h, _, rel = line.rstrip("\n").partition("  ")
            if rel:
                want[rel] = h
    bad = []
    for rel, h in sorted(want.items()):
        full = os.path.join(root, rel)
        if not os.path.isfile(full):
            bad.append(rel + " (missing)")
        elif sha256(full) != h:
            bad.append(rel + " (changed)")
    listed = set(want)
    for rel in kit_files(root, ()):
        if rel.split(os.sep)[0] in FOLDERS and rel not in listed:
            bad.append(rel + " (added)")
    tag = "%s %s" % (MANIFEST, sha256(path)[:12])
    if bad:
        return Check("changed", "kit: %d file(s) differ from the release (%s): %s"
                     % (len(bad), tag, ", ".join(bad[:6]) + (" ..." if len(bad) > 6 else "")), bad)
    return Check("intact", "kit: intact, %d files match the release (%s)" % (len(want), tag))


def _against_git(root, students):
    paths = list(FILES) + list(FOLDERS) + ["labs"]
    r = proc.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=all", "--"]
                 + paths, 30)
    head = proc.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], 30)
    if r.rc != 0 or head.rc != 0:
        return Check("unchecked", "kit: not checked (no %s; git cannot say)" % MANIFEST)
    bad = [l[3:] for l in r.out.splitlines() if len(l) > 3 and l[3:] not in students]
    tag = "git HEAD %s, no %s: a development tree" % (head.out.strip(), MANIFEST)
    if bad:
        return Check("changed", "kit: %d file(s) differ from %s: %s"
                     % (len(bad), tag, ", ".join(bad[:6]) + (" ..." if len(bad) > 6 else "")), bad)
    return Check("intact", "kit: as committed (%s)" % tag)


PASSED = 0          # Criterion's CR_STATUS_PASSED, in the runner's outcome lines


def listed_tests(binary):
    """The set of "suite/name" that Criterion binary @binary lists (--list,
    jailed: nothing of the code under test runs to list them), or None."""
    r = proc.run([binary, "--list"], 60, jail=sandbox.Jail())
    if r.rc != 0:
        return None
    found, suite = set(), None
    for line in r.out.splitlines():
        m = re.match(r"^(\S+): \d+ tests?$", line)
        if m:
            suite = m.group(1)
        elif suite and line[:1] in ("\u251c", "\u2514"):
            found.add("%s/%s" % (suite, line.split(None, 1)[1].strip()))
    return found


def unit_suspicions(binary, report):
    """Lines saying where @report (a kit.criterion.Report of @binary) does
    not add up; [] when it does."""
    listed = listed_tests(binary)
    if listed is None:
        return ["%s --list failed: the tests it declares cannot be counted" % binary]
    declared = {t.id for t in report.tests if not t.undeclared}
    found = []
    if report.declared and declared != listed:
        found.append("the binary lists %d tests, its runner declared %d (%s)" % (
            len(listed), len(declared), ", ".join(sorted(listed ^ declared)[:3])))
    for t in report.tests:
        if t.status != "PASSED":
            continue
        if t.outcome is None:
            found.append("%s: PASSED in the report, but the runner never saw it end" % t.id)
        elif t.outcome.get("status") != PASSED:
            found.append("%s: PASSED in the report, but the runner saw status %s"
                         % (t.id, t.outcome.get("status")))
    return found
