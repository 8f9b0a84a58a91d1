#!/usr/bin/env python3
"""test_front_end.py - the C-litmus front end (make litmus) and the kit's
own litmus files against the LKMM's answers (make litmus-check; make check
runs it).

  test_front_end.py --bin BIN

BIN is the front end's race binary (make litmus-bin).  The kit's
tests/litmus/*.litmus cover every shape of the kernel's litmus tests
(tools/memory-model/litmus-tests/ and Documentation/litmus-tests/), each
with the kernel's answer as its Result:.  Every one must agree with that
answer under the reproducer's weak model, except those listed in
MODEL_ERRORS: the places where today's model is known to differ from the
LKMM (docs/reproducer.md, "Litmus tests"), each of which must disagree --
so that a model change that fixes one fails here until its entry is
deleted, and one that breaks another fails too.  Then the answer's shape,
the exit statuses, the refusals, and the interpreter's own reader.
Standard library only; no timing.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "litmus")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import litmus_parse  # noqa: E402

BIN = None
LITMUS = [sys.executable, os.path.join(ROOT, "tools", "litmus.py")]

# The kernel's tests, their answers, and the kit's file of the same shape.
KERNEL = {
    "CoRR+poonceonce+Once": ("Never", "co-read-read"),
    "CoRW+poonceonce+Once": ("Never", "co-read-write"),
    "CoWR+poonceonce+Once": ("Never", "co-write-read"),
    "CoWW+poonceonce": ("Never", "co-write-write"),
    "IRIW+fencembonceonces+OnceOnce": ("Never", "iriw-mb"),
    "IRIW+poonceonces+OnceOnce": ("Sometimes", "iriw-none"),
    "ISA2+pooncelock+pooncelock+pombonce": ("Never", "isa2-locks-mb"),
    "ISA2+poonceonces": ("Sometimes", "isa2-none"),
    "ISA2+pooncerelease+poacquirerelease+poacquireonce": ("Never", "isa2-release-acquire"),
    "LB+fencembonceonce+ctrlonceonce": ("Never", "lb-ctrl-mb"),
    "LB+poacquireonce+pooncerelease": ("Never", "lb-acquire-release"),
    "LB+poonceonces": ("Sometimes", "lb-none"),
    "LB+unlocklockonceonce+poacquireonce": ("Never", "lb-unlock-lock-acquire"),
    "MP+fencewmbonceonce+fencermbonceonce": ("Never", "mp-wmb-rmb"),
    "MP+onceassign+derefonce": ("Never", "mp-assign-deref"),
    "MP+polockmbonce+poacquiresilsil": ("Never", "mp-lock-mb-is-locked"),
    "MP+polockonce+poacquiresilsil": ("Sometimes", "mp-lock-is-locked"),
    "MP+polocks": ("Never", "mp-lock-inner"),
    "MP+poonceonces": ("Sometimes", "mp-none"),
    "MP+pooncerelease+poacquireonce": ("Never", "mp-release-acquire"),
    "MP+porevlocks": ("Never", "mp-lock-outer"),
    "MP+unlocklockonceonce+fencermbonceonce": ("Never", "mp-unlock-lock-rmb"),
    "R+fencembonceonces": ("Never", "r-mb"),
    "R+poonceonces": ("Sometimes", "r-none"),
    "S+fencewmbonceonce+poacquireonce": ("Never", "s-wmb-acquire"),
    "S+poonceonces": ("Sometimes", "s-none"),
    "SB+fencembonceonces": ("Never", "sb-mb"),
    "SB+poonceonces": ("Sometimes", "sb-none"),
    "SB+rfionceonce-poonceonces": ("Sometimes", "sb-own-first"),
    "WRC+poonceonces+Once": ("Sometimes", "wrc-none"),
    "WRC+pooncerelease+fencermbonceonce+Once": ("Never", "wrc-release-rmb"),
    "Z6.0+pooncelock+poonceLock+pombonce": ("Never", "z6-locks-after-spinlock-mb"),
    "Z6.0+pooncelock+pooncelock+pombonce": ("Sometimes", "z6-locks-mb"),
    "Z6.0+pooncerelease+poacquirerelease+fencembonceonce": ("Sometimes", "z6-release-acquire-mb"),
    "dep+plain": ("Never", "dep-plain"),
    "atomic/Atomic-RMW+mb__after_atomic-is-stronger-than-acquire":
        ("Never", "atomic-inc-after-atomic"),
    "atomic/Atomic-RMW-ops-are-atomic-WRT-atomic_set": ("Never", "atomic-add-unless-vs-set"),
    "atomic/cmpxchg-fail-ordered-1": ("Never", "cmpxchg-fail-mb-sb"),
    "atomic/cmpxchg-fail-ordered-2": ("Never", "cmpxchg-fail-mb-mp"),
    "atomic/cmpxchg-fail-unordered-1": ("Sometimes", "cmpxchg-fail-sb"),
    "atomic/cmpxchg-fail-unordered-2": ("Sometimes", "cmpxchg-fail-mp"),
    "locking/DCL-broken": ("Sometimes", "dcl-once"),
    "locking/DCL-fixed": ("Never", "dcl-release-acquire"),
    "locking/RM-broken": ("DEADLOCK", "rm-inside"),
    "locking/RM-fixed": ("Never", "rm-outside"),
    "rcu/RCU+sync+free": ("Never", "rcu-sync-free"),
    "rcu/RCU+sync+read": ("Never", "rcu-sync-read"),
}
# Shapes the kit adds, with the LKMM's answer.
EXTRA = {"mp-wmb-only": "Sometimes", "mp-rmb-only": "Sometimes", "mp-deref-once": "Never",
         "sb-xchg": "Never", "lb-ctrl-ctrl": "Never", "iriw-rmb": "Sometimes",
         "2w-none": "Sometimes", "mp-plain-once": "Sometimes",
         "mp-plain-release-acquire": "Never", "publish-plain-release": "Never",
         "publish-plain-once": "Sometimes"}

# Where the weak model differs from the LKMM on the kit's files: each must
# disagree, so that a model change that fixes one fails here until its
# entry is deleted (the six it had are fixed: docs/reproducer.md, "The
# kernel's tests against the model").
MODEL_ERRORS = {}
# What the front end refuses, and why.
REFUSED = {}
# The files whose executions include a data race (herd7's "Flag data-race").
RACY = {"mp-plain-once", "publish-plain-once", "mp-plain-release-acquire"}


def litmus(*args, timeout=600):
    p = subprocess.run(LITMUS + ["--bin", BIN] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout, cwd=ROOT)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def kit_files():
    return sorted(f[:-len(".litmus")] for f in os.listdir(HERE) if f.endswith(".litmus"))


class KitFiles(unittest.TestCase):
    """The kit's litmus files: every shape, the kernel's answers."""

    @classmethod
    def setUpClass(cls):
        cls.rc, cls.out, cls.err = litmus(os.path.join("tests", "litmus"))
        cls.lines = {}
        for line in cls.out.splitlines():
            m = re.match(r"(agree|disagree|no-result)\s+(\S+)\s", line)
            if m:
                cls.lines[m.group(2)] = m.group(1)
            m = re.match(r"(unsupported|malformed)\s+tests/litmus/(\S+)\.litmus:\d+: ", line)
            if m:
                cls.lines[m.group(2)] = m.group(1)

    def test_every_kernel_shape_has_a_file_with_its_answer(self):
        files = kit_files()
        self.assertGreaterEqual(len(files), 40)
        self.assertEqual(sorted(set(f for _, f in KERNEL.values()) | set(EXTRA)), files)
        for kernel, (answer, name) in sorted(KERNEL.items()):
            with open(os.path.join(HERE, name + ".litmus")) as f:
                test = litmus_parse.parse(f.read(), name) if name not in REFUSED else None
            if test:
                self.assertEqual((test.name, test.result), (name, answer), kernel)
        for name, answer in EXTRA.items():
            self.assertTrue(os.path.exists(os.path.join(HERE, name + ".litmus")), name)
            with open(os.path.join(HERE, name + ".litmus")) as f:
                self.assertEqual(litmus_parse.parse(f.read(), name).result, answer, name)

    def test_every_file_agrees_but_the_models_known_errors(self):
        self.assertEqual(sorted(self.lines), kit_files(), self.out)
        for name in kit_files():
            want = ("disagree" if name in MODEL_ERRORS else
                    "unsupported" if name in REFUSED else "agree")
            self.assertEqual(self.lines[name], want, "%s: %s\n%s" % (
                name, MODEL_ERRORS.get(name, REFUSED.get(name, "must agree")), self.out))
        n = len(kit_files())
        self.assertIn("%d agree, %d disagree, %d unsupported\n" % (
            n - len(MODEL_ERRORS) - len(REFUSED), len(MODEL_ERRORS), len(REFUSED)), self.out)
        self.assertEqual(self.rc, 1 if MODEL_ERRORS else 0)
        self.assertRegex(self.out, r"longest exploration: \S+, [0-9.]+ ms")

    def test_data_races_are_flagged(self):
        flagged = {name for name, word in self.lines.items() if word == "agree" and
                   re.search(r"\s%s\s.* Flag data-race$" % re.escape(name), self.out, re.M)}
        self.assertEqual(flagged, RACY, self.out)

    def test_every_refusal_names_its_line(self):
        for name, what in REFUSED.items():
            self.assertRegex(self.out, r"unsupported tests/litmus/%s\.litmus:\d+: "
                             r"unsupported: %s" % (re.escape(name), re.escape(what)))


def write(tmp, name, text):
    path = os.path.join(tmp, name + ".litmus")
    with open(path, "w") as f:
        f.write(text)
    return path


MP = """C mp-test

(* Result: %s *)

{}

P0(int *x, int *y)
{
	WRITE_ONCE(*x, 1);
	WRITE_ONCE(*y, 1);
}

P1(int *x, int *y)
{
	int r0;
	int r1;

	r0 = READ_ONCE(*y);
	r1 = READ_ONCE(*x);
}

%s
"""


class Answers(unittest.TestCase):
    """The shape of the answer, and the exit statuses."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_herd_shape(self):
        rc, out, err = litmus("tests/litmus/mp-none.litmus")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[:13], [
            "Test mp-none Allowed", "States 4",
            "1:data=0; 1:flag=0;", "1:data=0; 1:flag=1;",
            "1:data=42; 1:flag=0;", "1:data=42; 1:flag=1;",
            "Ok", "Witnesses", "Positive: 1 Negative: 3",
            "Condition exists (1:flag=1 /\\ 1:data=0)",
            "Observation mp-none Sometimes 1 3",
            lines[11], "Result: Sometimes (the file's, line 4): agrees"])
        self.assertRegex(lines[11], r"^Time mp-none [0-9.]+$")

    def test_a_disagreement_exits_1(self):
        path = write(self.tmp.name, "d", MP % ("Never", "exists (1:r0=1 /\\ 1:r1=0)"))
        rc, out, err = litmus(path)
        self.assertEqual(rc, 1, err)
        self.assertIn("Observation mp-test Sometimes 1 3", out)
        self.assertIn("Result: Never (the file's, line 3): DISAGREES: the reproducer's "
                      "weak model answers Sometimes", out)

    def test_load_buffering_runs_every_program_order(self):
        rc, out, err = litmus("--show", "tests/litmus/lb-none.litmus")
        self.assertEqual(rc, 0, err)
        self.assertIn("Observation lb-none Sometimes 1 3", out)
        # the execution shown makes a store before the load written above it
        self.assertRegex(out, r"P\d makes its lines in the order \d+, \d+ \(a store "
                         r"before earlier loads it does not depend on: load buffering\)")
        stores = "".join("\tWRITE_ONCE(*y%d, 1);\n" % i for i in range(4))
        loads = "".join("\tr%d = READ_ONCE(*x%d);\n" % (i, i) for i in range(4))
        params = ", ".join("int *x%d, int *y%d" % (i, i) for i in range(4))
        text = "C many\n{}\nP0(%s)\n{\n%s%s}\nexists (x0=1)\n" % (params, loads, stores)
        rc, out, err = litmus(write(self.tmp.name, "many", text))
        self.assertEqual((rc, out), (2, ""), err)
        self.assertRegex(err, r":3: unsupported: more than 64 program orders to explore")

    def test_plain_accesses_and_the_data_race_flag(self):
        rc, out, err = litmus("tests/litmus/mp-plain-once.litmus")
        self.assertEqual(rc, 0, err)
        self.assertIn("\nFlag data-race\nCondition exists", out)
        rc, out, err = litmus("tests/litmus/publish-plain-release.litmus")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Flag", out)
        self.assertIn("Observation publish-plain-release Never", out)

    def test_quantifiers(self):
        cases = [("exists (1:r0=1 /\\ 1:r1=0)", "Sometimes", "Allowed", "Ok"),
                 ("~exists (1:r0=1 /\\ 1:r1=0)", "Sometimes", "Required", "No"),
                 ("forall (1:r0=0 \\/ 1:r1=1)", "Sometimes", "Required", "No"),
                 ("forall (~(1:r0=2))", "Always", "Required", "Ok"),
                 ("exists (x=1 /\\ y=1)", "Always", "Allowed", "Ok"),
                 ("exists (1:r0=2)", "Never", "Allowed", "No")]
        for cond, obs, kind, ok in cases:
            path = write(self.tmp.name, "q", MP % (obs, cond))
            rc, out, err = litmus(path)
            self.assertEqual(rc, 0, cond + out + err)
            self.assertIn("Test mp-test %s\n" % kind, out, cond)
            self.assertIn("\n%s\nWitnesses\n" % ok, out, cond)
            self.assertIn("Observation mp-test %s " % obs, out, cond)

    def test_filter_and_locations(self):
        rc, out, err = litmus("tests/litmus/rm-outside.litmus")
        self.assertEqual(rc, 0, err)
        self.assertIn("Filter (1:before=0 /\\ 1:after=1)\n", out)
        lines = out.splitlines()
        n = int(lines[1].split()[1])
        states = lines[2:2 + n]
        self.assertTrue(states and all(s.endswith("x=1;") and "1:before=0;" in s and
                                       "1:after=1;" in s for s in states), out)
        self.assertIn("Observation rm-outside Never 0 ", out)

    def test_deadlock_answer(self):
        rc, out, err = litmus("tests/litmus/rm-inside.litmus")
        self.assertEqual((rc, out.count("States 0\n")), (0, 1), out + err)
        self.assertIn("Result: DEADLOCK (the file's, line 4): agrees", out)

    def test_show_prints_a_timeline(self):
        rc, out, err = litmus("--show", "tests/litmus/mp-none.litmus")
        self.assertEqual(rc, 0, err)
        self.assertIn("obj#1 is buf, obj#2 is ready", out)
        self.assertRegex(out, r"memory\.READ_ONCE\(obj#1\) = 0 \(stale: T1 wrote 42 at step \d+\)")
        self.assertIn("verdict: check: the condition's outcome", out)
        rc, out, err = litmus("--show", "tests/litmus/mp-wmb-rmb.litmus")
        self.assertIn("No execution reaches the condition.", out)

    def test_no_result_line(self):
        path = write(self.tmp.name, "nr", (MP % ("x", "exists (1:r0=1)")).replace(
            "(* Result: x *)", ""))
        rc, out, err = litmus(path)
        self.assertEqual(rc, 0, err)
        self.assertIn("Result: none stated in the file", out)


class Refusals(unittest.TestCase):
    """What the front end cannot express: FILE:LINE, exit 2, no verdict."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, text, line, what, kind="unsupported"):
        path = write(self.tmp.name, "t", text)
        rc, out, err = litmus(path)
        self.assertEqual((rc, out), (2, ""), text + err)
        self.assertRegex(err, r"^%s:%d: %s: %s\n$" % (re.escape(path), line, kind, what))

    def body(self, stmts, header="P0(int *x, int *y)"):
        return "C t\n{}\n%s\n{\n%s\n}\nexists (x=1)\n" % (header, stmts)

    def test_constructs(self):
        self.refused(self.body("\tint r;\n\twhile (1)\n\t\tr = 1;"), 6, "a loop")
        self.refused(self.body("\t*x += 1;"), 5, r"\+= on shared memory .*")
        self.refused(self.body("\t__plain_load(x);"), 5, r"__plain_load\(\)")
        self.refused(self.body("\tsrcu_read_lock(x);"), 5,
                     r"srcu_read_lock \(SRCU is not modelled\)")
        self.refused(self.body("\tfoo(x);"), 5, r"foo\(\)")
        self.refused(self.body("\tsmp_mb__after_atomic();\n\tWRITE_ONCE(*x, 1);"), 5,
                     r"smp_mb__after_atomic\(\) not right after an atomic read-modify-write")
        procs = "".join("P%d(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n" % i for i in range(5))
        self.refused("C t\n{}\n%sexists (x=1)\n" % procs, 19, r"more than 4 processes .*")

    def test_malformed(self):
        self.refused("C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1)\n}\nexists (x=1)\n", 6,
                     r"expected ';' after a statement, got '\}'", kind="error")
        self.refused("C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n", 7,
                     r"expected exists, ~exists or forall, got end of file", kind="error")
        self.refused("C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (0:r9=1)\n", 7,
                     r"0:r9: P0 has no register r9", kind="error")
        self.refused("X86 t\n{}\n", 1, r"a litmus test for X86, not the kernel's C")

    def test_runtime_refusals(self):
        self.refused(self.body("\tint *p = 0;\n\tint r;\n\n\tr = READ_ONCE(*p);"), 8,
                     r"READ_ONCE: 0 is no location's address", kind="error")
        self.refused(self.body("\tspin_lock(x);", header="P0(spinlock_t *x, int *y)")
                     .replace("exists (x=1)", "exists (y=0)"), 3,
                     r"an execution the reproducer ends with the verdict 'held-at-exit' .*")


class Interpreter(unittest.TestCase):
    """The interpreter's reader (common/litmus/ir.c) and its primitives."""

    def load(self, ir):
        with tempfile.NamedTemporaryFile("w", suffix=".ir", delete=False) as f:
            f.write(ir)
        try:
            p = subprocess.run([BIN, "list"], env=dict(os.environ, LITMUS_IR=f.name),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            return p.returncode, p.stderr.decode().replace(f.name, "IR")
        finally:
            os.unlink(f.name)

    HEAD = "litmus-ir 1\nname t\nvars 3\nvar 0 int n:0 x\nvar 1 atomic n:0 v\n" \
           "var 2 lock n:0 l\nprocs 1\nproc 0 1\n"

    def test_every_primitive_of_the_parser_is_the_interpreters(self):
        args = {"L": "(addr 0)", "P": "(addr 0)", "V": "(int 1)"}
        calls = ["(line 1 (eval (call %s %s)))" % (name, " ".join(args[k] for k in kinds))
                 for name, (kinds, _, _) in sorted(litmus_parse.PRIMITIVES.items())]
        rc, err = self.load(self.HEAD + "body (seq %s)\nend\n" % " ".join(calls))
        self.assertEqual((rc, err), (0, ""))

    def test_a_bad_program_is_one_line(self):
        cases = [("body (seq (line 1 (eval (call nosuch))))", "IR:9: (call nosuch ...): no such primitive"),
                 ("body (seq (line 1 (set 1 (int 0))))", "IR:9: (set 1): a register out of range"),
                 ("body (seq (line 1 (eval (call READ_ONCE))))",
                  "IR:9: (call ...): 0 argument(s), expected 1"),
                 ("body (seq (int 1))", "IR:9: (seq ...): argument 1 must be a statement"),
                 ("body (seq " + "(seq " * 70 + ")" * 71, "IR:9: nested deeper than 64"),
                 ("body (seq (line 1 (eval (call READ_ONCE (addr 9)))))",
                  "IR:9: (addr 9): a variable out of range"),
                 ("body (seq", "IR:9: an s-expression that never ends")]
        for body, want in cases:
            rc, err = self.load(self.HEAD + body + "\nend\n")
            self.assertEqual((rc, err), (2, "litmus: %s\n" % want), body)
        rc, err = self.load("litmus-ir 2\n")
        self.assertEqual((rc, err), (2, "litmus: IR:1: expected 'litmus-ir 1'\n"))


def main():
    global BIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args, rest = ap.parse_known_args()
    BIN = os.path.abspath(args.bin)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
