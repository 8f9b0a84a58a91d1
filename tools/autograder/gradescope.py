#!/usr/bin/env python3
"""gradescope.py - the kit as a Gradescope autograder.

    python3 tools/autograder/gradescope.py zip [--out FILE] [--extra-tests DIR] [--no-grade]
        the instructor's side (make gradescope-zip): FILE (default
        build/gradescope.zip) holds, at its root, what Gradescope asks for:
          setup.sh         runs once, as root, when Gradescope builds the
                           image: the kit's packages (tools/deps.sh) and its
                           shared objects (make kit-objs)
          run_autograder   runs for each submission
          gradescope.py    this file
          kit/             the students' tree (make dist-student), with
                           KIT.sha256
          hidden/          the hidden tests (--extra-tests), if any
        --no-grade: dist_student.py's own grade of the skeletons is left out
        (make check grades the students' tree in a row of its own)
    python3 gradescope.py run
        inside Gradescope (run_autograder calls it): the submission
        (/autograder/submission, in any shape tools/kit/submission.py
        understands) becomes a tree of the edited files only; every lab
        with a file in it is graded (tools/grade.py, the pre-build check and
        the sandbox included); /autograder/results/results.json is the
        grade in Gradescope's format: one test per graded item (each unit
        test, TSan case, race scenario, exercise) with its points, every
        command in the student's terms (make test-N ... in their own tree)
        and no path of the grader's; a visible test names each uploaded
        file that was not used (ambiguous, unknown, misplaced) and says
        what to do.

AUTOGRADER_ROOT (default /autograder) stands for Gradescope's paths; make
check runs the layout in a temporary folder that way.  GRADE_LABS="1 2"
(in run_autograder's environment) grades those labs whatever was uploaded.
Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def ag_root():
    return os.environ.get("AUTOGRADER_ROOT", "/autograder")


# --- inside Gradescope ---------------------------------------------------------------

def run():
    root = ag_root()
    source = os.path.join(root, "source")
    kit = os.path.join(source, "kit")
    sys.path.insert(0, os.path.join(kit, "tools"))
    from kit import layout, submission  # noqa: E402 (the kit in the zip)
    results = os.path.join(root, "results")
    os.makedirs(results, exist_ok=True)
    build = os.path.join(root, "build")
    hidden = os.path.join(source, "hidden")
    extra = hidden if os.path.isdir(hidden) else None
    labs = layout.labs(build=build, extra_tests=extra)
    tree = tempfile.mkdtemp(prefix="submission-", dir=root)
    wanted = os.environ.get("GRADE_LABS", "").split()
    if wanted:
        labs = [l for l in labs if str(l.n) in wanted]
    upload = os.path.join(root, "submission")
    missing = submission.collect(upload, labs, tree)
    todo = labs if wanted else [l for l in labs if len(missing[l.n]) < len(l.edit)]
    unused = unused_files(upload, labs, todo, submission)
    if not todo:
        names = ", ".join("%s/%s" % (l.folder, f) for l in labs for f in l.edit)
        data = dict(score=0, output="No lab's files were found in the submission.  "
                    "Upload the files you edited: %s." % names, tests=[])
        return write(results, scrub(add_unused(data, unused), root, tree))
    cmd = [sys.executable, os.path.join(kit, "tools", "grade.py"), "--impl", tree,
           "--build-root", build, "--build", "--as-student",
           "--report-dir", os.path.join(results, "kit")]
    cmd += sum((["--lab", str(l.n)] for l in todo), [])
    cmd += ["--extra-tests", extra] if extra else []
    r = subprocess.run(cmd, cwd=kit, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    print(r.stdout)
    try:
        with open(os.path.join(results, "kit", "gradescope.json")) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = dict(score=0, output="The grader failed (exit %d):\n%s"
                    % (r.returncode, r.stdout[-3000:]))
    for l in todo:
        if missing[l.n] and len(missing[l.n]) < len(l.edit):
            data["output"] = data.get("output", "") + "\nlab %d: not found in the upload: %s" % (
                l.n, ", ".join(missing[l.n]))
    return write(results, scrub(add_unused(data, unused), root, tree))


def unused_files(upload, labs, todo, submission):
    """[(path in the upload, why, what to do)] of every uploaded file the
    grade does not use: one no lab edits, one whose name two labs edit
    outside a lab folder (ambiguous), one beside the copy that was used
    (misplaced or a duplicate), one of a lab not graded."""
    index = submission._index(upload)
    owners = {}
    for lab in labs:
        for f in lab.edit:
            owners.setdefault(f, []).append(lab)
    used = set()
    for lab in todo:
        for f in lab.edit:
            p = submission.find(upload, lab.folder, f, index, len(owners[f]) > 1)
            if p:
                used.add(os.path.normpath(p))
    found = []
    for name, paths in sorted(index.items()):
        for p in sorted(paths):
            if os.path.normpath(p) in used:
                continue
            rel = os.path.relpath(p, upload)
            if name not in owners:
                found.append((rel, "no lab has a file of that name",
                              "upload only the files you edit: %s" % ", ".join(
                                  sorted({f for l in labs for f in l.edit}))))
            elif len(owners[name]) > 1 and not any(
                    os.path.basename(os.path.dirname(p)) == l.folder for l in owners[name]):
                found.append((rel, "ambiguous: labs %s each have a %s" % (
                    " and ".join(str(l.n) for l in owners[name]), name),
                    "put it in a folder named after its lab (%s) and upload again" % " or ".join(
                        "%s/%s" % (l.folder, name) for l in owners[name])))
            elif not any(l in todo for l in owners[name]):
                found.append((rel, "lab %s is not graded in this assignment" % " or ".join(
                    str(l.n) for l in owners[name]), "nothing: it is ignored"))
            else:
                found.append((rel, "another %s was used (the one in the lab's folder, or the "
                              "shortest path)" % name,
                              "upload one copy, in its lab's folder (%s)" % " or ".join(
                                  "%s/%s" % (l.folder, name) for l in owners[name])))
    return found


def add_unused(data, unused):
    """@data with a visible test that names each unused upload."""
    if not unused:
        return data
    lines = ["These uploaded files were not graded:", ""]
    lines += ["* `%s`: %s; %s." % (rel, why, todo) for rel, why, todo in unused]
    data.setdefault("tests", []).insert(0, dict(
        name="Uploaded files not used", score=0, max_score=0, status="failed",
        output="\n".join(lines), output_format="md", visibility="visible"))
    data["output"] = (data.get("output", "") + "\nNot used: %s (see the test "
                      "'Uploaded files not used')." % ", ".join(u[0] for u in unused)).strip()
    return data


def scrub(data, root, tree):
    """@data with every path of the grader's made the student's: the
    temporary tree is their labs/, the rest of AUTOGRADER_ROOT goes."""
    swaps = [(os.path.join(root, "source", "kit") + os.sep, ""),
             (tree + os.sep, "labs" + os.sep), (tree, "labs"),
             (os.path.join(root, "build") + os.sep, "build" + os.sep),
             (root + os.sep, ""), (root, ".")]
    build_dir = "build" + os.sep + tree.replace(os.sep, "_")
    swaps.insert(0, (os.path.join(root, build_dir), os.path.join("build", "labs")))

    def clean(v):
        if isinstance(v, str):
            for old, new in swaps:
                v = v.replace(old, new)
            return re.sub(r"(build/labs)\+extra[^/\s]*", r"\1", v)
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        return v
    return clean(data)


def write(results, data):
    with open(os.path.join(results, "results.json"), "w") as f:
        json.dump(data, f, indent=1)
    return 0


# --- the instructor's side -----------------------------------------------------------

def make_zip(out, extra_tests, no_grade=False):
    root = os.path.dirname(os.path.dirname(HERE))
    stage = tempfile.mkdtemp(prefix="gradescope-")
    try:
        r = subprocess.run([sys.executable, os.path.join(root, "tools", "dist_student.py"),
                            "--dest", os.path.join(stage, "kit")]
                           + (["--no-grade"] if no_grade else []), cwd=root)
        if r.returncode:
            return r.returncode
        for f in ("setup.sh", "run_autograder", "gradescope.py"):
            shutil.copy2(os.path.join(HERE, f), os.path.join(stage, f))
        if extra_tests:
            shutil.copytree(extra_tests, os.path.join(stage, "hidden"))
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for d, _, files in os.walk(stage):
                for f in sorted(files):
                    path = os.path.join(d, f)
                    info = zipfile.ZipInfo.from_file(path, os.path.relpath(path, stage))
                    with open(path, "rb") as fh:
                        z.writestr(info, fh.read(), zipfile.ZIP_DEFLATED)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    print("gradescope: %s (upload it as the autograder; setup.sh and run_autograder at "
          "its root)" % out)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["zip", "run"])
    ap.add_argument("--out", default=os.path.join("build", "gradescope.zip"))
    ap.add_argument("--extra-tests")
    ap.add_argument("--no-grade", action="store_true")
    args = ap.parse_args()
    if args.command == "run":
        return run()
    return make_zip(args.out, args.extra_tests, args.no_grade)


if __name__ == "__main__":
    sys.exit(main())
