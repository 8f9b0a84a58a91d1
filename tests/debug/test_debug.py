#!/usr/bin/env python3
"""test_debug.py - walking a reproduced race back: make debug, and rr.

  test_debug.py --lab1-bin BIN [Gdb | RrRecords | RrCannot]

BIN is lab 1's race binary, built against the solutions.

  Gdb        make debug under plain gdb, its commands read from a pipe
             (gdb's batch use): the lab 1 race stops at its verdict in
             kref_get, who-freed names cache_obj_release in T2 at the step
             the schedule file recorded, step-back / goto-step / step-forward
             stand where they say, and bad input is one line.
  RrRecords  where rr can record: make rr-record-1, then rr replay with
             the kit's script in batch mode lands, reverse-continuing from
             the verdict, in T2's kref_put or kfree.
  RrCannot   where rr cannot record: every rr target prints rr's own first
             line, why, and the command that works here, and fails without
             a traceback.

tools/check.py runs RrRecords or RrCannot, whichever the probe allows, and
prints a SKIP line for the other.  Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kit import rr  # noqa: E402

LAB1 = None
UNLOCKED = "lookup_unlocked_vs_remove"


def run(cmd, stdin=b"", timeout=240):
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, cwd=ROOT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def make(*args, stdin=b""):
    return run(["make", "--no-print-directory"] + list(args), stdin=stdin)


class Recorded(unittest.TestCase):
    """A schedule of the lab 1 race, recorded by the solutions' binary."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.sched = os.path.join(cls.dir.name, "lab1-race.sched")
        rc, out = run([LAB1, "run", UNLOCKED, "--out", cls.sched, "--lab", "1"])
        assert rc == 0, out
        with open(cls.sched) as f:
            text = f.read()
        cls.free_step = int(re.search(r"^step (\d+) T2 cache_obj_release\.kfree obj#1 ",
                                      text, re.M).group(1))
        cls.steps = len(re.findall(r"^step ", text, re.M))

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def debug(self, commands, *args, sched=None):
        rc, out = make("debug", "SCHED=" + (sched or self.sched), "IMPL=solutions", *args,
                       stdin=("\n".join(commands) + "\n").encode())
        self.assertEqual(rc, 0, out)
        self.assertNotIn("Traceback", out)
        self.assertNotIn("Python Exception", out)
        return out


class Gdb(Recorded):
    """One make debug session for most tests: its output, cut at gdb's
    prompts, one piece per command."""
    COMMANDS = ["who-freed", "step-back", "goto-step 5", "who-freed", "step-forward",
                "who-freed", "goto-step", "who-freed kref", "rr-walk-back"]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rc, out = make("debug", "SCHED=" + cls.sched, "IMPL=solutions",
                       stdin=("\n".join(cls.COMMANDS) + "\n").encode())
        cls.rc, cls.out = rc, out
        cls.piece = dict(zip(["start"] + cls.COMMANDS[:2] + ["goto-step 5", "who-freed 5",
                              "step-forward", "who-freed 6", "goto-step", "who-freed kref",
                              "rr-walk-back"], out.split("(gdb) ")))

    def test_session_ran(self):
        self.assertEqual(self.rc, 0, self.out)
        self.assertNotIn("Traceback", self.out)
        self.assertNotIn("Python Exception", self.out)
        self.assertEqual(len(self.piece), len(self.COMMANDS) + 1, self.out)

    def test_stops_at_the_verdict(self):
        out, n = self.piece["start"], self.steps
        self.assertIn("step %d of %d, the verdict: T1 kref_get.inc(obj#1)" % (n, n), out)
        self.assertRegex(out, r"T1 lookup_unlocked: found the verdict\n +#\d+ +kref_get \(")
        self.assertIn("T2 remove_key: finished", out)

    def test_who_freed_names_cache_obj_release_in_T2(self):
        out = self.piece["who-freed"]
        self.assertIn("who-freed: obj#1 was freed at step %d by T2 remove_key, in "
                      "cache_obj_release:" % self.free_step, out)
        self.assertRegex(out, r"#\d+ .*cache_obj_release \(.*labs/lab1-kref/cache_given\.c:\d+")
        self.assertRegex(out, r"#\d+ .*kref_put \(")
        self.assertRegex(out, r"#\d+ .*remove_key \(")
        self.assertIn("back at step %d, the verdict" % self.steps, out)

    def test_step_back_goto_step_forward(self):
        self.assertIn("step %d of %d: T2 cache_obj_release.kfree(obj#1), before its access"
                      % (self.steps - 1, self.steps), self.piece["step-back"])
        self.assertIn("T2 remove_key: takes step %d" % (self.steps - 1), self.piece["step-back"])
        self.assertIn("T1 lookup_unlocked: waits at kref_get.inc", self.piece["step-back"])
        out = self.piece["goto-step 5"]
        self.assertIn("step 5 of %d: T1 kref_get.read(obj#1), before its access" % self.steps, out)
        self.assertIn("T2 remove_key: waits at cache_remove.spin_lock", out)
        self.assertIn("who-freed: no step before step 5 frees obj#1", self.piece["who-freed 5"])
        self.assertIn("step 6 of %d: T2 cache_remove.spin_lock" % self.steps,
                      self.piece["step-forward"])
        self.assertIn("step 6 accesses no object of the slab: who-freed EXPR names one",
                      self.piece["who-freed 6"])

    def test_who_freed_an_expression(self):
        self.assertRegex(self.piece["goto-step"], r"#\d+ +kref_get \(.*\n11\t")
        self.assertIn("who-freed: obj#1 was freed at step %d by T2" % self.free_step,
                      self.piece["who-freed kref"])

    def test_rr_walk_back_needs_rr(self):
        """Its first half (stop at the verdict, watch the victim) runs under
        plain gdb too; going backwards then needs rr, and it says so."""
        out = self.piece["rr-walk-back"]
        self.assertIn("rr-walk-back: verdict at step %d, T1 kref_get.inc(obj#1): "
                      "use-after-free" % self.steps, out)
        self.assertRegex(out, r"rr-walk-back: watching the 4 bytes at 0x[0-9a-f]+ \(obj#1\)")
        self.assertRegex(out, r"rr-walk-back: this gdb cannot run backwards \(Target .* does "
                              r"not support this command\.\): that needs rr \(make rr-replay-N\)")

    def test_start_at_a_step(self):
        out = self.debug([], "STEP=%d" % self.free_step)
        self.assertIn("stopped at step %d" % self.free_step, out)
        self.assertIn("step %d of %d: T2 cache_obj_release.kfree(obj#1)"
                      % (self.free_step, self.steps), out)

    def test_the_exercise_file(self):
        """The solution's race.sched has run tokens, not steps, and no line
        of its own for the scenario: the lab's exercise gives it."""
        rc, out = make("debug", "SCHED=solutions/lab1-kref/race.sched",
                       stdin=b"who-freed\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("the verdict: T1 kref_get.inc(obj#1)", out)
        self.assertRegex(out, r"who-freed: obj#1 was freed at step \d+ by T2 remove_key, "
                              r"in cache_obj_release")

    def test_no_verdict(self):
        p = os.path.join(self.dir.name, "held.sched")
        with open(p, "w") as f:
            f.write("race-schedule 1\nlab 1\nscenario lookup_vs_remove\nrun T1+ T2+\n")
        out = self.debug([], sched=p)
        self.assertRegex(out, r"no verdict: the execution ended after step (\d+); standing at it")
        self.assertRegex(out, r"step (\d+) of \1: ")

    def test_bad_input_is_one_line(self):
        for args, want in ((["STEP=x"], "STEP: expected a step number (1, 2, ...), got 'x'"),
                           (["SCHED=/nonexistent"], "/nonexistent: cannot open it")):
            rc, out = make("debug", "SCHED=" + self.sched, *args)
            self.assertEqual((rc, len(out.splitlines())), (2, 1), out)
            self.assertIn(want, out)


@unittest.skipUnless(rr.probe().ok, "rr cannot record here: " + rr.probe().line)
class RrRecords(Recorded):
    def test_record_and_walk_back(self):
        rc, out = make("rr-record-1", "SCHED=" + self.sched, "IMPL=solutions")
        self.assertEqual(rc, 0, out)
        self.assertIn("recorded: ", out)
        rc, out = run([sys.executable, "tools/rr.py", "replay", "--lab", "1", "--batch",
                       "--impl", "solutions"])
        self.assertNotIn("Traceback", out)
        self.assertIn("rr-walk-back: verdict at step %d" % self.steps, out)
        m = re.search(r"rr-walk-back: the last write before the verdict, in step (\d+): "
                      r"T2 (\S+)", out)
        self.assertTrue(m, out)
        self.assertIn(int(m.group(1)), (self.free_step - 1, self.free_step))
        self.assertRegex(out, r"#\d+ .*(kref_put|cache_obj_release) \(")


@unittest.skipIf(rr.probe().ok, "rr records here")
class RrCannot(Recorded):
    def test_every_rr_target_says_why_and_what_works(self):
        first = rr.probe().line
        for target, works in (("rr-record-1", "make debug SCHED=" + self.sched),
                              ("rr-replay-1", "make debug SCHED="),
                              ("rr-chaos-1", "make debug SCHED=")):
            rc, out = make(target, "SCHED=" + self.sched)
            self.assertNotEqual(rc, 0, out)
            self.assertNotIn("Traceback", out)
            self.assertIn("rr cannot record on this machine; rr says: " + first, out)
            self.assertRegex(out, r"(?m)^  why: \S")
            # with no failing schedule left by make race-1 yet, it says to make one
            self.assertRegex(out, "what works here: (make race-1, then )?" + re.escape(works))
        rc, out = make("rr-probe")
        self.assertEqual(rc, 0, out)
        self.assertIn(first, out)


def main():
    global LAB1
    ap = argparse.ArgumentParser()
    ap.add_argument("--lab1-bin", required=True)
    args, rest = ap.parse_known_args()
    LAB1 = os.path.abspath(args.lab1_bin)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
