"""kit.sandbox - where the code under test runs when it is graded.

A Jail is the walls and the limits of one run (kit.proc.run(..., jail=)):

  walls     bubblewrap (bwrap, the sandbox Flatpak uses): the whole file
            system read-only -- the kit, its build outputs, tests/, common/,
            tools/ -- except the run's Drop; a private /tmp; no network; no
            capabilities; its own PID namespace, so that when the command
            ends every process it left behind is killed by the kernel.
  limits    CPU seconds per process (RLIMIT_CPU), bytes per file written
            (RLIMIT_FSIZE), no core files; processes and threads at once
            (a pids cgroup, where one can be made); resident memory summed
            over the run's processes, watched every WATCH_INTERVAL seconds
            (killed whole over MEM_LIMIT: OOM).  Every limit is a setting of
            kit/limits.py.
  reaping   when the command ends or a limit is hit, every process of the
            run is killed (the cgroup's, or every descendant; the tools are
            a child subreaper, so a process that detached itself is still a
            descendant).

Where bwrap cannot run (not installed, or no namespaces), the run has the
limits and the reaping but no walls: mode() says why in one line, and
grade.py prints it.  KIT_SANDBOX=none asks for that mode.

A Drop is the one directory a run may write into: the evidence the grader
reads (Criterion's report, the tests' end marks, TSan's log, the race
binary's result).  Its files have random names and the directory cannot be
listed from inside the sandbox (mode 0300, no capabilities), so code under
test that could write files still could not find them.
"""
import ctypes
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time

from . import limits

CGROUP_ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup")
BWRAP_WALLS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
               "--tmpfs", "/tmp", "--unshare-pid", "--unshare-net", "--unshare-ipc",
               "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
PR_SET_CHILD_SUBREAPER = 36

_mode = None


def mode():
    """('bwrap', '') where the walls stand, else ('rlimits', why not)."""
    global _mode
    if _mode is None:
        _mode = _probe()
    return _mode


def _probe():
    if os.environ.get("KIT_SANDBOX") == "none":
        return "rlimits", "KIT_SANDBOX=none"
    if not shutil.which("bwrap"):
        return "rlimits", "bwrap is not installed ('make deps' installs bubblewrap)"
    try:
        r = subprocess.run(["bwrap"] + BWRAP_WALLS + ["true"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "rlimits", "bwrap cannot run here (%s)" % e
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()
        return "rlimits", "bwrap cannot run here (%s)" % (why[0] if why else "exit %d" % r.returncode)
    return "bwrap", ""


def notice():
    """One line: what protects a graded run on this machine."""
    kind, why = mode()
    procs = ("%d processes" % limits.PROC_LIMIT if limits_processes()
             else "processes not limited (no pids cgroup)")
    if kind == "bwrap":
        return ("sandbox: bwrap (kit read-only, own PID namespace, no network); "
                "limits: %d MiB, %s, %d CPU s" % (limits.MEM_LIMIT, procs, limits.CPU_LIMIT))
    return ("sandbox: rlimits only -- %s: the kit's files are not read-only to the code "
            "under test (the grader checks the binaries after each part); limits: %d MiB, "
            "%s, %d CPU s" % (why, limits.MEM_LIMIT, procs, limits.CPU_LIMIT))


def become_subreaper():
    """Orphans of our children become ours, not init's: nothing escapes the
    descendant walk.  Linux only; harmless to repeat."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class Drop:
    """The directory one run may write into, with random file names.

    path(what)   a fresh path in it, e.g. path("report") -> DIR/report-3f2a...
    read(path)   the file's text, or None
    matching(p)  the texts of the files whose names start with p's name
                 (TSan writes LOG_PATH.<pid>)
    """

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="kit-drop-")
        os.chmod(self.dir, 0o300)

    def path(self, what):
        return os.path.join(self.dir, "%s-%s" % (what, secrets.token_hex(12)))

    @staticmethod
    def read(path, limit=None):
        try:
            with open(path, errors="replace") as f:
                return f.read(limit or limits.OUTPUT_CAP)
        except OSError:
            return None

    def matching(self, path):
        base = os.path.basename(path)
        return [self.read(os.path.join(self.dir, n)) or ""
                for n in sorted(os.listdir(self.dir)) if n.startswith(base)]

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Jail:
    """The walls and limits of one run; see the module's comment.

    After the run: hit (None, or "memory": the limit that ended it),
    peak_mib (the most resident memory seen, all processes), refused (the
    forks the process limit refused).
    """

    def __init__(self, drop=None, mem=None, procs=None, cpu=None):
        self.kind = mode()[0]
        self.drop = drop
        self.mem = limits.MEM_LIMIT if mem is None else mem
        self.procs = limits.PROC_LIMIT if procs is None else procs
        self.cpu = limits.CPU_LIMIT if cpu is None else cpu
        self.hit, self.peak_mib, self.top, self.refused = None, 0, None, 0
        self.finished = False
        self.cgroup = _make_cgroup(self.procs)
        become_subreaper()

    def argv(self, cmd, cwd):
        """@cmd, run from @cwd, inside the walls.  /tmp is private in there:
        @cwd and the paths @cmd names under /tmp are bound read-only."""
        if self.kind != "bwrap":
            return list(cmd)
        binds = []
        for path in [cwd] + [a for a in cmd if a.startswith("/")]:
            path = os.path.realpath(path)
            if path.startswith("/tmp/") and os.path.exists(path):
                binds += ["--ro-bind", path, path]
        if self.drop:
            binds += ["--bind", self.drop.dir, self.drop.dir]
        return ["bwrap"] + BWRAP_WALLS + binds + ["--chdir", cwd, "--"] + list(cmd)

    def preexec(self):
        """In the child, before exec: the rlimits, and into the cgroup."""
        cg, cpu = self.cgroup, self.cpu

        def apply():
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.FILE_LIMIT, limits.FILE_LIMIT))
            if cpu:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            if cg:
                with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                    f.write("0")
        return apply

    def started(self, pid):
        self.top = pid

    def members(self):
        """The pids of the run's processes now."""
        if self.cgroup:
            try:
                with open(os.path.join(self.cgroup, "cgroup.procs")) as f:
                    return [int(l) for l in f if l.strip() and _stat(int(l))]
            except OSError:
                pass
        return _descendants(self.top) if self.top else []

    def watch(self):
        """Called while the run goes on: the limit just reached, or None."""
        pages = sum(_rss_pages(p) for p in self.members())
        mib = pages * os.sysconf("SC_PAGE_SIZE") >> 20
        self.peak_mib = max(self.peak_mib, mib)
        if self.mem and mib > self.mem:
            self.hit = "memory"
            return self.hit
        return None

    def finish(self):
        """Kill every process of the run, wait until none is left, and
        remove the cgroup.  Once: later calls do nothing."""
        if self.finished:
            return
        self.finished = True
        for _ in range(100):
            pids = [p for p in self.members() if p != os.getpid()]
            if not pids:
                break
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _reap(pids, self.top)
        if self.cgroup:
            self.refused = _pids_refused(self.cgroup)
            for _ in range(50):         # the killed leave it as they are reaped
                try:
                    os.rmdir(self.cgroup)
                    break
                except OSError:
                    time.sleep(0.02)
            self.cgroup = None

    def signal_of(self, rc):
        """The signal that ended the command, from its exit status @rc
        (bwrap reports a signal N as 128+N), or 0."""
        if rc is None:
            return 0
        if rc < 0:
            return -rc
        if self.kind == "bwrap" and rc > 128:
            return rc - 128
        return 0


def _make_cgroup(maximum):
    """A new pids cgroup limited to @maximum, or None where none can be made."""
    if not maximum:
        return None
    for root in CGROUP_ROOTS:
        if not os.path.exists(os.path.join(root, "cgroup.procs")):
            continue
        path = os.path.join(root, "kit-" + secrets.token_hex(6))
        try:
            os.mkdir(path)
            with open(os.path.join(path, "pids.max"), "w") as f:
                f.write(str(maximum))
            return path
        except OSError:
            try:
                os.rmdir(path)
            except OSError:
                pass
    return None


def limits_processes():
    """Whether a pids cgroup can be made here (else the process limit is
    not enforced, and notice() says so)."""
    probe = _make_cgroup(1)
    if probe:
        os.rmdir(probe)
    return bool(probe)


def _pids_refused(cgroup):
    """How many forks the pids limit refused."""
    try:
        with open(os.path.join(cgroup, "pids.events")) as f:
            return sum(int(l.split()[1]) for l in f if l.startswith("max "))
    except (OSError, ValueError, IndexError):
        return 0


def _stat(pid):
    """(ppid, rss pages) of @pid, or None if it is gone or a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if fields[0] in "ZX":
            return None
        return int(fields[1]), int(fields[21])
    except (OSError, IndexError, ValueError):
        return None


def _rss_pages(pid):
    """Resident pages of @pid that are its own (anonymous: heap, stacks,
    what it mapped and touched), not the shared libraries every process
    maps -- those would be counted once per process."""
    try:
        with open("/proc/%d/statm" % pid) as f:
            fields = f.read().split()
        return max(0, int(fields[1]) - int(fields[2]))
    except (OSError, IndexError, ValueError):
        return 0


def _children():
    """{ppid: [pid]} of every live process."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = _stat(int(name))
            if s:
                children.setdefault(s[0], []).append(int(name))
    return children


def _below(pids, children):
    """@pids that are alive, and every process below them."""
    found, todo = [], list(pids)
    while todo:
        p = todo.pop()
        if _stat(p):
            found.append(p)
        todo += children.get(p, [])
    return found


def _descendants(top):
    """@top and every process below it, and every other child of ours: the
    tools run one jailed command at a time, and as a subreaper we inherit
    whatever it detached."""
    children = _children()
    return _below([top] + [p for p in children.get(os.getpid(), []) if p != top], children)


def sweep():
    """Kill every process below this one -- call it when none should be
    left -- and return how many there were."""
    pids = _below(_children().get(os.getpid(), []), _children())
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    _reap(pids, None)
    return len(pids)


def _reap(pids, top):
    """Collect the zombies of the orphans handed to us (never @top: its
    Popen waits for it)."""
    for p in pids:
        if p != top:
            try:
                os.waitpid(p, os.WNOHANG)
            except ChildProcessError:
                pass
