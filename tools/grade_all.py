#!/usr/bin/env python3
"""grade_all.py - grade a folder of submissions in parallel (make grade-all).

    python3 tools/grade_all.py --submissions DIR [--jobs N] [--labs "1 2"]
        [--build-root BUILD] [--out DIR] [--extra-tests DIR] [--no-precheck]

Each folder of DIR is one submission, in any shape kit/submission.py
understands.  For each: a fresh tree with only the files its students edit
(lab.edit), a build folder of its own (seeded with the kit's shared
objects, so only the student's files are compiled), and tools/grade.py
over it -- the pre-build check, then every part jailed -- within
KIT_GRADE_TIMEOUT seconds in all.  N at a time.  A broken or hostile
submission costs the batch no more than its own limits.

Writes to OUT (default BUILD/grade-all/): results.csv (one row per
submission: its score, each lab's, each part's points, the verdicts that
were not PASS), summary.txt (also printed), and per submission
<name>/grade.txt (what grade.py printed) and <name>/report/ (its reports).
Exits 0 when every submission was graded (whatever its score), 1 if one
could not be.  Nothing it started is left running: it is a subreaper, and
sweeps what any grade left behind.  Standard library only.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, layout, limits, proc, sandbox, submission  # noqa: E402

SHARED = ("common", "_kit", ".deps")     # the kit's objects, shared by every tree


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--submissions", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--labs", default="", help="lab numbers, e.g. '1 2' (default: all)")
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--out")
    ap.add_argument("--extra-tests")
    ap.add_argument("--no-precheck", action="store_true")
    return ap.parse_args()


def prepare(build, extra_tests):
    """Build the kit's shared objects once (hidden tests too), so that no
    two grades build them at the same time."""
    r = proc.make(["kit-objs"], build=build, jobs=2,
                  extra=["EXTRA_TESTS=" + extra_tests] if extra_tests else [])
    if not r.ok:
        sys.exit("grade_all.py: the kit does not build:\n" + "\n".join(r.tail(20)))


def seed(build, dest):
    """A build folder for one submission, with copies of the kit's objects."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for d in SHARED:
        src = os.path.join(ROOT, build, d)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, d), symlinks=True)


def grade_one(name, args, labs, out):
    """Grade submission @name; a dict for the CSV."""
    start = time.monotonic()
    home = os.path.join(out, name)
    tree, build, report = (os.path.join(home, d) for d in ("tree", "build", "report"))
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    missing = submission.collect(os.path.join(args.submissions, name), labs, tree)
    seed(args.build_root, build)
    cmd = [sys.executable, os.path.join(ROOT, "tools", "grade.py"), "--impl", tree,
           "--build-root", build, "--build", "--report-dir", report]
    cmd += sum((["--lab", str(l.n)] for l in labs), [])
    cmd += ["--extra-tests", args.extra_tests] if args.extra_tests else []
    cmd += ["--no-precheck"] if args.no_precheck else []
    with open(os.path.join(home, "grade.txt"), "w") as log:
        status = run(cmd, log)
    row = dict(submission=name, status=status, seconds=round(time.monotonic() - start, 1))
    try:
        with open(os.path.join(report, "results.json")) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return row
    row.update(score=data["score"], max_score=data["max_score"])
    notes = []
    for lab in data["labs"]:
        row["lab%d" % lab["lab"]] = lab["score"]
        for p in lab["parts"]:
            if p["status"] != "SKIP":
                row["lab%d:%s" % (lab["lab"], p["name"])] = p["points"]
            if p["status"] == "FAIL":
                notes.append("lab%d %s %s" % (lab["lab"], p["name"], p["verdict"]))
        if missing.get(lab["lab"]):
            notes.append("lab%d missing %s" % (lab["lab"], " ".join(missing[lab["lab"]])))
    row["verdicts"] = "; ".join(notes)
    return row


def run(cmd, log):
    """Run one grade in a session of its own, output to @log, within
    GRADE_TIMEOUT; 'graded', 'timeout' or 'error'."""
    p = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log,
                         stderr=subprocess.STDOUT, start_new_session=True,
                         env=proc.clean_env())
    try:
        rc = p.wait(limits.GRADE_TIMEOUT)
    except subprocess.TimeoutExpired:
        rc = None
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    p.wait()
    if rc is None:
        log.write("\ngrade_all: over KIT_GRADE_TIMEOUT (%d s), killed\n" % limits.GRADE_TIMEOUT)
        return "timeout"
    return "graded" if rc in (0, 1) else "error"


def columns(labs, rows):
    cols = ["submission", "status", "score", "max_score"]
    cols += ["lab%d" % l.n for l in labs]
    cols += ["lab%d:%s" % (l.n, p) for l in labs for p in l.parts]
    return cols + ["verdicts", "seconds"]


def summary(rows, labs, seconds, jobs):
    graded = [r for r in rows if "score" in r]
    lines = ["grade-all: %d submission(s), %d graded, %d job(s) at a time, %.0f s"
             % (len(rows), len(graded), jobs, seconds)]
    if graded:
        most = graded[0]["max_score"]
        scores = sorted(r["score"] for r in graded)
        lines.append("score: mean %.1f/%d, median %s, full marks %d, zero %d" % (
            sum(scores) / len(scores), most, scores[len(scores) // 2],
            sum(s == most for s in scores), sum(s == 0 for s in scores)))
        for l in labs:
            got = [r.get("lab%d" % l.n, 0) for r in graded]
            lines.append("lab-%d: mean %.1f" % (l.n, sum(got) / len(got)))
    counts = {}
    for r in rows:
        for note in filter(None, r.get("verdicts", "").split("; ")):
            word = note.split()[-1] if "missing" not in note else "missing"
            counts[word] = counts.get(word, 0) + 1
    if counts:
        lines.append("verdicts other than PASS: " + ", ".join(
            "%s %d" % kv for kv in sorted(counts.items())))
    for r in rows:
        if r["status"] != "graded":
            lines.append("NOT GRADED: %s (%s): see its grade.txt" % (r["submission"], r["status"]))
    slow = max(rows, key=lambda r: r["seconds"], default=None)
    if slow:
        lines.append("slowest: %s, %.0f s" % (slow["submission"], slow["seconds"]))
    return lines


def main():
    args = parse()
    if not args.submissions or not os.path.isdir(args.submissions):
        sys.exit("grade_all.py: SUBMISSIONS=%s is not a folder of submissions" % args.submissions)
    args.submissions = os.path.abspath(args.submissions)
    labs = layout.labs(build=args.build_root, extra_tests=args.extra_tests)
    if args.labs.split():
        labs = [l for l in labs if str(l.n) in args.labs.split()]
    out = os.path.abspath(args.out or os.path.join(ROOT, args.build_root, "grade-all"))
    os.makedirs(out, exist_ok=True)
    names = sorted(n for n in os.listdir(args.submissions)
                   if os.path.isdir(os.path.join(args.submissions, n)) and not n.startswith("."))
    sandbox.become_subreaper()
    start = time.monotonic()
    prepare(args.build_root, args.extra_tests)
    print("grade-all: %d submission(s) from %s, %d at a time; %s" % (
        len(names), args.submissions, args.jobs, sandbox.notice()), flush=True)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        todo = {pool.submit(grade_one, n, args, labs, out): n for n in names}
        for done in concurrent.futures.as_completed(todo):
            row = done.result()
            rows.append(row)
            print("  %-24s %-7s %s/%s  %s" % (row["submission"], row["status"],
                                              row.get("score", "-"), row.get("max_score", "-"),
                                              row.get("verdicts", "")), flush=True)
    left = sandbox.sweep()
    rows.sort(key=lambda r: r["submission"])
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns(labs, rows), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    lines = summary(rows, labs, time.monotonic() - start, args.jobs)
    if left:
        lines.append("swept %d process(es) a grade left behind" % left)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("results: %s, %s" % (os.path.join(out, "results.csv"), os.path.join(out, "summary.txt")))
    return 0 if all(r["status"] == "graded" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
