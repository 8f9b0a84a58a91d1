"""kit.jailcc - one jail and one loaded compiler for the compiles of a grade.

A grade compiles each file the student edits in each variant, and its
pre-build check preprocesses them in each: lab 1's grade runs clang 17
times, each in a jail of its own (kit.sandbox.compile).  A start of clang
costs some 70 ms of CPU before it reads a line (kit.ccfork), and a jail
some 30 more: most of what these compiles cost.

serving(lab) starts, for the length of a grade, the fork server of
tools/ccfork/ (clang with ccfork.so preloaded) inside one Jail: the walls
and limits kit.sandbox.compile() gives a compile, with a view made of what
every compile of this lab needs -- the lab's include folders, the
student's folder, the variants' object folders, and a scratch folder for
the pre-check's outputs.  Each compile is a fork of that clang, in that
jail, under the limits it inherits from the server's start: CPU seconds
(RLIMIT_CPU) and bytes per file (RLIMIT_FSIZE) per process, and memory per
process (RLIMIT_AS, as where no memory cgroup can be made; the jail's
memory cgroup bounds the server and its compiles together).  The wall
time is the client's: past it, it hangs up, and the server kills the
compile.  Every compile of one grade is one student's, so a jail shared
between them shows no compile anything another submission wrote.

sandbox.compile() hands a compile to the server only where the server
is that compiler and its view holds every file and folder the compile
names; anything else, or a server that does not answer, compiles in a
jail of its own, as before.  The makes the grade runs find the server in
KIT_JAILCC (mk/build.mk's JAIL_CC is `python3 -m kit.jailcc cc`).
"""
import contextlib
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from . import ROOT, ccfork, limits, proc, sandbox

ENV = "KIT_JAILCC"
VARIANTS = ("plain", "asan", "tsan", "race")
START_TIMEOUT = 30.0      # s; a loaded machine may take seconds
ENV_PROGRAM = shutil.which("env") or "/usr/bin/env"


def _real(path):
    return os.path.realpath(os.path.join(ROOT, path))


def _inside(path, folders):
    return any(sandbox._under(path, f) for f in folders)


class Client:
    """What a compile needs to know of a running server: @sock, the
    compiler it is (@compiler, a real path), the folders it sees (@see)
    and writes (@write), and @scratch, a folder it writes where temporary
    outputs go."""

    def __init__(self, sock, compiler, see, write, scratch):
        self.sock, self.compiler, self.scratch = sock, compiler, scratch
        self.see, self.write = list(see), list(write)

    def to_env(self):
        return json.dumps(dict(sock=self.sock, compiler=self.compiler, see=self.see,
                               write=self.write, scratch=self.scratch))

    @classmethod
    def from_env(cls, env=None):
        """The Client of KIT_JAILCC in @env (default: this process's), or None."""
        text = (os.environ if env is None else env).get(ENV)
        if not text:
            return None
        try:
            d = json.loads(text)
            return cls(d["sock"], d["compiler"], d["see"], d["write"], d["scratch"])
        except (ValueError, KeyError, TypeError):
            return None

    def covers(self, cmd):
        """Whether compiler command @cmd (run from the kit's root) is this
        server's compiler and names only what its view holds."""
        exe = shutil.which(cmd[0]) if cmd else None
        if not exe or os.path.realpath(exe) != self.compiler:
            return False
        see, write = sandbox._compiler_paths(cmd)
        named = [a for a in cmd[1:] if "/" in a and os.path.isfile(os.path.join(ROOT, a))]
        readable = self.see + self.write + [os.path.realpath(s) for s in sandbox.SYSTEM]
        return all(_inside(_real(p), readable) for p in see + named) and \
            all(_inside(_real(p), self.write) for p in write)

    def compile(self, cmd, env, timeout, cap):
        """Run @cmd in the server: a kit.proc.Result, or None if the server
        did not take it (then nothing ran)."""
        start = time.monotonic()
        try:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(self.sock)
        except OSError:
            return None
        rd, wr = os.pipe()
        try:
            with open(os.devnull, "rb") as null:
                strings = b"".join(s.encode() + b"\0" for s in
                                   [ROOT] + list(cmd) + ["%s=%s" % kv for kv in env.items()])
                head = struct.pack("=IIII", len(strings), len(cmd), len(env), _umask())
                socket.send_fds(conn, [head], [null.fileno(), wr, wr])
                conn.sendall(strings)
        except OSError:
            conn.close()
            os.close(rd)
            os.close(wr)
            return None
        os.close(wr)
        with conn:
            return _answer(conn, rd, start, timeout, cap)


def _umask():
    """This process's umask, read without changing it (os.umask would, for
    a moment, in every thread)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _answer(conn, rd, start, timeout, cap):
    """The Result of the compile the server runs for @conn, its messages
    read from @rd: its status, or the wall time over at @timeout."""
    out, status, watch = proc._Capture(cap), b"", [rd, conn]
    deadline, timed_out = start + timeout, False
    try:
        while watch:            # until the messages end and the status is in
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select(watch, [], [], left)
            if rd in ready:
                data = os.read(rd, 1 << 16)
                out.add(data)
                if not data:
                    watch.remove(rd)
            if conn in ready:
                more = conn.recv(4 - len(status))
                status += more
                if not more or len(status) == 4:
                    watch.remove(conn)
    finally:
        os.close(rd)
    if timed_out:
        return proc.Result(1, out.text(), True, out.dropped, time.monotonic() - start)
    if len(status) < 4:
        return None
    rc = struct.unpack("=i", status)[0]
    sig = rc - 128 if rc > 128 else 0
    limit = {signal.SIGXCPU: "CPU time"}.get(sig)
    return proc.Result(rc, out.text(), False, out.dropped, time.monotonic() - start,
                       signal=sig, limit=limit)


class Server:
    """The fork server of the compiles of @labs (one grade's lab), in one
    jail; start() it."""

    def __init__(self, labs, preload, compiler):
        self.labs, self.preload, self.compiler = labs, preload, compiler
        self.folder = tempfile.mkdtemp(prefix="jailcc.")
        self.client, self.popen = None, None
        self.jail = sandbox.Jail(mem=2 * limits.BUILD_MEM, procs=64, cpu=limits.BUILD_TIMEOUT,
                                 see=self._see(), write=self._write() + [self.folder],
                                 fsize=limits.BUILD_FILE_LIMIT, lockdown=False)
        self.jail.address_space = limits.BUILD_MEM      # each compile's, as it inherits it

    def _see(self):
        """The folders the labs' compile commands read (-I, the sources'),
        and the files their configurations' flags name (an -include)."""
        found = [os.path.dirname(self.preload)]
        for lab in self.labs:
            srcs = [os.path.join(lab.impl_dir, f) for f in lab.edit if f.endswith(".c")]
            for v in VARIANTS:
                cmd = lab.compile.get(v, "").split()
                found += sandbox._compiler_paths(cmd + ["-c"] + srcs)[0]
            found += [a for flags in lab.config.values() for a in flags.split()
                      if "/" in a and os.path.isfile(os.path.join(ROOT, a))]
        return sorted({p for p in found if os.path.exists(os.path.join(ROOT, p))})

    def _write(self):
        """The variants' object folders, one per configuration too
        (mk/build.mk's lab_code_objs, lab_config_objs), made now: a jail's
        view is fixed at its start."""
        found = []
        for lab, v in ((lab, v) for lab in self.labs for v in VARIANTS):
            for obj in ["obj"] + ["obj-" + c for c in lab.config]:
                d = os.path.join(lab.build, v, "lab%d" % lab.n, obj)
                os.makedirs(os.path.join(ROOT, d), exist_ok=True)
                found.append(d)
        return found

    def start(self):
        """None, or why the server did not start (the compiles then jail
        themselves, one by one)."""
        sock = os.path.join(self.folder, "socket")
        env = proc.clean_env(LC_ALL="C")
        launcher = self.jail.launcher()
        # the library for the compiler alone, not for the launcher and bwrap
        argv = (launcher or []) + self.jail.argv(
            [ENV_PROGRAM, "LD_PRELOAD=" + self.preload, "CCFORK_SERVE=" + sock,
             self.compiler], ROOT)
        try:
            self.popen = subprocess.Popen(
                argv, cwd=ROOT, env=self.jail.environ(env), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                preexec_fn=None if launcher is not None else self.jail.preexec())
        except OSError as e:
            return "cannot start it: %s" % e.strerror
        self.jail.started(self.popen.pid)
        deadline = time.monotonic() + START_TIMEOUT
        while not os.path.exists(sock):
            if self.popen.poll() is not None or time.monotonic() > deadline:
                return "it did not start (%s)" % ("exit %s" % self.popen.returncode
                                                   if self.popen.returncode is not None
                                                   else "no socket after %gs" % START_TIMEOUT)
            time.sleep(0.005)
        see = [_real(p) for p in self.jail.see]
        self.client = Client(sock, self.compiler, see, [_real(p) for p in self.jail.write],
                             self.folder)
        return None

    def stop(self):
        """End the server and every compile it runs, and wait (at most
        kit.proc.DRAIN s) until none of them is left, its namespace's
        init included (it ends as our child: sandbox.reap_namespace_inits);
        remove its folder."""
        pids = set(self.jail.members())         # its cgroup's, and the tree below
        if self.popen:                          # (one not in the cgroup yet)
            pids |= set(sandbox._below([self.popen.pid], sandbox._children()))
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.jail.finish()
        if self.popen:
            self.popen.wait()
        deadline = time.monotonic() + proc.DRAIN
        while any(os.path.exists("/proc/%d" % p) for p in pids) and \
                time.monotonic() < deadline:
            sandbox.reap_namespace_inits()
            time.sleep(0.005)
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def serving(lab):
    """For the length of the block, @lab's compiles (kit.sandbox.compile in
    this thread, the makes lab.make() runs) go to a server in one jail,
    where one can start: @lab's compiler is clang and the library is
    built.  KIT_JAILCC=none: never."""
    with serving_labs([lab]) as client:
        if not client:
            yield None
            return
        before = sandbox.serve_compiles(client)
        lab.make_env = env_of(client)
        try:
            yield client
        finally:
            lab.make_env = {}
            sandbox.serve_compiles(before)


@contextlib.contextmanager
def serving_labs(labs):
    """The Client of one server for the compiles of @labs (one tree's), for
    the length of the block, or None where none can start; a make finds
    it in env_of(client).  For a student's tree, one lab: serving()."""
    cc = ((labs[0].compile.get("plain") or "").split() or [None])[0] if labs else None
    compiler = ccfork.clang(cc)
    lib = ccfork.library(labs[0].build_root) if labs else None
    # no library where make ccfork has not run (mk/build.mk builds it
    # before a student's files): the compiles then jail themselves
    if os.environ.get(ENV) == "none" or not compiler or not os.path.isfile(lib):
        yield None
        return
    server = Server(labs, lib, compiler)
    try:
        yield None if server.start() else server.client
    finally:
        server.stop()


def env_of(client):
    """What a make's environment needs to send its compiles to @client's
    server ({} for None)."""
    return {ENV: client.to_env()} if client else {}


def main(argv):
    """python3 -m kit.jailcc cc ...: kit.sandbox's cc, its compiles going to
    the server KIT_JAILCC names, if any."""
    sandbox.serve_compiles(Client.from_env())
    return sandbox.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
