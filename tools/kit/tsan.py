"""kit.tsan - the TSan programs' protocol (tests/tsan_case.h), once.

  prog --list     one line per case: "<case> clean|race"
  prog <case>     run that bounded case: exit 0 when it ran to the end, 1
                  when the code under test failed the case's own checks

Each case runs with TSAN_OPTIONS=exitcode=66 halt_on_error=1: ThreadSanitizer
reports a race by exiting 66.  A case passes when every run gives the
listed verdict ("clean": 0 and no report; "race": a report); a run whose
program failed its own checks, crashed or hung is neither.
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


def run_case(case, runs, every_run=False):
    """Run @case up to @runs times; return (ok, what was seen, [verdicts]).

    A "clean" case must be clean in every run.  A "race" case passes at the
    first run that reports it, or, with @every_run, only if every run does.
    """
    seen = []
    for i in range(runs):
        r = proc.run([case.prog, case.name], limits.TSAN_TIMEOUT, env=env())
        v = verdict(r)
        seen.append(v)
        if v not in ("race", "clean"):
            return False, v, seen
        if v != case.expect and (case.expect == "clean" or every_run):
            what = first_report(r) if v == "race" else "no race reported"
            return False, "%s in run %d: %s" % (v, i + 1, what), seen
        if v == "race" and not every_run:
            return True, "race reported (run %d)" % (i + 1), seen
    if case.expect == "race" and not every_run:
        return False, "no race reported in %d runs" % runs, seen
    return True, "%s in %d runs" % (case.expect, runs), seen
