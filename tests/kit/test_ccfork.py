#!/usr/bin/env python3
"""test_ccfork.py - make check's fork server of clang (tools/ccfork/,
tools/kit/ccfork.py) compiles what clang itself would (make check).

    python3 tests/kit/test_ccfork.py       (BUILD: where make ccfork builds it)

  * the client sends its arguments, working directory, environment and
    umask, with its standard files, to the socket CCFORK_SOCKET names, and
    exits with the status the answer gives;
  * it runs the compiler itself for another compiler than CCFORK_CC, or
    where no server answers;
  * the server's compile runs in a fork of the server, and gives the
    object, the messages and the exit status that clang gives run
    directly, in the client's directory, environment and umask.
Standard library only.
"""
import os
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kit import ccfork  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
REQ = struct.Struct("=IIII")    # ccfork.h's struct ccfork_req


def ppid(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def stand_in(sock, status, say=b""):
    """A stand-in server on @sock: one request read (got["req"], its
    fields; got["fds"], how many files came with it; got["body"]), @say
    written to the standard error it sent, @status answered; (got, the
    thread serving)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock)
    s.listen(1)
    got = {}

    def serve():
        c, _ = s.accept()
        msg, anc, _, _ = c.recvmsg(REQ.size, socket.CMSG_SPACE(3 * 4))
        got["req"] = REQ.unpack(msg)
        got["fds"] = len(anc[0][2]) // 4 if anc else 0
        for _, _, data in anc:
            fds = struct.unpack("=%di" % (len(data) // 4), data)
            if say and len(fds) == 3:
                os.write(fds[2], say)
            for fd in fds:
                os.close(fd)
        body = b""
        while len(body) < got["req"][0]:
            body += c.recv(65536)
        got["body"] = body
        c.sendall(struct.pack("=i", status))
        c.close()
        s.close()
    t = threading.Thread(target=serve, daemon=True)   # a client that never came: fail, not hang
    t.start()
    return got, t


class Server(unittest.TestCase):
    """The real server, started as make check starts it."""

    @classmethod
    def setUpClass(cls):
        saved = {k: os.environ.get(k) for k in ("COMPILER_CACHE", "CCFORK_SOCKET",
                                                 "CCFORK_CC")}
        why = ccfork.start(BUILD, "clang")
        if why:
            raise unittest.SkipTest("no fork server: " + why)
        cls.client = os.environ["COMPILER_CACHE"]
        cls.env = dict(os.environ)
        for k, v in saved.items():      # only the runs below go through it
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        cls.server = ccfork.server_pid()

    @classmethod
    def tearDownClass(cls):
        ccfork.stop()

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = self.dir.name
        with open(os.path.join(self.tmp, "a.c"), "w") as f:
            f.write('#include "cpath.h"\nint twice(int x) { return CPATH_TWO * x; }\n')
        os.mkdir(os.path.join(self.tmp, "inc"))
        with open(os.path.join(self.tmp, "inc", "cpath.h"), "w") as f:
            f.write("#define CPATH_TWO 2\n")

    def tearDown(self):
        self.dir.cleanup()

    def compile(self, via, *args, umask=0o022):
        env = dict(self.env if via else os.environ, CPATH=os.path.join(self.tmp, "inc"))
        cmd = ([self.client] if via else []) + ["clang"] + list(args)
        old = os.umask(umask)
        try:
            return subprocess.run(cmd, cwd=self.tmp, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        finally:
            os.umask(old)

    def test_the_same_object(self):
        """Directory (a.c is relative), environment (CPATH finds the
        header) and flags: the object of clang run directly, byte for byte."""
        for via, out in ((True, "served.o"), (False, "direct.o")):
            r = self.compile(via, "-g", "-O2", "-c", "a.c", "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.tmp, "served.o"), "rb") as a, \
                open(os.path.join(self.tmp, "direct.o"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_umask(self):
        r = self.compile(True, "-c", "a.c", "-o", "private.o", umask=0o077)
        self.assertEqual(r.returncode, 0, r.stderr)
        mode = stat.S_IMODE(os.stat(os.path.join(self.tmp, "private.o")).st_mode)
        self.assertEqual(mode, 0o600)

    def test_a_failing_compile(self):
        with open(os.path.join(self.tmp, "bad.c"), "w") as f:
            f.write("int f(void) { return undeclared; }\n")
        served, direct = (self.compile(via, "-c", "bad.c") for via in (True, False))
        self.assertEqual((served.returncode, served.stderr), (direct.returncode, direct.stderr))
        self.assertEqual(served.returncode, 1)
        self.assertIn(b"bad.c:1:22: error: use of undeclared identifier", served.stderr)

    def test_compiled_by_a_fork_of_the_server(self):
        """A compile that waits for its source (a FIFO) is a grandchild of
        the server (the server forks a process per request, which forks
        the compile), not of the client."""
        fifo = os.path.join(self.tmp, "wait.c")
        os.mkfifo(fifo)
        env = dict(self.env)
        p = subprocess.Popen([self.client, "clang", "-c", "-x", "c", fifo, "-o", "w.o"],
                             cwd=self.tmp, env=env, stderr=subprocess.PIPE)
        compiler, deadline = None, time.time() + 30
        while compiler is None and time.time() < deadline:
            for pid in (int(d) for d in os.listdir("/proc") if d.isdigit()):
                try:        # the compile: in the client's directory, not the client
                    if pid != p.pid and os.path.samefile("/proc/%d/cwd" % pid, self.tmp):
                        compiler = pid
                except OSError:
                    pass
            time.sleep(0.01)
        grandparent = compiler and ppid(ppid(compiler))
        with open(fifo, "w") as f:
            f.write("int x;\n")
        self.assertEqual(p.wait(), 0)
        p.stderr.close()
        self.assertIsNotNone(compiler, "no compile ran in the client's directory")
        self.assertEqual(grandparent, self.server)


class Client(unittest.TestCase):
    """The client against a stand-in server: what it sends, what it does
    with the answer, and when it runs the compiler itself."""

    @classmethod
    def setUpClass(cls):
        r = subprocess.run(["make", "--no-print-directory", "BUILD=" + BUILD, "ccfork"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert r.returncode == 0, r.stdout.decode(errors="replace")
        cls.client = os.path.join(ROOT, BUILD, "ccfork", "ccfork")

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.sock = os.path.join(self.dir.name, "socket")

    def tearDown(self):
        self.dir.cleanup()

    def serve_once(self, status):
        """A stand-in server: one request read, @status answered."""
        return stand_in(self.sock, status)

    def run_client(self, cc, *args, **env):
        e = dict(os.environ, CCFORK_SOCKET=self.sock, CCFORK_CC="clang", **env)
        old = os.umask(0o027)
        try:
            return subprocess.run([self.client, cc] + list(args), cwd=self.dir.name, env=e,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        finally:
            os.umask(old)

    def test_request_and_answer(self):
        got, t = self.serve_once(42)
        r = self.run_client("clang", "-c", "a.c", MARK="ccfork")
        t.join()
        self.assertEqual(r.returncode, 42)
        length, argc, envc, umask = got["req"]
        strings = got["body"].split(b"\0")[:-1]
        self.assertEqual(len(strings), 1 + argc + envc)
        self.assertEqual(os.path.realpath(strings[0].decode()),
                         os.path.realpath(self.dir.name))
        self.assertEqual(strings[1:1 + argc], [b"clang", b"-c", b"a.c"])
        self.assertIn(b"MARK=ccfork", strings[1 + argc:])
        self.assertEqual((umask, got["fds"]), (0o027, 3))

    def test_another_compiler_runs_itself(self):
        got, t = self.serve_once(42)
        r = self.run_client("true")     # CCFORK_CC is clang: not sent
        self.assertEqual(r.returncode, 0)
        socket.socket(socket.AF_UNIX).connect(self.sock)   # let the stand-in end
        t.join()

    def test_no_server_runs_itself(self):
        r = self.run_client("false")
        self.assertEqual(r.returncode, 1)
        r = self.run_client("clang", "--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"clang version", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
