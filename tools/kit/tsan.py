"""kit.tsan - the TSan programs' protocol (tests/tsan_case.h), once.

  prog --list     one line per case: "<case> clean|race"
  prog <case>     run that bounded case: exit 0 when it ran to the end, 1
                  when the code under test failed the case's own checks

Each case runs with TSAN_OPTIONS=exitcode=66 halt_on_error=1: ThreadSanitizer
reports a race by exiting 66.  A "clean" case passes when every run exits 0
with no report; a "race" case when a run reports it.  A run whose program
failed its own checks, crashed or hung fails the case either way.
"""
import os

from . import limits, proc

TSAN_EXIT = 66
WARNING = "WARNING: ThreadSanitizer"


class Case:
    def __init__(self, prog, name, expect):
        self.prog, self.name, self.expect = prog, name, expect

    def __str__(self):
        return "%s %s" % (os.path.basename(self.prog), self.name)


class ListError(Exception):
    """The program's --list failed."""


def cases(prog):
    """[Case] that @prog lists; ListError if it cannot say."""
    r = proc.run([prog, "--list"], 20)
    pairs = [l.split() for l in r.out.splitlines()]
    found = [Case(prog, p[0], p[1]) for p in pairs
             if len(p) == 2 and p[1] in ("clean", "race")]
    if r.rc != 0 or not found:
        raise ListError("%s --list failed (%s)" % (os.path.basename(prog), r.status()))
    return found


def env():
    e = proc.clean_env()
    opts = e.get("TSAN_OPTIONS", "")
    e["TSAN_OPTIONS"] = (opts + " exitcode=%d halt_on_error=1" % TSAN_EXIT).strip()
    return e


def verdict(r):
    """'race', 'clean', or why a run of a case was neither (a Result)."""
    if r.timed_out:
        return "TIMEOUT after %ds" % limits.TSAN_TIMEOUT
    if r.rc == TSAN_EXIT or WARNING in r.out:
        return "race"
    if "BUG: use-after-free" in r.out:
        # The slab's poison check stopped the program while TSan was still
        # writing its report about the same access: the race was caught.
        return "race"
    if r.rc == 0:
        return "clean"
    last = r.tail(1) or ["no output"]
    return "%s: %s" % (r.status(), last[0])


def first_report(r):
    """The first line of TSan's (or the slab's) report in @r's output."""
    return next((l.strip() for l in r.out.splitlines()
                 if WARNING in l or l.startswith("BUG:")), "")


def run_case(case, runs, all_runs=False):
    """Run @case up to @runs times; return (ok, what was seen, [verdicts]).

    A "clean" case must be clean in every run.  A "race" case passes when a
    run reports it: at the first such run, or, with @all_runs, after all
    @runs runs (to show each run's verdict).  Whether a race shows depends
    on the threads overlapping for real, so a loaded machine may miss it in
    a run; a false report or a failed check is never excused.
    """
    seen, reported = [], 0
    for i in range(runs):
        r = proc.run([case.prog, case.name], limits.TSAN_TIMEOUT, env=env())
        v = verdict(r)
        seen.append(v)
        if v not in ("race", "clean"):
            return False, v, seen
        if v == "race" and case.expect == "clean":
            return False, "race in run %d: %s" % (i + 1, first_report(r)), seen
        reported += v == "race"
        if reported and not all_runs:
            return True, "race reported (run %d)" % (i + 1), seen
    if case.expect == "race" and not reported:
        return False, "no race reported in %d runs" % runs, seen
    if case.expect == "race":
        return True, "race reported in %d of %d runs" % (reported, runs), seen
    return True, "clean in %d runs" % runs, seen
