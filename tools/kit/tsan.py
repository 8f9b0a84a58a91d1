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
most of a clean run while liburcu's call_rcu thread is alive.  The verdict of a run, from that file, the kit's
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

from . import limits, proc, sandbox

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


def env(log, evidence):
    e = proc.clean_env(KIT_EVIDENCE=evidence)
    opts = "atexit_sleep_ms=0 " + e.get("TSAN_OPTIONS", "")
    e["TSAN_OPTIONS"] = (opts + " exitcode=%d halt_on_error=1 log_path=%s"
                         % (TSAN_EXIT, log)).strip()
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


def run_case(case, runs, every_run=False):
    """Run @case up to @runs times; return (ok, what was seen, [verdicts]).

    A "clean" case must be clean in every run.  A "race" case passes at the
    first run that reports it, or, with @every_run, only if every run does.
    A run that is neither race nor clean (a crash, a timeout, its own
    checks failed) fails the case at once.
    """
    seen = []
    for i in range(runs):
        run = run_once(case)
        v = run.verdict()
        seen.append(v.split(":")[0])
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
