"""kit.tsan - the TSan programs' protocol (tests/tsan_case.h), once.

  prog --list     one line per case: "<case> clean|race"
  prog <case>     run that bounded case: exit 0 when it ran to the end, 1
                  when the code under test failed the case's own checks

Each run of a case is jailed (kit.sandbox) with TSAN_OPTIONS=exitcode=66
halt_on_error=1 log_path=LOG, LOG an unguessable path in the jail's drop:
ThreadSanitizer writes its reports to LOG.<pid>, not to the output the code
under test shares.  And atexit_sleep_ms=0: TSan's default second of sleep
at exit, for threads still running then, finds nothing in a case (its
threads are joined, its callbacks flushed, before it returns) and would be
most of a clean run while liburcu's call_rcu thread is alive.  And
history_size=7, the longest per-thread history: TSan reports a race only
if it can still find the other access's stack in that thread's history,
and with the default a lab 4 case that must report one (mixing) missed it
in 4 runs of 100 (0 of 100 with it, at the same cost).  The verdict of a run, from that file, the kit's
evidence (common/evidence.h) and the exit status -- never from the output:

  race      TSan's log holds a report ("WARNING: ThreadSanitizer: ..."), or
            the slab caught the use-after-free or double free the race
            leads to (a BUG noted by the primitives, before TSan could
            report it)
  clean     exit 0, no report, and the case noted that it ran to its end
  CRASH     a signal, or TSan's exit code with no report (TSan exits 66 on
            a deadly signal too: a crash is never a race)
  TIMEOUT   over a time limit;  OOM  over the memory limit
  FAIL      exit 1: the case's own checks of the code under test failed

A case passes when every run gives the listed verdict ("clean": every
run; "race": the first run that reports it).
"""
import os
import re

from . import ROOT, limits, proc, sandbox

TSAN_EXIT = 66
WARNING = "WARNING: ThreadSanitizer:"
# The kit's own reports that show the race a "race" case exists for: an
# access to freed memory, and a get that raised a count which had reached 0
# (common/refcount_watch.h) -- what lab 1's unlocked lookup does first.
RACE_BUGS = ("BUG: use-after-free", "BUG: double-free", "BUG: refcount-from-0")


class Case:
    def __init__(self, prog, name, expect):
        self.prog, self.name, self.expect = prog, name, expect

    def __str__(self):
        return "%s %s" % (os.path.basename(self.prog), self.name)

    def alone(self):
        """The command that runs this case alone, outside the grader."""
        return "TSAN_OPTIONS=halt_on_error=1 %s %s" % (self.prog, self.name)


class ListError(Exception):
    """The program's --list failed."""


def cases(prog):
    """[Case] that @prog lists; ListError if it cannot say."""
    r = proc.run([prog, "--list"], 20, jail=sandbox.Jail())
    pairs = [l.split() for l in r.out.splitlines()]
    found = [Case(prog, p[0], p[1]) for p in pairs
             if len(p) == 2 and p[1] in ("clean", "race")]
    if r.rc != 0 or not found:
        raise ListError("%s --list failed (%s)" % (os.path.basename(prog), r.status()))
    return found


def options(log, extra=""):
    """TSAN_OPTIONS of a run whose reports go to @log (the module doc says
    why each): @extra (the caller's own) may change the first two, never
    the exit code, the stop at the first report or the log."""
    return " ".join(o for o in ("atexit_sleep_ms=0 history_size=7", extra.strip(),
                                "exitcode=%d halt_on_error=1 log_path=%s" % (TSAN_EXIT, log))
                    if o)


def env(log, evidence):
    e = proc.clean_env(KIT_EVIDENCE=evidence)
    e["TSAN_OPTIONS"] = options(log, e.get("TSAN_OPTIONS", ""))
    return e


class Run:
    """One run of a case: the Result, TSan's log (all its files), the kit's
    evidence."""

    def __init__(self, result, log, evidence):
        self.result, self.log, self.evidence = result, log, evidence or ""

    def bugs(self):
        return [l[4:] for l in self.evidence.splitlines() if l.startswith("bug ")]

    def verdict(self):
        """'race', 'clean', or why the run was neither: 'CRASH: ...',
        'TIMEOUT: ...', 'OOM: ...', 'FAIL: ...'."""
        r = self.result
        if r.limit == "memory":
            return "OOM: over %d MiB (KIT_MEM_LIMIT)" % limits.MEM_LIMIT
        if r.limit:
            return "TIMEOUT: over the %s limit (%d s)" % (
                r.limit, limits.TSAN_TIMEOUT if r.limit == "wall time" else limits.CPU_LIMIT)
        if WARNING in self.log or any(b.startswith(RACE_BUGS) for b in self.bugs()):
            return "race"
        if r.signal or r.rc == TSAN_EXIT:
            why = next((l for l in self.log.splitlines() if "ERROR: ThreadSanitizer" in l), "")
            what = proc.signal_name(r.signal) if r.signal else "TSan's exit code, no race report"
            detail = (self.bugs() or [why.split("==")[-1]])[0].strip()
            return "CRASH: %s%s" % (what, ": " + detail if detail else "")
        if r.rc == 0:
            if "\ncase " not in "\n" + self.evidence:
                return "FAIL: the case's process exited 0 before the case ended"
            return "clean"
        if r.rc == 1:
            return "FAIL: the case's own checks of the code under test failed (exit 1)"
        return "FAIL: %s" % r.status()

    def first_report(self):
        """The first line of TSan's (or the slab's) report."""
        return next((l.strip() for l in self.log.splitlines() if WARNING in l),
                    (self.bugs() or [""])[0])


def run_once(case):
    """Run @case once, jailed; a Run."""
    with sandbox.Drop() as drop:
        log, evidence = drop.path("tsan"), drop.path("evidence")
        r = proc.run([case.prog, case.name], limits.TSAN_TIMEOUT, env=env(log, evidence),
                     jail=sandbox.Jail(drop))
        return Run(r, "\n".join(drop.matching(log)), drop.read(evidence))


def run_case(case, runs, every_run=False, log=None):
    """Run @case up to @runs times; return (ok, what was seen, [verdicts]).

    A "clean" case must be clean in every run.  A "race" case passes at the
    first run that reports it, or, with @every_run, only if every run does.
    A run that is neither race nor clean (a crash, a timeout, its own
    checks failed) fails the case at once.  @log, a list: the failing
    run's TSan log and BUG lines are appended to it (accesses() reads them).
    """
    seen = []
    for i in range(runs):
        run = run_once(case)
        v = run.verdict()
        seen.append(v.split(":")[0])
        if log is not None and v != case.expect:
            log[:] = [symbolize(run.log, case.prog)] + [
                b if b.startswith("BUG: ") else "BUG: " + b for b in run.bugs()]
        if v not in ("race", "clean"):
            return False, "%s in run %d" % (v, i + 1), seen
        if v != case.expect and (case.expect == "clean" or every_run):
            what = run.first_report() if v == "race" else "no race reported"
            return False, "%s in run %d: %s" % (v, i + 1, what), seen
        if v == "race" and not every_run:
            return True, "race reported (run %d)" % (i + 1), seen
    if case.expect == "race" and not every_run:
        return False, "no race reported in %d runs" % runs, seen
    return True, "%s in %d runs" % (case.expect, runs), seen


# A TSan report: "  Atomic read of size 4 at 0x7b10... by thread T1:", then
# its stack, "    #0 kref_get /abs/path/kref.c:10:2 (prog+0x...)".
_ACCESS = re.compile(r"^  (Previous |)(.+?) of size (\d+) at 0x[0-9a-f]+ by (.+?)(?: \(mutexes.*\))?:$")
_FRAME = re.compile(r"^    #\d+ (\S+) (\S+?)(?::(\d+))?(?::\d+)? \(")


# A frame TSan could not name: the jail's lockdown lets it start no
# symbolizer (kit.sandbox), so it prints the module and the offset.
_UNNAMED = re.compile(r"^(    #(\d+) )<null> <null> \((\S+)\+0x([0-9a-f]+)\)")


def symbolize(log, prog):
    """@log with each unnamed frame of @prog named, as TSan would have named
    it: "function file:line", from addr2line run here, outside the jail.
    A frame that is a return address (all but #0) is looked up one byte
    back, in the call that made it."""
    name = os.path.basename(prog)
    lines = (log or "").splitlines()
    wanted = []
    for i, line in enumerate(lines):
        m = _UNNAMED.match(line)
        if m and m.group(3) == name:
            off = int(m.group(4), 16) - (1 if m.group(2) != "0" else 0)
            wanted.append((i, m, off))
    if not wanted:
        return log
    r = proc.run(["addr2line", "-f", "-e", prog] + ["0x%x" % w[2] for w in wanted], 30)
    out = r.out.splitlines() if r.ok else []
    if len(out) != 2 * len(wanted):
        return log
    for k, (i, m, _) in enumerate(wanted):
        fn, where = out[2 * k], out[2 * k + 1].split(" (discriminator")[0]
        if fn != "??" and not where.startswith("??"):
            rest = lines[i][m.end(1) + len("<null> <null>"):]
            lines[i] = "%s%s %s%s" % (m.group(1), fn, where, rest)
    return "\n".join(lines)


def _where(path, shown_impl, impl):
    """@path relative to the kit, or to the student's tree (@impl shown as
    @shown_impl): never a temporary folder of the grader's."""
    path = os.path.normpath(path)
    tree = os.path.abspath(impl) if impl else None
    if tree and path.startswith(tree + os.sep):
        return os.path.join(shown_impl, os.path.relpath(path, tree))
    if path.startswith(ROOT + os.sep):
        return os.path.relpath(path, ROOT)
    return os.path.basename(path)


def accesses(log, shown_impl="labs", impl=None):
    """The lines that show a failing run's report to a student: each of
    the two racing accesses of TSan's first report, who made it, and where
    (its innermost frame and the first frames of the lab's code, file:line
    and function), or the BUG the slab caught; [] if there is none."""
    lines, frames, bugs = [], None, []
    for line in (log or "").splitlines():
        if line.startswith("BUG: "):
            bugs.append(line)
            continue
        if line.startswith("SUMMARY:") or (lines and line.startswith("  Location")):
            break
        if line.startswith("WARNING: ThreadSanitizer:") and not lines:
            lines.append("TSan: " + line.split("ThreadSanitizer:", 1)[1].split(" (pid")[0].strip())
            continue
        m = _ACCESS.match(line)
        if m and lines:
            frames = []
            who = m.group(4).replace("thread ", "")
            lines.append("%s%s: %s of %s bytes" % (who, ", before that" if m.group(1) else "",
                                                    m.group(2).lower(), m.group(3)))
            lines.append(frames)
            continue
        f = _FRAME.match(line)
        if f and frames is not None and f.group(2) != "<null>":
            frames.append((f.group(1), _where(f.group(2), shown_impl, impl), f.group(3)))
    out = []
    for l in lines:
        if isinstance(l, list):
            out[-1] += " in " + _stack(l) if l else ""
        else:
            out.append(l)
    return (out or []) + bugs[:1]


def _stack(frames):
    """The innermost frame, then the first two in the lab's code (not the
    kit's common/): "slab_free (common/slab.c:279) <- cache_obj_release
    (labs/lab1-kref/cache_given.c:33) <- kref_put (labs/lab1-kref/kref.c:18)"."""
    own = [f for f in frames if not f[1].startswith("common" + os.sep)]
    shown = frames[:1] + [f for f in own[:2] if f is not frames[0]]
    return " <- ".join("%s (%s%s)" % (fn, path, ":" + line if line else "")
                       for fn, path, line in shown)
