#!/usr/bin/env python3
"""test_schedfile.py - schedule files that no input can break.

  test_schedfile.py --lab1-bin BIN [--cases N] [--seed S]

BIN is lab 1's race binary (built against the solutions).  A schedule file
is data anyone may have edited; every malformed one must give one line --
the file, the line number, what was expected, the offending text escaped
-- and exit status 2, from the race binary (`race check`, the parser) and
from the front end (tools/race.py, make replay); nothing may crash, hang or
print a traceback, and a file may never choose the program that runs.

  Handmade   about fifty bad files, one per defect class, each with the
             line it must name and the text it must say
  Front      the front end and make replay on the worst of them: one line,
             exit 2, no traceback, no hang on a FIFO, /bin/echo not run
  Fuzz       N mutations (default 3000, seed 13: deterministic) of valid
             schedules: every one through the binary's parser (one process,
             `race check FILE...`), every one through the front end's own
             reading (kit.race.inspect, in this process), a sample of the
             accepted ones replayed, a few end to end through tools/race.py
  Linear     a 160,000-line schedule is parsed within a CPU limit that a
             quadratic parser misses by far (the old one took 56 s for
             40,000); the parse times (CPU) of 10,000 and 40,000 lines are
             printed, not asserted

Standard library only.
"""
import argparse
import importlib.util
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kit import layout, race, schedfile  # noqa: E402

LAB1 = None
CASES, SEED = 3000, 13
UNLOCKED = "lookup_unlocked_vs_remove"
HEAD = b"race-schedule 1\nscenario %s\n" % UNLOCKED.encode()
PRINTABLE = re.compile(r"^[ -~]*$")


def run(cmd, timeout=60, cpu=None, stdin=subprocess.DEVNULL):
    """(exit status, stdout and stderr as text) of @cmd, in the kit's root;
    @cpu: its CPU seconds (the only run that forks this process to set
    them: without a preexec_fn, subprocess starts it with vfork)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=stdin, timeout=timeout, cwd=ROOT,
                       preexec_fn=limit if cpu else None)
    return p.returncode, p.stdout.decode("ascii", "backslashreplace")


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Tmp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, data):
        p = os.path.join(self.dir.name, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def check_lines(self, paths):
        """`race check` of @paths, one process: (status, [line per path])."""
        rc, out = run([LAB1, "check"] + paths, timeout=120)
        lines = out.splitlines()
        self.assertEqual(len(lines), len(paths),
                         "one line per file expected (status %d):\n%s" % (rc, out[-3000:]))
        return rc, lines


# name, content, line it must name (0: none), text it must hold
BAD = [
    ("utf8-run", HEAD + b"run T1 T2\xe9\n", 3, "got byte \\xe9 at column 10 in 'run T1 T2\\xe9'"),
    ("latin1-key", HEAD + b"r\xe9sultat none\n", 3, "got byte \\xe9 at column 2"),
    ("nul", HEAD + b"run T1\x00 T2\n", 3, "got byte \\x00 at column 7"),
    ("escape-seq", HEAD + b"\x1b[2Jrun T1\n", 3, "got byte \\x1b at column 1 in '\\x1b[2Jrun T1'"),
    ("cr-inside", HEAD + b"run T1\rT2\n", 3, "got byte \\x0d"),
    ("long-word", HEAD + b"run T1@" + b"a" * 5000 + b".b\n", 3,
     "expected a thread step like T1, T1@kref_get.read or T1+ (a label is function.op, "
     "at most 63 bytes), got 'T1@aaaa"),
    ("long-word-len", HEAD + b"run T1@" + b"a" * 5000 + b".b\n", 3, "...' (5005 bytes)"),
    ("label-64", HEAD + b"run T1@" + b"a" * 62 + b".b\n", 3, "a label is function.op"),
    ("T3-of-2", HEAD + b"run T1 T3\n", 3,
     "expected a thread of this scenario (T1..T2, RCU for the callbacks, or IRQ1..IRQ2 "
     "for their interrupts), got T3"),
    ("T0", HEAD + b"run T0\n", 3, "got 'T0'"),
    ("T-huge", HEAD + b"run T99999999999999999999\n", 3, "got 'T99999999999999999999'"),
    ("T-sign", HEAD + b"run T-1\n", 3, "got 'T-1'"),
    ("rcu-lower", HEAD + b"run rcu\n", 3, "got 'rcu'"),
    ("run-empty", HEAD + b"run\n", 3, "expected 'run' and thread steps"),
    ("at-empty", HEAD + b"run T1@\n", 3, "got 'T1@'"),
    ("at-nodot", HEAD + b"run T1@kref_get\n", 3, "got 'T1@kref_get'"),
    ("at-lead-dot", HEAD + b"run T1@.read\n", 3, "got 'T1@.read'"),
    ("at-trail-dot", HEAD + b"run T1@kref_get.\n", 3, "got 'T1@kref_get.'"),
    ("at-no-thread", HEAD + b"run @kref_get.read\n", 3, "got '@kref_get.read'"),
    ("at-twice", HEAD + b"run T1@a.b@c.d\n", 3, "got 'T1@a.b@c.d'"),
    ("plus-plus", HEAD + b"run T1++\n", 3, "got 'T1++'"),
    ("plus-alone", HEAD + b"run +\n", 3, "got '+'"),
    ("step-from-2", HEAD + b"step 2 T1 cache_lookup_unlocked.spin_lock @1 -\n", 3,
     "expected step 1 (steps are numbered from 1, one by one), got step '2'"),
    ("step-gap", HEAD + b"step 1 T1 a.b\nstep 3 T1 a.b\n", 4, "expected step 2"),
    ("step-huge", HEAD + b"step 99999999999999999999 T1 a.b\n", 3, "got step '9999"),
    ("step-word", HEAD + b"step one T1 a.b\n", 3, "got step 'one'"),
    ("step-short", HEAD + b"step 1 T1\n", 3,
     "expected 'step <number> <thread> <function.op> [<object> <value>]', got 'step 1 T1'"),
    ("step-4", HEAD + b"step 1 T1 a.b obj#1\n", 3, "got 'step 1 T1 a.b obj#1'"),
    ("step-6", HEAD + b"step 1 T1 a.b obj#1 1 extra\n", 3, "got 'step 1 T1 a.b obj#1 1 extra'"),
    ("step-thread", HEAD + b"step 1 X1 a.b\n", 3, "expected a thread (T1, T2, ..., RCU, IRQ1, ...), got 'X1'"),
    ("step-T9", HEAD + b"step 1 T9 a.b\n", 3, "expected a thread of this scenario"),
    ("step-label", HEAD + b"step 1 T1 nodot\n", 3, "expected a label function.op"),
    ("step-object", HEAD + b"step 1 T1 a.b " + b"o" * 64 + b" 1\n", 3,
     "expected an object and a value of at most 63 bytes each"),
    ("scenario-twice", HEAD + b"scenario %s\n" % UNLOCKED.encode(), 3,
     "expected one 'scenario' line, got a second (the first is line 2)"),
    ("scenario-words", b"scenario a b\n", 1, "expected 'scenario NAME' (one word of at most 127 bytes)"),
    ("scenario-long", b"scenario " + b"s" * 200 + b"\n", 1, "(209 bytes)"),
    ("scenario-unknown", b"scenario nope\nrun T1\n", 1,
     "expected a scenario of this binary (lookup_unlocked_vs_remove"),
    ("no-scenario", b"run T1 T2\n", 0, "expected a 'scenario NAME' line (or --scenario NAME), got none"),
    ("empty", b"", 0, "expected a 'scenario NAME' line"),
    ("comments-only", b"# nothing\n\n   # here\n", 0, "expected a 'scenario NAME' line"),
    ("version", b"race-schedule 2\n", 1, "expected 'race-schedule 1' (the only version), got 'race-schedule 2'"),
    ("version-none", b"race-schedule\n", 1, "expected 'race-schedule 1'"),
    ("lab-word", HEAD + b"lab one\n", 3, "expected 'lab N' (the number of a lab), got 'lab one'"),
    ("lab-zero", HEAD + b"lab 0\n", 3, "expected 'lab N'"),
    ("result-words", HEAD + b"result use after free\n", 3, "expected 'result KIND'"),
    ("build-twice", HEAD + b"build 1\nbuild 2\n", 4, "expected one 'build' line, got a second (the first is line 3)"),
    ("unknown-kind", HEAD + b"stepp 1 T1\n", 3,
     "expected a line 'race-schedule', 'scenario', 'lab', 'binary', 'build', 'strategy', "
     "'seed', 'bounds', 'step', 'run', 'result', 'memory' or 'sees' (or a # comment), got 'stepp'"),
    ("quote-backslash", HEAD + b"run T1 it's\\\n", 3, "got 'it\\'s\\\\'"),
    ("too-many-tokens", HEAD + b"run " + b"T1 " * 1000001 + b"\n", 3,
     "expected at most 1000000 steps and run tokens in all"),
    ("too-big", HEAD + b"#" + b"x" * (16 << 20) + b"\n", 0,
     "expected a schedule file of at most 16 MiB, got a bigger file"),
]

GOOD = [
    ("latin1-comment", HEAD + b"# caf\xe9 \xff\xfe\x00 comment\nrun T1 T2+\n"),
    ("long-comment", HEAD + b"#" + b"x" * 100000 + b"\nrun T1\n"),
    ("long-run-line", HEAD + b"run" + b" T1" * 3000 + b"\n"),
    ("crlf", HEAD.replace(b"\n", b"\r\n") + b"run T1@kref_get.read T2+ T1\r\n"),
    ("tabs", HEAD + b"\trun\tT1@kref_get.read\t\tT2+ T1 \t\n"),
    ("no-final-newline", HEAD + b"run T1"),
    ("rcu", HEAD + b"run T1 RCU+ T2+\n"),
    ("label-63", HEAD + b"run T1@" + b"a" * 61 + b".b\n"),
    ("binary-echo", HEAD + b"binary /bin/echo\n"),
]


class Handmade(Tmp):
    def test_every_bad_file_is_one_line_naming_its_line(self):
        paths = [self.write(name + ".sched", data) for name, data, _, _ in BAD]
        rc, lines = self.check_lines(paths)
        self.assertEqual(rc, 2)
        for (name, _, line, text), path, out in zip(BAD, paths, lines):
            where = "race: %s:%d: " % (path, line) if line else "race: %s: " % path
            self.assertTrue(out.startswith(where), "%s: %s" % (name, out))
            self.assertIn(text, out, name)
            self.assertIn("expected", out, name)
            self.assertRegex(out, PRINTABLE, name)

    def test_good_files_are_read(self):
        paths = [self.write(name + ".sched", data) for name, data in GOOD]
        rc, lines = self.check_lines(paths)
        self.assertEqual(rc, 0, "\n".join(lines))
        for path, out in zip(paths, lines):
            self.assertTrue(out.startswith(path + ": ok: scenario " + UNLOCKED), out)

    def test_not_a_regular_file(self):
        fifo = os.path.join(self.dir.name, "fifo.sched")
        os.mkfifo(fifo)
        for path, text in ((fifo, "got a FIFO"), (self.dir.name, "got a directory"),
                           ("/dev/null", "got a device"),
                           (os.path.join(self.dir.name, "none"), "cannot open it: No such file")):
            rc, out = run([LAB1, "check", path], timeout=20)
            self.assertEqual((rc, out.count("\n")), (2, 1), out)
            self.assertIn("race: %s: " % path, out)
            self.assertIn(text, out)

    def test_names_escaped(self):
        p = self.write("new\nline\x1b.sched", b"lab 1\n")
        rc, out = run([LAB1, "check", p])
        self.assertEqual((rc, out.count("\n")), (2, 1), out)
        self.assertIn("new\\nline\\x1b.sched: expected a 'scenario NAME' line", out)

    def test_replay_and_run_read_the_same_way(self):
        p = self.write("t3.sched", HEAD + b"run T1 T3\n")
        for cmd in ([LAB1, "replay", p], [LAB1, "run", UNLOCKED, "--sched", p]):
            rc, out = run(cmd)
            self.assertEqual((rc, out.count("\n")), (2, 1), out)
            self.assertIn(":3: expected a thread of this scenario", out)
        rc, out = run([LAB1, "run", UNLOCKED, "--script", "T1 T3"])
        self.assertEqual((rc, out.strip()), (2, "race: --script: expected a thread of this "
                                             "scenario (T1..T2, RCU for the callbacks, or "
                                             "IRQ1..IRQ2 for their interrupts), got T3"))

    def test_written_file_is_printable(self):
        """A binary path with a newline cannot add a line to a schedule."""
        out = os.path.join(self.dir.name, "rec.sched")
        rc, text = run([LAB1, "run", UNLOCKED, "--out", out, "--lab", "1",
                        "--binary", "x\nrun T3"])
        self.assertEqual(rc, 0, text)
        data = read(out)
        self.assertIn(b"\nbinary x\\nrun T3\n", data)
        rc, text = run([LAB1, "check", out])
        self.assertEqual(rc, 0, text)


def race_py(*args, timeout=120, stdin=subprocess.DEVNULL):
    return run([sys.executable, os.path.join(ROOT, "tools", "race.py")] + list(args),
               timeout=timeout, stdin=stdin)


class Front(Tmp):
    """The front end and make: one line, exit 2, whatever the file."""

    def one_line(self, rc, out, want):
        self.assertNotIn("Traceback", out)
        self.assertEqual((rc, len(out.splitlines())), (2, 1), out)
        self.assertIn(want, out)
        self.assertRegex(out.strip(), PRINTABLE)

    def test_race_py(self):
        fifo = os.path.join(self.dir.name, "fifo.sched")
        os.mkfifo(fifo)
        cases = [(self.write("u.sched", HEAD + b"# \xe9\nrun T1 T2\xe9\n"), "1", ":4: expected printable"),
                 (self.write("t.sched", HEAD + b"run T3\n"), "1", ":3: expected a thread of this"),
                 (self.write("n.sched", HEAD + b"run T1\n"), "", "cannot tell which lab it is for"),
                 (self.write("l.sched", HEAD + b"lab \xe9\n"), "", ":3: expected printable ASCII"),
                 (self.write("9.sched", HEAD + b"lab 9\n"), "", ":3: expected the number of a lab"),
                 (fifo, "1", "got a FIFO"), (self.dir.name, "1", "got a directory")]
        for path, lab, want in cases:
            rc, out = race_py("replay", "--sched", path, "--lab", lab, "--impl", "solutions",
                              timeout=60)
            self.one_line(rc, out, want)

    def test_make_replay_is_one_line(self):
        fifo = os.path.join(self.dir.name, "fifo.sched")
        os.mkfifo(fifo)
        long_line = self.write("long.sched", HEAD + b"#" + b"c" * 3000 + b"\nrun T1 T3\n")
        for path, want in ((long_line, "long.sched:4: expected a thread of this scenario"),
                           (fifo, "got a FIFO"),
                           (self.write("u.sched", b"lab 1\n\xe9\n"), ":2: expected printable")):
            rc, out = run(["make", "--no-print-directory", "replay", "SCHED=" + path,
                           "IMPL=solutions", "LAB=1"], timeout=120)
            self.one_line(rc, out, want)
            self.assertIn("*** race: ", out)

    def test_the_file_never_chooses_the_program(self):
        p = self.write("echo.sched", HEAD + b"lab 1\nbinary /bin/echo\n"
                       b"run T1@kref_get.read T2+ T1\nresult use-after-free\n")
        rc, out = race_py("replay", "--sched", p, "--impl", "solutions")
        self.assertEqual(rc, 0, out)
        self.assertIn("REPLAY %s expect=use-after-free got=use-after-free ok=yes" % UNLOCKED, out)
        self.assertIn("a schedule file never chooses what runs", out)


# --- the fuzz -------------------------------------------------------------------------

WORDS = [b"T0", b"T1", b"T2", b"T3", b"T99", b"T100", b"RCU", b"rcu", b"T1+", b"T2+",
         b"T1@", b"@", b"+", b"T1@kref_get.read", b"T2@cache_obj_release.kfree", b"step",
         b"run", b"lab", b"result", b"scenario", b"race-schedule", b"binary", b"build",
         b"#", b"\n", b"\r\n", b"\r", b"\t", b" ", b"\x00", b"\xe9", b"\xff\xfe", b"\x1b[2J",
         b"-1", b"0", b"1", b"99999999999999999999", b"obj#1", b"@1", b"-", b"a" * 300,
         b"x." * 40, b"lab 1\n", b"lab 9\n", b"run T1\n" * 3, b"step 1 T1 a.b c d\n",
         b"scenario lookup_vs_remove\n", b"result none\n", b"'", b"\\", b"%s%n"]


def flip(rnd, d, corpus):
    if d:
        d[rnd.randrange(len(d))] = rnd.randrange(256)
    return d


def insert(rnd, d, corpus):
    i = rnd.randrange(len(d) + 1)
    return d[:i] + rnd.choice(WORDS) + d[i:]


def delete(rnd, d, corpus):
    i = rnd.randrange(len(d) + 1)
    return d[:i] + d[i + rnd.randrange(1, 40):]


def shuffle_lines(rnd, d, corpus):
    lines = d.split(b"\n")
    i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
    op = rnd.randrange(3)
    if op == 0:
        lines.insert(j, lines[i])
    elif op == 1:
        del lines[i]
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return bytearray(b"\n".join(lines))


def replace_word(rnd, d, corpus):
    words = re.split(rb"([ \t\n])", bytes(d))
    if words:
        words[rnd.randrange(len(words))] = rnd.choice(WORDS)
    return bytearray(b"".join(words))


def splice(rnd, d, corpus):
    other = rnd.choice(corpus)
    return d[:rnd.randrange(len(d) + 1)] + other[rnd.randrange(len(other) + 1):]


def truncate(rnd, d, corpus):
    return d[:rnd.randrange(len(d) + 1)]


MUTATORS = (flip, insert, delete, shuffle_lines, replace_word, replace_word, splice, truncate)


def mutations(corpus, n, seed):
    rnd = random.Random(seed)
    for _ in range(n):
        d = bytearray(rnd.choice(corpus))
        for _ in range(rnd.randint(1, 4)):
            d = rnd.choice(MUTATORS)(rnd, d, corpus)
        yield bytes(d)


def front_end():
    """tools/race.py, imported: its recorded_by() reads a file too."""
    spec = importlib.util.spec_from_file_location("race_front", os.path.join(ROOT, "tools", "race.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Fuzz(Tmp):
    def corpus(self):
        rec = os.path.join(self.dir.name, "recorded")
        rc, out = run([LAB1, "run", UNLOCKED, "--out", rec, "--lab", "1"])
        self.assertEqual(rc, 0, out)
        exercise = read(os.path.join(ROOT, "solutions", "lab1-kref", "race.sched"))
        return [read(rec), exercise, HEAD + b"lab 1\nrun T1 RCU+ T2+ T1\n",
                HEAD.replace(b"\n", b"\r\n") + b"# caf\xe9\r\nrun T1@kref_get.read\tT2+\r\n"]

    def test_fuzz(self):
        start = time.monotonic()
        paths = []
        for i, data in enumerate(mutations(self.corpus(), CASES, SEED)):
            paths.append(self.write("case%05d.sched" % i, data))
        t0 = time.monotonic()
        rc, lines = self.check_lines(paths)
        c_seconds = time.monotonic() - t0
        self.assertIn(rc, (0, 2))
        ok = []
        for path, out in zip(paths, lines):
            self.assertRegex(out, PRINTABLE, path)
            if out.startswith(path + ": ok: "):
                ok.append(path)
                continue
            m = re.match(r"race: %s(?::(\d+))?: (expected|cannot) " % re.escape(path), out)
            self.assertTrue(m, out)
            if m.group(1):
                nlines = read(path).count(b"\n") + 1
                self.assertTrue(1 <= int(m.group(1)) <= nlines, out)
        # the front end's own reading, in this process: a result or one line
        labs = layout.labs(impl="solutions")
        front, t0 = front_end(), time.monotonic()
        for path in paths:
            for lab in ("", "1"):
                try:
                    race.inspect(path, lab, labs)
                except schedfile.SchedError as e:
                    self.assertRegex(str(e), PRINTABLE)
                    self.assertNotIn("\n", str(e))
            front.recorded_by(path, LAB1)
        py_seconds = time.monotonic() - t0
        # a sample of the accepted ones replayed: a REPLAY line, never a crash
        rnd = random.Random(SEED)
        for path in rnd.sample(ok, min(40, len(ok))):
            rc, out = run([LAB1, "replay", path, "--quiet"], timeout=60)
            self.assertIn(rc, (0, 1), out)
            self.assertIn("REPLAY %s" % UNLOCKED, out.splitlines()[-1])
        # end to end through tools/race.py check, a few
        for path in rnd.sample(paths, 4):
            rc, out = race_py("check", "--sched", path, "--lab", "1", "--impl", "solutions")
            self.assertNotIn("Traceback", out)
            self.assertIn((rc, len(out.splitlines())), ((0, 0), (2, 1)), out)
        print("\nfuzz: %d mutated schedules (seed %d), %d accepted; binary: %.0f cases/s, "
              "front end: %.0f cases/s; %.1f s in all"
              % (CASES, SEED, len(ok), CASES / c_seconds, 2 * CASES / py_seconds,
                 time.monotonic() - start), file=sys.stderr)


class Linear(Tmp):
    def lines(self, name, n, line):
        return self.write(name, HEAD + b"".join(line(i) for i in range(n)))

    def test_160000_lines_within_a_cpu_limit(self):
        p = self.lines("big.sched", 160000, lambda i: b"run T1\n")
        rc, out = run([LAB1, "check", p], cpu=10, timeout=120)
        self.assertEqual(rc, 0, out)
        self.assertIn("160000 step(s) and run token(s)", out)

    def test_figures(self):
        """Not asserted: the parse times, printed (CPU time of `race check`,
        median of 5, that of a file of 2 lines taken off: a loaded machine
        stretches wall time, not this)."""
        def parse_ms(path):
            times = []
            for _ in range(5):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                run([LAB1, "check", path])
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            return sorted(times)[2] * 1000
        base = parse_ms(self.write("empty.sched", HEAD))
        figures = []
        for n in (10000, 40000):
            runs = parse_ms(self.lines("run%d.sched" % n, n, lambda i: b"run T1\n"))
            steps = parse_ms(self.lines("step%d.sched" % n, n, lambda i: b"step %d T1 "
                                        b"kref_get.read obj#1 1\n" % (i + 1)))
            figures.append("%d run lines %.0f ms, %d step lines %.0f ms"
                           % (n, runs - base, n, steps - base))
        print("\nparse (CPU of race check, %.0f ms of start-up taken off): %s"
              % (base, "; ".join(figures)), file=sys.stderr)


def main():
    global LAB1, CASES, SEED
    ap = argparse.ArgumentParser()
    ap.add_argument("--lab1-bin", required=True)
    ap.add_argument("--cases", type=int, default=CASES)
    ap.add_argument("--seed", type=int, default=SEED)
    args, rest = ap.parse_known_args()
    LAB1, CASES, SEED = os.path.abspath(args.lab1_bin), args.cases, args.seed
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
