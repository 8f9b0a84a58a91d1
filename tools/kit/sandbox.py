"""kit.sandbox - where the code under test runs, and where it is built.

A Jail is the walls and the limits of one run (kit.proc.run(..., jail=)):

  walls     bubblewrap (bwrap, the sandbox Flatpak uses), with a file system
            made of what the run needs and nothing else: the system's
            programs and libraries (SYSTEM, read-only), the files the
            command names (the test binary, a schedule file: read-only),
            the folders the run was given (@see read-only, @write
            writable), the run's Drop, and a private /tmp and /dev/shm of
            TMP_LIMIT bytes each.  Not the kit: no solutions/, no tests/
            sources, no other build output, no other submission.  No
            network, no capabilities, its own PID and IPC namespaces, so
            that when the command ends every process it left behind is
            killed by the kernel.
  limits    memory of all the run's processes together, counted by the
            kernel (a memory cgroup, v2 or v1's controller: shared memory
            and the tmpfs files included); where no memory cgroup can be
            made, their resident and shared memory summed every
            WATCH_INTERVAL s (not RLIMIT_AS: it would turn an allocation
            over the limit into a NULL the code under test handles, so the
            verdict would depend on the machine; the compiler gets it).  Processes and threads at once (a pids cgroup),
            CPU seconds per process (RLIMIT_CPU), bytes per file written
            (RLIMIT_FSIZE), no core files.  Every limit is a setting of
            kit/limits.py.
  reaping   when the command ends or a limit is hit, every process of the
            run is killed (the cgroup's, or every descendant; the tools are
            a child subreaper, so a process that detached itself is still
            a descendant).
  lockdown  KIT_LOCKDOWN=1 in the run's environment: the kit's harness,
            in every process that runs code under test, installs its
            seccomp filter before the first instruction of that code
            (common/evidence.h, kit_lockdown()).

compile() runs a compiler in a Jail that sees only the compiler, the
folders of its -I options, its sources and the folder it writes, under
the BUILD_* limits, and cuts every message about a file that is not the
student's to that file's name: mk/build.mk compiles the students' files
with it (python3 -m kit.sandbox cc --to DIR -- CC ARGS -c SOURCES..., a
jail each source, one Python start for them all), and kit.precheck runs
its preprocessor passes with it.  Where a compile server is registered
for the thread (serve_compiles(): kit.jailcc, one grade's jail and
clang), compile() hands it every command it covers.

Where bwrap cannot run (not installed, or no namespaces), the runs have the
limits and the reaping but no walls: mode() says why in one line, and
grade.py prints it.  KIT_SANDBOX=none asks for that mode.

A Drop is the one directory a run may write into: the evidence the grader
reads (Criterion's report, the tests' end marks, TSan's log, the race
binary's result).  Its files have random names and the directory cannot be
listed from inside the sandbox (mode 0300, no capabilities).  The lines of
an evidence file must carry the run's token: a line without it, or a line
the harness writes once written twice, is a suspicion (suspicions()), and
the grade of that part is SUSPECT.  The token is in no environment the
code under test could read (not bwrap's): it is in a file of the drop,
KIT_EVIDENCE_TOKEN_FILE, which the harness reads and removes before any
code under test runs (common/evidence.c).
"""
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from . import ROOT, limits, proc

# What every jailed program may read: the system's programs, libraries and
# the loader's configuration.  A symbolic link (merged /usr) stays one.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
          "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
BWRAP_WALLS = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
               "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--proc", "/proc", "--dev", "/dev"]
PR_SET_CHILD_SUBREAPER = 36

_mode = None
_suspicions = []


# Set in the environment once bwrap has run here: the tools' children (make,
# and the jailed compiles it starts) need not try it again.  It can only
# spare a probe, never lower the walls: a bwrap that then fails to start is
# that run's error.
PROBED = "KIT_SANDBOX_PROBED"
# util-linux's prlimit (Essential in Debian): Jail.launcher().
PRLIMIT = shutil.which("prlimit")
# Jail.launcher()'s shell: into each cgroup.procs named, then the command.
_JOIN = ('n=$1; shift; while [ "$n" -gt 0 ]; do echo 0 > "$1" || exit 125; '
         'n=$((n - 1)); shift; done; exec "$@"')


def mode():
    """('bwrap', '') where the walls stand, else ('rlimits', why not)."""
    global _mode
    if _mode is None:
        _mode = _probe()
        if _mode[0] == "bwrap":
            os.environ[PROBED] = "bwrap"
    return _mode


def _probe():
    if os.environ.get("KIT_SANDBOX") == "none":
        return "rlimits", "KIT_SANDBOX=none"
    if os.environ.get(PROBED) == "bwrap":
        return "bwrap", ""
    if not shutil.which("bwrap"):
        return "rlimits", "bwrap is not installed ('make deps' installs bubblewrap)"
    try:
        r = subprocess.run(["bwrap"] + _walls() + ["true"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "rlimits", "bwrap cannot run here (%s)" % e
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()
        return "rlimits", "bwrap cannot run here (%s)" % (why[0] if why else "exit %d" % r.returncode)
    return "bwrap", ""


def _walls():
    """bwrap's arguments for an empty root holding only SYSTEM, /proc,
    /dev and the private, size-limited /tmp and /dev/shm."""
    args = list(BWRAP_WALLS)
    for path in SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    size = str(limits.TMP_LIMIT << 20)
    args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
    if any(_under(ROOT, p) for p in SYSTEM):
        args += ["--tmpfs", ROOT]          # the kit is under /usr: hide it
    return args


def notice():
    """One line: what protects a graded run on this machine."""
    kind, why = mode()
    cg = _Cgroups.probe()
    procs = ("%d processes" % limits.PROC_LIMIT if "pids" in cg
             else "processes not limited (no pids cgroup)")
    mem = ("%d MiB (memory cgroup %s)" % (limits.MEM_LIMIT, cg["memory"]) if "memory" in cg
           else "%d MiB (no memory cgroup: resident and shared memory watched)"
           % limits.MEM_LIMIT)
    if kind == "bwrap":
        return ("sandbox: bwrap (sees only the binary, its libraries and the student's "
                "files; own PID namespace, no network); limits: %s, %s, %d CPU s"
                % (mem, procs, limits.CPU_LIMIT))
    return ("sandbox: rlimits only -- %s: the kit's files are not hidden from the code "
            "under test (the grader checks the binaries after each part); limits: %s, "
            "%s, %d CPU s" % (why, mem, procs, limits.CPU_LIMIT))


def _token(n):
    """@n random bytes as hex, as secrets.token_hex() makes them (without
    its import, which loads OpenSSL: a third of a jailed compile's start)."""
    return os.urandom(n).hex()


def become_subreaper():
    """Orphans of our children become ours, not init's: nothing escapes the
    descendant walk.  Linux only; harmless to repeat."""
    import ctypes       # here: a jailed compile's start need not load it
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def suspicions():
    """The suspicions noted since the last call (and forget them): one line
    each, about evidence that does not add up."""
    found = list(_suspicions)
    del _suspicions[:]
    return found


def suspect(line):
    """Note a suspicion (suspicions())."""
    if line not in _suspicions:
        _suspicions.append(line)


class Drop:
    """The directory one run may write into, with random file names.

    path(what)   a fresh path in it, e.g. path("report") -> DIR/report-3f2a...
    read(path)   the file's text, or None; for an "evidence" path, only
                 the lines that carry the run's token, without it
    matching(p)  the texts of the files whose names start with p's name
                 (TSan writes LOG_PATH.<pid>)
    token        what the harness puts before each evidence line
    token_file() the file that hands it to the harness
    """

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="kit-drop-")
        os.chmod(self.dir, 0o300)
        self.token = _token(16)
        self.evidence = set()

    def token_file(self):
        """A fresh file holding the token (the harness removes it)."""
        path = self.path("token")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, self.token.encode())
        os.close(fd)
        return path

    def path(self, what):
        p = os.path.join(self.dir, "%s-%s" % (what, _token(12)))
        if what == "evidence":
            self.evidence.add(p)
        return p

    def read(self, path, limit=None):
        try:
            with open(path, errors="replace") as f:
                text = f.read(limit or limits.OUTPUT_CAP)
        except OSError:
            return None
        return self._verified(text) if path in self.evidence else text

    def _verified(self, text):
        """The lines of @text that carry the token, without it; the others,
        and a line of the harness's written twice, are suspicions."""
        kept, seen, foreign = [], set(), []
        for line in text.splitlines():
            mark, _, rest = line.partition(" ")
            if mark != self.token:
                foreign.append(line)
                continue
            if rest.startswith(("end ", "case ", "declared ")) and rest in seen:
                suspect("the evidence has the line %r twice: a test or case cannot end "
                        "twice" % rest[:80])
            seen.add(rest)
            kept.append(rest)
        if foreign:
            suspect("%d line(s) of the evidence do not carry the run's token (written by "
                    "something other than the kit's harness), the first: %r"
                    % (len(foreign), foreign[0][:80]))
        return "\n".join(kept) + ("\n" if kept else "")

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

    @see, @write: folders the run may read, and write; @mem: MiB (None:
    KIT_MEM_LIMIT); @procs, @cpu: the process and CPU-second limits;
    @fsize: bytes one file may reach; @lockdown: ask the harness for its
    seccomp filter.  After the run: hit (None, or "memory": the limit that
    ended it), peak_mib (the most memory seen, all processes), refused
    (the forks the process limit refused).
    """

    def __init__(self, drop=None, mem=None, procs=None, cpu=None, see=(), write=(),
                 fsize=None, lockdown=True):
        self.kind = mode()[0]
        self.drop, self.see, self.write = drop, list(see), list(write)
        self.mem = limits.MEM_LIMIT if mem is None else mem
        self.procs = limits.PROC_LIMIT if procs is None else procs
        self.cpu = limits.CPU_LIMIT if cpu is None else cpu
        self.fsize = limits.FILE_LIMIT if fsize is None else fsize
        self.lockdown = lockdown
        self.hit, self.peak_mib, self.top, self.refused = None, 0, None, 0
        self.finished = False
        self.address_space = None
        self.cgroups = _Cgroups(self.mem, self.procs)
        become_subreaper()

    def environ(self, env):
        """@env (None: this process's) with what the harness reads: where
        the drop's token is, and KIT_LOCKDOWN."""
        env = dict(os.environ if env is None else env)
        env.pop("KIT_EVIDENCE_TOKEN", None)
        if self.drop:
            env["KIT_EVIDENCE_TOKEN_FILE"] = self.drop.token_file()
        if self.lockdown:
            env["KIT_LOCKDOWN"] = "1"
        return env

    def argv(self, cmd, cwd):
        """@cmd, run from @cwd, inside the walls: the files @cmd names are
        bound read-only at their paths (relative ones from @cwd), and @cwd
        exists (empty unless bound)."""
        if self.kind != "bwrap":
            return list(cmd)
        binds, seen = [], set()

        def bind(kind, path):
            real = os.path.realpath(path)
            if real not in seen and not any(_under(real, s) for s in SYSTEM):
                seen.add(real)
                binds.extend([kind, real, real])
        exe = cmd[0] if "/" in cmd[0] else shutil.which(cmd[0]) or cmd[0]
        for arg in [exe] + [a for a in cmd[1:] if "/" in a]:
            path = os.path.join(cwd, arg)
            if os.path.isfile(path):
                bind("--ro-bind", path)
        for path in self.see:
            if os.path.exists(os.path.join(cwd, path)):
                bind("--ro-bind", os.path.join(cwd, path))
        for path in self.write:
            bind("--bind", os.path.join(cwd, path))
        if self.drop:
            binds += ["--bind", self.drop.dir, self.drop.dir]
        return ["bwrap"] + _walls() + binds + ["--dir", cwd, "--chdir", cwd, "--"] + list(cmd)

    def launcher(self):
        """The argv that comes before argv(): it sets the run's rlimits and
        puts it into its cgroups, then runs the rest with the same pid --
        util-linux's prlimit, then a shell that writes its own pid into each
        cgroup (or stops, status 125) and execs the command.  So nothing of
        the command runs before its limits hold, and no copy of this
        process is forked for it: preexec() in a forked child costs 10-20
        CPU ms a run, these two small execs about 2.  None where prlimit is
        missing: then preexec() does it."""
        if not PRLIMIT:
            return None
        argv = [PRLIMIT] + ["--%s=%d:%d" % (name, soft, hard)
                            for name, _, soft, hard in self.rlimits()] + ["--"]
        procs = self.cgroups.procs_files()
        if procs:
            argv += ["/bin/sh", "-c", _JOIN, "kit-jail", str(len(procs))] + procs
        return argv

    def rlimits(self):
        """[(prlimit's name, RLIMIT_*, soft, hard)]: the run's rlimits, for
        launcher() and preexec() alike."""
        found = [("core", resource.RLIMIT_CORE, 0, 0),
                 ("fsize", resource.RLIMIT_FSIZE, self.fsize, self.fsize)]
        if self.cpu:
            found.append(("cpu", resource.RLIMIT_CPU, self.cpu, self.cpu + 5))
        if self.address_space:
            space = self.address_space << 20
            found.append(("as", resource.RLIMIT_AS, space, space))
        return found

    def preexec(self):
        """In the child, before exec: the rlimits, and into the cgroups
        (where launcher() cannot)."""
        cg, rlimits = self.cgroups, self.rlimits()

        def apply():
            for _, which, soft, hard in rlimits:
                resource.setrlimit(which, (soft, hard))
            cg.join()
        return apply

    def started(self, pid):
        self.top = pid

    def members(self):
        """The pids of the run's processes now."""
        pids = self.cgroups.members()
        if pids is not None:
            return [p for p in pids if _stat(p)]
        return _descendants(self.top) if self.top else []

    def watch(self):
        """Called while the run goes on: the limit just reached, or None."""
        if "memory" in self.cgroups.dirs:
            mib = self.cgroups.usage_mib()
            self.peak_mib = max(self.peak_mib, mib)
            if self.cgroups.oom_kills():
                self.hit = "memory"
            return self.hit
        pages = sum(_own_pages(p) for p in self.members())
        mib = pages * os.sysconf("SC_PAGE_SIZE") >> 20
        self.peak_mib = max(self.peak_mib, mib)
        if self.mem and mib > self.mem:
            self.hit = "memory"
            return self.hit
        return None

    def finish(self):
        """Kill every process of the run, wait until none is left, and
        remove the cgroups.  Once: later calls do nothing."""
        if self.finished:
            return
        self.finished = True
        inits = set()
        for _ in range(100):
            pids = [p for p in self.members() if p != os.getpid()]
            if not pids:
                break
            inits |= {p for p in pids if _namespace_init(p)}
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _reap(pids, self.top)
        _await_inits(inits)
        reap_namespace_inits()
        if self.cgroups.oom_kills():
            self.hit = "memory"
        self.peak_mib = max(self.peak_mib, self.cgroups.peak_mib())
        self.refused = self.cgroups.refused()
        self.cgroups.remove()

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


def _under(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


# --- cgroups --------------------------------------------------------------------------

def _own(controller):
    """This process's cgroup path in the hierarchy of @controller (v1), or
    in the unified one (controller None)."""
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, names, path = line.rstrip("\n").split(":", 2)
                if (controller is None and names == "") or controller in names.split(","):
                    return path
    except (OSError, ValueError):
        pass
    return "/"


def _write(path, value):
    with open(path, "w") as f:
        f.write(value)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _field(text, key):
    """The number after @key in a "key value" listing, or 0."""
    m = re.search(r"^%s (\d+)$" % re.escape(key), text, re.M)
    return int(m.group(1)) if m else 0


class _Cgroups:
    """The memory and pids cgroups of one run: dirs {"memory": path, "pids":
    path} -- one path for both in cgroup v2 -- made under this process's own
    cgroup where the kernel lets us, else at the hierarchy's root.  Where
    neither works, the controller is missing from dirs."""

    V1 = "/sys/fs/cgroup/%s"
    V2 = ("/sys/fs/cgroup", "/sys/fs/cgroup/unified")
    _probed = None

    def __init__(self, mem, procs):
        self.dirs, self.v2 = {}, False
        name = "kit-" + _token(6)
        for root in self.V2:
            controllers = _read(os.path.join(root, "cgroup.controllers")).split()
            want = [c for c, on in (("memory", mem), ("pids", procs)) if on and c in controllers]
            if want:
                path = self._make([os.path.join(root, _own(None).lstrip("/"), name),
                                   os.path.join(root, name)], want, mem, procs, v2=True)
                if path:
                    self.v2 = True
                    self.dirs = {c: path for c in want}
                    return
        for c, on in (("memory", mem), ("pids", procs)):
            root = self.V1 % c
            if on and os.path.exists(os.path.join(root, "cgroup.procs")):
                path = self._make([os.path.join(root, _own(c).lstrip("/"), name),
                                   os.path.join(root, name)], [c], mem, procs, v2=False)
                if path:
                    self.dirs[c] = path

    @staticmethod
    def _make(candidates, controllers, mem, procs, v2):
        for path in candidates:
            try:
                os.mkdir(path)
            except OSError:
                continue
            try:
                if "memory" in controllers:
                    limit = str(mem << 20)
                    if v2:
                        _write(os.path.join(path, "memory.max"), limit)
                        if os.path.exists(os.path.join(path, "memory.swap.max")):
                            _write(os.path.join(path, "memory.swap.max"), "0")
                    else:
                        _write(os.path.join(path, "memory.limit_in_bytes"), limit)
                        if os.path.exists(os.path.join(path, "memory.memsw.limit_in_bytes")):
                            _write(os.path.join(path, "memory.memsw.limit_in_bytes"), limit)
                if "pids" in controllers:
                    _write(os.path.join(path, "pids.max"), str(procs))
                return path
            except OSError:
                try:
                    os.rmdir(path)
                except OSError:
                    pass
        return None

    @classmethod
    def probe(cls):
        """{controller: "v1"/"v2"} of what a run gets here (made and removed
        once per process)."""
        if cls._probed is None:
            cg = cls(1 << 10, 8)
            cls._probed = {c: "v2" if cg.v2 else "v1" for c in cg.dirs}
            cg.remove()
        return cls._probed

    def procs_files(self):
        """The cgroup.procs file of every cgroup of the run: writing 0 to
        one moves the writer into it."""
        return [os.path.join(d, "cgroup.procs") for d in sorted(set(self.dirs.values()))]

    def join(self):
        """In the child: into every cgroup of the run."""
        for path in self.procs_files():
            _write(path, "0")

    def members(self):
        """The pids in the run's cgroup, or None without one."""
        path = self.dirs.get("pids") or self.dirs.get("memory")
        if not path:
            return None
        text = _read(os.path.join(path, "cgroup.procs"))
        return [int(l) for l in text.split() if l.isdigit()]

    def usage_mib(self):
        path = self.dirs["memory"]
        name = "memory.current" if self.v2 else "memory.usage_in_bytes"
        text = _read(os.path.join(path, name)).strip()
        return int(text) >> 20 if text.isdigit() else 0

    def peak_mib(self):
        path = self.dirs.get("memory")
        if not path:
            return 0
        name = "memory.peak" if self.v2 else "memory.max_usage_in_bytes"
        text = _read(os.path.join(path, name)).strip()
        return int(text) >> 20 if text.isdigit() else 0

    def oom_kills(self):
        path = self.dirs.get("memory")
        if not path:
            return 0
        if self.v2:
            return _field(_read(os.path.join(path, "memory.events")), "oom_kill")
        return _field(_read(os.path.join(path, "memory.oom_control")), "oom_kill")

    def refused(self):
        """How many forks the pids limit refused."""
        path = self.dirs.get("pids")
        if not path:
            return 0
        return _field(_read(os.path.join(path, "pids.events")), "max")

    def remove(self):
        for path in set(self.dirs.values()):
            for _ in range(50):             # the killed leave it as they are reaped
                try:
                    os.rmdir(path)
                    break
                except OSError:
                    time.sleep(0.02)
        self.dirs = {}


def limits_processes():
    """Whether a pids cgroup can be made here (else the process limit is
    not enforced, and notice() says so)."""
    return "pids" in _Cgroups.probe()


# --- processes ------------------------------------------------------------------------

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


def _own_pages(pid):
    """Resident pages of @pid that are its own or shared memory it mapped
    (anonymous memory, /dev/shm, memfd, SysV segments: RssAnon +
    RssShmem), not the libraries every process maps."""
    text = _read("/proc/%d/status" % pid)
    kib = sum(int(m) for m in re.findall(r"^Rss(?:Anon|Shmem):\s+(\d+) kB", text, re.M))
    return kib * 1024 // os.sysconf("SC_PAGE_SIZE")


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


def reap_namespace_inits():
    """Collect the zombies of the jails' own inits: bwrap forks the PID
    namespace's process 1, which may outlive the bwrap we started and,
    as we are a subreaper, end as our child, a zombie no Popen waits for
    (thousands of them over a long batch: each holds a PID).  Only a child
    that is process 1 of a namespace of its own: never one that a Popen of
    this process, in whatever thread, waits for."""
    for pid in zombie_children():
        if _namespace_init(pid):
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def _namespace_init(pid):
    """Whether @pid is process 1 of a PID namespace of its own."""
    nspid = _status(pid).get("NSpid", "").split()
    return len(nspid) > 1 and nspid[-1] == "1"


def _await_inits(pids, timeout=1.0):
    """Wait, at most @timeout s, until each killed namespace init @pids
    is gone: reaped by its bwrap, or ended as our child and collected here.
    Killed, it leaves the run's cgroup before it is a zombie, and it is
    ours only once its bwrap is gone: collected before then, it stayed a
    zombie after the run (one in ten runs, two make checks side by side)."""
    me, deadline = str(os.getpid()), time.monotonic() + timeout
    for p in pids:
        while time.monotonic() < deadline:
            st = _status(p)
            if not st or not _namespace_init(p):
                break                       # gone (or the pid is another's now)
            if st.get("State", "")[:1] == "Z" and st.get("PPid") == me:
                try:
                    os.waitpid(p, 0)
                except ChildProcessError:
                    pass
                break
            time.sleep(0.002)


def zombie_children():
    """The pids of this process's children that are zombies."""
    me = str(os.getpid())
    found = []
    for pid in _own_children():
        st = _status(pid)
        if st.get("State", "")[:1] == "Z" and st.get("PPid") == me:
            found.append(pid)
    return found


def _status(pid):
    """/proc/PID/status as {field: value}, {} if it is gone."""
    lines = _read("/proc/%d/status" % pid).splitlines()
    return dict((k, v.strip()) for k, _, v in (l.partition(":") for l in lines))


def _own_children():
    """The pids of this process's children, zombies too (each of its
    threads' list in /proc; where the kernel keeps none, every pid)."""
    found = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        tasks = []
    for tid in tasks:
        text = _read("/proc/self/task/%s/children" % tid)
        found.update(text.split())
    if not os.path.exists("/proc/self/task/%d/children" % os.getpid()):
        found = {n for n in os.listdir("/proc") if n.isdigit()}     # PPid says
    return sorted(int(p) for p in found)


def _reap(pids, top):
    """Collect the zombies of the orphans handed to us (never @top: its
    Popen waits for it)."""
    for p in pids:
        if p != top:
            try:
                os.waitpid(p, os.WNOHANG)
            except ChildProcessError:
                pass


# --- the build ------------------------------------------------------------------------

class Compiled:
    """What a jailed compiler did: rc (its exit status; 1 when a limit
    ended it), out (its messages, cut: messages about files other than
    the student's folder only the file; cut when first read, so a pass
    whose output is read raw -- a token dump -- never pays for it), limit
    (None, "wall time", "CPU time", "memory", "output": the limit that
    ended it), result (kit.proc's), served (a compile server ran it:
    kit.jailcc)."""

    def __init__(self, rc, own, note, limit, result, served=False):
        self.rc, self.limit, self.result, self.served = rc, limit, result, served
        self._own, self._note, self._out = own, note, None

    @property
    def ok(self):
        return self.rc == 0

    @property
    def out(self):
        if self._out is None:
            raw = self.result.out[-limits.BUILD_OUTPUT_CAP:]
            self._out = cut_messages(raw, self._own) + self._note
        return self._out


def _compiler_paths(cmd):
    """(what to read, folders to write) of compiler command @cmd: its -I,
    -iquote and -isystem folders and its sources' folders; the folders of
    its -o and -MF outputs."""
    see, write = [], []
    for prev, a in zip(cmd, cmd[1:]):
        if prev in ("-I", "-iquote", "-isystem"):
            see.append(a)
        elif prev in ("-o", "-MF"):
            if a != os.devnull:
                write.append(os.path.dirname(a) or ".")
        elif a.startswith("-I") and len(a) > 2:
            see.append(a[2:])
        elif not a.startswith("-") and a.endswith((".c", ".h")) and prev != "-include":
            see.append(os.path.dirname(a) or ".")
    return see, write


def _sources(cmd):
    return [a for prev, a in zip(cmd, cmd[1:]) if not a.startswith("-")
            and a.endswith(".c") and prev not in ("-o", "-MF", "-MT", "-include")]


_DIAG = re.compile(r"^(In file included from |\s+from )?([^\s:][^:]*):(\d+)(:\d+)?[:,]")
_SUMMARY = re.compile(r"^\d+ (errors?|warnings?)( and \d+ \w+)? generated\.$")


def cut_messages(text, own):
    """The compiler's messages @text with what quotes a file other than
    those in folder @own (the student's) cut to that file's name: each
    message about another file becomes one line naming it, and the source
    lines it quotes are dropped."""
    own = os.path.realpath(os.path.join(ROOT, own))
    out, showing = [], True
    for line in text.splitlines():
        m = _DIAG.match(line)
        if m:
            path = os.path.realpath(os.path.join(ROOT, m.group(2)))
            showing = os.path.dirname(path) == own
            if showing:
                out.append(line)
            elif not m.group(1):
                note = "%s: (a message about this file, not yours: not shown)" % m.group(2)
                if not out or out[-1] != note:
                    out.append(note)
            continue
        if showing or _SUMMARY.match(line):
            out.append(line)
    return "\n".join(out) + ("\n" if out else "")


_OUT_OF_MEMORY = re.compile(r"out of memory|cannot allocate|bad_alloc|virtual memory exhausted",
                            re.I)


_served = threading.local()


def serve_compiles(client):
    """From now on, in this thread, compile() hands what @client covers to
    its server (kit.jailcc; None: no server); the client before."""
    before = getattr(_served, "client", None)
    _served.client = client
    return before


def carried(fn):
    """@fn, to be run in another thread (a pool's) with this thread's
    compile server."""
    client = getattr(_served, "client", None)

    def run(*args):
        before = serve_compiles(client)
        try:
            return fn(*args)
        finally:
            serve_compiles(before)
    return run


def scratch():
    """The folder this thread's compile server writes (None: none), where
    a compile's temporary outputs go (tempfile's dir=)."""
    client = getattr(_served, "client", None)
    return client.scratch if client else None


def _served_compile(cmd, timeout, env, cap):
    """@cmd's Result from this thread's compile server, or None (no server,
    one that does not cover it, or does not answer)."""
    client = getattr(_served, "client", None)
    if not client or not client.covers(cmd):
        return None
    env = dict(env)
    env.pop("KIT_EVIDENCE_TOKEN", None)
    return client.compile(cmd, env, timeout, cap)


def compile(cmd, own=None, timeout=None, cap=None):
    """Run compiler command @cmd (from the kit's root) jailed, under the
    BUILD_* limits; a Compiled.  @own: the student's folder (default: the
    folder of the first .c source): messages about other files are cut to
    their names.  Outputs go where -o and -MF say (a folder the jail
    writes); @cap: bytes of output kept (default BUILD_OUTPUT_CAP; the
    pre-check reads a token dump there)."""
    see, write = _compiler_paths(cmd)
    if own is None:
        own = os.path.dirname((_sources(cmd) or ["./x"])[0]) or "."
    env = proc.clean_env(LC_ALL="C")
    timeout, cap = timeout or limits.BUILD_TIMEOUT, cap or limits.BUILD_OUTPUT_CAP
    r, by_address = _served_compile(cmd, timeout, env, cap), True
    served = r is not None
    if not served:
        jail = Jail(mem=limits.BUILD_MEM, procs=64, cpu=limits.BUILD_TIMEOUT,
                    see=see, write=write, fsize=limits.BUILD_FILE_LIMIT, lockdown=False)
        if "memory" not in jail.cgroups.dirs:
            jail.address_space = limits.BUILD_MEM       # a compiler has no sanitizer
        by_address = bool(jail.address_space)
        r = proc.run(list(cmd), timeout, jail=jail, cap=cap, env=env)
    limit = r.limit
    if not limit and r.signal == signal.SIGXFSZ:
        limit = "output"
    if not limit and r.rc and by_address and _OUT_OF_MEMORY.search(r.out):
        limit = "memory"
    note = ""
    if limit:
        note = "the compiler was stopped: over the build's %s limit (%s)\n" % (
            limit, _build_setting(limit))
    elif r.error:
        note = r.error + "\n"
    return Compiled(r.rc if not limit and r.rc is not None else 1, own, note, limit, r,
                    served)


def _build_setting(limit):
    return {"wall time": "KIT_BUILD_TIMEOUT %d s" % limits.BUILD_TIMEOUT,
            "CPU time": "KIT_BUILD_TIMEOUT %d s" % limits.BUILD_TIMEOUT,
            "memory": "KIT_BUILD_MEM %d MiB" % limits.BUILD_MEM,
            "output": "KIT_BUILD_FILE_LIMIT %d bytes a file" % limits.BUILD_FILE_LIMIT}[limit]


def groups(argv):
    """[(folder, [compiler command])] of main()'s @argv: each group
    "--to DIR -- CC ARGS... -c SOURCES..." gives a command per source,
    "CC ARGS... -c SOURCE -o DIR/<its name>.o"; None if @argv is not that."""
    found = []
    while argv[:1] == ["--to"] and len(argv) > 2 and argv[2] == "--":
        folder, rest = argv[1], argv[3:]
        end = rest.index("--to") if "--to" in rest else len(rest)
        cmd, argv = rest[:end], rest[end:]
        if "-c" not in cmd:
            return None
        at = cmd.index("-c")
        flags, sources = cmd[:at], cmd[at + 1:]
        if not flags or not sources or not all(a.endswith(".c") for a in sources):
            return None
        found.append((folder, [flags + ["-c", src, "-o", os.path.join(
            folder, os.path.basename(src)[:-2] + ".o")] for src in sources]))
    return found if found and not argv else None


def main(argv):
    """python3 -m kit.sandbox cc --to DIR -- CC ARGS... -c SOURCES...
    [--to DIR -- ...]: compile() each source to DIR/<its name>.o, in
    order, its messages on stderr; the status of the first that fails
    (none after it), else 0 (mk/build.mk's students' files)."""
    todo = groups(argv[1:]) if argv[:1] == ["cc"] else None
    if not todo:
        sys.stderr.write("usage: python3 -m kit.sandbox cc --to DIR -- CC ARGS... "
                         "-c SOURCES... [--to DIR -- ...]\n")
        return 2
    for _, cmds in todo:
        for cmd in cmds:
            c = compile(cmd)
            sys.stderr.write(c.out)
            if not c.ok:
                return c.rc if c.rc is not None else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
