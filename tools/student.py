#!/usr/bin/env python3
"""student.py - the student's loop: one test alone, its hint, a grade on save.

    student.py test  --lab N --test NAME [--variant asan] [--impl IMPL] [--build-root B]
        (make test-N TEST=NAME) builds what NAME needs and runs it alone,
        outside the grader, its output on the screen: a Criterion test
        (suite::name, VARIANT=asan for its ASan build), a TSan case
        (tsan_prog::case, with TSan's report cut to its two accesses
        after it), a race scenario (its timeline) or an exercise (its
        schedule file replayed).  NAME is what the grade prints.
    student.py hint  --lab N [--test NAME] [--impl IMPL] [--build-root B]
        (make hint-N) the hint of each test that failed in the last grade
        of lab N (BUILD/grade/labN/result.json), or of test NAME.
    student.py watch --lab N [--impl IMPL] [--build-root B] [--interval S] [--rounds K]
        (make watch-N) grades lab N's quick parts (unit-plain, tsan, race)
        now and each time a file the student edits is saved, and prints
        one progress line per grade -- "unit-plain 9/13 . tsan 1/2 . race
        3/5 . race.sched not written yet" -- and the first failure.  It
        polls the files' times every S seconds (standard library only);
        --rounds stops after K grades (make check uses it).  Ctrl-C ends it.
Standard library only.
"""
import argparse
import difflib
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, grading, layout, limits, proc, race, testsrc, tsan  # noqa: E402

QUICK = "unit-plain,tsan,race"


def names(lab):
    """{item name: part} of every test, case and scenario lab N declares,
    and its exercises."""
    found = {}
    for name, _ in testsrc.declared(lab).items():
        found[name] = "tsan" if "::" in name and name.startswith("tsan_") else \
            "unit" if "::" in name else "race"
    for ex in lab.exercises:
        found[ex.file] = "exercise"
    return found


def unknown(lab, name):
    """The message for a NAME lab N does not have, with the closest ones."""
    close = difflib.get_close_matches(name, list(names(lab)), 3, 0.5)
    return ("lab %d has no test %r%s; 'make lab-%d' lists the failing ones by name"
            % (lab.n, name, ": did you mean %s?" % ", ".join(close) if close else "", lab.n))


def built(lab, target):
    r = lab.make([target])
    if not r.ok:
        print("\n".join(r.tail(20)))
        print("%s does not build: fix the errors above" % target)
    return r.ok


def cmd_test(args):
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    if lab.problem:
        sys.exit("make test-%d: %s" % (lab.n, lab.problem))
    if not args.test:
        sys.exit("make test-%d: give the test's name, as the grade prints it: "
                 "make test-%d TEST=suite::name" % (lab.n, lab.n))
    kind = names(lab).get(args.test) or ("unit" if args.test.count("::") == 1 and
                                         "/" not in args.test else None)
    if kind is None and "/" in args.test:
        args.test, kind = args.test.replace("/", "::", 1), "unit"
    if kind is None or (kind == "race" and not lab.bins["race"]):
        sys.exit(unknown(lab, args.test))
    if kind == "unit":
        binary = lab.bins["unit-asan" if args.variant == "asan" else "unit-plain"]
        if not built(lab, binary):
            return 2
        return subprocess.call([binary, "--filter", args.test.replace("::", "/", 1)])
    if kind == "tsan":
        prog_name, case = args.test.split("::", 1)
        prog = next((p for p in lab.bins["tsan"] if os.path.basename(p) == prog_name), None)
        if not prog or not built(lab, prog):
            return 2
        with tempfile_dir() as d:
            log = os.path.join(d, "tsan")
            env = dict(os.environ, TSAN_OPTIONS=tsan.options(log))
            r = subprocess.run([prog, case], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True,
                               errors="replace")
            rc = r.returncode
            text = "\n".join(open(os.path.join(d, f)).read() for f in sorted(os.listdir(d)))
        print(r.stdout.rstrip())
        print(text.rstrip())
        if any(l.startswith(tuple("BUG: " + b[5:] for b in tsan.RACE_BUGS))
               for l in r.stdout.splitlines()):
            rc = 66         # the slab caught what the race leads to
        shown = tsan.accesses(text, lab.impl, lab.impl)
        if shown:
            print("\nIn short:\n  " + "\n  ".join(shown))
        expect = next((c.expect for c in tsan.cases(prog) if c.name == case), "clean")
        got = {0: "clean", 66: "race"}.get(rc)
        print("exit %d: %s; this case must be %s: %s" % (
            rc, {0: "the case ran to its end, no race reported", 66: "TSan reported (or a crash)",
                 1: "the case's own checks failed"}.get(rc, "see above"), expect,
            "as expected" if got == expect else "NOT as expected"))
        return 0 if got == expect else 1
    if not built(lab, lab.bins["race"]):
        return 2
    if kind == "exercise":
        return subprocess.call([sys.executable, os.path.join(ROOT, "tools", "race.py"),
                                "replay", "--sched", os.path.join(lab.impl_dir, args.test),
                                "--lab", str(lab.n), "--impl", lab.impl,
                                "--build-root", args.build_root])
    r, o = race.run(lab.bins["race"], args.test)
    print(race.with_legend(r.out.rstrip()))
    return 0 if o and o.met and r.rc == 0 else 1


class tempfile_dir:
    def __enter__(self):
        import tempfile
        self.d = tempfile.mkdtemp(prefix="kit-test-")
        return self.d

    def __exit__(self, *exc):
        import shutil
        shutil.rmtree(self.d, ignore_errors=True)


def last_grade(lab, folder):
    """The last grade of @lab in report folder @folder (its result.json),
    or None."""
    path = os.path.join(folder, "lab%d" % lab.n, "result.json")
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if data.get("impl") == lab.impl else None


def cmd_hint(args):
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    hints = testsrc.hints(lab)
    if args.test:
        if args.test not in names(lab):
            sys.exit(unknown(lab, args.test))
        print("%s: %s" % (args.test, hints.get(args.test) or
                          "no hint: its message says what it checks"))
        return 0
    data = last_grade(lab, args.grade_dir or os.path.join(args.build_root, "grade"))
    if data is None:
        print("No grade of lab %d yet: run '%s' first, then 'make hint-%d'."
              % (lab.n, grading.make_command(lab, "lab"), lab.n))
        return 1
    failing = [(p["name"], i) for p in data["parts"] for i in p.get("items", [])
               if i["verdict"] != "PASS"]
    if not failing:
        print("lab-%d: no failing test in its last grade (%s/%s)." % (
            lab.n, data["score"], data["max_score"]))
        return 0
    seen = set()
    for part, i in failing:
        if i["name"] in seen:
            continue
        seen.add(i["name"])
        print("%s (%s): %s" % (i["name"], part, hints.get(i["name"]) or
                               "no hint: its message says what it checks: " + i["why"]))
    return 0


def stamps(lab):
    """{file: mtime} of the files the student edits in lab N."""
    found = {}
    for f in lab.edit:
        try:
            found[f] = os.stat(os.path.join(lab.impl_dir, f)).st_mtime_ns
        except OSError:
            found[f] = None
    return found


def changed(before, after):
    """The files whose time changed, or that appeared or went."""
    return sorted(f for f in set(before) | set(after) if before.get(f) != after.get(f))


def quick_grade(lab, args):
    """Grade lab N's quick parts; (progress line, first failure lines)."""
    out = os.path.join(args.build_root, "watch")
    cmd = [sys.executable, os.path.join(ROOT, "tools", "grade.py"), "--lab", str(lab.n),
           "--impl", lab.impl, "--build-root", args.build_root, "--build",
           "--parts", QUICK, "--report-dir", out]
    r = proc.run(cmd, limits.GRADE_TIMEOUT, env=proc.clean_env(), cpu=0)
    try:
        with open(os.path.join(out, "lab%d" % lab.n, "result.json")) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return "the grade did not finish (%s)" % r.status(), r.tail(8)
    first = []
    for p in data["parts"]:
        bad = [i for i in p.get("items", []) if i["verdict"] != "PASS"]
        if bad:
            first = ["first failure: [%s] %s: %s" % (bad[0]["verdict"], bad[0]["name"],
                                                      bad[0]["why"]),
                     "  alone: " + bad[0]["alone"]]
            break
        if p["status"] == "FAIL":
            first = ["%s: %s" % (p["name"], p["summary"])]
            break
    return "%s/%s  %s" % (data["score"], sum(p["max_points"] for p in data["parts"]),
                          data["progress"]), first


def cmd_watch(args):
    lab = layout.lab(args.lab, impl=args.impl, build=args.build_root)
    if lab.problem:
        sys.exit("make watch-%d: %s" % (lab.n, lab.problem))
    print("Watching %s (%s); each save grades %s.  Ctrl-C ends it."
          % (lab.impl_dir, ", ".join(lab.edit), QUICK.replace(",", ", ")), flush=True)
    before, rounds = None, 0
    try:
        while not args.rounds or rounds < args.rounds:
            now = stamps(lab)
            if before is None or changed(before, now):
                what = "start" if before is None else "saved " + ", ".join(changed(before, now))
                line, first = quick_grade(lab, args)
                print("[%s] %s: %s" % (time.strftime("%H:%M:%S"), what, line))
                for l in first:
                    print("    " + l)
                sys.stdout.flush()
                before, rounds = stamps(lab), rounds + 1
                continue
            time.sleep(args.interval)
    except KeyboardInterrupt:
        print()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("test", "hint", "watch"):
        p = sub.add_parser(name)
        p.add_argument("--lab", type=int, required=True)
        p.add_argument("--impl", default="labs")
        p.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
        if name in ("test", "hint"):
            p.add_argument("--test", default="")
        if name == "hint":
            p.add_argument("--grade-dir", default="")
        if name == "test":
            p.add_argument("--variant", default="")
        if name == "watch":
            p.add_argument("--interval", type=float, default=1.0)
            p.add_argument("--rounds", type=int, default=0)
    args = ap.parse_args()
    return {"test": cmd_test, "hint": cmd_hint, "watch": cmd_watch}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
