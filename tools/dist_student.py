#!/usr/bin/env python3
"""dist_student.py - the students' tree (make dist-student).

    python3 tools/dist_student.py [--dest DIR] [--no-grade]

Copies the kit to DIR (default build/dist-student) without what students
must not have: INSTRUCTOR_ONLY below -- the solutions, the catalogues of
wrong and of correct alternative solutions, the hostile grader fixtures,
the instructor's guide and the autograder layouts.  The files students
edit (each lab's lab.edit) are the skeletons as committed: taken from git
HEAD (git show), never from the working tree, where an instructor may
have tried a lab; each one whose working copy differs is named.  Outside
a git checkout there is nothing committed to take them from: it refuses.
Then it grades its own output's unit tests once (unit-plain, every lab)
and refuses if a skeleton scores anything: a solved file would
(--no-grade skips this, for make check, which grades the tree whole).
Then writes DIR/KIT.sha256, the
checksums of the kit's files (kit/integrity.py), and prints its own
SHA-256: keep it, and the grader can say whether a tree it grades still
has the released tests.  The file list is git's (tracked, and new files
not ignored) where the kit is a git checkout, else every file but build
outputs.  Standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, integrity, layout  # noqa: E402

INSTRUCTOR_ONLY = ("solutions/", "tests/mutants/", "tests/alternatives/", "tests/grader/",
                   "docs/instructor.md", "tools/autograder/")
NEVER = (".git/", "build/")


def files():
    """The kit's files, relative to the root."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout
        found = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d, dirs, names in os.walk(ROOT):
            dirs[:] = [x for x in dirs if x not in (".git", "build", "__pycache__")]
            found += [os.path.relpath(os.path.join(d, n), ROOT) for n in names]
    return sorted(f for f in set(found) if os.path.isfile(os.path.join(ROOT, f))
                  and not f.startswith(INSTRUCTOR_ONLY + NEVER) and "__pycache__" not in f)


def committed(rel):
    """The bytes of @rel at git HEAD, or None if it is not committed (or
    the kit is not a git checkout)."""
    r = subprocess.run(["git", "-C", ROOT, "show", "HEAD:" + rel], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return r.stdout if r.returncode == 0 else None


def skeletons(labs, dest):
    """Write each lab's edited files into @dest from git HEAD; return the
    ones whose working copy differs, or None where one is not committed."""
    differ = []
    for lab in labs:
        for f in lab.edit:
            rel = os.path.join("labs", lab.folder, f)
            data = committed(rel)
            if data is None:
                return None, rel
            with open(os.path.join(dest, rel), "wb") as out:
                out.write(data)
            try:
                with open(os.path.join(ROOT, rel), "rb") as mine:
                    if mine.read() != data:
                        differ.append(rel)
            except OSError:
                differ.append(rel)
    return differ, None


def self_grade(dest):
    """[lab whose skeleton scores anything] of @dest's unit tests, or a
    one-line reason the grade did not run.  The files are the kit's own
    commit, not a stranger's: no pre-build check (their build and run are
    jailed all the same)."""
    report = os.path.join(ROOT, "build", "dist-student-check")
    cmd = [sys.executable, os.path.join(ROOT, "tools", "grade.py"), "--impl",
           os.path.join(dest, "labs"), "--build", "--parts", "unit-plain",
           "--no-precheck", "--report-dir", report]
    r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    try:
        with open(os.path.join(report, "results.json")) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None, "the grade of its skeletons did not finish: %s" % r.stdout[-300:]
    return ["lab-%d (%s/%s)" % (l["lab"], l["score"], l["max_score"])
            for l in data["labs"] if l["score"]], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dest", default=os.path.join("build", "dist-student"))
    ap.add_argument("--no-grade", action="store_true")
    args = ap.parse_args()
    dest = os.path.abspath(os.path.join(ROOT, args.dest))
    if os.path.exists(dest) and os.listdir(dest) and \
            not os.path.exists(os.path.join(dest, integrity.MANIFEST)):
        sys.exit("dist_student.py: %s exists and is not a student tree: remove it or "
                 "choose another DEST" % dest)
    shutil.rmtree(dest, ignore_errors=True)
    copied = files()
    for rel in copied:
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(dest, rel))
    labs = layout.labs()
    differ, missing = skeletons(labs, dest)
    if differ is None:
        shutil.rmtree(dest, ignore_errors=True)
        sys.exit("dist_student.py: %s is not committed (or this is not a git checkout): "
                 "the students' files come from git HEAD, commit the skeletons first" % missing)
    for rel in differ:
        print("dist-student: %s: your working copy differs from the committed skeleton, "
              "which is shipped" % rel)
    if not args.no_grade:
        scored, why = self_grade(dest)
        if scored or why:
            shutil.rmtree(dest, ignore_errors=True)
            sys.exit("dist_student.py: %s" % (why or "the skeletons must score 0, but %s "
                                              "scored: commit the skeletons, not a solution"
                                              % ", ".join(scored)))
        print("dist-student: every skeleton scores 0 on its unit tests")
    digest = integrity.write_manifest(dest, integrity.student_files(labs))
    print("dist-student: %d files in %s (left out: %s)" % (len(copied), dest,
                                                          ", ".join(INSTRUCTOR_ONLY)))
    print("dist-student: %s sha256 %s -- keep it: the grader prints the first 12 digits"
          % (integrity.MANIFEST, digest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
