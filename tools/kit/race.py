"""kit.race - the race binary of a lab (common/race/main.c), driven.

  race list                  one line per scenario: name, expectation
                             (must-fail[:verdict], must-hold, demo), summary
  race run SCENARIO ...      explore; ends with a RESULT line
  race replay FILE ...       replay a schedule; ends with a REPLAY line
  race check FILE...         read schedule files as replay would, run nothing
  race run-each PREFIX T S.. `race run` of each scenario, a process forked
                             for each from one start (the grader's: one
                             start of the binary and one jail a lab)

What a run or a replay ended in comes from the file the binary writes
with --result FILE (key=value lines, docs/reproducer.md), in a drop of the
grader's (kit.sandbox) -- not from what it prints, which the code under
test shares.  outcome() is the one place that reads it.  Demo scenarios
(expectation "demo") show test-local broken code: they are listed and can
be run, never graded.  Graded runs are jailed (kit.sandbox).

A schedule file is data: nothing in it chooses the program that replays
it.  target() finds the lab it is for -- LAB=, the lab folder it is in,
its "lab N" line, or its name (labN-*.sched) -- and the program is that
lab's race binary of the tree graded (IMPL), built by make.
"""
import difflib
import os
import re
import shlex

from . import layout, limits, proc, sandbox, schedfile
from .schedfile import SchedError, escape


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


def strategy_args(strategy=None, seed=None, memory=None, reduction=None):
    """The race binary's options for a strategy, a seed, a memory model
    (sc, weak) and the partial-order reduction (on, off); empty: default."""
    args = []
    for opt, value in (("--strategy", strategy), ("--seed", seed),
                       ("--memory", memory), ("--reduction", reduction)):
        if value:
            args += [opt, str(value)]
    return args


def _run(cmd, jail):
    """(Result, Outcome or None) of race binary command @cmd."""
    with sandbox.Drop() as drop:
        result = drop.path("result")
        r = proc.run(cmd + ["--result", result], limits.RACE_TIMEOUT,
                     jail=sandbox.Jail(drop) if jail else None)
        return r, outcome(drop.read(result))


def run(binary, name, out=None, args=(), lab=None, jail=False):
    """Explore scenario @name; (Result, Outcome or None).  @out: where a
    failing execution's schedule is written (not in a jail: it is
    read-only there); @lab: its "lab" line."""
    cmd = [binary, "run", name, "--binary", binary] + list(args)
    if out:
        cmd += ["--out", out]
    if lab:
        cmd += ["--lab", str(lab)]
    return _run(cmd, jail)


# run-each's line for a run that exited or ran out of time (one that a
# signal ended is run again alone).
_EACH = re.compile(r"^run-each (\d+) (exit (\d+)|timeout)$", re.M)


def run_each(binary, names, first_failure=False):
    """{name: (Result, Outcome)} of the scenarios @names explored one after
    the other by one start of @binary, jailed (race run-each: a process
    forked for each, its own output and result file; its exit status on
    the start's output, where the code under test cannot write).  A run
    over RACE_TIMEOUT is a TIMEOUT, as alone.  A scenario whose run left
    no result or was killed is left out, and so is every one if the
    jail's limits ended the start: run() those alone, where the jail says
    what ended them.  @first_failure: none is run after one that fails
    (and none of those is in it)."""
    found = {}
    if not names:
        return found
    with sandbox.Drop() as drop:
        prefix = drop.path("each")
        r = proc.run([binary, "run-each", prefix, str(limits.RACE_TIMEOUT)] +
                     (["--first-failure"] if first_failure else []) + list(names),
                     limits.RACE_TIMEOUT * len(names) + 30, jail=sandbox.Jail(drop))
        if r.rc != 0 or r.limit:
            return found
        ended = {int(m.group(1)): m.group(3) for m in _EACH.finditer(r.out)}
        for i, name in enumerate(names):
            o = outcome(drop.read("%s.%d.result" % (prefix, i)))
            out = drop.read("%s.%d.out" % (prefix, i)) or ""
            if i in ended and ended[i] is None:
                found[name] = (proc.Result(None, out, timed_out=True,
                                           seconds=limits.RACE_TIMEOUT), None)
            elif i in ended and o is not None:
                found[name] = (proc.Result(int(ended[i]), out), o)
    return found


def replay(binary, sched, scenario=None, expect=None, args=(), jail=False):
    """Replay the schedule file @sched; (Result, Outcome or None).
    @scenario and @expect stand in for the file's missing header lines."""
    cmd = [binary, "replay", sched] + list(args)
    if scenario:
        cmd += ["--scenario", scenario]
    if expect:
        cmd += ["--expect", expect]
    return _run(cmd, jail)


def check(binary, sched, scenario=None):
    """None if @binary reads schedule file @sched as well formed for its
    scenario (or @scenario), else the binary's one-line message."""
    cmd = [binary, "check", sched] + (["--scenario", scenario] if scenario else [])
    r = proc.run(cmd, limits.RACE_TIMEOUT)
    if r.rc == 0:
        return None
    last = r.tail(1) or ["no output"]
    if r.rc == 2 and len(r.tail(2)) == 1:
        return last[0]
    return "race check %s: %s: %s" % (escape(sched), r.status(), last[0])


class Target:
    """What replays schedule file @sched.

    lab, impl   the Lab (kit.layout) and the tree whose race binary runs it
    binary      that binary
    scenario    the scenario to pass to it, or None (the file names it)
    expect      the verdict to pass to it, or None (the file's result line)
    why         how the lab was found, for a note
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def args(self):
        """--scenario/--expect for the binary's replay and check."""
        return (["--scenario", self.scenario] if self.scenario else []) + \
            (["--expect", self.expect] if self.expect else [])


def _first_words(data):
    return {text.split()[0] for _, text in schedfile.lines(data) if text.split()}


_NAMED = re.compile(r"^lab(\d+)-.*\.sched$")


def _which_lab(sched, data, lab, labs, found):
    """(number, why) of the lab @sched is for; SchedError if none."""
    numbers = sorted(l.n for l in labs)
    if lab not in (None, ""):
        if not str(lab).isdigit() or int(lab) not in numbers:
            raise SchedError("LAB=%s: expected the number of a lab (%s)"
                             % (escape(str(lab)), ", ".join(map(str, numbers))))
        return int(lab), "LAB=%s" % lab
    if found:
        return found.n, "it is in %s's folder" % found.folder
    line = schedfile.lab_line(sched, data)
    if line:
        if line[1] not in numbers:
            raise SchedError("%s:%d: expected the number of a lab of the kit (%s), "
                             "got 'lab %d'" % (escape(sched), line[0],
                                               ", ".join(map(str, numbers)), line[1]))
        return line[1], "its line %d says lab %d" % line
    m = _NAMED.match(os.path.basename(sched))
    if m and int(m.group(1)) in numbers:
        return int(m.group(1)), "its name says lab %s" % m.group(1)
    raise SchedError("%s: cannot tell which lab it is for: it has no 'lab N' line "
                     "and is in no lab's folder; give LAB=N" % escape(sched))


def _folder(sched, labs):
    """(lab number, tree) of the lab folder @sched is in (IMPL/labN-xxx/),
    or (None, None): as kit.layout.find(), from the names alone."""
    parts = os.path.normpath(sched).split(os.sep)
    folders = {l.folder: l.n for l in labs}
    for i, part in enumerate(parts[:-1]):
        if part in folders:
            return folders[part], os.sep.join(parts[:i]) or "."
    return None, None


def inspect(sched, lab, labs):
    """The file-reading half of target(), run on nothing but the file and
    @labs (every Lab): (lab number, tree or None, why, whether it has a
    "scenario" line, a "result" line).  The tree is the one whose lab
    folder holds @sched, if that is the lab's.  SchedError (one line) for a
    file that cannot be read or names no lab."""
    data = schedfile.read(sched)
    in_n, in_impl = _folder(sched, labs)
    found = next((l for l in labs if l.n == in_n), None) if lab in (None, "") else None
    n, why = _which_lab(sched, data, lab, labs, found)
    words = _first_words(data)
    return n, in_impl if in_n == n else None, why, b"scenario" in words, b"result" in words


def target(sched, lab=None, impl="labs", build=None):
    """The Target that replays schedule file @sched, its binary built;
    SchedError (one line) if the file cannot be read, names no lab, or
    the lab's binary does not build."""
    n, in_impl, why, has_scenario, has_result = inspect(
        sched, lab, layout.labs(impl=impl, build=build))
    impl = in_impl or impl
    l = layout.lab(n, impl=impl, build=build)
    if l.problem:
        raise SchedError("lab %d: %s" % (n, l.problem))
    if not l.bins["race"]:
        raise SchedError("lab %d has no race scenarios to replay %s on" % (n, escape(sched)))
    r = proc.make(["-s", l.bins["race"]], impl=impl, build=build)
    if not r.ok:
        raise SchedError("lab %d (IMPL=%s) does not build (%s): 'make race-%d IMPL=%s' "
                         "shows why" % (n, escape(impl), r.status(), n, escape(impl)))
    ex = l.exercise(os.path.basename(sched)) if in_impl else None
    return Target(lab=l, impl=impl, binary=l.bins["race"], why=why,
                  scenario=ex.scenario if ex and not has_scenario else None,
                  expect=ex.verdict if ex and not has_result else None)


def commands(t, sched, rr_ok):
    """The lines that say how to replay, debug and record @sched (Target
    @t): the rr line only where rr can record (@rr_ok)."""
    extra = "" if t.impl == "labs" else " IMPL=%s" % shlex.quote(t.impl)
    s = shlex.quote(sched)
    lines = ["replay it:      make replay SCHED=%s%s" % (s, extra),
             "walk it back:   make debug SCHED=%s%s   (gdb: goto-step K, step-back, "
             "who-freed)" % (s, extra)]
    if rr_ok:
        lines.append("record it:      make rr-record-%d SCHED=%s%s" % (t.lab.n, s, extra))
    return lines


# --- grading ---------------------------------------------------------------------

class Item:
    """One graded scenario or exercise.

    name      the scenario's name, or the exercise's file
    ok        it met its expectation
    line      "PASS|FAIL name ...: why", one line
    why       what it ended in, one line
    verdict   PASS, FAIL, CRASH, TIMEOUT, OOM, DEADLOCK or LIVELOCK
    alone     the command that reruns it alone, outside the grader
    excerpt   the steps of its timeline around the verdict (excerpt())
    exercise  whether it is an exercise; sched: its file, as shown
    """

    def __init__(self, ok, line, verdict, alone, name="", why="", excerpt=(), sched=None):
        self.ok, self.line, self.verdict, self.alone = ok, line, verdict, alone
        self.name, self.why, self.excerpt = name, why, list(excerpt)
        self.exercise, self.sched = sched is not None, sched


# The timeline's cells, "function.op(object) = value", say what "= value" is.
LEGEND = ("(a cell is function.op(object) = v: v is what the step read -- for an "
          "update, the value before it -- or wrote)")
NOT_WRITTEN = schedfile.NOT_WRITTEN


def with_legend(out):
    """@out (a run's or a replay's output) with LEGEND above its timeline."""
    return "\n".join((LEGEND + "\n" + l) if l.startswith("step |") else l
                     for l in out.splitlines())


def columns(out):
    """{thread: [the labels of its steps, in order]} of the timeline in
    @out ("T1": ["cache_lookup_unlocked.spin_lock", ...])."""
    lines = out.splitlines()
    head = next((k for k, l in enumerate(lines) if l.startswith("step |")), None)
    if head is None or head + 1 >= len(lines):
        return {}
    cuts = [k for k, c in enumerate(lines[head + 1]) if c == "+"] + [None]
    names = [c.split()[0] for c in lines[head].split("|")[1:] if c.split()]
    found = {n: [] for n in names}
    for l in lines[head + 2:]:
        if not re.match(r"^ *\d+ \|", l):
            break
        for n, a, b in zip(names, cuts, cuts[1:]):
            cell = l[a + 1:b].strip(" |")
            if cell:
                label = cell.split("(")[0].split(" =")[0].strip()
                if label not in found[n]:
                    found[n].append(label)
    return found


_DIVERGED = re.compile(r"diverged at step \d+: expected (\S+) (\S+), runnable .*?"
                       r"\(schedule line (\d+)\)")


def diverged_help(n, sched, out):
    """The lines that help with a replay @out that diverged because a run
    line names a step its thread never reaches: the thread's steps in the
    replay, and the closest to the label asked for; [] otherwise."""
    m = _DIVERGED.search(out)
    if not m:
        return []
    thread, label, line = m.group(1), m.group(2), m.group(3)
    steps = columns(out).get(thread, [])
    if not steps or label in steps:
        return []
    close = difflib.get_close_matches(label, steps, 1, 0.6)
    return ["%s:%s: %s never reaches a step '%s'.  Its steps in this replay: %s.%s"
            % (escape(sched), line, thread, label, ", ".join(steps),
               "  Closest: '%s'." % close[0] if close else
               "  'make race-%d' prints the timeline with every label." % n)]


def excerpt(out, rows=8):
    """The timeline in @out (a run's or a replay's output) cut to its last
    @rows steps before the verdict: the legend, the header, '...', the
    steps, the verdict line; [] if @out has no timeline."""
    lines = out.splitlines()
    head = next((k for k, l in enumerate(lines) if l.startswith("step |")), None)
    if head is None:
        return []
    steps, k = [], head + 2
    while k < len(lines) and re.match(r"^ *\d+ \|", lines[k]):
        steps.append(lines[k])
        k += 1
    end = [l for l in lines[k:k + 3] if l.startswith(("verdict:", "violation:", "diverged"))]
    cut = ["  ..."] if len(steps) > rows else []
    return [LEGEND] + lines[head:head + 2] + cut + steps[-rows:] + end[:1]


def _broken(r):
    """The verdict of a run that wrote no result."""
    if r.limit == "memory":
        return "OOM"
    if r.limit:
        return "TIMEOUT"
    return "CRASH" if r.signal else "FAIL"


def _failed(o):
    return o.got.upper() if o.got in ("deadlock", "livelock") else "FAIL"


def grade_scenario(binary, sc, ran=None):
    """The Item of scenario @sc: it met its expectation.  @ran: its (Result,
    Outcome) from run_each(), else it runs alone."""
    alone = "%s run %s" % (binary, sc.name)
    r, o = ran or run(binary, sc.name, jail=True)
    if o is None:
        last = r.tail(1) or ["no output"]
        why = "no result (%s): %s" % (r.status(), last[0])
        return Item(False, "FAIL %s: %s" % (sc.name, why), _broken(r), alone, sc.name, why)
    ok = r.rc == 0 and o.met
    why = "%s, got %s: %s" % (o.expect, o.got, o.describe()[:160])
    return Item(ok, "%s %s (%s)" % ("PASS" if ok else "FAIL", sc.name, why),
                "PASS" if ok else _failed(o), alone, sc.name, why,
                () if ok else excerpt(r.out))


# A verdict about an access: "KIND: FUNCTION.OP on obj#N (cache, size,
# +offset, a read|a write|an update...)" (common/race/objects.c).
_ACCESS = re.compile(r"^[\w-]+: (\w+)\.(\w+) on \S+ \([^)]*?, (a read|a write|an update)")


def failing_access(verdict):
    """(function, op, access) of the step a verdict line names, access being
    'read', 'write' or 'update'; None if the verdict names no access."""
    m = _ACCESS.match(verdict or "")
    return (m.group(1), m.group(2), m.group(3).split()[-1]) if m else None


def at_step(ex, verdict):
    """Whether @verdict happened where exercise @ex wants it: in function
    ex.at (or at a label starting with ex.at, if it has a dot), by an
    access of kind ex.access -- whatever primitive performed it."""
    step = failing_access(verdict)
    if not step:
        return False
    fn, op, access = step
    where = ("%s.%s" % (fn, op)).startswith(ex.at) if "." in ex.at else fn == ex.at
    return where and (not ex.access or access == ex.access)


def grade_exercise(binary, ex, impl_dir, shown_dir=None):
    """The Item of exercise @ex: the student's schedule file in @impl_dir
    replays to its verdict, at the step the manifest names (at_step).
    @shown_dir: the folder as the student names it (default @impl_dir)."""
    sched = os.path.join(impl_dir, ex.file)
    shown = os.path.join(shown_dir or impl_dir, ex.file)
    alone = "%s replay %s --scenario %s --expect %s" % (binary, sched, ex.scenario, ex.verdict)

    def item(ok, why, verdict, lines=()):
        sep = " " if why.startswith(("must end", "replays to")) else ": "
        return Item(ok, "%s %s%s%s" % ("PASS" if ok else "FAIL", ex.file, sep, why), verdict,
                    alone, ex.file, why, lines, shown)
    if not os.path.exists(sched):
        return item(False, "%s does not exist" % shown, "FAIL")
    try:
        problem = schedfile.exercise_problem(schedfile.read(sched), ex)
    except SchedError as e:
        problem = str(e)
    if problem:
        return item(False, problem, "FAIL")
    r, o = replay(binary, sched, ex.scenario, ex.verdict, jail=True)
    if o is None:
        last = r.tail(1) or ["no output"]
        return item(False, last[0], _broken(r))
    if o.met and at_step(ex, o.verdict):
        return item(True, "replays to: %s" % o.verdict[:160], "PASS")
    want = "%s at %s" % (ex.verdict, ex.at)
    if ex.access:
        want += " by %s %s" % ("an" if ex.access == "update" else "a", ex.access)
    return item(False, "must end in %s; it replays to: %s" % (want, o.verdict[:160] or o.got),
                _failed(o), excerpt(r.out) + diverged_help(getattr(ex, "lab", "N"), shown, r.out))


def grade_items(binary, exercises=(), impl_dir=None, shown_dir=None, first_failure=False):
    """[Item]: every graded scenario of @binary, then each exercise (with
    @first_failure, none after the first that fails).  Demo scenarios are
    left out; the others run from one start of the binary (run_each())."""
    items = []
    graded = [sc for sc in scenarios(binary, jail=True) if sc.graded]
    ran = run_each(binary, [sc.name for sc in graded], first_failure)
    todo = [lambda sc=sc: grade_scenario(binary, sc, ran.get(sc.name)) for sc in graded]
    todo += [lambda ex=ex: grade_exercise(binary, ex, impl_dir, shown_dir) for ex in exercises]
    for grade_one in todo:
        items.append(grade_one())
        if first_failure and not items[-1].ok:
            break
    return items


def grade(binary, exercises=(), impl_dir=None):
    """[(ok, line)] of grade_items()."""
    return [(i.ok, i.line) for i in grade_items(binary, exercises, impl_dir)]
