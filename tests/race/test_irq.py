#!/usr/bin/env python3
"""test_irq.py - self-tests of the reproducer's interrupt model (irq.c),
on the scenarios of tests/race/race_irq.c (make race-selftest).

  test_irq.py --selftest-bin BIN [--lab4-bin BIN]

Each test runs the binary and asserts on its exit status and output: an
interrupt is a choice of every strategy, is recorded in schedule files as
thread IRQk and replayed exactly, a handler that spins on its thread's lock
is a deadlock with its timeline (never a hang), and one simulated CPU makes
interrupts-off a critical section.  With lab 4's race binary (built against
the solutions), its failing schedules -- counts hashed to bucket locks by
address -- replay byte for byte, 1000 times in one process and the same
in separate processes.  Standard library only.
"""
import argparse
import os
import sys
import tempfile
import unittest

from test_race import result, run

BIN = LAB4 = None


class Irq(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.sched = os.path.join(self.dir.name, "irq.sched")

    def tearDown(self):
        self.dir.cleanup()

    def expect(self, scenario, got, *args):
        rc, out = run(BIN, "run", scenario, *args)
        self.assertEqual(result(out)[:2], (got, "yes"), out)
        self.assertEqual(rc, 0, out)
        return out

    def test_handler_on_held_lock_is_a_deadlock(self):
        out = self.expect("irq_spin_lock", "deadlock", "--out", self.sched)
        self.assertRegex(out, r"verdict: deadlock: no thread can run: T1 is "
                              r"interrupted at holder_spin_lock\.\w+ by IRQ1, "
                              r"which must return first; IRQ1 spins in "
                              r"lock_in_irq\.spin_lock")
        self.assertIn("IRQ1 lock_in_irq", out)          # the timeline's column
        self.assertIn("| irq.enter", out)
        self.assertIn("replay: the same", out)
        with open(self.sched) as f:
            text = f.read()
        self.assertRegex(text, r"\nstep \d+ IRQ1 irq\.enter - -\n")
        self.assertIn("\nresult deadlock\n", text)

    def test_lockdep_reports_without_the_window(self):
        out = self.expect("irq_lock_then_mask", "inconsistent-lock-state",
                          "--out", self.sched)
        self.assertRegex(out, r"verdict: inconsistent-lock-state: inconsistent "
                              r"\{(IN-HARDIRQ-W|HARDIRQ-ON-W)\} -> "
                              r"\{(HARDIRQ-ON-W|IN-HARDIRQ-W)\} usage of @1: "
                              r"T1 \(lock_then_mask\) took it with interrupts on at "
                              r"step \d+ \(lock_then_mask\.spin_lock\), and IRQ1 "
                              r"\(lock_in_irq\) took it in interrupt context at "
                              r"step \d+ \(lock_in_irq\.spin_lock\)")
        self.assertIn("replay: the same", out)
        # without lockdep the interrupt model never lands in the window
        self.expect("irq_window_unseen", "none")
        out = self.expect("irq_restore_held", "inconsistent-lock-state")
        self.assertRegex(out, r"T1 \(restore_while_held\) held it when "
                              r"restore_while_held turned interrupts back on "
                              r"\(local_irq_restore, after step \d+\)")
        self.expect("irq_lockdep_spin_lock", "inconsistent-lock-state")

    def test_irqsave_holds_and_the_handler_runs(self):
        out = self.expect("irq_irqsave", "none")
        self.assertIn("space exhausted within the bound", out)
        self.assertRegex(out, r"witness: IRQ1 is delivered .*: in [1-9]\d* of")

    def test_1000_replays_byte_identical(self):
        self.expect("irq_spin_lock", "deadlock", "--out", self.sched)
        rc, out = run(BIN, "replay", self.sched, "--times", "1000", "--quiet")
        self.assertEqual(rc, 0, out)
        self.assertIn("replays: 1000, byte-identical to the first: 1000", out)

    def test_script_delivers_where_it_says(self):
        out = self.expect("irq_spin_lock", "deadlock", "--script",
                          "T1@holder_spin_lock.READ_ONCE IRQ1")
        self.assertIn("interrupted at holder_spin_lock.WRITE_ONCE by IRQ1", out)

    def test_no_delivery_with_interrupts_off(self):
        rc, out = run(BIN, "run", "irq_irqsave", "--script",
                      "T1@holder_irqsave.READ_ONCE IRQ1")
        self.assertEqual(result(out)[0], "diverged", out)
        self.assertIn("expected IRQ1 to run, runnable {T1, T2}", out)

    def test_unknown_irq_thread_is_refused(self):
        rc, out = run(BIN, "run", "irq_spin_lock", "--script", "T1 IRQ3")
        self.assertEqual(rc, 2, out)
        self.assertIn("expected a thread of this scenario (T1..T2, RCU for the "
                      "callbacks, or IRQ1..IRQ2 for their interrupts), got IRQ3", out)
        rc, out = run(BIN, "run", "irq_spin_lock", "--script", "T3")
        self.assertEqual(rc, 2, out)

    def test_other_strategies_deliver(self):
        for strategy in ("pct", "random"):
            self.expect("irq_spin_lock", "deadlock", "--strategy", strategy,
                        "--seed", "1", "--max-exec", "2000")

    def test_interrupts_off_is_no_lock_on_smp(self):
        out = self.expect("irq_off_smp", "check")
        self.assertIn("an update of the counter was lost", out)

    def test_interrupts_off_is_a_lock_on_one_cpu(self):
        out = self.expect("irq_off_up", "none")
        self.assertRegex(out, r"witness: T2 updates the counter between .*: in [1-9]")
        out = self.expect("irq_up_handler", "none")
        self.assertIn("space exhausted within the bound", out)


class Lab4Replay(unittest.TestCase):
    def test_schedules_replay_byte_identical(self):
        if not LAB4:
            self.skipTest("no --lab4-bin")
        lab4 = LAB4
        with tempfile.TemporaryDirectory() as d:
            for scenario, times in (("mixing", 1000), ("irq_plain_spin_lock", 100)):
                sched = os.path.join(d, scenario + ".sched")
                rc, out = run(lab4, "run", scenario, "--out", sched)
                self.assertEqual((rc, result(out)[1]), (0, "yes"), out)
                rc, out = run(lab4, "replay", sched, "--times", str(times), "--quiet")
                self.assertIn("replays: %d, byte-identical to the first: %d"
                              % (times, times), out)
                texts = {run(lab4, "replay", sched)[1] for _ in range(5)}
                self.assertEqual(len(texts), 1, "separate processes replayed "
                                 "%s differently" % scenario)


def main():
    global BIN, LAB4
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest-bin", required=True)
    ap.add_argument("--lab4-bin")
    args, rest = ap.parse_known_args()
    BIN = os.path.abspath(args.selftest_bin)
    LAB4 = args.lab4_bin and os.path.abspath(args.lab4_bin)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
