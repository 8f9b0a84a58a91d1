"""kit.rr - rr where the machine allows it, and why not where it does not.

rr records a program and replays it exactly, backwards too, under gdb; it
needs the CPU's hardware performance counters (it counts retired
conditional branches).  probe() asks rr itself, once per process, with
`rr record true`; explain() says, where rr cannot record: rr's own first
line, why (no counters exposed, perf_event_paranoid, the AMD Zen
workaround) and the command that works here instead.

  probe()                      Probe: ok, line (rr's first line), reasons
  explain(alternative)         the lines to print where rr cannot record
  record(cmd, trace)           rr record -o TRACE CMD...
  child_pid(trace)             the first process the recorded one forked
  replay_cmd(trace, pid, ...)  rr replay with tools/gdb/race-gdb.py and its
                               walk-back (the gdb options after rr's own
                               'target extended-remote': rr issues 2098,
                               3243)
  chaos(cmd, attempts)         rr record --chaos, attempt after attempt
"""
import os
import re
import shutil
import tempfile

from . import ROOT, proc

GDB_SCRIPT = os.path.join(ROOT, "tools", "gdb", "race-gdb.py")
PMUS = ("cpu", "cpu_core", "cpu_atom")
ZEN_FAMILIES = (0x17, 0x19, 0x1a)
RECORD_TIMEOUT = 120


class Probe:
    """ok: rr can record here; line: rr's own first line (its error where it
    cannot); reasons: why not, as this machine shows it."""

    def __init__(self, ok, line, reasons):
        self.ok, self.line, self.reasons = ok, line, reasons


_probe = None


def probe():
    """Can rr record on this machine?  Asked once per process."""
    global _probe
    if _probe is None:
        _probe = _ask()
    return _probe


def _ask():
    if not shutil.which("rr"):
        return Probe(False, "rr: command not found", ["rr is not installed "
                     "(make deps installs it where the distribution has it)"])
    with tempfile.TemporaryDirectory() as d:
        r = proc.run(["rr", "record", "-o", os.path.join(d, "t"), "true"], 60)
    lines = [l.strip() for l in r.out.splitlines() if l.strip()]
    if r.ok:
        return Probe(True, lines[0] if lines else "rr recorded 'true'", [])
    first = lines[0] if lines else "rr record: %s" % r.status()
    return Probe(False, first, reasons(first))


def _rr_version():
    r = proc.run(["rr", "--version"], 30)
    return r.out.strip().split()[-1] if r.ok and r.out.strip() else "this rr"


def _cpuinfo():
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read(65536)
    except OSError:
        return {}
    info = {}
    for key, val in re.findall(r"^(vendor_id|cpu family|flags)\s*:\s*(.*)$", text, re.M):
        info.setdefault(key, val)       # the first CPU's
    return info


def reasons(said=""):
    """Why rr cannot record, as far as this machine shows (and rr @said)."""
    why, info = [], _cpuinfo()
    if re.search(r"CPU type .* unknown", said):
        why.append("rr %s does not know this CPU model (rr learns CPU models "
                   "release by release): a newer rr that lists it is needed" % _rr_version())
    events = "/sys/bus/event_source/devices"
    if not any(os.path.isdir(os.path.join(events, p)) for p in PMUS):
        why.append("no hardware performance counters are exposed (no CPU PMU "
                   "under %s)%s" % (events, "; this is a virtual machine without a "
                                    "virtual PMU" if "hypervisor" in info.get("flags", "")
                                    else ""))
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read().strip())
    except (OSError, ValueError):
        paranoid = None
    if paranoid is not None and paranoid > 1 and os.geteuid() != 0:
        why.append("kernel.perf_event_paranoid is %d; rr needs 1 or less "
                   "(sysctl kernel.perf_event_paranoid=1)" % paranoid)
    family = info.get("cpu family", "")
    if info.get("vendor_id") == "AuthenticAMD" and family.isdigit() \
            and int(family) in ZEN_FAMILIES:
        why.append("an AMD Zen CPU: rr also needs the SpecLockMap workaround "
                   "(rr's scripts/zen_workaround.py, run as root on the machine, "
                   "on the host for a VM)")
    return why or ["rr gives no more reason; see rr's page 'Will rr work on my system'"]


def explain(alternative):
    """The lines to print where rr cannot record: its own first line, why,
    and @alternative, the command that works here."""
    p = probe()
    lines = ["rr cannot record on this machine; rr says: " + p.line]
    lines += ["  why: " + r for r in p.reasons]
    lines.append("what works here: " + alternative)
    return lines


def record(cmd, trace, extra=()):
    """rr record -o @trace @cmd (the old recording removed); a Result."""
    shutil.rmtree(trace, ignore_errors=True)
    os.makedirs(os.path.dirname(trace), exist_ok=True)
    return proc.run(["rr", "record", "-o", trace] + list(extra) + list(cmd), RECORD_TIMEOUT)


def child_pid(trace):
    """The pid of the first process the recorded program forked (the race
    binary's search child), from `rr ps`; None if it forked none."""
    r = proc.run(["rr", "ps", trace], 60)
    rows = [l.split(None, 3) for l in r.out.splitlines()[1:] if l.strip()]
    root = rows[0][0] if rows else None
    for row in rows[1:]:
        if len(row) >= 2 and row[1] == root:
            return row[0]
    return None


def replay_cmd(trace, pid=None, batch=False):
    """rr replay of @trace under gdb with the kit's commands: stop at the
    verdict (race_debug_stop), then rr-walk-back.  rr places its own
    'target extended-remote' just before the first '-ex continue' (rr issue
    2098), so the commands given after it run on the connected process; a
    -x script before it must not touch the process (rr issue 3243)."""
    cmd = ["rr", "replay", "-x", GDB_SCRIPT]
    if pid:
        cmd += ["-f", str(pid)]
    for opt in (["-batch"] if batch else []) + ["-ex", "continue", "-ex", "rr-walk-back"]:
        cmd += ["-o", opt]
    return cmd + [trace]


def chaos(cmd, trace, attempts, hit):
    """Record @cmd under rr's chaos mode up to @attempts times; @hit(out)
    says whether a run showed the race.  Keeps the first hit's recording
    in @trace.  Yields (attempt, Result, hit) as it goes."""
    kept = False
    for i in range(1, attempts + 1):
        with tempfile.TemporaryDirectory() as d:
            t = os.path.join(d, "t")
            r = proc.run(["rr", "record", "--chaos", "-o", t] + list(cmd), RECORD_TIMEOUT)
            ok = hit(r.out)
            if ok and not kept:
                shutil.rmtree(trace, ignore_errors=True)
                os.makedirs(os.path.dirname(trace), exist_ok=True)
                shutil.move(t, trace)
                kept = True
        yield i, r, ok
