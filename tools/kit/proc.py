"""kit.proc - run a child process so that nothing it does can hang a tool.

run() starts the command in a process group of its own, with CPU-time and
core-dump limits, reads its output (stdout and stderr together) with a
wall-clock deadline, keeps at most OUTPUT_CAP bytes of it (the first and the
last halves), and kills the whole group when the deadline passes and again
when the command ends, and returns once none of the group's processes is
alive (a killed one may take a while to exit on a loaded machine), so
that no process it started is left running.  It
never waits on a pipe that an escaped grandchild holds open for longer than
DRAIN seconds.  With a jail (kit.sandbox.Jail) the command runs inside its
walls, under its limits, and every process of it is killed at the end.
"""
import fcntl
import os
import resource
import selectors
import signal
import subprocess
import time

from . import ROOT, limits

DRAIN = 2.0             # s to read what is left after the command ended
PIPE_SIZE = 1 << 20     # bytes of a command's output pipe, and of one read
FLOOD = 64 << 10        # past this much output, small reads wait for more
MAKE_VARS = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")


class Result:
    """What a command did.

    rc         its exit status (negative: the signal that killed it), or
               None if it could not be started
    out        its output, stdout and stderr interleaved, as text
    timed_out  the deadline passed and the group was killed
    truncated  bytes left out of @out (its middle)
    seconds    wall time
    error      why it could not be started, or None
    signal     the signal that ended it (0: it exited)
    limit      the limit that ended it: None, "wall time", "CPU time" or
               "memory"
    peak_mib   the most resident memory seen (jailed runs), MiB
    refused    forks the jail's process limit refused
    """

    def __init__(self, rc, out, timed_out=False, truncated=0, seconds=0.0,
                 error=None, signal=0, limit=None, peak_mib=0, refused=0):
        self.rc, self.out, self.timed_out = rc, out, timed_out
        self.truncated, self.seconds, self.error = truncated, seconds, error
        self.signal = signal or (-rc if rc is not None and rc < 0 else 0)
        self.limit = limit or ("wall time" if timed_out else None)
        self.peak_mib, self.refused = peak_mib, refused

    @property
    def ok(self):
        return self.rc == 0 and not self.timed_out

    def status(self):
        """'exit N', 'killed by SIGX', 'TIMEOUT after Ns', the limit hit or
        the error."""
        if self.error:
            return self.error
        if self.timed_out:
            return "TIMEOUT after %.0fs" % self.seconds
        if self.limit == "memory":
            return "OOM: killed over the memory limit"
        if self.signal:
            return "killed by %s" % signal_name(self.signal)
        return "exit %s" % self.rc

    def tail(self, n):
        """The last @n non-empty lines of the output."""
        return [l for l in self.out.splitlines() if l.strip()][-n:]


def signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "signal %d" % sig


class _Capture:
    """The first and the last cap/2 bytes of a stream."""

    def __init__(self, cap):
        self.half, self.dropped = cap // 2, 0
        self.head, self.tail = bytearray(), bytearray()   # grown in place, not copied

    @property
    def size(self):
        """Bytes seen so far."""
        return len(self.head) + len(self.tail) + self.dropped

    def add(self, data):
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > self.half:
            over = len(self.tail) - self.half
            self.dropped += over
            del self.tail[:over]

    def text(self):
        gap = b"\n[... %d bytes left out ...]\n" % self.dropped if self.dropped else b""
        return (self.head + gap + self.tail).decode("utf-8", "replace")


def _limit(pid, cpu):
    """No core files, at most @cpu CPU seconds, for the unjailed command
    @pid just started.  Set from here, not in a forked child before exec:
    such a fork copies this whole process (10-20 CPU ms a run, against 2
    for the vfork subprocess makes without one).  The command runs a
    moment without them: hygiene, not a wall -- the grader's runs are
    jailed, and a jail's limits hold before its command starts
    (kit.sandbox.Jail.launcher)."""
    try:
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
        if cpu:
            resource.prlimit(pid, resource.RLIMIT_CPU, (cpu, cpu + 5))
    except (ProcessLookupError, PermissionError):
        pass                    # it has ended already


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _alive_in_group(pgid):
    """The processes of group @pgid that have not exited (zombies have)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[2]) == pgid:
                found.append(int(name))
    return found


def _wait_group_gone(pgid):
    """Wait, DRAIN seconds at most, until every process of group @pgid,
    killed, has exited.  Nearly always there is none left to look for."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + DRAIN
    while _alive_in_group(pgid) and time.monotonic() < deadline:
        _kill_group(pgid)
        time.sleep(0.005)


class _Watch:
    """The deadline, and the jail's limits, of one run."""

    def __init__(self, p, deadline, jail):
        self.p, self.deadline, self.jail = p, deadline, jail
        self.limit, self.next_watch = None, 0.0

    def end(self):
        """Kill whatever is left of the run."""
        _kill_group(self.p.pid)
        if self.jail:
            self.jail.finish()

    def over(self, now):
        """The limit the run has just passed, or None."""
        if now >= self.deadline:
            self.limit = "wall time"
        elif self.jail and now >= self.next_watch:
            self.next_watch = now + limits.WATCH_INTERVAL
            self.limit = self.jail.watch()
        return self.limit


def run(cmd, timeout, env=None, cwd=ROOT, cap=None, cpu=None, jail=None):
    """Run @cmd (a list) for at most @timeout seconds; return a Result.

    @env: the environment (default: this process's); @cap: bytes of output
    kept (default limits.OUTPUT_CAP); @cpu: CPU seconds (default
    limits.CPU_LIMIT, 0 for none); @jail: a kit.sandbox.Jail to run it in
    (its walls, limits and reaping).
    """
    start = time.monotonic()
    cpu = limits.CPU_LIMIT if cpu is None else cpu
    argv, preexec = cmd, None
    if jail:
        env, launcher = jail.environ(env), jail.launcher()
        argv = (launcher or []) + jail.argv(cmd, cwd)
        preexec = None if launcher is not None else jail.preexec()
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True,
                             preexec_fn=preexec)
    except OSError as e:
        return Result(None, "", error="cannot run %s: %s" % (cmd[0], e.strerror))
    if jail:
        jail.started(p.pid)
    else:
        _limit(p.pid, cpu)
    out = _Capture(cap or limits.OUTPUT_CAP)
    w = _Watch(p, start + timeout, jail)
    fd = p.stdout.fileno()
    os.set_blocking(fd, False)
    _widen(fd)
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    drain_until = None
    while True:
        now = time.monotonic()
        if drain_until is None:
            if p.poll() is not None or w.over(now):
                w.end()                     # whatever it left behind
                drain_until = now + DRAIN
        elif now >= drain_until:
            break
        if not sel.select(limits.WATCH_INTERVAL if jail else 0.1):
            continue
        try:
            data = os.read(fd, PIPE_SIZE)
        except BlockingIOError:
            continue
        if not data:
            if drain_until is None:         # closed its output, still running
                _wait(w)
            break
        out.add(data)
        if out.size > FLOOD and len(data) < FLOOD:
            time.sleep(0.002)       # a flood of small writes: let it gather
    sel.close()
    p.stdout.close()
    w.end()
    p.wait()
    _wait_group_gone(p.pid)
    return _result(p, out, start, w)


def _widen(fd):
    """Let the pipe of @fd hold PIPE_SIZE bytes, where the kernel allows
    it: a command that writes much (a token dump) is read in a few large
    pieces, not thousands of 64 KiB ones."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except (OSError, AttributeError):
        pass


def _wait(w):
    """The command closed its output but runs on: wait until it ends or a
    limit is passed.  Its output mostly closes as it exits: wait() sees
    the end within a millisecond, where a sleep would add a whole watch
    interval to every short command."""
    while not w.over(time.monotonic()):
        try:
            w.p.wait(timeout=limits.WATCH_INTERVAL)
            break
        except subprocess.TimeoutExpired:
            pass
    w.end()


def _result(p, out, start, w):
    limit = w.limit or (w.jail.hit if w.jail else None)
    sig = w.jail.signal_of(p.returncode) if w.jail else 0
    if sig == signal.SIGXCPU and not limit:
        limit = "CPU time"
    return Result(p.returncode, out.text(), w.limit == "wall time", out.dropped,
                  time.monotonic() - start, signal=sig, limit=limit,
                  peak_mib=w.jail.peak_mib if w.jail else 0,
                  refused=w.jail.refused if w.jail else 0)


def clean_env(**extra):
    """This environment without the calling make's variables (a child make
    must not inherit its jobserver or its command-line overrides), plus
    @extra."""
    env = {k: v for k, v in os.environ.items() if k not in MAKE_VARS}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def make(targets, impl=None, build=None, jobs=None, timeout=None, extra=(), env_add=None):
    """Run make in the kit's root: make [-jN] [IMPL=] [BUILD=] EXTRA TARGETS,
    with @env_add ({name: value}) added to its environment."""
    cmd = ["make", "--no-print-directory"]
    if jobs:
        cmd.append("-j%d" % jobs)
    if impl:
        cmd.append("IMPL=" + impl)
    if build:
        cmd.append("BUILD=" + build)
    env = clean_env()
    env.pop("IMPL", None)       # a row names its tree, or means the default
    env.update(env_add or {})
    return run(cmd + list(extra) + list(targets), timeout or limits.MAKE_TIMEOUT,
               env=env, cpu=0)
