#!/usr/bin/env python3
"""test_jailcc.py - a grade's compiles go to one fork server of clang in
one jail (tools/kit/jailcc.py), and what they give is what a jail of their
own gives (make check).

    python3 tests/kit/test_jailcc.py       (BUILD: where make ccfork builds it)

  * the object of a served compile is the object of a jailed one, byte
    for byte, and a failing compile's messages and status are the same;
  * the server's walls: a file outside its view is not there
    (where bwrap stands);
  * its limits: a compile over the CPU time or past the wall time is
    stopped and said to be, one over the file size too, and the server
    serves the next one;
  * a compile that names something outside the view is jailed on its own,
    as before;
  * mk/build.mk's JAIL_CC (python3 -m kit.jailcc cc) sends its compiles to
    the server KIT_JAILCC names;
  * when the grade ends, nothing of the server is left.
Standard library only.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kit import fixtures, jailcc, layout, limits, proc, sandbox  # noqa: E402
from test_ccfork import stand_in  # noqa: E402

BUILD = os.environ.get("BUILD", "build")


def setUpModule():
    r = proc.make(["ccfork"], build=BUILD)
    assert r.ok, r.out
    global LAB
    LAB = layout.lab(1, impl="solutions", build=BUILD)


class Served(unittest.TestCase):
    """A compile through the server against the same in a jail of its own."""

    def setUp(self):
        self.src = [os.path.join(LAB.impl_dir, f) for f in LAB.edit if f.endswith(".c")][0]
        self.obj = os.path.join(LAB.build, "plain", "lab1", "obj")
        self.flags = LAB.compile["plain"].split()
        self.outs = []

    def tearDown(self):
        for o in self.outs:
            for f in (o, o[:-2] + ".d"):
                if os.path.exists(os.path.join(ROOT, f)):
                    os.remove(os.path.join(ROOT, f))

    def out(self, name):
        path = os.path.join(self.obj, "jailcc-test-%s.o" % name)
        self.outs.append(path)
        return path

    def both(self, cmd_of):
        """(served, jailed) kit.sandbox.Compiled of the command cmd_of(tag)."""
        with jailcc.serving(LAB) as client:
            self.assertIsNotNone(client, "no server started")
            self.assertTrue(client.covers(cmd_of("served")))
            served = sandbox.compile(cmd_of("served"))
        jailed = sandbox.compile(cmd_of("jailed"))
        self.assertEqual((served.served, jailed.served), (True, False))
        return served, jailed

    def test_the_same_object(self):
        served, jailed = self.both(lambda t: self.flags + ["-c", self.src, "-o", self.out(t)])
        self.assertTrue(served.ok and jailed.ok, served.out + jailed.out)
        with open(os.path.join(ROOT, self.outs[0]), "rb") as a, \
                open(os.path.join(ROOT, self.outs[1]), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_a_failing_compile(self):
        served, jailed = self.both(lambda t: self.flags + ["-include", self.src, "-c",
                                                           self.src, "-o", self.out(t)])
        self.assertFalse(served.ok)
        self.assertEqual((served.rc, served.out), (jailed.rc, jailed.out))
        self.assertIn("redefinition", served.out)

    def test_outside_the_view_is_jailed_alone(self):
        with tempfile.TemporaryDirectory() as tmp, jailcc.serving(LAB) as client:
            cmd = self.flags + ["-I" + tmp, "-c", self.src, "-o", self.out("alone")]
            self.assertFalse(client.covers(cmd))
            c = sandbox.compile(cmd)
        self.assertTrue(c.ok, c.out)
        self.assertFalse(c.served)

    def test_another_compiler_is_not_served(self):
        with jailcc.serving(LAB) as client:
            self.assertFalse(client.covers(["gcc"] + self.flags[1:] + ["-c", self.src]))


class Walls(unittest.TestCase):
    """What a served compile sees, and how it is limited."""

    def scratch_source(self, client, text):
        path = os.path.join(client.scratch, "t.c")
        with open(path, "w") as f:
            f.write(text)
        return path

    @unittest.skipUnless(sandbox.mode()[0] == "bwrap", "no walls here: " + sandbox.mode()[1])
    def test_the_kit_is_not_there(self):
        secret = os.path.join(ROOT, "tests", "kit", "test_jailcc.py")
        with jailcc.serving(LAB) as client:
            src = self.scratch_source(client, '#include "%s"\n' % secret)
            c = sandbox.compile(["clang", "-fsyntax-only", src])
        self.assertTrue(c.served)
        self.assertFalse(c.ok)
        self.assertIn("file not found", c.out)

    def test_limits(self):
        saved = limits.BUILD_TIMEOUT, limits.BUILD_FILE_LIMIT
        limits.BUILD_TIMEOUT, limits.BUILD_FILE_LIMIT = 2, 64 << 10
        try:
            with jailcc.serving(LAB) as client:
                bomb = self.scratch_source(client, "".join(
                    ["#define A0 x\n"] + ["#define A%d A%d A%d\n" % (i, i - 1, i - 1)
                                          for i in range(1, 40)] + ["int A39;\n"]))
                slow = sandbox.compile(["clang", "-fsyntax-only", bomb])
                big = os.path.join(client.scratch, "big.c")
                with open(big, "w") as f:
                    f.write("char big[1 << 20] = { 1 };\n")
                large = sandbox.compile(["clang", "-c", big, "-o", big[:-2] + ".o"])
                small = os.path.join(client.scratch, "small.c")
                with open(small, "w") as f:
                    f.write("int small;\n")
                after = sandbox.compile(["clang", "-c", small, "-o", small[:-2] + ".o"])
        finally:
            limits.BUILD_TIMEOUT, limits.BUILD_FILE_LIMIT = saved
        self.assertEqual([c.served for c in (slow, large, after)], [True] * 3)
        self.assertIn(slow.limit, ("CPU time", "wall time"), slow.out)
        self.assertIn("over the build's", slow.out)
        self.assertEqual(large.limit, "output", large.out)
        self.assertTrue(after.ok, after.out)

    def test_nothing_left(self):
        with jailcc.serving(LAB) as client:
            sock, folder = client.sock, client.scratch
            jail_pids = fixtures.processes_of(folder)
            self.assertTrue(jail_pids, "no process of the server found")
        self.assertFalse(os.path.exists(folder))
        self.assertFalse([(p, _state(p)) for p in jail_pids if os.path.exists("/proc/%d" % p)])
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            self.assertRaises(OSError, s.connect, sock)


def _state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read()[:80]
    except OSError:
        return "gone"


class JailCc(unittest.TestCase):
    """mk/build.mk's JAIL_CC, against a stand-in server."""

    def test_sends_to_the_server(self):
        with tempfile.TemporaryDirectory() as tmp:
            sock = os.path.join(tmp, "socket")
            got, t = stand_in(sock, 0, say=b"served\n")
            clang = os.path.realpath(subprocess.check_output(["which", "clang"]).decode().strip())
            src = [os.path.join(LAB.impl_dir, f) for f in LAB.edit if f.endswith(".c")][0]
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools"),
                       KIT_JAILCC=json.dumps(dict(sock=sock, compiler=clang, see=[ROOT],
                                                  write=[os.path.realpath(tmp)], scratch=tmp)))
            r = subprocess.run([sys.executable, "-S", "-m", "kit.jailcc", "cc", "--to", tmp,
                                "--", "clang", "-O2", "-c", src], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
            t.join(10)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn(b"served", r.stdout)
        argc = got["req"][1]
        self.assertEqual(got["body"].split(b"\0")[1:1 + argc],
                         [b"clang", b"-O2", b"-c", src.encode(), b"-o",
                          os.path.join(tmp, os.path.basename(src)[:-2] + ".o").encode()])


if __name__ == "__main__":
    unittest.main()
