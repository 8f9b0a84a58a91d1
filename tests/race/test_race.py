#!/usr/bin/env python3
"""test_race.py - the race reproducer's self-tests (make race-selftest).

  test_race.py --selftest-bin BIN --lab1-bin BIN

BIN are the race binaries of tests/race/ and of lab 1 (built against the
solutions).  Every test runs a binary and asserts on its exit status and
output, so each can fail: a reproducer that lost determinism, completeness,
a model, PCT's guarantee, a witness or an error message fails here.  The
Contract tests also build, with $CC (clang by default), a race binary of
tests/race/refused_scenarios.c alone, and read its objects with nm.  No
sleeps, no timing assertions.  Standard library only.
"""
import argparse
import glob
import math
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


def result_file(path):
    """The key=value lines of a --result FILE, as a dict."""
    with open(path) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


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
        self.assertRegex(out, r"\(bound 2: \d+, bounds below it included\)")

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
        self.assertIn("FAIL race.sched must end in use-after-free at kref_get by an update", out)
        self.assertIn("it replays to: use-after-free: kref_get.read", out)


class RunEach(Tmp):
    """race run-each: each scenario's run, forked from one start, ends as
    its own `race run` does; --first-failure stops; TIMEOUT kills."""

    def each(self, timeout, *names):
        prefix = self.path("each")
        rc, out = run(LAB1, "run-each", prefix, str(timeout), *names)
        self.assertEqual(rc, 0, out)
        ended = dict(re.findall(r"^run-each (\d+) (.*)$", out, re.M))
        found = []
        for i in range(len([n for n in names if not n.startswith("-")])):
            files = {"status": ended.get(str(i))}
            for what in ("out", "result"):
                path = "%s.%d.%s" % (prefix, i, what)
                if os.path.exists(path):
                    with open(path) as f:
                        files[what] = f.read()
                else:
                    files[what] = None
            found.append(files)
        return found

    def test_each_as_its_own_run(self):
        names = (UNLOCKED, "lookup_vs_remove")
        runs = self.each(60, *names)
        for name, got in zip(names, runs):
            rc, out = run(LAB1, "run", name, "--result", self.path("alone"))
            alone = result_file(self.path("alone"))
            each = dict(l.split("=", 1) for l in got["result"].splitlines() if "=" in l)
            self.assertEqual(got["status"], "exit %d" % rc)
            for key in ("scenario", "got", "met", "executions", "message"):
                self.assertEqual(each[key], alone[key], key)
            self.assertEqual(result(got["out"]), result(out))

    def test_run_options_apply_to_every_run(self):
        prefix = self.path("opts")
        names = ("lookup_vs_remove", "two_lookups_vs_remove")
        rc, out = run(LAB1, "run-each", prefix, "60", "--reduction", "off", "--count-classes",
                      *names)
        self.assertEqual(rc, 0, out)
        for i, name in enumerate(names):
            rc, alone = run(LAB1, "run", name, "--reduction", "off", "--count-classes")
            with open("%s.%d.out" % (prefix, i)) as f:
                each = f.read()
            self.assertIn("without partial-order reduction", each)
            self.assertEqual(re.findall(r"^(classes: .*|RESULT .*)$", each, re.M),
                             re.findall(r"^(classes: .*|RESULT .*)$", alone, re.M))
        rc, out = run(LAB1, "run-each", prefix, "60", "--out", self.path("s"), names[0])
        self.assertEqual(rc, 2, out)
        self.assertIn("--out, --sched, --script and --debug are for one run", out)

    def test_first_failure_stops(self):
        runs = self.each(60, "--first-failure", "no_such_scenario", UNLOCKED)
        self.assertEqual(runs[0]["status"], "exit 2", runs[0]["out"])
        self.assertIsNone(runs[1]["status"])

    def test_timeout_kills_the_run(self):
        runs = self.each(0, "lookup_vs_remove")
        self.assertEqual((runs[0]["status"], runs[0]["result"]), ("timeout", None))

    def test_the_grader_reads_a_timeout_as_alone(self):
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from kit import limits, race as kit_race
        saved, limits.RACE_TIMEOUT = limits.RACE_TIMEOUT, 0
        try:
            ran = kit_race.run_each(LAB1, ["lookup_vs_remove"])
        finally:
            limits.RACE_TIMEOUT = saved
        item = kit_race.grade_scenario(LAB1, kit_race.Scenario("lookup_vs_remove must-hold"),
                                       ran["lookup_vs_remove"])
        self.assertEqual((item.ok, item.verdict), (False, "TIMEOUT"), item.line)
        self.assertIn("no result (TIMEOUT after 0s)", item.why)


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
        self.assertIn("edited.sched:7: expected a line 'race-schedule', 'scenario', ", out)
        self.assertIn("got 'stepp'", out)

    def test_missing_thread_is_an_error(self):
        p = self.write(["race-schedule 1", "scenario " + UNLOCKED, "run T1 T7"])
        rc, out = run(LAB1, "replay", p)
        self.assertEqual(rc, 2, out)
        self.assertIn("edited.sched:3: expected a thread of this scenario (T1..T2, RCU "
                      "for the callbacks, or IRQ1..IRQ2 for their interrupts), got T7", out)

    def test_bad_step_number_and_version(self):
        p = self.write(["race-schedule 1", "scenario " + UNLOCKED,
                        "step 2 T1 cache_lookup_unlocked.spin_lock @1 -"])
        rc, out = run(LAB1, "replay", p)
        self.assertEqual(rc, 2, out)
        self.assertIn("edited.sched:3: expected step 1 (steps are numbered from 1, one "
                      "by one), got step '2'", out)
        p = self.write(["race-schedule 9"])
        rc, out = run(LAB1, "replay", p, "--scenario", UNLOCKED)
        self.assertEqual(rc, 2, out)
        self.assertIn("edited.sched:1: expected 'race-schedule 1'", out)


class Engine(unittest.TestCase):
    # A scenario that loops with no point on purpose: the watchdog's 3 s
    # of CPU (twice: the search, then its replay) said sooner.
    HANG = {"no_point_loop": ["--hang-ms", "300"]}
    UNMET = ("unpublished",     # vacuous on purpose: test_vacuous runs it
             "lincheck:counter")  # a broken counter on purpose: Oracles runs it

    def test_hang_ms_has_a_floor(self):
        """--hang-ms below 30 would leave the CPU watchdog no tick: refused."""
        rc, out = run(SELF, "run", "three_each", "--hang-ms", "3")
        self.assertEqual(rc, 2, out)
        self.assertIn("race: --hang-ms: at least 30", out)

    def test_dfs_complete(self):
        """2 threads x 3 steps: C(6,3) = 20 interleavings, each once: a
        must-hold search that holds is its top bound's alone
        (race_search_top_first in explore/search.c), bounds below it
        included."""
        rc, out = run(SELF, "run", "three_each")
        self.assertEqual(rc, 0, out)
        self.assertIn("(bound 6: 20, bounds below it included), space exhausted", out)
        self.assertEqual(result(out)[2], 20, out)
        rc, out = run(SELF, "run", "three_each", "--bound", "0")
        self.assertIn("(bound 0: 2), space exhausted", out)   # T1 first or T2 first

    def test_a_failing_must_hold_is_searched_from_bound_0(self):
        """A must-hold search that does not hold at its top bound is
        searched again from bound 0 up, so that it reports what dfs always
        did: here a vacuous witness, every bound's executions counted."""
        rc, out = run(SELF, "run", "unpublished")
        self.assertEqual(result(out)[:2], ("vacuous", "no"), out)
        self.assertRegex(out, r"\(bound 0: \d+, bound 1: \d+")
        self.assertNotIn("bounds below it included", out)

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
        """With the partial-order reduction (the default) and without:
        each scenario's run forked from one start (race run-each), as the
        grader runs a lab's, with its --hang-ms."""
        rc, out = run(SELF, "list")
        names = [l.split()[0] for l in out.splitlines() if l.strip()]
        self.assertGreaterEqual(len(names), 9, out)
        names = [n for n in names if n not in Engine.UNMET]  # test_vacuous, Oracles
        for hang in ([], ["--hang-ms", "300"]):
            group = [n for n in names if Engine.HANG.get(n, []) == hang]
            for reduction in ("on", "off"):
                with tempfile.TemporaryDirectory() as tmp:
                    prefix = os.path.join(tmp, "run")
                    rc, out = run(SELF, "run-each", prefix, "60", "--reduction",
                                  reduction, *(hang + group))
                    self.assertEqual(rc, 0, out)
                    for i, name in enumerate(group):
                        with open("%s.%d.out" % (prefix, i), errors="replace") as f:
                            out = f.read()
                        self.assertEqual(result(out)[1], "yes",
                                         "%s, reduction %s:\n%s" % (name, reduction, out))

    def test_oracle_messages(self):
        want = {
            "abba": "verdict: deadlock: no thread can run: T1 spins in a_then_b.spin_lock",
            "wait_forever": "verdict: livelock: every thread spins and none can make "
                            "progress (1001 steps with no other thread able to run): "
                            "T1 (wait_flag1) spins in wait_flag1.READ_ONCE (a turn of 1 "
                            "step that changes nothing), waiting for a write to @1 that "
                            "no other thread makes",
            "spin_holding_lock": "verdict: deadlock: no thread can run but to spin "
                                 "(1001 steps): T1 (wait_under_lock) spins in "
                                 "wait_under_lock.READ_ONCE",
            "wait_for_each_other": "T2 (first_1_then_2) spins in first_1_then_2.READ_ONCE",
            "leaky": "verdict: leak: 1 object(s) still allocated",
            "rcu_no_grace": "freed by T2 at step",
            "no_point_loop": "verdict: livelock: no scheduling point for 0.3 s (of CPU time) "
                             "after step 1 (T1 at wait_plainly.start)",
            "warn_on_zero": "   <- WARN\nverdict: warn: WARNING: tests/race/race_selftest.c:",
            "asan_plain_read": "verdict: use-after-free: AddressSanitizer during "
                               "this step: SUMMARY: AddressSanitizer: heap-use-after-free",
        }
        for name, text in want.items():
            rc, out = run(SELF, "run", name, *Engine.HANG.get(name, []))
            self.assertIn(text, out, name)
            self.assertEqual((rc, result(out)[1]), (0, "yes"), name + ":\n" + out)


def classes(binary, name, *args):
    """(classes, executions) of a dfs run with --count-classes."""
    rc, out = run(binary, "run", name, "--count-classes", *args)
    m = re.search(r"^classes: (\d+) distinct partial orders in (\d+) executions", out, re.M)
    assert m, out
    return int(m.group(1)), int(m.group(2))


class Reduction(unittest.TestCase):
    """The partial-order reduction (dpor.c): sound within the bound, on by
    default, --reduction off turns it off."""
    SCENARIOS = (("lab1", "lookup_vs_remove"), ("lab1", "two_lookups_vs_remove"),
                 ("self", "three_each"), ("self", "rcu_sync"), ("self", "rcu_call"),
                 ("self", "commute_first"), ("self", "pct_depth2"),
                 ("self", "trylock_wait"), ("self", "two_location_wait"),
                 ("self", "bounded_retry"))

    def test_every_class_explored(self):
        """Each bound explores every class of executions (Mazurkiewicz
        trace) the full search explores, in no more executions."""
        for binary, name in self.SCENARIOS:
            binary = LAB1 if binary == "lab1" else SELF
            for bound in ("1", "2", "3"):
                on = classes(binary, name, "--bound", bound)
                off = classes(binary, name, "--bound", bound, "--reduction", "off")
                self.assertEqual(on[0], off[0], "%s bound %s" % (name, bound))
                self.assertLessEqual(on[1], off[1], "%s bound %s" % (name, bound))

    def test_fewer_executions(self):
        on = classes(LAB1, "two_lookups_vs_remove")
        off = classes(LAB1, "two_lookups_vs_remove", "--reduction", "off")
        self.assertGreaterEqual(off[1], 5 * on[1], (on, off))

    def test_bound_zero_keeps_a_free_order(self):
        """T2 first is an execution without preemption that an execution
        with one preemption would stand for under plain sleep sets: it is
        explored as an alternative of its own, not cut short."""
        rc, out = run(SELF, "run", "commute_first", "--count-classes", "--bound", "0")
        self.assertEqual(rc, 0, out)
        self.assertIn("(bound 0: 2)", out)
        self.assertRegex(out, r"classes: 2 distinct partial orders in \d+ executions "
                              r"\(0 cut short by sleep sets\)")
        self.assertRegex(out, r"witness: T2 reads y before T1 stores it: in \d+ of")

    def test_spin_waits_cost_no_preemption(self):
        """A busy wait is a wait (models/spin.c): from bound 0 up, the
        waiter lets the writer run (the kit before issue 18 said livelock
        at bound 0 on spin_on_flag), and every wait that ends holds."""
        for name in ("spin_on_flag", "trylock_wait", "cmpxchg_wait", "two_location_wait",
                     "bounded_retry"):
            rc, out = run(SELF, "run", name)
            self.assertEqual((rc,) + result(out)[:2], (0, "none", "yes"), name + ":\n" + out)
            self.assertIn("bounds below it included", out, name)
            rc, out = run(SELF, "run", name, "--bound", "0")   # no verdict, witness or not
            self.assertIn(result(out)[0], ("none", "vacuous"), name + ":\n" + out)
            self.assertIn("(bound 0: ", out, name)

    def test_off_says_so_and_keeps_every_verdict(self):
        rc, out = run(SELF, "run", "three_each", "--reduction", "off")
        self.assertIn("bound 6: 20, bounds below it included), space exhausted within the "
                      "bound, without partial-order reduction", out)
        rc, out = run(SELF, "run", "three_each", "--reduction", "maybe")
        self.assertEqual(rc, 2, out)
        self.assertIn("--reduction: expected on or off", out)


class Pct(Tmp):
    """PCT's guarantee (Burckhardt et al., ASPLOS 2010): a bug of depth d is
    hit by one execution with probability >= 1/(n k^(d-1)), n threads, k
    steps with a choice.  pct_depth2 and pct_depth3 (race_selftest.c) have
    n = 2 and k = 4 and 5, after 30 steps without a choice.  The seeds are
    fixed, so the counts are too; the 3-sigma slack only absorbs the
    sampling noise of a correct scheduler (measured: 480 of 4000 at depth
    2, floor 437; 408 of 16000 at depth 3, floor 267).  Counting every step
    as a change point, as the kit did before, gives k = 36 and 37 and only
    41 of 4000 and 5 of 16000."""
    SEEDS = (1, 2, 3, 4)

    def hits(self, scenario, depth, executions):
        """Executions that reached the scenario's outcome, over SEEDS."""
        total = 0
        for seed in self.SEEDS:
            res = self.path("result")
            rc, out = run(SELF, "run", scenario, "--strategy", "pct", "--seed",
                          str(seed), "--depth", str(depth), "--max-exec",
                          str(executions), "--result", res)
            self.assertEqual(result_file(res)["executions"], str(executions), out)
            yield out
            total += int(result_file(res)["witnessed"])
        self.total = total

    def assert_bound(self, scenario, depth, k, executions):
        for out in self.hits(scenario, depth, executions):
            self.assertIn("k = %d steps with a choice" % k, out)
        m, b = executions * len(self.SEEDS), 1.0 / (2 * k ** (depth - 1))
        floor = m * b - 3 * math.sqrt(m * b * (1 - b))
        self.assertGreaterEqual(self.total, floor,
                                "%s: %d of %d executions, bound 1/(n k^(d-1)) = %g"
                                % (scenario, self.total, m, b))

    def test_depth_2(self):
        self.assert_bound("pct_depth2", 2, 4, 1000)

    def test_depth_3(self):
        self.assert_bound("pct_depth3", 3, 5, 4000)

    def test_depth_1_has_no_change_point(self):
        """Without a change point the highest thread runs to its end: the
        depth-2 outcome is never reached, and the result is vacuous."""
        list(self.hits("pct_depth2", 1, 500))
        self.assertEqual(self.total, 0)


class Witness(Tmp):
    def test_vacuous(self):
        res = self.path("result")
        rc, out = run(SELF, "run", "unpublished", "--result", res)
        self.assertEqual((rc, result(out)[:2]), (1, ("vacuous", "no")), out)
        self.assertRegex(out, r"verdict: vacuous: in none of the \d+ executions explored: "
                              r"the reader reads the item")
        r = result_file(res)
        self.assertEqual((r["got"], r["met"], r["witnessed"]), ("vacuous", "no", "0"))

    def test_witness_counted(self):
        res = self.path("result")
        rc, out = run(SELF, "run", "rcu_sync", "--result", res)
        self.assertEqual(rc, 0, out)
        r = result_file(res)
        self.assertTrue(0 < int(r["witnessed"]) < int(r["executions"]), r)
        self.assertIn("witness: the reader reads the item: in %s of %s executions"
                      % (r["witnessed"], r["executions"]), out)

    def test_per_execution(self):
        """A script in which the reader comes after the unpublish reaches
        no outcome: one execution, vacuous; the other order is not."""
        rc, out = run(SELF, "run", "rcu_call", "--script", "T2+ T1+ RCU+")
        self.assertEqual((rc, result(out)[0]), (1, "vacuous"), out)
        rc, out = run(SELF, "run", "rcu_call", "--script", "T1+ T2+ RCU+")
        self.assertEqual((rc, result(out)[0]), (0, "none"), out)


class Demo(unittest.TestCase):
    def test_listed_and_runnable(self):
        rc, out = run(SELF, "list")
        self.assertRegex(out, r"(?m)^lost_update_demo +demo:check  the lost update")
        for line in out.splitlines():
            self.assertRegex(line, r"^\S+ +(must-hold|must-fail:\S+|demo:\S+)  \S")
        rc, out = run(SELF, "run", "lost_update_demo")
        self.assertEqual(rc, 0, out)
        self.assertIn("RESULT lost_update_demo expect=demo got=check met=yes", out)


class Contract(unittest.TestCase):
    """The hook contract and the reproducer's names, from the sources."""
    HOOKS = os.path.join(ROOT, "common", "race_hooks.h")

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        # COMPILER_CACHE: make check's fork server of clang (tools/ccfork/)
        cc = os.environ.get("COMPILER_CACHE", "").split() + [os.environ.get("CC") or "clang"]
        srcs = [os.path.relpath(f, ROOT) for f in
                glob.glob(os.path.join(ROOT, "common", "*.c"))
                + glob.glob(os.path.join(ROOT, "common", "race", "*", "*.c"))
                + [os.path.join(ROOT, "tests", "race", "refused_scenarios.c")]]
        jobs, cls.race_objs = [], []
        for src in srcs:
            obj = os.path.join(cls.dir.name, src.replace(os.sep, "_") + ".o")
            jobs.append(subprocess.Popen(
                cc + ["-std=gnu11", "-O0", "-pthread", "-Wall", "-Wextra", "-Werror",
                 "-Icommon", "-DCONFIG_RACE_HARNESS", "-c", src, "-o", obj], cwd=ROOT))
            if src.startswith(os.path.join("common", "race", "")):
                cls.race_objs.append(obj)
        assert all(j.wait() == 0 for j in jobs), "compiling the refused binary failed"
        cls.refused = os.path.join(cls.dir.name, "race")
        subprocess.run(cc + ["-pthread", "-o", cls.refused]
                       + glob.glob(os.path.join(cls.dir.name, "*.o"))
                       + ["-lurcu-memb"], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_refused_at_startup(self):
        src = "tests/race/refused_scenarios.c"
        for cmd in (["list"], ["run", "fails_anyhow"], ["replay", "x.sched"]):
            rc, out = run(self.refused, *cmd)
            self.assertEqual(rc, 2, out)
            self.assertIn("race: 5 scenario(s) refused", out)
        for name, kind, why in (
                ("fails_anyhow", "must-fail", "no .verdict: pin the verdict"),
                ("demo_anyhow", "demo", "no .verdict: pin the verdict"),
                ("holds_blindly", "must-hold", "no .witness and .outcome"),
                ("holds_and_fails", "must-hold", ".verdict is set, but a must-hold"),
                ("lonely", "must-fail", "needs 2 to 4 thread functions")):
            self.assertRegex(out, r"(?m)^race: %s:\d+: scenario %s \(%s\): %s"
                             % (re.escape(src), name, kind, re.escape(why)))

    def test_exported_names_are_prefixed(self):
        """The race binary links student code: the reproducer exports only
        race_* names (and main, and ASan's options hook)."""
        p = subprocess.run(["nm", "-g", "--defined-only"] + self.race_objs,
                           stdout=subprocess.PIPE, check=True)
        names = {l.split()[-1] for l in p.stdout.decode().splitlines()
                 if len(l.split()) == 3}
        self.assertGreater(len(names), 50)
        self.assertEqual({n for n in names if not n.startswith("race_")},
                         {"main", "__asan_default_options"})

    def test_every_hook_has_a_stub(self):
        text = open(self.HOOKS).read()
        harness, stubs = text.split("#else /* !CONFIG_RACE_HARNESS")
        harness = harness.split("#ifdef CONFIG_RACE_HARNESS", 1)[1]
        declared = set(re.findall(r"(?m)^[a-z][\w ]*?\b(race_\w+)\(", harness))
        stubbed = set(re.findall(r"static inline [\w ]+?\b(race_\w+)\(", stubs))
        self.assertGreaterEqual(len(declared), 12, declared)
        self.assertEqual(declared, stubbed)

    def test_no_harness_config_in_common(self):
        """Only race_hooks.h knows which backend is built."""
        found = [f for f in glob.glob(os.path.join(ROOT, "common", "*.[ch]"))
                 if "CONFIG_RACE_HARNESS" in open(f).read()]
        self.assertEqual([os.path.basename(f) for f in found], ["race_hooks.h"])

    def test_no_sanitizer_config_in_c_files(self):
        """Only sanitizer.h (and compiler.h, which sets them) test the
        sanitizer configs; the .c files of common/ call its annotations."""
        found = [os.path.relpath(f, ROOT) for f in
                 glob.glob(os.path.join(ROOT, "common", "*.c"))
                 + glob.glob(os.path.join(ROOT, "common", "race", "*", "*.c"))
                 if "CONFIG_KIT_" in open(f).read()]
        self.assertEqual(found, [])


class Layers(Tmp):
    """tools/race_layers.py finds a call up a layer and a circle of files,
    and passes the reproducer as it is."""
    TOOL = os.path.join(ROOT, "tools", "race_layers.py")

    def tree(self, files):
        for rel, text in files.items():
            path = os.path.join(self.dir.name, "common", "race", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return run(sys.executable, self.TOOL, "--root", self.dir.name)

    def test_the_reproducer_passes(self):
        rc, out = run(sys.executable, self.TOOL)
        self.assertEqual(rc, 0, out)
        self.assertIn("no circle", out)

    def test_a_call_up_a_layer_fails(self):
        rc, out = self.tree({
            "runtime/token.c": "void race_pick(void);\nvoid race_run(void) { race_pick(); }\n",
            "explore/dfs.c": "/* a comment: race_run() */\nvoid race_pick(void) { }\n"})
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL up a layer: common/race/runtime/token.c (runtime) -> "
                      "common/race/explore/dfs.c (exploration): race_pick", out)
        self.assertNotIn("circle", out.replace("no circle", ""))

    def test_a_circle_in_one_layer_fails(self):
        rc, out = self.tree({
            "models/a.c": "static int x;\nint race_a(void) { return race_b() + x; }\n",
            "models/b.c": "int race_b(void) { return race_c(); }\n",
            "models/c.c": "int race_c(void) { return race_a(); }\n"})
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL circle of 3 files: common/race/models/a.c, "
                      "common/race/models/b.c, common/race/models/c.c", out)


class Oracles(Tmp):
    """Type-stable memory, WARNs counted, the end-of-thread oracle and the
    linearizability check (tests/race/race_oracles.c)."""

    def verdict(self, name, *args):
        rc, out = run(SELF, "run", name, *args)
        return result(out), out

    def test_typesafe_rule(self):
        (got, met, _), out = self.verdict("typesafe_read_inside")
        self.assertEqual((got, met), ("none", "yes"), out)
        (got, _, _), out = self.verdict("typesafe_read_outside")
        self.assertEqual(got, "use-after-free", out)
        self.assertIn("a read outside any RCU read-side section", out)
        (got, _, _), out = self.verdict("typesafe_write_inside")
        self.assertIn("a write to type-stable memory", out)

    def test_access_kind_named(self):
        rc, out = run(LAB1, "run", UNLOCKED)
        self.assertIn("kref_get.inc on obj#1 (cache_obj, 16 bytes, +0, an update)", out)

    def test_warns_counted(self):
        (got, met, _), out = self.verdict("warn_exactly_once")
        self.assertEqual((got, met), ("none", "yes"), out)
        (got, _, _), out = self.verdict("warn_twice_not_once")
        self.assertEqual(got, "warn", out)
        self.assertIn("2 WARNs in this execution; the scenario expects exactly 1", out)

    def test_held_at_exit(self):
        (got, _, _), out = self.verdict("ends_in_section")
        self.assertEqual(got, "held-at-exit", out)
        self.assertIn("returned inside an RCU read-side section", out)
        (got, _, _), out = self.verdict("ends_holding_lock")
        self.assertIn("returned holding the lock it took at step 1", out)

    def test_zero_is_final(self):
        (got, met, _), out = self.verdict("zero_inc_then_undo")
        self.assertEqual((got, met), ("warn", "yes"), out)
        self.assertRegex(out, r"refcount: T2 \(zero_get_undo\) took the reference "
                              r"count @1 \(watched since zero_setup\) from 0 to 1 "
                              r"at step \d+ \(zero_get_undo\.inc_return\) after "
                              r"step \d+ \(T1 \(zero_put\) zero_put\.dec_and_test\) "
                              r"had brought it to 0 -- 0 is final")
        (got, met, _), out = self.verdict("zero_unwatched")
        self.assertEqual((got, met), ("none", "yes"), out)

    def test_linearizable_counter_holds(self):
        for name in ("lin:counter:atomic:inc|inc", "lin:counter:atomic:inc+inc+read|read+read+inc"):
            (got, met, n), out = self.verdict(name, "--bound", "2")
            self.assertEqual((got, met), ("none", "yes"), out)
            self.assertGreater(n, 1, out)

    def test_lost_update_explained(self):
        sched = self.path("lin.sched")
        rc, out = run(SELF, "run", "lincheck:counter", "--out", sched)
        self.assertEqual(result(out)[:2], ("linearizability", "no"), out)
        self.assertIn("generated scenario", out)
        self.assertIn("T2 racy_inc, T1 racy_inc: returned 0, the specification says 1", out)
        rc, out = run(SELF, "replay", sched)
        self.assertIn("REPLAY lin:counter:racy:racy_inc|racy_inc expect=linearizability "
                      "got=linearizability ok=yes", out)

    def test_suite_in_one_process_as_in_many(self):
        """lincheck's scenarios share one search process (race_search_many):
        the same executions, witnesses and verdict as a process each
        (--os-threads), for a suite that holds and for one that fails part
        way (whose failing scenario is searched again alone)."""
        keep = ("held:", "witness:", "generated scenario", "verdict:", "RESULT")
        for binary, suite in ((LAB1, "lincheck:cache"), (SELF, "lincheck:counter")):
            figures = []
            for extra in ((), ("--os-threads",)):
                rc, out = run(binary, "run", suite, *extra)
                figures.append([re.sub(r" in [\d.]+ ms \(\d+/s\)", "", l)
                                for l in out.splitlines() if l.startswith(keep)])
            self.assertEqual(figures[0], figures[1], suite)
            self.assertTrue(any(l.startswith("RESULT") for l in figures[0]), figures[0])

    def test_generated_refuse_the_weak_model(self):
        """Real-time order is not what the weak model keeps: a correct
        table would fail; the suite and a single scenario say so."""
        for name in ("lincheck:cache", "lin:cache:key1:remove(1)|remove(1)"):
            rc, out = run(LAB1, "run", name, "--memory", "weak")
            self.assertEqual(rc, 2, out)
            self.assertIn("run them without --memory weak", out)

    def test_generated_names(self):
        rc, out = run(SELF, "list", "lincheck:counter")
        names = out.split()
        self.assertIn("lin:counter:racy:racy_inc|racy_inc", names)
        self.assertEqual(len(names), len(set(names)) + sum(names.count(n) - 1 for n in set(names)))
        rc, out = run(SELF, "run", "lin:counter:racy:nosuch|inc")
        self.assertEqual(rc, 2, out)
        rc, out = run(SELF, "list", "lincheck:nosuch")
        self.assertEqual(rc, 2, out)


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
