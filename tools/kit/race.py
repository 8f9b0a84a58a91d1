"""kit.race - the race binary of a lab (common/race/main.c), driven.

  race list                  one line per scenario: name, expectation
                             (must-fail[:verdict], must-hold, demo), summary
  race run SCENARIO ...      explore; ends with a RESULT line
  race replay FILE ...       replay a schedule; ends with a REPLAY line

What a run or a replay ended in comes from the file the binary writes
with --result FILE (key=value lines, docs/reproducer.md), in a drop of the
grader's (kit.sandbox) -- not from what it prints, which the code under
test shares.  outcome() is the one place that reads it.  Demo scenarios
(expectation "demo") show test-local broken code: they are listed and can
be run, never graded.  Graded runs are jailed (kit.sandbox).
"""
import os

from . import limits, proc, sandbox


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
    verdict     "kind: where and why" of the verdict reached, or ""
    held        for a run without a verdict: how much was explored, or ""
    schedule    the schedule file a failing run wrote, or None
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def describe(self):
        """The most telling line: the verdict (a vacuous must-hold has one
        too), else what held."""
        return self.verdict or self.held or "got %s" % self.got


def outcome(text):
    """The Outcome in the text of a --result file, or None if there is none
    (the binary crashed, hung, or was misused)."""
    f = dict(l.split("=", 1) for l in (text or "").splitlines() if "=" in l)
    if f.get("command") not in ("run", "replay") or "got" not in f:
        return None
    run = f["command"] == "run"
    message = f.get("message", "")
    held = ""
    if run and f["got"] == "none":
        held = "%s executions, %s%s" % (f.get("executions", "?"), f.get("strategy", ""),
                                        ", space exhausted within the bound"
                                        if f.get("exhausted") == "yes" else "")
    return Outcome(kind=f["command"], scenario=f.get("scenario", ""),
                   expect=f.get("expect", ""), got=f["got"],
                   met=f.get("met" if run else "ok") == "yes",
                   executions=int(f.get("executions") or 0) if run else 0,
                   verdict="%s: %s" % (f["got"], message) if message else "",
                   held=held, schedule=f.get("schedule") or None)


class BinaryError(Exception):
    """The race binary is missing or cannot list its scenarios."""


def scenarios(binary, jail=False):
    """[Scenario] of @binary, sorted by name (as it lists them)."""
    if not binary or not os.path.exists(binary):
        raise BinaryError("no race binary %s" % binary)
    r = proc.run([binary, "list"], 30, jail=sandbox.Jail() if jail else None)
    if r.rc != 0:
        raise BinaryError("%s list failed (%s):\n%s" % (binary, r.status(), r.out))
    return [Scenario(l) for l in r.out.splitlines() if l.strip()]


def strategy_args(strategy=None, seed=None):
    args = []
    if strategy:
        args += ["--strategy", strategy]
    if seed:
        args += ["--seed", str(seed)]
    return args


def _run(cmd, jail):
    """(Result, Outcome or None) of race binary command @cmd."""
    with sandbox.Drop() as drop:
        result = drop.path("result")
        r = proc.run(cmd + ["--result", result], limits.RACE_TIMEOUT,
                     jail=sandbox.Jail(drop) if jail else None)
        return r, outcome(drop.read(result))


def run(binary, name, out=None, args=(), jail=False):
    """Explore scenario @name; (Result, Outcome or None).  @out: where a
    failing execution's schedule is written (not in a jail: it is
    read-only there)."""
    cmd = [binary, "run", name, "--binary", binary] + list(args)
    if out:
        cmd += ["--out", out]
    return _run(cmd, jail)


def replay(binary, sched, scenario=None, expect=None, args=(), jail=False):
    """Replay the schedule file @sched; (Result, Outcome or None).
    @scenario and @expect stand in for the file's missing header lines."""
    cmd = [binary, "replay", sched] + list(args)
    if scenario:
        cmd += ["--scenario", scenario]
    if expect:
        cmd += ["--expect", expect]
    return _run(cmd, jail)


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

class Item:
    """One graded scenario or exercise.

    ok        it met its expectation
    line      "PASS|FAIL name ...: why", one line
    verdict   PASS, FAIL, CRASH, TIMEOUT, OOM, DEADLOCK or LIVELOCK
    alone     the command that reruns it alone, outside the grader
    """

    def __init__(self, ok, line, verdict, alone):
        self.ok, self.line, self.verdict, self.alone = ok, line, verdict, alone


def _broken(r):
    """The verdict of a run that wrote no result."""
    if r.limit == "memory":
        return "OOM"
    if r.limit:
        return "TIMEOUT"
    return "CRASH" if r.signal else "FAIL"


def _failed(o):
    return o.got.upper() if o.got in ("deadlock", "livelock") else "FAIL"


def grade_scenario(binary, sc):
    """The Item of scenario @sc: it met its expectation."""
    alone = "%s run %s" % (binary, sc.name)
    r, o = run(binary, sc.name, jail=True)
    if o is None:
        last = r.tail(1) or ["no output"]
        return Item(False, "FAIL %s: no result (%s): %s" % (sc.name, r.status(), last[0]),
                    _broken(r), alone)
    ok = r.rc == 0 and o.met
    return Item(ok, "%s %s (%s, got %s): %s" % ("PASS" if ok else "FAIL", sc.name,
                                                o.expect, o.got, o.describe()[:160]),
                "PASS" if ok else _failed(o), alone)


def grade_exercise(binary, ex, impl_dir):
    """The Item of exercise @ex: the student's schedule file in @impl_dir
    replays to its verdict, at a step labelled ex.at."""
    sched = os.path.join(impl_dir, ex.file)
    alone = "%s replay %s --scenario %s --expect %s" % (binary, sched, ex.scenario, ex.verdict)
    if not os.path.exists(sched):
        return Item(False, "FAIL %s: %s does not exist" % (ex.file, sched), "FAIL", alone)
    r, o = replay(binary, sched, ex.scenario, ex.verdict, jail=True)
    if o is None:
        last = r.tail(1) or ["no output"]
        return Item(False, "FAIL %s: %s" % (ex.file, last[0]), _broken(r), alone)
    if o.met and (": " + ex.at) in o.verdict:
        return Item(True, "PASS %s replays to: %s" % (ex.file, o.verdict[:160]), "PASS", alone)
    return Item(False, "FAIL %s must end in %s at %s; it replays to: %s"
                % (ex.file, ex.verdict, ex.at, o.verdict[:160] or o.got), _failed(o), alone)


def grade_items(binary, exercises=(), impl_dir=None):
    """[Item]: every graded scenario of @binary, then each exercise.  Demo
    scenarios are left out."""
    items = [grade_scenario(binary, sc) for sc in scenarios(binary, jail=True) if sc.graded]
    return items + [grade_exercise(binary, ex, impl_dir) for ex in exercises]


def grade(binary, exercises=(), impl_dir=None):
    """[(ok, line)] of grade_items()."""
    return [(i.ok, i.line) for i in grade_items(binary, exercises, impl_dir)]
