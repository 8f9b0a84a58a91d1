#!/usr/bin/env python3
"""gradescope.py - the kit as a Gradescope autograder.

    python3 tools/autograder/gradescope.py zip [--out FILE] [--extra-tests DIR]
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
    python3 gradescope.py run
        inside Gradescope (run_autograder calls it): the submission
        (/autograder/submission, in any shape tools/kit/submission.py
        understands) becomes a tree of the edited files only; every lab
        with a file in it is graded (tools/grade.py, the pre-build check and
        the sandbox included); /autograder/results/results.json is the
        grade in Gradescope's format, one test per graded part.

AUTOGRADER_ROOT (default /autograder) stands for Gradescope's paths; make
check runs the layout in a temporary folder that way.  GRADE_LABS="1 2"
(in run_autograder's environment) grades those labs whatever was uploaded.
Standard library only.
"""
import argparse
import json
import os
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
    missing = submission.collect(os.path.join(root, "submission"), labs, tree)
    todo = labs if wanted else [l for l in labs if len(missing[l.n]) < len(l.edit)]
    if not todo:
        names = ", ".join("%s/%s" % (l.folder, f) for l in labs for f in l.edit)
        return write(results, dict(score=0, output="No lab's files were found in the "
                                   "submission.  Upload the files you edited: %s." % names))
    cmd = [sys.executable, os.path.join(kit, "tools", "grade.py"), "--impl", tree,
           "--build-root", build, "--build", "--report-dir", os.path.join(results, "kit")]
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
    return write(results, data)


def write(results, data):
    with open(os.path.join(results, "results.json"), "w") as f:
        json.dump(data, f, indent=1)
    return 0


# --- the instructor's side -----------------------------------------------------------

def make_zip(out, extra_tests):
    root = os.path.dirname(os.path.dirname(HERE))
    stage = tempfile.mkdtemp(prefix="gradescope-")
    try:
        r = subprocess.run([sys.executable, os.path.join(root, "tools", "dist_student.py"),
                            "--dest", os.path.join(stage, "kit")], cwd=root)
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
    args = ap.parse_args()
    if args.command == "run":
        return run()
    return make_zip(args.out, args.extra_tests)


if __name__ == "__main__":
    sys.exit(main())
