#!/usr/bin/env python3
"""test_feedback.py - what a grade tells a student, on fixed inputs (make check).

    python3 tests/feedback/test_feedback.py

  * points: a part's points shared by weight, in hundredths, adding up
    exactly; a part scores what its passing items are worth;
  * the handout's order: lab.order, then where a test is declared;
  * hints and declarations read from the tests' sources;
  * a TSan report shown as its two accesses, file:line and function, with
    no absolute path; frames the jailed TSan could not name, named by
    addr2line outside it;
  * a timeline excerpt says what "= v" means;
  * an exercise file: not written yet, no header (and the lines to add);
  * a replay that diverged on a misspelt label names the closest step;
  * the manifest's lines become JSON whatever a title holds;
  * the JUnit schema: a valid report passes, a broken one is named.
Standard library only.
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from kit import ROOT, grading, junit, layout, race, schedfile, testsrc, tsan  # noqa: E402


def items(*verdicts):
    return [grading.Item("t%d" % k, v) for k, v in enumerate(verdicts)]


class Points(unittest.TestCase):
    def test_shares_add_up(self):
        its = items(*["PASS"] * 13)
        grading.share(its, 30)
        self.assertEqual(sum(i.cents for i in its), 3000)
        self.assertEqual({i.cents for i in its}, {230, 231})

    def test_weights(self):
        its = items("PASS", "FAIL", "PASS")
        grading.share(its, 20, {"t1": 2, "t2": 0})
        self.assertEqual([i.cents for i in its], [667, 1333, 0])

    def test_part_scores_its_passing_items(self):
        its = items("PASS", "FAIL", "CRASH", "PASS")
        part = grading.itemized("unit-plain", its, "4 tests")
        part.max_points = 20
        grading.share(its, 20)
        self.assertEqual((part.status, part.verdict, part.points), ("FAIL", "CRASH", 10))

    def test_a_refusal_scores_nothing(self):
        its = items("PASS", "PASS")
        grading.share(its, 10)
        part = grading.failed("unit-plain", grading.REFUSED, "refused", items=its)
        self.assertEqual(part.points, 0)


class Order(unittest.TestCase):
    def test_handout_order_then_declaration(self):
        declared = {"cache::a": 0, "kref::b": 5, "kref::a": 6}
        names = sorted(declared, key=lambda n: grading.ordered_key(
            ["race.sched", "kref::*", "cache::*"], declared, n, 0))
        self.assertEqual(names, ["kref::b", "kref::a", "cache::a"])


class Sources(unittest.TestCase):
    def test_hints_and_declarations(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "test_x.c")
            with open(path, "w") as f:
                f.write("/* not a hint */\nTest(s, one)\n{\n}\n\n"
                        "/* Hint: look at\n * the count.\n */\nTest(s, two, .timeout = 5)\n{\n"
                        "\tcr_assert_eq(f(1, 2), 3);\n\tcr_assert(x, \"x must hold\");\n}\n")
            self.assertEqual(testsrc.scan(path),
                             [("s::one", 2, None), ("s::two", 9, "look at the count.")])
            self.assertEqual(len(testsrc.unasserted(path)), 1)
            self.assertIn("test_x.c:11: cr_assert_eq", testsrc.unasserted(path)[0])

    def test_lab1_hints_beside_its_tests(self):
        lab = layout.lab(1)
        hints = testsrc.hints(lab)
        self.assertIn("kref::get_from_zero_warns", hints)
        self.assertIn("race.sched", hints)      # lab.hint.race.sched, in lab.mk


TSAN = """==================
WARNING: ThreadSanitizer: data race (pid=7364)
  Atomic read of size 4 at 0x7b1000009fa0 by thread T1:
    #0 kit_atomic_read {root}/common/atomic.h:62:18 (tsan_cache+0xd056b) (BuildId: ab)
    #1 kref_get {tree}/lab1-kref/kref.c:10:2 (tsan_cache+0xd056b)
    #2 cache_lookup_unlocked {root}/labs/lab1-kref/cache_given.c:115:3 (tsan_cache+0xd0c7e)

  Previous write of size 8 at 0x7b1000009fa0 by main thread:
    #0 memset <null> (tsan_cache+0x5b3ad) (BuildId: ab)
    #1 slab_free {root}/common/slab.c:279:3 (tsan_cache+0xd1f60) (BuildId: ab)
    #2 __kmem_cache_free {root}/common/slab.c:358:2 (tsan_cache+0xd1e79) (BuildId: ab)
    #3 cache_obj_release {root}/labs/lab1-kref/cache_given.c:33:2 (tsan_cache+0xd0820)
    #4 kref_put {tree}/lab1-kref/kref.c:18:3 (tsan_cache+0xd0644) (BuildId: ab)

  Location is heap block of size 64 at 0x7b1000012380 allocated by main thread:
    #0 aligned_alloc <null> (tsan_cache+0x50adf) (BuildId: ab)

SUMMARY: ThreadSanitizer: data race {root}/common/atomic.h:62:18 in kit_atomic_read
"""


class TsanReport(unittest.TestCase):
    def test_two_accesses_in_the_students_terms(self):
        tree = "/tmp/ag/submission-x1y2"
        lines = tsan.accesses(TSAN.format(root=ROOT, tree=tree), "labs", tree)
        self.assertEqual(lines[0], "TSan: data race")
        self.assertEqual(len(lines), 3, lines)
        self.assertIn("T1: atomic read of 4 bytes in kit_atomic_read (common/atomic.h:62)"
                      " <- kref_get (labs/lab1-kref/kref.c:10)", lines[1])
        self.assertIn("main thread, before that: write of 8 bytes in slab_free "
                      "(common/slab.c:279) <- cache_obj_release "
                      "(labs/lab1-kref/cache_given.c:33)", lines[2])
        self.assertFalse([l for l in lines if ROOT in l or tree in l])

    def test_frames_named_outside_the_jail(self):
        """Under the lockdown TSan starts no symbolizer: its frames are
        'module+offset', which symbolize() names with addr2line."""
        src = "int victim(int *p) { return *p + 1; }\nint main(void) { int x = 1; return victim(&x) - 2; }\n"
        with tempfile.TemporaryDirectory() as d:
            prog = os.path.join(d, "prog")
            with open(prog + ".c", "w") as f:
                f.write(src)
            r = subprocess.run(["cc", "-g", "-O0", "-o", prog, prog + ".c"])
            self.assertEqual(r.returncode, 0)
            nm = subprocess.run(["nm", prog], stdout=subprocess.PIPE, text=True).stdout
            off = int(next(l.split()[0] for l in nm.splitlines() if l.endswith(" victim")), 16)
            log = ("  Read of size 4 at 0x7b10 by thread T1:\n"
                   "    #0 <null> <null> (prog+0x%x) (BuildId: 1)\n"
                   "    #1 <null> <null> (libc.so.6+0x27249) (BuildId: 2)\n" % (off + 4))
            named = tsan.symbolize(log, prog)
        self.assertRegex(named, r"#0 victim \S+prog\.c:1 \(prog\+0x")
        self.assertIn("#1 <null> <null> (libc.so.6+0x27249)", named)


TIMELINE = """== lookup_unlocked_vs_remove
step | T1 lookup_unlocked                        | T2 remove_key
-----+-------------------------------------------+--------------
   1 | cache_lookup_unlocked.spin_lock(@1)
   2 | __cache_find.READ_ONCE(@2) = obj#1
   3 |                                           | cache_remove.spin_lock(@1)
   4 | kref_get.read(obj#1) = 1
   5 | kref_get.inc(obj#1) = 1
verdict: diverged: diverged at step 6: expected T1 kref_get.reed, runnable {T2} (schedule line 3)
"""


class Timelines(unittest.TestCase):
    def test_excerpt_says_what_v_is(self):
        ex = race.excerpt(TIMELINE, rows=2)
        self.assertIn("for an update, the value before it", ex[0])
        self.assertEqual(ex[3], "  ...")
        self.assertTrue(ex[-1].startswith("verdict:"))

    def test_misspelt_label_gets_the_closest_step(self):
        help_ = race.diverged_help(1, "race.sched", TIMELINE)
        self.assertEqual(len(help_), 1)
        self.assertIn("race.sched:3: T1 never reaches a step 'kref_get.reed'", help_[0])
        self.assertIn("Closest: 'kref_get.read'", help_[0])
        self.assertIn("cache_lookup_unlocked.spin_lock, __cache_find.READ_ONCE", help_[0])


class ScheduleFiles(unittest.TestCase):
    ex = layout.Exercise({"file": "race.sched", "scenario": "lookup_unlocked_vs_remove",
                          "verdict": "use-after-free", "at": "kref_get"})

    def test_untouched(self):
        self.assertEqual(schedfile.exercise_problem(b"# comments only\n", self.ex),
                         schedfile.NOT_WRITTEN)

    def test_header_missing(self):
        why = schedfile.exercise_problem(b"run T1@kref_get.read\nrun T2+\n", self.ex)
        self.assertIn("add 'race-schedule 1' and 'scenario lookup_unlocked_vs_remove' at "
                      "its top", why)

    def test_complete(self):
        self.assertIsNone(schedfile.exercise_problem(
            b"race-schedule 1\nscenario lookup_unlocked_vs_remove\nrun T1\n", self.ex))


class Manifest(unittest.TestCase):
    def test_any_title(self):
        title = 'say "hi" \\ $HOME, {ok}'
        text = "1\ttitle\t%s\n1\tpoints\tunit-plain=30 race=5\n1\tbin\ttsan a b\n" % title
        d = layout.manifest(text)[0]
        self.assertEqual(d["title"], title)
        self.assertEqual(d["points"], {"unit-plain": 30, "race": 5})
        self.assertEqual(d["bins"]["tsan"], ["a", "b"])


GOOD = """<testsuites name="x" tests="2" failures="1" errors="0" skipped="0" time="1.0">
 <testsuite name="lab1.unit" tests="2" failures="1" errors="0" skipped="0" time="0.5"
  timestamp="2024-01-01T00:00:00" hostname="localhost" id="0" package="lab1">
  <properties><property name="points" value="1/2"/></properties>
  <testcase classname="lab1.unit" name="a" time="0.1"/>
  <testcase classname="lab1.unit" name="b" time="0.1"><failure type="FAIL">no</failure></testcase>
  <system-out>1/2</system-out>
 </testsuite>
</testsuites>"""


class JUnitSchema(unittest.TestCase):
    def test_valid(self):
        self.assertEqual(junit.check(GOOD), [])

    def test_missing_errors_attribute(self):
        bad = GOOD.replace(' errors="0" skipped="0" time="0.5"', ' skipped="0" time="0.5"')
        self.assertTrue(any("has no errors=" in p for p in junit.check(bad)))

    def test_wrong_counts(self):
        bad = GOOD.replace('tests="2" failures="1" errors="0" skipped="0" time="0.5"',
                           'tests="2" failures="2" errors="0" skipped="0" time="0.5"')
        self.assertTrue(any("failures=2, but it has 1" in p for p in junit.check(bad)))

    def test_crash_as_failure_is_counted_as_written(self):
        bad = GOOD.replace('<failure type="FAIL">no</failure>',
                           '<failure type="FAIL">a</failure><error type="CRASH">b</error>')
        self.assertTrue(any("more than one" in p for p in junit.check(bad)))


if __name__ == "__main__":
    unittest.main(verbosity=1)
