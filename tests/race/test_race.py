#!/usr/bin/env python3
"""test_race.py - the race reproducer's self-tests (make race-selftest).

  test_race.py --selftest-bin BIN --lab1-bin BIN

BIN are the race binaries of tests/race/ and of lab 1 (built against the
solutions).  Every test runs a binary and asserts on its exit status and
output, so each can fail: a reproducer that lost determinism, completeness,
a model or an error message fails here.  No sleeps, no timing assertions.
Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SELF = LAB1 = None
UNLOCKED = "lookup_unlocked_vs_remove"


def run(*cmd, timeout=120):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, cwd=ROOT)
    return p.returncode, p.stdout.decode(errors="replace")


def result(out):
    m = re.search(r"^RESULT (\S+) expect=(\S+) got=(\S+) met=(\S+) executions=(\d+)",
                  out, re.M)
    assert m, "no RESULT line in:\n" + out
    return m.group(3), m.group(4), int(m.group(5))


class Tmp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def record(self):
        """Find the lab 1 race with dfs; return the schedule file's lines."""
        sched = self.path("race.sched")
        rc, out = run(LAB1, "run", UNLOCKED, "--out", sched)
        self.assertEqual(rc, 0, out)
        self.assertIn("replay: the same", out)
        with open(sched) as f:
            return f.read().splitlines()

    def write(self, lines):
        p = self.path("edited.sched")
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        return p


class Lab1(Tmp):
    def test_must_fail_fails_with_use_after_free(self):
        rc, out = run(LAB1, "run", UNLOCKED)
        got, met, _ = result(out)
        self.assertEqual((rc, got, met), (0, "use-after-free", "yes"), out)
        self.assertRegex(out, r"verdict: use-after-free: kref_get\.\w+ on obj#1 .* "
                              r"freed by T2 at step \d+ in cache_obj_release")
        self.assertRegex(out, r"dfs bound=1\)")   # fewest preemptions: one

    def test_must_hold_holds_exhaustively(self):
        rc, out = run(LAB1, "run", "lookup_vs_remove")
        got, met, _ = result(out)
        self.assertEqual((rc, got, met), (0, "none", "yes"), out)
        self.assertIn("space exhausted within the bound", out)
        self.assertRegex(out, r"bound 2: \d+\)")

    def test_other_strategies_find_it(self):
        for strategy in ("pct", "random"):
            rc, out = run(LAB1, "run", UNLOCKED, "--strategy", strategy,
                          "--seed", "3", "--max-exec", "5000")
            self.assertEqual(result(out)[:2], ("use-after-free", "yes"), out)

    def test_inline_script(self):
        rc, out = run(LAB1, "run", UNLOCKED, "--script", "T1@kref_get.read T2+ T1")
        self.assertEqual(result(out)[:2], ("use-after-free", "yes"), out)
        self.assertIn("kref_get.inc on obj#1", out)

    def test_exercise_graded(self):
        tool = os.path.join(ROOT, "tools", "race.py")
        rc, out = run(sys.executable, tool, "grade", "--lab", "1", "--bin", LAB1,
                      "--impl-dir", os.path.join(ROOT, "solutions", "lab1-kref"))
        self.assertEqual(rc, 0, out)
        rc, out = run(sys.executable, tool, "grade", "--lab", "1", "--bin", LAB1,
                      "--impl-dir", os.path.join(ROOT, "labs", "lab1-kref"))
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL race.sched", out)
        # freed before kref_get even read the count: not the article's race
        early = self.path("race.sched")
        with open(early, "w") as f:
            f.write("race-schedule 1\nscenario %s\n"
                    "run T1@cache_lookup_unlocked.spin_unlock T2+ T1\n" % UNLOCKED)
        rc, out = run(sys.executable, tool, "grade", "--lab", "1", "--bin", LAB1,
                      "--impl-dir", self.dir.name)
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL race.sched must end in use-after-free at kref_get.inc", out)
        self.assertIn("it replays to: use-after-free: kref_get.read", out)


class Replay(Tmp):
    def test_1000_replays_byte_identical(self):
        self.record()
        rc, out = run(LAB1, "replay", self.path("race.sched"), "--times", "1000",
                      "--quiet")
        self.assertEqual(rc, 0, out)
        self.assertIn("replays: 1000, byte-identical to the first: 1000", out)

    def test_replay_prints_the_same_timeline(self):
        lines = self.record()
        rc, out = run(LAB1, "replay", self.path("race.sched"))
        self.assertEqual(rc, 0, out)
        steps = [l for l in lines if l.startswith("step ")]
        self.assertIn("%4d | " % len(steps), out)

    def test_divergence_wrong_thread(self):
        lines = self.record()
        last = max(i for i, l in enumerate(lines) if l.startswith("step "))
        f = lines[last].split()
        self.assertEqual(f[2], "T1", lines[last])
        lines[last] = " ".join(f[:2] + ["T2"] + f[3:])
        rc, out = run(LAB1, "replay", self.write(lines))
        self.assertEqual(rc, 1, out)
        self.assertIn("diverged at step %s: expected T2 %s, runnable {T1}"
                      % (f[1], f[3]), out)

    def test_divergence_wrong_label(self):
        lines = self.record()
        last = max(i for i, l in enumerate(lines) if l.startswith("step "))
        f = lines[last].split()
        lines[last] = " ".join(f[:3] + ["kref_get.elsewhere"] + f[4:])
        rc, out = run(LAB1, "replay", self.write(lines))
        self.assertEqual(rc, 1, out)
        self.assertIn("diverged at step %s: expected T1 kref_get.elsewhere, "
                      "runnable {T1}; T1 is at %s" % (f[1], f[3]), out)

    def test_divergence_wrong_value(self):
        lines = self.record()
        i = next(i for i, l in enumerate(lines) if " kref_get.read " in l)
        lines[i] = lines[i].rsplit(" ", 1)[0] + " 7"
        rc, out = run(LAB1, "replay", self.write(lines))
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"diverged at step \d+: recorded '.* 7', replayed '.* 1'")

    def test_malformed_line_named(self):
        lines = self.record()
        lines.insert(6, "stepp 1 T1")
        rc, out = run(LAB1, "replay", self.write(lines))
        self.assertEqual(rc, 2, out)
        self.assertIn("line 7: expected 'step', 'run', 'result'", out)

    def test_missing_thread_is_an_error(self):
        p = self.write(["race-schedule 1", "scenario " + UNLOCKED, "run T1 T7"])
        rc, out = run(LAB1, "replay", p)
        self.assertEqual(rc, 2, out)
        self.assertIn("line 3: thread T7 does not exist", out)

    def test_bad_step_number_and_version(self):
        p = self.write(["race-schedule 1", "scenario " + UNLOCKED,
                        "step 2 T1 cache_lookup_unlocked.spin_lock @1 -"])
        rc, out = run(LAB1, "replay", p)
        self.assertEqual(rc, 2, out)
        self.assertIn("line 3: expected step 1, got step 2", out)
        p = self.write(["race-schedule 9"])
        rc, out = run(LAB1, "replay", p, "--scenario", UNLOCKED)
        self.assertEqual(rc, 2, out)
        self.assertIn("line 1: expected 'race-schedule 1'", out)


class Engine(unittest.TestCase):
    SLOW = ("no_point_loop",)   # the watchdog needs 3-4 s to call it a hang

    def test_dfs_complete(self):
        """2 threads x 3 steps: C(6,3) = 20 interleavings, each once."""
        rc, out = run(SELF, "run", "three_each")
        self.assertEqual(rc, 0, out)
        self.assertIn("bound 5: 20, bound 6: 20), space exhausted", out)
        self.assertIn("bound 0: 2,", out)        # T1 first or T2 first

    def test_pct_finds_depth_2_bug(self):
        rc, out = run(SELF, "run", "flag_window", "--strategy", "pct", "--seed", "7",
                      "--depth", "2", "--max-exec", "1000")
        self.assertEqual(result(out)[:2], ("check", "yes"), out)
        # depth 1 (no change point) cannot: the bug needs one preemption
        rc, out = run(SELF, "run", "flag_window", "--strategy", "pct", "--seed", "7",
                      "--depth", "1", "--max-exec", "300")
        self.assertEqual(result(out)[:2], ("none", "no"), out)

    def test_rcu_callback_waits_for_the_reader(self):
        """call_rcu's callback cannot run while a reader that was inside at
        the call has not left; once it has, the callback runs on RCU."""
        rc, out = run(SELF, "run", "rcu_call", "--script",
                      "T1@reader.rcu_dereference T2+ RCU")
        self.assertIn("diverged at step 6: expected RCU to run, runnable {T1}", out)
        rc, out = run(SELF, "run", "rcu_call", "--script",
                      "T1@reader.rcu_dereference T2+ T1+ RCU+")
        self.assertEqual((rc, result(out)[:2]), (0, ("none", "yes")), out)
        self.assertRegex(out, r"\| rcu_do_batch\.invoke\(obj#1\+\d+\)")
        self.assertRegex(out, r"\| free_item\.kfree\(obj#1\)")

    def test_every_selftest_scenario_meets_expectation(self):
        rc, out = run(SELF, "list")
        names = [l.split()[0] for l in out.splitlines() if l.strip()]
        self.assertGreaterEqual(len(names), 9, out)
        for name in names:
            if name in Engine.SLOW:
                continue        # test_oracle_messages runs it
            rc, out = run(SELF, "run", name)
            self.assertEqual((rc, result(out)[1]), (0, "yes"), name + ":\n" + out)

    def test_oracle_messages(self):
        want = {
            "abba": "verdict: deadlock: no thread can run: T1 spins in a_then_b.spin_lock",
            "spin_on_flag": "T1 repeats wait_flag.READ_ONCE",
            "leaky": "verdict: leak: 1 object(s) still allocated",
            "rcu_no_grace": "freed by T2 at step",
            "no_point_loop": "verdict: livelock: no scheduling point for 3 s (of CPU time) "
                             "after step 1 (T1 at wait_plainly.start)",
            "warn_on_zero": "   <- WARN\nverdict: warn: WARNING: tests/race/race_selftest.c:",
            "asan_plain_read": "verdict: use-after-free: AddressSanitizer during "
                               "this step: SUMMARY: AddressSanitizer: heap-use-after-free",
        }
        for name, text in want.items():
            rc, out = run(SELF, "run", name)
            self.assertIn(text, out, name)
            self.assertEqual((rc, result(out)[1]), (0, "yes"), name + ":\n" + out)


def main():
    global SELF, LAB1
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest-bin", required=True)
    ap.add_argument("--lab1-bin", required=True)
    args, rest = ap.parse_known_args()
    SELF, LAB1 = os.path.abspath(args.selftest_bin), os.path.abspath(args.lab1_bin)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
