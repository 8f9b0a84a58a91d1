#!/usr/bin/env python3
"""dist_student.py - the students' tree (make dist-student).

    python3 tools/dist_student.py [--dest DIR]

Copies the kit to DIR (default build/dist-student) without what students
must not have: INSTRUCTOR_ONLY below -- the solutions, the catalogues of
wrong and of correct alternative solutions, the hostile grader fixtures,
the instructor's guide and the autograder layouts.  The files students
edit are the skeletons of labs/.  Then writes DIR/KIT.sha256, the
checksums of the kit's files (kit/integrity.py), and prints its own
SHA-256: keep it, and the grader can say whether a tree it grades still
has the released tests.  The file list is git's (tracked, and new files
not ignored) where the kit is a git checkout, else every file but build
outputs.  Standard library only.
"""
import argparse
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dest", default=os.path.join("build", "dist-student"))
    dest = os.path.abspath(os.path.join(ROOT, ap.parse_args().dest))
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
    digest = integrity.write_manifest(dest, integrity.student_files(labs))
    print("dist-student: %d files in %s (left out: %s)" % (len(copied), dest,
                                                          ", ".join(INSTRUCTOR_ONLY)))
    print("dist-student: %s sha256 %s -- keep it: the grader prints the first 12 digits"
          % (integrity.MANIFEST, digest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
