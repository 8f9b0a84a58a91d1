"""kit.submission - a student's submission, as a tree the grader can use.

A submission arrives in many shapes: a copy of the whole kit, the labs/
folder, the lab folders alone, or the files themselves (Gradescope's
upload).  collect() finds, for each lab, the files the student edits
(lab.edit) and copies exactly those into a fresh tree, DEST/<folder>/<file>:
nothing else from the submission is ever built or run.  Where a file is
looked for, in order: SRC/<folder>/<file>, any SRC/.../<folder>/<file>,
then a file of that name anywhere under SRC if there is exactly one --
unless another lab graded edits a file of that name too (labs 2 and 4 both
have refcount.c): then only a lab folder says whose it is.
"""
import os
import shutil


def _index(src):
    """{file name: [paths]} of every file under @src (no hidden folders)."""
    found = {}
    for d, dirs, files in os.walk(src):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in files:
            found.setdefault(f, []).append(os.path.join(d, f))
    return found


def find(src, folder, name, index=None, shared=False):
    """The path of lab file @name of @folder in submission @src, or None.
    @shared: another lab edits a file of that name, so a file outside a
    folder named @folder is nobody's."""
    direct = os.path.join(src, folder, name)
    if os.path.isfile(direct):
        return direct
    paths = (index or _index(src)).get(name, [])
    inside = [p for p in paths if os.path.basename(os.path.dirname(p)) == folder]
    if inside:
        return sorted(inside, key=len)[0]
    return paths[0] if len(paths) == 1 and not shared else None


def collect(src, labs, dest):
    """Copy each lab's edited files from submission @src into tree @dest;
    return {lab number: [the files not found]} (labs with none found are
    left out of @dest, so the grader says 'no folder')."""
    index = _index(src)
    owners = {}
    for lab in labs:
        for f in lab.edit:
            owners[f] = owners.get(f, 0) + 1
    missing = {}
    for lab in labs:
        found = {f: find(src, lab.folder, f, index, owners[f] > 1) for f in lab.edit}
        missing[lab.n] = sorted(f for f, p in found.items() if not p)
        if len(missing[lab.n]) == len(found):
            continue
        os.makedirs(os.path.join(dest, lab.folder), exist_ok=True)
        for f, p in found.items():
            if p:
                shutil.copyfile(p, os.path.join(dest, lab.folder, f))
    return missing
