#!/usr/bin/env python3
"""mutants.py - the catalogue of known-wrong solutions.

Each tests/mutants/<labdir>/<name>.patch is a unified diff against solutions/
(paths a/<labdir>/file.c), preceded by '#' comment lines: what is wrong, and
which part of the grader should catch it.  A mutant is run by copying
solutions/ to $BUILD/mutants/<labdir>-<name>/, applying the patch there with
`patch -p1`, and running `make lab-N IMPL=<that tree>`: the grade must FAIL.

    mutants.py list [--lab-dir DIR]         the catalogue
    mutants.py run --lab-dir DIR --name NAME
                                            exit 0 iff the mutant built and was
                                            rejected by the grader
    mutants.py run-all [--lab-dir DIR]      every mutant; exit 0 iff all rejected

Environment: BUILD (default build).  Standard library only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOGUE = os.path.join(ROOT, "tests", "mutants")
BUILD = os.environ.get("BUILD", "build")
TIMEOUT = 600


def catalogue(lab_dir=None):
    """(labdir, name, header lines) of every mutant, sorted."""
    out = []
    for d in sorted(os.listdir(CATALOGUE)):
        if not os.path.isdir(os.path.join(CATALOGUE, d)) or \
                (lab_dir and d != lab_dir):
            continue
        for p in sorted(os.listdir(os.path.join(CATALOGUE, d))):
            if p.endswith(".patch"):
                out.append((d, p[:-6], header(os.path.join(CATALOGUE, d, p))))
    return out


def header(path):
    lines = []
    for line in open(path):
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    return lines


def lab_number(lab_dir):
    m = re.match(r"lab(\d+)-", lab_dir)
    if not m:
        sys.exit("mutants: %s is not a labN-xxx folder" % lab_dir)
    return int(m.group(1))


def make_tree(lab_dir, name):
    """Copy solutions/ and apply the patch; return the tree's path."""
    tree = os.path.join(BUILD, "mutants", "%s-%s" % (lab_dir, name))
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "solutions"), os.path.join(ROOT, tree)
                    if not os.path.isabs(tree) else tree)
    patch = os.path.join(CATALOGUE, lab_dir, name + ".patch")
    p = subprocess.run(["patch", "-p1", "--quiet", "--no-backup-if-mismatch",
                        "-d", tree, "-i", patch], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        print(p.stdout.decode("utf-8", "replace"))
        sys.exit("mutants: %s does not apply to solutions/" % patch)
    return tree


def make_env():
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
        env.pop(k, None)
    env["BUILD"] = BUILD
    return env


def run_one(lab_dir, name, verbose=False):
    """Apply, grade, judge; return True iff the mutant was rejected."""
    n = lab_number(lab_dir)
    tree = make_tree(lab_dir, name)
    try:
        p = subprocess.run(["make", "-j2", "lab-%d" % n, "IMPL=" + tree],
                           cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT,
                           env=make_env(), start_new_session=True)
        rc, out = p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        print("%s/%s: TIMEOUT after %ds" % (lab_dir, name, TIMEOUT))
        return False
    if verbose:
        print(out)
    for line in header(os.path.join(CATALOGUE, lab_dir, name + ".patch")):
        print("  # " + line)
    grade = re.findall(r"^lab-\d+: (\d+) passed, (\d+) failed$", out, re.M)
    failed_parts = re.findall(r"^  (\S+)\s+FAIL\s", out, re.M)
    if not grade:
        print("  " + "\n  ".join(out.strip().splitlines()[-10:]))
        print("%s/%s: NOT VALID: it did not build or reach the grader "
              "(exit %s)" % (lab_dir, name, rc))
        return False
    if rc != 0 and int(grade[-1][1]) > 0:
        print("%s/%s: rejected by %s" % (lab_dir, name, ", ".join(failed_parts)))
        return True
    print("  " + "\n  ".join(out.strip().splitlines()[-8:]))
    print("%s/%s: NOT REJECTED: every part passed -- the tests miss this bug"
          % (lab_dir, name))
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["list", "run", "run-all"])
    ap.add_argument("--lab-dir")
    ap.add_argument("--name")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the grader's whole output")
    args = ap.parse_args()
    if args.command == "list":
        for d, name, hdr in catalogue(args.lab_dir):
            print("%s/%s: %s" % (d, name, hdr[0] if hdr else ""))
        return 0
    if args.command == "run":
        if not (args.lab_dir and args.name):
            ap.error("run needs --lab-dir and --name")
        return 0 if run_one(args.lab_dir, args.name, args.verbose) else 1
    bad = [m for m in catalogue(args.lab_dir)
           if not run_one(m[0], m[1], args.verbose)]
    print("%d mutant(s) not rejected" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
