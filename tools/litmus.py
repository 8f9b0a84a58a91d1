#!/usr/bin/env python3
"""litmus.py - run the kernel's C litmus tests under the race reproducer
(make litmus FILE=x.litmus, make litmus DIR=d).

  litmus.py --bin BIN [--timeout S] FILE|DIR...

BIN is the front end's race binary (common/litmus/, make litmus-bin).
Each test is read by litmus_parse.py, written as a small program, and
explored exhaustively by the reproducer (dfs, weak memory model, a
preemption bound high enough for every execution), once per program
order in which a relaxed store passes earlier loads it does not depend on
(load buffering: litmus_parse.program_orders); every final state is
collected and the test's condition judged on them.  "Flag data-race", as
herd7 prints it, when an execution had a data race (a plain access).  For one file the
answer has herd7's shape:

  Test MP+poonceonces Allowed
  States 4
  1:r0=0; 1:r1=0;
  ...
  Ok
  Witnesses
  Positive: 1 Negative: 3
  Condition exists (1:r0=1 /\\ 1:r1=0)
  Observation MP+poonceonces Sometimes 1 3
  Time MP+poonceonces 0.09
  Result: Sometimes (the file's, line 4): agrees

Positive and Negative count distinct final states (herd7 counts its
candidate executions, which the reproducer does not enumerate the same
way: the numbers differ, the observation does not).  For a directory:
one line per test, then "N agree, D disagree, U unsupported" and the
longest exploration.  A test the front end cannot express is refused:
"FILE:LINE: unsupported: <construct>" (a malformed one: "FILE:LINE:
error: ..."), exit status 2 for a file -- never a verdict.

Exit status: a file 0 (agrees, or states no Result:), 1 (disagrees), 2
(refused); a directory 0 iff no test disagrees and none is malformed.
Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import litmus_parse  # noqa: E402
from litmus_parse import LitmusError  # noqa: E402

VERDICTS = ("Never", "Sometimes", "Always")


class Refused(Exception):
    """A test that gets no verdict: its message, and whether it is
    malformed (not only unsupported)."""

    def __init__(self, message, malformed=False):
        super().__init__(message)
        self.message, self.malformed = message, malformed


class Answer:
    """What the exploration of one test found."""

    def __init__(self, test, states, executions, ms):
        self.test, self.states, self.executions, self.ms = test, states, executions, ms
        kept = [s for s in states if test.filter is None or test.holds(test.filter, s)]
        self.kept = kept
        self.positive = sum(1 for s in kept if test.holds(test.prop, s))
        self.negative = len(kept) - self.positive
        self.racy = any(s.get(litmus_parse.RACY) for s in kept)
        if self.positive == 0:
            self.observation = "Never"
        elif self.negative == 0:
            self.observation = "Always"
        else:
            self.observation = "Sometimes"

    def validated(self):
        """herd7's Ok/No: whether the condition as quantified holds."""
        q = self.test.quantifier
        if q == "exists":
            return self.positive > 0
        if q == "~exists":
            return self.positive == 0
        return self.negative == 0

    def agrees(self):
        """True, False, or None (the file states no answer)."""
        want = self.test.result
        if want not in litmus_parse.RESULTS:
            return None
        if want.upper() == "DEADLOCK":       # every execution the filter keeps blocks
            return not self.kept
        return want == self.observation


def fmt_value(v):
    return str(v)


def fmt_key(key):
    return "%d:%s" % (key[1], key[2]) if key[0] == "reg" else key[1]


def fmt_prop(prop, outer="or"):
    op = prop[0]
    if op in ("true", "false"):
        return op
    if op == "eq":
        return "%s=%s" % (fmt_key(prop[1]), fmt_value(prop[2]))
    if op == "not":
        return "~" + fmt_prop(prop[1], "not")
    sym = " /\\ " if op == "and" else " \\/ "
    text = fmt_prop(prop[1], op) + sym + fmt_prop(prop[2], op)
    return text if op == outer else "(" + text + ")"


def sort_key(key):
    return (0, key[1], key[2]) if key[0] == "reg" else (1, 0, key[1])


def state_lines(answer):
    keys = sorted(answer.test.shown_keys(), key=sort_key)
    lines = {" ".join("%s=%s;" % (fmt_key(k), fmt_value(s[k])) for k in keys)
             for s in answer.kept}
    return sorted(lines)


def explore(test, binary, timeout, stop=None):
    """The Answer of @test under the race binary @binary: one exploration
    per program order (litmus_parse.program_orders: the stores that may
    pass earlier loads), their final states together.  With @stop (raw
    state lines), the first execution that ends in one of them instead:
    its timeline, as the race binary prints it."""
    try:
        orders = test.orders()
    except LitmusError as e:
        raise Refused(e.message(test.path))
    answers, t0 = [], time.time()
    for bodies in orders:
        left = max(1, int(timeout - (time.time() - t0)))
        a = explore_order(test, bodies, binary, left, stop)
        if stop is not None:
            if a != ["(no execution reached it)"]:
                return reordered(test, bodies) + a
            continue
        answers.append(a)
    if stop is not None:
        return ["(no execution reached it)"]
    raw = {}
    for a in answers:
        raw.update(a.raw)
    answer = Answer(test, list(raw.values()), sum(a.executions for a in answers),
                    sum(a.ms for a in answers))
    answer.raw, answer.orders = raw, len(orders)
    return answer


def reordered(test, bodies):
    """A line for each process that @bodies runs in another order than
    written (a store made before earlier loads: load buffering)."""
    out = []
    for p, body in zip(test.procs, bodies):
        lines = [s[1] for s in body[1:] if s[0] == "line"]
        if lines != sorted(lines):
            out.append("P%d makes its lines in the order %s (a store before earlier "
                       "loads it does not depend on: load buffering)"
                       % (p.number, ", ".join(map(str, lines))))
    return out


def explore_order(test, bodies, binary, timeout, stop):
    """explore() of one program order."""
    with tempfile.TemporaryDirectory(prefix="litmus-") as tmp:
        ir, states, result = (os.path.join(tmp, n) for n in ("test.ir", "states", "result"))
        with open(ir, "w") as f:
            f.write(test.ir(bodies))
        env = dict(os.environ, LITMUS_IR=ir, LITMUS_STATES=states)
        if stop is not None:
            env["LITMUS_STOP"] = os.path.join(tmp, "stop")
            with open(env["LITMUS_STOP"], "w") as f:
                f.write("".join(line + "\n" for line in stop))
        scenario = "litmus%d" % max(2, len(test.procs))
        cmd = [binary, "run", scenario, "--bound", str(test.bound()), "--result", result]
        try:
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Refused("%s:%d: unsupported: an exploration longer than %d s"
                          % (test.path, test.procs[0].line, timeout))
        out = p.stdout.decode(errors="replace")
        res = read_result(result)
        if stop is not None:
            return timeline(out)
        if p.returncode == 2 or not res:
            raise Refused("%s: the reproducer refused the program: %s"
                          % (test.path, out.strip().splitlines()[-1:] or "no output"))
        if res.get("got") != "none" or res.get("exhausted") != "yes":
            raise Refused(runtime_refusal(test, res))
        m = re.search(r"^held: (\d+) executions? in ([0-9.]+) ms", out, re.M)
        executions, ms = (int(m.group(1)), float(m.group(2))) if m else (0, 0.0)
        try:
            with open(states) as f:
                lines = [l.rstrip("\n") for l in f if l.strip()]
            raw = {l: test.state_of(l) for l in lines}
        except (OSError, ValueError) as e:
            raise Refused("%s: the states the reproducer wrote: %s" % (test.path, e))
        answer = Answer(test, list(raw.values()), executions, ms)
        answer.raw = raw
        return answer


def timeline(out):
    """The timeline and verdict lines of a race run's output."""
    lines = out.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("step |")), None)
    if start is None:
        return ["(no execution reached it)"]
    return [l for l in lines[start:] if not l.startswith(("RESULT", "schedule:"))]


def read_result(path):
    try:
        with open(path) as f:
            return dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
    except OSError:
        return None


def runtime_refusal(test, res):
    """The message for a search that ended in a verdict, or not exhausted."""
    got, msg = res.get("got", "?"), res.get("message", "")
    m = re.match(r"line (\d+): (.*)", msg)
    if got == "litmus" and m:
        return "%s:%s: error: %s" % (test.path, m.group(1), m.group(2))
    line = test.procs[0].line
    if got == "none":
        return ("%s:%d: unsupported: the exploration did not cover every execution"
                % (test.path, line))
    return ("%s:%d: unsupported: an execution the reproducer ends with the verdict "
            "'%s' (%s): no final state, so no verdict" % (test.path, line, got, msg))


def run_file(path, binary, timeout):
    """(test, answer) of the file at @path; raises Refused."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Refused("%s:1: error: %s" % (path, e.strerror), malformed=True)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise Refused("%s:%d: error: not UTF-8 text" % (path, line), malformed=True)
    try:
        test = litmus_parse.parse(text, path)
    except LitmusError as e:
        raise Refused(e.message(path), malformed=not e.unsupported)
    return test, explore(test, binary, timeout)


def print_answer(test, a):
    quant = {"exists": "Allowed", "~exists": "Required", "forall": "Required"}
    print("Test %s %s" % (test.name, quant[test.quantifier]))
    lines = state_lines(a)
    print("States %d" % len(lines))
    for line in lines:
        print(line)
    print("Ok" if a.validated() else "No")
    print("Witnesses")
    print("Positive: %d Negative: %d" % (a.positive, a.negative))
    if test.filter is not None:
        print("Filter (%s)" % fmt_prop(test.filter, test.filter[0]))
    if a.racy:
        print("Flag data-race")
    print("Condition %s (%s)" % (test.quantifier, fmt_prop(test.prop, test.prop[0])))
    print("Observation %s %s %d %d" % (test.name, a.observation, a.positive, a.negative))
    print("Time %s %.2f" % (test.name, a.ms / 1e3))
    agrees = a.agrees()
    if test.result is None:
        print("Result: none stated in the file")
    elif agrees is None:
        print("Result: %s (the file's, line %d): not one of %s, not compared"
              % (test.result, test.result_line, ", ".join(litmus_parse.RESULTS)))
    else:
        print("Result: %s (the file's, line %d): %s" % (
            test.result, test.result_line, "agrees" if agrees else
            "DISAGREES: the reproducer's weak model answers %s" % a.observation))


def one(path, binary, timeout, show=False):
    try:
        test, answer = run_file(path, binary, timeout)
    except Refused as r:
        print(r.message, file=sys.stderr)
        return 2
    print_answer(test, answer)
    if show:
        hits = [l for l, s in sorted(answer.raw.items()) if s in answer.kept and
                test.holds(test.prop, s)]
        if hits:
            print("An execution that reaches the condition (labels: <family>.<primitive>, "
                  "docs/reproducer.md); %s:" % ", ".join(
                      "obj#%d is %s" % (l.index + 1, l.name)
                      for l in sorted(test.locs.values(), key=lambda l: l.index)))
            for line in explore(test, binary, timeout, stop=hits):
                print("  " + line)
        else:
            print("No execution reaches the condition.")
    return 1 if answer.agrees() is False else 0


def files_under(d):
    found = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".litmus")]
    return found


def many(paths, binary, timeout):
    """One line per test, the summary; the exit status."""
    counts = {"agree": 0, "disagree": 0, "unsupported": 0, "no-result": 0}
    malformed, slowest = 0, None
    for path in paths:
        t0 = time.time()
        try:
            test, a = run_file(path, binary, timeout)
        except Refused as r:
            counts["unsupported"] += 1
            malformed += r.malformed
            print("%-11s %s" % ("malformed" if r.malformed else "unsupported", r.message))
            continue
        agrees = a.agrees()
        word = {True: "agree", False: "disagree", None: "no-result"}[agrees]
        counts[word] += 1
        if slowest is None or a.ms > slowest[1]:
            slowest = (test.name, a.ms)
        print("%-11s %-58s Result: %-9s model: %-9s %5d executions %8.1f ms (%.1f s wall)%s"
              % (word, test.name, test.result or "-", a.observation, a.executions, a.ms,
                 time.time() - t0, " Flag data-race" if a.racy else ""))
    print("%d agree, %d disagree, %d unsupported%s%s" % (
        counts["agree"], counts["disagree"], counts["unsupported"],
        " (%d malformed)" % malformed if malformed else "",
        ", %d without a Result: to compare" % counts["no-result"]
        if counts["no-result"] else ""))
    if slowest:
        print("longest exploration: %s, %.1f ms" % slowest)
    return 1 if counts["disagree"] or malformed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="the front end's race binary")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds one exploration may take (default 300)")
    ap.add_argument("--show", action="store_true",
                    help="one file: also the timeline of an execution that reaches "
                    "the condition")
    ap.add_argument("--usage", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    if args.usage or not args.paths:
        print("usage: make litmus FILE=x.litmus | make litmus DIR=d", file=sys.stderr)
        return 2
    if len(args.paths) == 1 and not os.path.isdir(args.paths[0]):
        return one(args.paths[0], args.bin, args.timeout, args.show)
    paths = []
    for p in args.paths:
        if os.path.isdir(p):
            paths += files_under(p)
        else:
            paths.append(p)
    if not paths:
        print("litmus: no *.litmus under %s" % " ".join(args.paths), file=sys.stderr)
        return 2
    return many(paths, args.bin, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
