#!/usr/bin/env python3
"""test_kit.py - the grader's own readings, on fixed inputs (make check).

    python3 tests/kit/test_kit.py

  * a failing Criterion test reads as its assertion's text (first failure
    first, several lines joined), never as Criterion's banner;
  * lab 1's exercise is graded by meaning: a use-after-free by an update
    of the count in kref_get, whatever atomic made it (inc, add,
    inc_return, cmpxchg), and not by the read that comes before;
  * a verdict line names the access it stopped at;
  * the pre-build check reads a variant's token dump wherever that
    variant expands the student's lines to another text than the plain
    build does, so code only one build compiles is still read, and no
    dump where the lines hold nothing a dump could refuse (an asm keyword,
    an attribute, a built-in outside the allowed ones);
  * a jailed command starts under its jail's rlimits and in its cgroups,
    whether prlimit and a shell set them (Jail.launcher) or a forked
    child does (where prlimit is missing);
  * fixtures.processes_of finds this checkout's processes, not those of a
    make check beside it in another clone that name the same path;
  * the jailed compiler's command line (mk/build.mk's JAIL_CC): a command
    for each source of each group, its object in the group's folder, the
    first that fails the last that runs.
Standard library only.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from kit import criterion, fixtures, layout, precheck, proc, race, sandbox  # noqa: E402

UAF = ("use-after-free: kref_get.%s on obj#1 (cache_obj, 16 bytes, +0, %s) freed by T2 "
       "at step 14 in cache_obj_release (labs/lab1-kref/cache_given.c:33)")


class CriterionMessages(unittest.TestCase):
    def test_first_failure_first(self):
        # Criterion's JSON lists a test's failed assertions newest first
        self.assertEqual(criterion.assertion_texts(["t.c:9: two", "t.c:8: one"]),
                         ["t.c:8: one", "t.c:9: two"])

    def test_lines_of_one_message_joined(self):
        self.assertEqual(criterion.assertion_texts(["t.c:7: first line", "  second line"]),
                         ["t.c:7: first line second line"])

    def test_never_the_banner(self):
        self.assertEqual(criterion.assertion_texts(["[----] Criterion v2.4.1",
                                                    "t.c:3: the count must be 1"]),
                         ["t.c:3: the count must be 1"])

    def test_a_failure_reads_as_its_assertion(self):
        t = criterion.Test("s", "n")
        t.status, t.reported, t.ended = "FAILED", 1, True
        t.messages = criterion.assertion_texts(["Criterion v2.4.1", "t.c:3: wrong"])
        self.assertEqual(t.verdict(), ("FAIL", "t.c:3: wrong"))
        t.messages = []
        self.assertNotIn("Criterion", t.verdict()[1])


class ExerciseByMeaning(unittest.TestCase):
    ex = layout.Exercise({"file": "race.sched", "scenario": "lookup_unlocked_vs_remove",
                          "verdict": "use-after-free", "at": "kref_get", "access": "update"})

    def test_any_atomic_that_increments(self):
        for op in ("inc", "add", "inc_return", "add_return", "cmpxchg"):
            self.assertTrue(race.at_step(self.ex, UAF % (op, "an update")), op)

    def test_not_the_read_before(self):
        self.assertFalse(race.at_step(self.ex, UAF % ("read", "a read")))

    def test_not_another_function(self):
        v = (UAF % ("inc", "an update")).replace("kref_get.", "kref_put.")
        self.assertFalse(race.at_step(self.ex, v))

    def test_a_label_prefix_still_works(self):
        ex = layout.Exercise({"file": "f", "at": "kref_get.inc"})
        self.assertTrue(race.at_step(ex, UAF % ("inc_return", "an update")))
        self.assertFalse(race.at_step(ex, UAF % ("add", "an update")))

    def test_failing_access(self):
        self.assertEqual(race.failing_access(UAF % ("add", "an update")),
                         ("kref_get", "add", "update"))
        self.assertIsNone(race.failing_access("leak: 1 object(s) still allocated"))


class _Lab:
    """What precheck._units() reads of a lab: a compile command per variant."""

    def __init__(self, **variants):
        self.compile = {v: "clang -std=gnu11 -c %s" % flags for v, flags in variants.items()}


@unittest.skipUnless(shutil.which("clang"), "clang is not installed")
class PrecheckDumps(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.src = os.path.join(self.dir, "x.c")
        with open(self.src, "w") as f:
            f.write("void f(void)\n{\n\tHIDE(__builtin_frame_address(0));\n}\n")
        mine = os.path.basename(self.dir)
        self.student = lambda path: mine in path

    def units(self, lab):
        return {name: unit for name, _, unit in precheck._units(lab, self.src, self.student)}

    def test_same_text_one_dump(self):
        got = self.units(_Lab(plain="-O2 -DHIDE(x)=x", race="-O1 -DHIDE(x)=x"))
        self.assertEqual(sorted(got), ["plain", "plain (token dump)", "race"])
        self.assertTrue(any("__builtin_frame_address" in r
                            for r in got["plain (token dump)"].refusals))

    def test_code_only_one_build_compiles_is_read(self):
        got = self.units(_Lab(plain="-O2 -DHIDE(x)=", race="-O1 -DHIDE(x)=x"))
        self.assertEqual(sorted(got), ["plain", "race", "race (token dump)"])
        self.assertTrue(any("__builtin_frame_address" in r
                            for r in got["race (token dump)"].refusals),
                        got["race (token dump)"].refusals)

    def write(self, text):
        with open(self.src, "w") as f:
            f.write(text)

    def test_nothing_to_refuse_no_dump(self):
        """Allowed built-ins, an array of arrays, words that only contain
        'asm': no token a dump refuses, so no dump; the -E passes still
        give the compiler's own list of the files read (-MD)."""
        self.write("#include <stddef.h>\nint plasma[2][2];\n"
                   "int f(int x)\n{\n\treturn __builtin_expect(x, 1) + plasma[0][0] +\n"
                   "\t\t(int)__builtin_offsetof(struct { int a; }, a);\n}\n")
        got = self.units(_Lab(plain="-O2", race="-O1"))
        self.assertEqual(sorted(got), ["plain", "race"])
        self.assertTrue(any(d.endswith("stddef.h") for d in got["plain"].deps), got["plain"].deps)

    def test_each_kind_a_dump_refuses_is_dumped(self):
        for code, refused in (("int f(void) { asm(\"nop\"); return 0; }", "inline assembly"),
                              ("__attribute__((constructor)) void f(void) {}", "constructor"),
                              ("[ [gnu::constructor]] void f(void) {}", "attribute gnu"),
                              ("void *f(void) { return __builtin_frame_address(0); }",
                               "__builtin_frame_address")):
            self.write("#define HIDE(x) x\nHIDE(%s)\n" % code)
            got = self.units(_Lab(plain="-O2", race="-O1"))
            self.assertIn("plain (token dump)", got, code)
            self.assertTrue(any(refused in r for r in got["plain (token dump)"].refusals),
                            (code, got["plain (token dump)"].refusals))

    def test_variant_macros_from_the_units(self):
        """A macro one variant's flags define, or define otherwise, is a
        variant macro; one defined alike, or undefined at the file's end,
        is not (the -E -dD passes read the definitions)."""
        with open(self.src, "w") as f:
            f.write("#define GONE 1\n#undef GONE\n#define MINE 2\nint x;\n")
        lab = _Lab(plain="-O2 -DSAME=1 -DOTHER=1", race="-O1 -DSAME=1 -DOTHER=2 -DONLY")
        pre = {self.src: [u for name, _, u in precheck._units(lab, self.src, self.student)
                          if name in lab.compile]}
        got = precheck.variant_macros(pre)
        self.assertTrue({"OTHER", "ONLY"} <= got, got)
        self.assertFalse({"SAME", "GONE", "MINE"} & got, got)
        self.assertEqual(pre[self.src][0].lines, {(self.src, 4)}, "a definition is no code")


# What a jailed command reports of itself: its cgroups and its rlimits.
_SELF = ("import resource\n"
         "print(sorted(l.split(':')[2] for l in open('/proc/self/cgroup') if 'kit-' in l))\n"
         "print([resource.getrlimit(getattr(resource, 'RLIMIT_' + r))\n"
         "       for r in ('CORE', 'FSIZE', 'CPU', 'AS')])\n")


class JailLimits(unittest.TestCase):
    def seen(self, prlimit):
        saved = sandbox.PRLIMIT
        sandbox.PRLIMIT = prlimit
        try:
            jail = sandbox.Jail(cpu=7, fsize=12345)
            jail.address_space = 900
            dirs = sorted(set(jail.cgroups.dirs.values()))
            r = proc.run(["/usr/bin/python3", "-S", "-c", _SELF], 30, jail=jail)
        finally:
            sandbox.PRLIMIT = saved
        self.assertEqual(r.rc, 0, r.out)
        cgroups, rlimits = r.out.splitlines()[-2:]
        return cgroups, rlimits, dirs

    def test_launcher_and_fork_set_the_same(self):
        if not sandbox.PRLIMIT or not os.path.exists("/usr/bin/python3"):
            self.skipTest("no prlimit or no /usr/bin/python3 here")
        launched, forked = self.seen(sandbox.PRLIMIT), self.seen(None)
        want = str([(0, 0), (12345, 12345), (7, 12), (900 << 20, 900 << 20)])
        self.assertEqual(launched[1], want)
        self.assertEqual(forked[1], want)
        for cgroups, _, dirs in (launched, forked):
            names = {os.path.basename(d) for d in dirs}
            self.assertEqual(len(names), 1 if dirs else 0, dirs)
            for name in names:
                self.assertIn(name, cgroups)


class ProcessGroup(unittest.TestCase):
    def test_nothing_of_the_group_alive_when_run_returns(self):
        """proc.run kills the command's process group and returns once
        none of it is alive: three children left sleeping, none there."""
        marker = "kit-proc-group-%d" % os.getpid()
        code = ("import os, time\n"
                "print(os.getpgid(0), flush=True)\n"
                "for _ in range(3):\n"
                "    if os.fork() == 0:\n"
                "        time.sleep(300)\n")
        r = proc.run([sys.executable, "-S", "-c", code, marker], 30)
        group = int(r.out.split()[0])
        self.assertEqual(proc._alive_in_group(group), [])
        self.assertEqual([d for d in os.listdir("/proc") if d.isdigit() and
                          _cmdline_has(d, marker)], [])

    def test_alive_in_group_finds_the_living(self):
        self.assertIn(os.getpid(), proc._alive_in_group(os.getpgid(0)))


class ProcessesOf(unittest.TestCase):
    """fixtures.processes_of: the leftovers of this checkout, not the
    processes of another clone's make check that name the same relative
    path."""

    def test_this_checkout_only(self):
        marker = "build/kit-processes-of-%d" % os.getpid()
        wait = [sys.executable, "-S", "-c", "import time; time.sleep(30)", marker]
        here = subprocess.Popen(wait, cwd=fixtures.ROOT)
        with tempfile.TemporaryDirectory() as elsewhere:
            there = subprocess.Popen(wait, cwd=elsewhere)
            try:
                for p in (here, there):     # its command line once it runs
                    for _ in range(500):
                        if _cmdline_has(str(p.pid), marker):
                            break
                        time.sleep(0.01)
                found = fixtures.processes_of(marker)
            finally:
                for p in (here, there):
                    p.kill()
                    p.wait()
        self.assertEqual(found, [here.pid])


def _cmdline_has(pid, marker):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return marker.encode() in f.read()
    except OSError:
        return False


class JailedCompiles(unittest.TestCase):
    CC = ["clang", "-O2", "-include", "x.h"]

    def test_a_command_each_source_each_group(self):
        got = sandbox.groups(["--to", "b/obj", "--"] + self.CC + ["-c", "s/a.c", "s/b.c",
                             "--to", "b/obj-up", "--"] + self.CC + ["-DUP", "-c", "s/a.c"])
        self.assertEqual(got, [
            ("b/obj", [self.CC + ["-c", "s/a.c", "-o", "b/obj/a.o"],
                       self.CC + ["-c", "s/b.c", "-o", "b/obj/b.o"]]),
            ("b/obj-up", [self.CC + ["-DUP", "-c", "s/a.c", "-o", "b/obj-up/a.o"]])])

    def test_not_a_group_is_refused(self):
        for argv in ([], ["--", "clang", "-c", "a.c"], ["--to", "d", "--", "clang", "a.c"],
                     ["--to", "d", "--", "clang", "-c"], ["--to", "d", "--", "clang", "-c",
                                                          "a.c", "-o", "x.o"],
                     ["--to", "d", "--", "-c", "a.c"]):
            self.assertIsNone(sandbox.groups(argv), argv)

    def test_the_first_failure_is_the_last_compile(self):
        scratch = os.path.join(sandbox.ROOT, "build")  # the jail hides /tmp
        os.makedirs(scratch, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=scratch) as tmp:
            src = os.path.join(tmp, "src")
            os.makedirs(src)
            for name, text in (("a.c", "int a;\n"), ("b.c", "int b = ;\n"), ("c.c", "int c;\n")):
                with open(os.path.join(src, name), "w") as f:
                    f.write(text)
            r = proc.run([sys.executable, "-S", "-m", "kit.sandbox", "cc", "--to", tmp, "--",
                          os.environ.get("CC", "clang").split()[0], "-c"] +
                         [os.path.join(src, n) for n in ("a.c", "b.c", "c.c")], 120,
                         env=dict(os.environ, PYTHONPATH=os.path.join(sandbox.ROOT, "tools")))
            self.assertNotEqual(r.rc, 0, r.out)
            self.assertIn("b.c:1", r.out)
            self.assertEqual(sorted(n for n in os.listdir(tmp) if n.endswith(".o")), ["a.o"])


if __name__ == "__main__":
    unittest.main()
