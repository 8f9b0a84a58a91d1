#!/usr/bin/env python3
"""test_litmus.py - the weak memory model against the kernel's answers
(make race-litmus; make check runs it).

  test_litmus.py --bin BIN

BIN is the race binary of tests/litmus/ (race_litmus.c, race_fdtable.c).
Each scenario of race_litmus.c is one litmus shape whose answer the Linux
kernel memory model (LKMM) publishes, in tools/memory-model/litmus-tests/
(and the RCU ones in Documentation/litmus-tests/rcu/): "Sometimes" (the
outcome can happen) or "Never"; race_fdtable.c's are the fd table of the
2004 patch "Lock free fd lookup", with each of its barriers left out.  Every test runs the binary and asserts on its result lines, so
each can fail: a model too strong misses a "Sometimes", a model too weak
reaches a "Never", sequential consistency that leaks a reordering reaches
an outcome it cannot.  Standard library only; no timing.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = None

# scenario: (where the answer comes from, the answer).  Every "Sometimes"
# outcome needs a reordering: under sequential consistency it is out of
# reach.  The kernel's litmus tests first, then the fd table of the 2004
# patch "Lock free fd lookup" (tests/litmus/race_fdtable.c), whose missing
# barriers lab 5 must show.
KERNEL = {
    "mp": ("MP+poonceonces", "Sometimes"),
    "mp_wmb_rmb": ("MP+fencewmbonceonce+fencermbonceonce", "Never"),
    "mp_wmb_only": ("MP+fencewmbonceonce+fencermbonceonce without its smp_rmb",
                    "Sometimes"),
    "mp_rmb_only": ("MP+fencewmbonceonce+fencermbonceonce without its smp_wmb",
                    "Sometimes"),
    "mp_release_acquire": ("MP+pooncerelease+poacquireonce", "Never"),
    "mp_rcu": ("MP+onceassign+derefonce", "Never"),
    "mp_locks": ("MP+polocks", "Never"),
    "sb": ("SB+poonceonces", "Sometimes"),
    "sb_mb": ("SB+fencembonceonces", "Never"),
    "corr": ("CoRR+poonceonce+Once", "Never"),
    "corw": ("CoRW+poonceonce+Once", "Never"),
    "cowr": ("CoWR+poonceonce+Once", "Never"),
    "coww": ("CoWW+poonceonce", "Never"),
    "w2": ("2+2W+poonceonces", "Sometimes"),
    "rcu_mp": ("RCU+sync+free", "Never"),
    "rcu_sync_read": ("RCU+sync+read", "Never"),
}
PATCH = {
    "fd_expand": ("expand_fd_array and fcheck_files_rcu", "Never"),
    "fd_expand_no_copy_wmb": ("without the smp_wmb after the copy", "Sometimes"),
    "fd_expand_no_publish_wmb": ("without the smp_wmb before max_fds", "Sometimes"),
    "fd_expand_no_reader_rmb": ("without the reader's smp_rmb", "Sometimes"),
}
ANSWERS = dict(KERNEL, **PATCH)


def run(*args, timeout=120):
    p = subprocess.run([BIN] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout, cwd=ROOT)
    return p.returncode, p.stdout.decode(errors="replace")


def result(out):
    """(got, met) of the RESULT line."""
    m = re.search(r"^RESULT \S+ expect=\S+ got=(\S+) met=(\S+)", out, re.M)
    assert m, "no RESULT line in:\n" + out
    return m.group(1), m.group(2)


class Verdicts(unittest.TestCase):
    def test_every_scenario_has_an_answer(self):
        rc, out = run("list")
        names = sorted(l.split()[0] for l in out.splitlines() if l.strip())
        self.assertEqual(names, sorted(ANSWERS), out)
        for line in out.splitlines():
            name, expect = line.split()[:2]
            want = "must-fail:check" if ANSWERS[name][1] == "Sometimes" else "must-hold"
            self.assertEqual(expect, want, line)
            if name in KERNEL and " without " not in KERNEL[name][0]:
                self.assertIn("%s: " % KERNEL[name][0], line)
            if name in KERNEL:
                self.assertIn("(%s)" % KERNEL[name][1], line)

    def test_weak_model_gives_the_kernels_answer(self):
        """Exhausted under the weak model (each scenario's .memory), every
        shape gives the LKMM's answer: a "Sometimes" outcome is reached,
        a "Never" outcome is not in any execution within the bound."""
        for name, (test, answer) in sorted(ANSWERS.items()):
            rc, out = run("run", name)
            self.assertIn("memory: weak", out, name)
            got, met = result(out)
            if answer == "Sometimes":
                self.assertEqual((rc, got, met), (0, "check", "yes"),
                                 "%s (%s): the LKMM allows it\n%s" % (name, test, out))
            else:
                self.assertEqual((rc, got, met), (0, "none", "yes"),
                                 "%s (%s): the LKMM forbids it\n%s" % (name, test, out))
                self.assertIn("space exhausted within the bound", out, name)

    def test_sequential_consistency_cannot_reorder(self):
        """The same shapes under sequential consistency: an outcome that
        needs a reordering is unreachable, the space exhausted."""
        for name, (test, answer) in sorted(ANSWERS.items()):
            rc, out = run("run", name, "--memory", "sc")
            self.assertNotIn("memory: weak", out, name)
            self.assertIn("space exhausted within the bound", out, name)
            got, met = result(out)
            if answer == "Sometimes":
                self.assertEqual((rc, got, met), (1, "none", "no"),
                                 "%s (%s) needs a reordering\n%s" % (name, test, out))
            else:
                self.assertEqual((rc, got), (0, "none"), name + "\n" + out)


class Fences(unittest.TestCase):
    def test_a_fence_is_a_step_only_under_the_weak_model(self):
        """Under sequential consistency a fence changes nothing and is no
        scheduling point; under the weak model it is a step of its own."""
        for memory, steps in (("sc", 4), ("weak", 6)):
            rc, out = run("run", "mp_wmb_rmb", "--memory", memory, "--script", "T1+ T2+")
            self.assertEqual(rc, 0, out)
            self.assertEqual(len(re.findall(r"(?m)^ +\d+ \|", out)), steps, out)
            self.assertEqual(len(re.findall(r"\.smp_[wr]mb", out)), steps - 4, out)


class Timeline(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.sched = os.path.join(self.dir.name, "mp.sched")

    def tearDown(self):
        self.dir.cleanup()

    def record(self):
        rc, out = run("run", "mp_wmb_only", "--out", self.sched)
        self.assertEqual(rc, 0, out)
        with open(self.sched) as f:
            return out, f.read().splitlines()

    def test_stale_read_is_shown_and_recorded(self):
        out, lines = self.record()
        self.assertRegex(out, r"mp_reader\.READ_ONCE\(@\d+\) = 0 "
                              r"\(stale: T1 wrote 1 at step \d+\)")
        self.assertRegex(out, r"\| mp_writer_wmb\.smp_wmb\n")
        self.assertIn("memory weak", lines)
        sees = [l for l in lines if l.startswith("sees ")]
        self.assertEqual(len(sees), 1, lines)
        self.assertRegex(sees[0], r"^sees \d+ init$")
        self.assertIn("replay: the same", out)

    def test_a_store_placed_before_another_is_shown_and_replayed(self):
        rc, out = run("run", "w2", "--out", self.sched)
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"w2_right\.WRITE_ONCE\(@\d+\) = 2 "
                              r"\(coherence: before T1's store of step \d+\)")
        with open(self.sched) as f:
            lines = f.read().splitlines()
        self.assertEqual(len([l for l in lines if l.startswith("sees ")]), 1, lines)
        rc, out = run("replay", self.sched, "--times", "100", "--quiet")
        self.assertEqual(rc, 0, out)
        self.assertIn("replays: 100, byte-identical to the first: 100", out)
        with open(self.sched, "w") as f:
            f.write("\n".join(l for l in lines if not l.startswith("sees ")) + "\n")
        rc, out = run("replay", self.sched)
        self.assertEqual(rc, 1, out)

    def test_weak_replays_byte_identical(self):
        self.record()
        rc, out = run("replay", self.sched, "--times", "1000", "--quiet")
        self.assertEqual(rc, 0, out)
        self.assertIn("replays: 1000, byte-identical to the first: 1000", out)

    def test_without_its_sees_line_the_replay_reads_the_newest(self):
        _, lines = self.record()
        with open(self.sched, "w") as f:
            f.write("\n".join(l for l in lines if not l.startswith("sees ")) + "\n")
        rc, out = run("replay", self.sched)
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"diverged at step \d+: recorded '.* 0', replayed '.* 1'")

    def test_a_store_it_cannot_read_diverges(self):
        _, lines = self.record()
        load = next(l for l in lines if l.startswith("sees ")).split()[1]
        lines = [l if not l.startswith("sees ") else "sees %s 4" % load for l in lines]
        with open(self.sched, "w") as f:
            f.write("\n".join(lines) + "\n")
        rc, out = run("replay", self.sched)
        self.assertEqual(rc, 1, out)
        self.assertIn("verdict: diverged: diverged at step %s: the schedule says the "
                      "load reads the store of step 4, but it may read only the store "
                      "of step 1 and the initial value" % load, out)

    def test_sees_lines_need_the_weak_model(self):
        """A schedule whose loads read older stores cannot be followed
        under sequential consistency: an error, not a silent change."""
        _, lines = self.record()
        with open(self.sched, "w") as f:
            f.write("\n".join(l if l != "memory weak" else "memory sc"
                              for l in lines) + "\n")
        rc, out = run("replay", self.sched)
        self.assertEqual(rc, 2, out)
        self.assertIn("'sees' lines choose the stores loads read under the weak "
                      "memory model, but this runs under sequential consistency: "
                      "add the line 'memory weak'", out)
        # the scenario's own .memory stands in for a missing 'memory' line
        with open(self.sched, "w") as f:
            f.write("\n".join(l for l in lines if l != "memory weak") + "\n")
        rc, out = run("replay", self.sched)
        self.assertEqual(rc, 0, out)

    def test_malformed_sees_and_memory_lines(self):
        for bad, want in (("sees 5", "expected 'sees <load step> <earlier store step>|init'"),
                          ("sees 5 7", "expected 'sees <load step> <earlier store step>|init'"),
                          ("memory tso", "expected 'memory sc' or 'memory weak'")):
            with open(self.sched, "w") as f:
                f.write("race-schedule 1\nscenario mp\n%s\n" % bad)
            rc, out = run("replay", self.sched)
            self.assertEqual(rc, 2, out)
            self.assertIn("%s:3: %s, got '%s'" % (self.sched, want, bad), out)
            self.assertEqual(len(out.strip().splitlines()), 1, out)


class Reduction(unittest.TestCase):
    def test_same_classes_with_and_without(self):
        """The partial-order reduction explores every class of executions
        (Mazurkiewicz trace) that the full search does, in fewer
        executions, under the weak model too."""
        for name in sorted(ANSWERS):
            if ANSWERS[name][1] == "Sometimes":
                continue        # the search stops at the outcome
            counts = []
            for reduction in ("on", "off"):
                rc, out = run("run", name, "--count-classes", "--reduction", reduction)
                m = re.search(r"^classes: (\d+) distinct partial orders in (\d+) executions",
                              out, re.M)
                self.assertTrue(m and rc == 0, out)
                counts.append((int(m.group(1)), int(m.group(2))))
            self.assertEqual(counts[0][0], counts[1][0], name)
            self.assertLessEqual(counts[0][1], counts[1][1], name)


def main():
    global BIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args, rest = ap.parse_known_args()
    BIN = os.path.abspath(args.bin)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
