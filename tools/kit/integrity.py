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
"""
import hashlib
import os

from . import ROOT, proc

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
