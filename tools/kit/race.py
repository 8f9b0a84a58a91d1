"""kit.race - the race binary of a lab (common/race/main.c), driven.

  race list                  one line per scenario: name, expectation
                             (must-fail[:verdict], must-hold, demo), summary
  race run SCENARIO ...      explore; ends with a RESULT line
  race replay FILE ...       replay a schedule; ends with a REPLAY line

What a run or a replay ended in is read by outcome(), the one place that
reads the binary's result lines.  Demo scenarios (expectation "demo") show
test-local broken code: they are listed and can be run, never graded.
"""
import os
import re

from . import limits, proc


class Scenario:
    """name, expect (must-fail, must-hold or demo), verdict (a must-fail's
    pinned verdict kind, or None), summary."""

    def __init__(self, line):
        fields = line.split(None, 2)
        self.name = fields[0]
        self.expect, _, verdict = fields[1].partition(":")
        self.verdict = verdict or None
        self.summary = fields[2].strip() if len(fields) > 2 else ""

    @property
    def graded(self):
        return self.expect != "demo"


class Outcome:
    """What one run or replay of the race binary ended in.

    kind        "run" or "replay"
    scenario    the scenario's name
    expect      what was expected (must-fail/must-hold, or a verdict kind)
    got         the verdict kind reached ("none" if every execution held)
    met         the expectation was met (run), or the replay recurred and
                matched (replay)
    executions  how many executions a run explored (0 for a replay)
    verdict     the verdict line's text ("kind: where and why"), or ""
    held        the "held: ..." line's text of a must-hold run, or ""
    schedule    the schedule file a failing run wrote, or None
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def describe(self):
        """The most telling line: the verdict (a vacuous must-hold has one
        too), else what held."""
        return self.verdict or self.held or "got %s" % self.got


_RESULT = re.compile(r"^RESULT (\S+) expect=(\S+) got=(\S+) met=(\S+) executions=(\d+)", re.M)
_REPLAY = re.compile(r"^REPLAY (\S+) expect=(\S+) got=(\S+) ok=(\S+)", re.M)


def outcome(out):
    """The Outcome of a race binary's output @out, or None if it printed no
    result line (it crashed, hung, or was misused)."""
    m, kind = _RESULT.search(out), "run"
    if not m:
        m, kind = _REPLAY.search(out), "replay"
    if not m:
        return None

    def line(prefix):
        found = re.search(r"^%s: (.*)$" % prefix, out, re.M)
        return found.group(1).strip() if found else ""

    return Outcome(kind=kind, scenario=m.group(1), expect=m.group(2),
                   got=m.group(3), met=m.group(4) == "yes",
                   executions=int(m.group(5)) if kind == "run" else 0,
                   verdict=line("verdict"), held=line("held"),
                   schedule=line("schedule") or None)


class BinaryError(Exception):
    """The race binary is missing or cannot list its scenarios."""


def scenarios(binary):
    """[Scenario] of @binary, sorted by name (as it lists them)."""
    if not binary or not os.path.exists(binary):
        raise BinaryError("no race binary %s" % binary)
    r = proc.run([binary, "list"], 30)
    if r.rc != 0:
        raise BinaryError("%s list failed (%s):\n%s" % (binary, r.status(), r.out))
    return [Scenario(l) for l in r.out.splitlines() if l.strip()]


def strategy_args(strategy=None, seed=None, memory=None, reduction=None):
    """The race binary's options for a strategy, a seed, a memory model
    (sc, weak) and the partial-order reduction (on, off); empty: default."""
    args = []
    for opt, value in (("--strategy", strategy), ("--seed", seed),
                       ("--memory", memory), ("--reduction", reduction)):
        if value:
            args += [opt, str(value)]
    return args


def run(binary, name, out=None, args=()):
    """Explore scenario @name; (Result, Outcome or None).  @out: where a
    failing execution's schedule is written."""
    cmd = [binary, "run", name, "--binary", binary] + list(args)
    if out:
        cmd += ["--out", out]
    r = proc.run(cmd, limits.RACE_TIMEOUT)
    return r, outcome(r.out)


def replay(binary, sched, scenario=None, expect=None, args=()):
    """Replay the schedule file @sched; (Result, Outcome or None).
    @scenario and @expect stand in for the file's missing header lines."""
    cmd = [binary, "replay", sched] + list(args)
    if scenario:
        cmd += ["--scenario", scenario]
    if expect:
        cmd += ["--expect", expect]
    r = proc.run(cmd, limits.RACE_TIMEOUT)
    return r, outcome(r.out)


def header(sched, key):
    """The value of the header line "KEY value" of schedule file @sched, or
    None.  OSError if it cannot be read."""
    with open(sched) as f:
        for line in f:
            if line.startswith(key + " "):
                return line.split(None, 1)[1].strip()
    return None


def rr_hint(binary, sched):
    return "record under rr: bash tools/rr.sh record %s replay %s" % (binary, sched)


# --- grading ---------------------------------------------------------------------

def grade_scenario(binary, sc):
    """(ok, one line) for scenario @sc: it met its expectation."""
    r, o = run(binary, sc.name)
    if o is None:
        last = r.tail(1) or ["no output"]
        return False, "FAIL %s: no result (%s): %s" % (sc.name, r.status(), last[0])
    ok = r.rc == 0 and o.met
    return ok, "%s %s (%s, got %s): %s" % ("PASS" if ok else "FAIL", sc.name,
                                          o.expect, o.got, o.describe()[:160])


def grade_exercise(binary, ex, impl_dir):
    """(ok, one line) for exercise @ex: the student's schedule file in
    @impl_dir replays to its verdict, at a step labelled ex.at."""
    sched = os.path.join(impl_dir, ex.file)
    if not os.path.exists(sched):
        return False, "FAIL %s: %s does not exist" % (ex.file, sched)
    r, o = replay(binary, sched, ex.scenario, ex.verdict)
    if o is None:
        last = r.tail(1) or ["no output"]
        return False, "FAIL %s: %s" % (ex.file, last[0])
    ok = o.met and (": " + ex.at) in o.verdict
    if ok:
        return True, "PASS %s replays to: %s" % (ex.file, o.verdict[:160])
    return False, ("FAIL %s must end in %s at %s; it replays to: %s"
                   % (ex.file, ex.verdict, ex.at, o.verdict[:160] or o.got))


def grade(binary, exercises=(), impl_dir=None):
    """[(ok, line)]: every graded scenario of @binary, then each exercise.
    Demo scenarios are left out."""
    lines = [grade_scenario(binary, sc) for sc in scenarios(binary) if sc.graded]
    return lines + [grade_exercise(binary, ex, impl_dir) for ex in exercises]
