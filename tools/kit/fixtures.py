"""kit.fixtures - hostile and careless submissions, and the verdict each
must get (tests/grader/).

Each tests/grader/<name>.patch is a unified diff against a base tree
(solutions/ or labs/, the skeleton; paths a/<folder>/<file>) preceded by
'#' lines: what the submission does, in prose, then fields:

  lab: N                   the lab it is graded as
  base: solutions|labs     the tree the patch applies to
  refused: WORD            the pre-build check refuses it, naming WORD
                           (repeatable)
  expect: PART VERDICT [TEXT]     graded as usual, only PART: its verdict,
                           and TEXT in its summary or details (repeatable;
                           TEXT may be alternatives, A|B)
  sandboxed: PART VERDICT [TEXT]  the same, without the pre-build check:
                           what the sandbox alone makes of it
  env: K=V ...             settings for its grades (a smaller limit)
  untouched: PATH          a path of the kit that must not exist after
  unseen: TEXT             TEXT appears in no output and no report of its
                           grades (repeatable: a line of a file the code
                           under test must not read, or the compiler quote)
  survivors: none          no process of it may be left after its grades
  grader-memory: MIB       the grader's own peak memory stays under MIB

tools/check.py grades each one (grade(), through tools/grade.py, as an
instructor would) and checks every field.
"""
import json
import os
import sys

from . import ROOT, mutants, proc

FOLDER = os.path.join(ROOT, "tests", "grader")


class Fixture:
    def __init__(self, name):
        self.name = name
        self.path = os.path.join(FOLDER, name + ".patch")
        self.about, self.fields = [], {}
        with open(self.path) as f:
            for line in f:
                if not line.startswith("#"):
                    break
                key, sep, value = line[1:].strip().partition(": ")
                if sep and key in ("lab", "base", "refused", "expect", "sandboxed", "env",
                                   "untouched", "unseen", "survivors", "grader-memory"):
                    self.fields.setdefault(key, []).append(value.strip())
                else:
                    self.about.append(line[1:].strip())
        self.lab = int(self.field("lab"))
        self.base = self.field("base", "solutions")

    def field(self, key, default=None):
        return self.fields.get(key, [default])[0]

    def expectations(self, key):
        """[(part, verdict, text)] of the 'expect' or 'sandboxed' lines."""
        found = []
        for value in self.fields.get(key, []):
            words = value.split(None, 2)
            found.append((words[0], words[1], words[2] if len(words) > 2 else ""))
        return found

    def env(self):
        return dict(kv.split("=", 1) for v in self.fields.get("env", []) for kv in v.split())

    def __str__(self):
        return self.name


def catalogue():
    """[Fixture], sorted by name."""
    return [Fixture(n[:-len(".patch")]) for n in sorted(os.listdir(FOLDER))
            if n.endswith(".patch")]


def tree(fixture, build):
    """The fixture's tree under BUILD/grader/<name>/ (as IMPL)."""
    return mutants.patched(fixture.path, fixture.base,
                           os.path.join(build, "grader", fixture.name, "tree"))


def grade(fixture, impl, build, args=(), timeout=600):
    """Grade tree @impl as lab fixture.lab with tools/grade.py @args; (the
    kit.proc.Result, the report as a dict or None)."""
    report = os.path.join(ROOT, build, "grader", fixture.name, "report")
    env = proc.clean_env(**fixture.env())
    env.pop("IMPL", None)
    r = proc.run([sys.executable, os.path.join(ROOT, "tools", "grade.py"),
                  "--lab", str(fixture.lab), "--impl", impl, "--build-root", build,
                  "--build", "--report-dir", report] + list(args), timeout, env=env, cpu=0)
    try:
        with open(os.path.join(report, "results.json")) as f:
            return r, json.load(f)
    except (OSError, ValueError):
        return r, None


def part(report, name):
    """The part @name of the (one-lab) @report, as a dict, or None."""
    for lab in (report or {}).get("labs", []):
        for p in lab["parts"]:
            if p["name"] == name:
                return p
    return None


def processes_of(marker):
    """The pids of this checkout's processes (_ours) whose command line
    contains @marker.  A marker is a path relative to the kit's root, the
    same in another checkout: the processes of a make check running beside
    this one in another clone are not this one's leftovers."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if marker.encode() in cmd and _ours(pid, cmd):
                found.append(int(pid))
    return found


def _ours(pid, cmd):
    """Whether process @pid (command line @cmd) is this checkout's: it names
    the kit's root, or works or runs from there (a jailed process sees the
    kit's paths where they are)."""
    roots = {ROOT, os.path.realpath(ROOT)}
    if any(r.encode() + b"/" in cmd for r in roots):
        return True
    for link in ("cwd", "exe"):
        try:
            where = os.readlink("/proc/%s/%s" % (pid, link))
        except OSError:
            continue
        if any(where == r or where.startswith(r + os.sep) for r in roots):
            return True
    return False
