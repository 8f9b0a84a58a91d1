#!/usr/bin/env python3
"""race_verdicts.py - the verdict of every scenario, generated scenario and
litmus test, one line each, to compare two versions of the reproducer.

  race_verdicts.py [--build-root B] [--jobs N] [--out FILE] [--quick]
  race_verdicts.py --compare OLD NEW [--executions]

The first form builds what it needs (make, IMPL=solutions and the
skeleton IMPL=labs) and writes, sorted, one line per item:

  lab1/solutions lookup_vs_remove sc: got=none met=yes executions=23
  lab3/solutions lin:objtable:key1:delete(1)|delete(1): got=none met=yes executions=88
  litmus-fe tests/litmus/mp-none.litmus: Sometimes 4 states [...]

for every scenario of every lab's race binary (the solutions' and the
skeleton's; a must-hold one under both memory models), every generated
scenario of every lincheck suite (the solutions'), the reproducer's
self-test and litmus scenarios, and every litmus file of tests/litmus/
(its final states and observation, as make litmus prints them).  --quick
leaves out the generated scenarios one by one (each suite is run whole).

--compare prints the items whose verdict differs (got= and met=, or a
litmus test's states and observation), and the items only one file has;
with --executions, a different number of executions counts too (a
faster runtime must explore the very same executions; a better
reduction may explore fewer).  Exit status 1 if anything differs.
Standard library only.
"""
import argparse
import concurrent.futures
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, layout, proc, race  # noqa: E402

TIMEOUT = 600
RESULT_KEYS = ("got", "met", "executions")


def run_item(label, binary, scenario, args):
    """One 'race run' as a line: 'label scenario args: got=.. met=.. executions=..'."""
    with tempfile.TemporaryDirectory() as tmp:
        res = os.path.join(tmp, "result")
        r = proc.run([binary, "run", scenario, "--result", res] + list(args), TIMEOUT)
        try:
            with open(res) as f:
                fields = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
        except OSError:
            fields = {"got": "NO-RESULT(%s)" % r.status()}
    what = " ".join(["%s=%s" % (k, fields.get(k, "?")) for k in RESULT_KEYS])
    return "%s %s%s: %s" % (label, scenario, "".join(" " + a for a in args), what)


def litmus_item(binary, path):
    """One litmus file as make litmus answers it, without its time."""
    r = proc.run([sys.executable, os.path.join(ROOT, "tools", "litmus.py"), "--bin", binary,
                  path], TIMEOUT)
    lines = [l for l in r.out.splitlines()
             if not l.startswith(("Time ", "An execution", "  "))]
    return "litmus-fe %s: rc=%s %s" % (os.path.relpath(path, ROOT), r.rc, " | ".join(lines))


def items(build, quick):
    """(function, args) of every item."""
    jobs = []
    for impl in ("solutions", "labs"):
        r = proc.make(["race-bins"], impl=impl, build=build, jobs=2)
        if not r.ok:
            sys.exit("race_verdicts: make race-bins IMPL=%s failed:\n%s" % (impl, r.out))
        for lab in layout.labs(impl=impl, build=build):
            binary = lab.bins["race"]
            if not binary:
                continue
            label = "lab%d/%s" % (lab.n, impl)
            for sc in race.scenarios(binary):
                memories = (("--memory", "sc"), ("--memory", "weak")) \
                    if sc.expect == "must-hold" else ((),)
                jobs += [(run_item, (label, binary, sc.name, m)) for m in memories]
            out = proc.run([binary, "list"], 60).out
            for suite in re.findall(r"^(lincheck:\S+)", out, re.M):
                jobs.append((run_item, (label, binary, suite, ())))
                if quick or impl != "solutions":
                    continue
                names = proc.run([binary, "list", suite], 60).out.split()
                jobs += [(run_item, (label, binary, n, ())) for n in names]
    b = layout.labs(impl="solutions", build=build)[0].build
    for name in ("selftest", "litmus"):
        binary = os.path.join(b, "race", name, "race")
        for sc in race.scenarios(binary):
            jobs += [(run_item, (name, binary, sc.name, m))
                     for m in ((), ("--memory", "sc"))]
    fe = os.path.join(b, "race", "litmus-fe", "race")
    folder = os.path.join(ROOT, "tests", "litmus")
    jobs += [(litmus_item, (fe, os.path.join(folder, f)))
             for f in sorted(os.listdir(folder)) if f.endswith(".litmus")]
    return jobs


def record(args):
    jobs = items(args.build_root, args.quick)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        lines = sorted(pool.map(lambda j: j[0](*j[1]), jobs))
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        print("race_verdicts: %d items -> %s" % (len(lines), args.out))
    else:
        sys.stdout.write(text)
    return 0


def parse(path):
    """{item: verdict} of a file written by record()."""
    out = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(": ")
            out[key] = value
    return out


def essential(value, executions):
    if not executions:
        value = re.sub(r" executions=\d+", "", value)
    return value


def compare(old, new, executions):
    a, b = parse(old), parse(new)
    bad = 0
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            print("only in %s: %s" % (old if key in a else new, key))
            bad += 1
        elif essential(a[key], executions) != essential(b[key], executions):
            print("%s:\n  before: %s\n  after:  %s" % (key, a[key], b[key]))
            bad += 1
    print("race_verdicts: %d items, %d differ" % (len(set(a) | set(b)), bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    ap.add_argument("--executions", action="store_true")
    args = ap.parse_args()
    if args.compare:
        return compare(args.compare[0], args.compare[1], args.executions)
    return record(args)


if __name__ == "__main__":
    sys.exit(main())
