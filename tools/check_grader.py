"""check_grader.py - make check's rows for the grader itself (issue: graded
runs an instructor can trust).  tools/check.py imports rows(); each is
(name, check, show), check() returning (ok, detail, lines) like every row.

  sandbox       the walls (the kit, solutions/, tests/ and build/ not
                there at all; the drop unlistable), nothing survives a run,
                each limit (memory, shared memory, processes, CPU, output,
                the private /tmp and /dev/shm)
  fixtures      each hostile or careless submission of tests/grader/, graded
                as an instructor would (tools/grade.py), gets its verdict
                (kit/fixtures.py says what each line of a fixture means)
  dist-student  the students' tree: nothing of the instructor's in it,
                every lab builds, its skeletons are the kit's (which the
                skeleton rows grade in full) and make grade's unit-plain
                gives them nothing, KIT.sha256 holds and a changed or added
                test is named
  Gradescope    the zip's layout, in a folder standing in for /autograder,
                with the hidden tests, against the solutions
  Classroom     the workflow's steps, run in a copy of the students' tree
                holding the solutions
  grade-all     a folder mixing solutions, skeletons and hostile fixtures,
                two at a time: the right CSV, and no process left behind
Standard library only.
"""
import csv
import json
import os
import re
import resource
import shutil
import sys
import time
import zipfile

from kit import ROOT, fixtures, layout, mutants, proc, sandbox
import check_feedback  # noqa: E402 (what a grade tells a student: issue 20)

SHARED = ("common", "_kit", ".deps")


def work(build, name):
    """A fresh folder BUILD/check-grader/NAME (absolute)."""
    path = os.path.join(ROOT, build, "check-grader", name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def seed(build, dest):
    """@dest, a build folder with copies of BUILD's kit objects: a tree
    whose files have the kit's times compiles only what is new."""
    os.makedirs(dest, exist_ok=True)
    for d in SHARED:
        src = os.path.join(ROOT, build, d)
        if os.path.isdir(src) and not os.path.exists(os.path.join(dest, d)):
            shutil.copytree(src, os.path.join(dest, d), symlinks=True)
    return dest


def run(cmd, cwd, timeout=600, **env):
    e = proc.clean_env(**env)
    e.pop("IMPL", None)
    return proc.run(cmd, timeout, env=e, cwd=cwd, cpu=0)


# --- the sandbox itself ---------------------------------------------------------------

def python():
    """A Python the jail can run: the system's (one installed elsewhere, a
    virtual environment, is not in the jail)."""
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def jailed(code, **limits):
    """Run python3 -c @code in a jail with its drop; (Result, drop dir)."""
    with sandbox.Drop() as drop:
        r = proc.run([python(), "-c", code], 30, jail=sandbox.Jail(drop, **limits),
                     env=proc.clean_env(DROP=drop.dir))
        return r, drop.dir


def walls():
    if sandbox.mode()[0] != "bwrap":
        return True, sandbox.notice(), ["no walls here: the rows below check the limits"]
    code = ("import os\n"
            "def tried(f):\n"
            "    try:\n        f(); return 'ALLOWED'\n    except OSError as e:\n"
            "        return e.strerror\n"
            "for name, path in (('solutions', %r), ('tests', %r), ('build', %r), "
            "('kit', %r)):\n"
            "    print(name, tried(lambda: open(path)))\n"
            "print('root', tried(lambda: os.listdir(%r)))\n"
            "print('list', tried(lambda: os.listdir(os.environ['DROP'])))\n"
            "print('write', tried(lambda: open(os.path.join(os.environ['DROP'], 'x'), 'w')))\n"
            "print('token', 'KIT_EVIDENCE_TOKEN=' in open('/proc/1/environ').read())\n"
            "print('pid', os.getpid())\n" % (
                os.path.join(ROOT, "solutions", "lab1-kref", "kref.c"),
                os.path.join(ROOT, "tests", "lab1", "test_kref.c"),
                os.path.join(ROOT, "build", ".deps"), os.path.join(ROOT, "Makefile"), ROOT))
    r, _ = jailed(code)
    seen = dict(l.split(" ", 1) for l in r.out.splitlines() if " " in l)
    gone = "No such file or directory"
    ok = (seen.get("solutions") == seen.get("tests") == seen.get("build") == seen.get("kit")
          == gone and seen.get("root") == "ALLOWED" and seen.get("list") == "Permission denied"
          and seen.get("write") == "ALLOWED" and seen.get("token") == "False"
          and int(seen.get("pid", 0)) < 10)
    return ok, "solutions/, tests/, build/ and the kit not there, the drop writable but " \
        "unlistable, no token in any environment, own PID namespace" if ok else \
        "a wall is missing", r.out.splitlines()


def survivors():
    code = ("import os, time\n"
            "if os.fork() == 0:\n    time.sleep(300); os._exit(0)\n"
            "if os.fork() == 0:\n    os.setsid()\n"
            "    if os.fork() == 0:\n        time.sleep(300)\n    os._exit(0)\n"
            "print('left', flush=True)\n")
    marker = "time.sleep(300)"
    t0 = time.monotonic()
    r, _ = jailed(code)
    took = time.monotonic() - t0
    left = fixtures.processes_of(marker)
    zombies = jails_zombies()
    ok = not left and took < 5 and "left" in r.out and zombies == "0"
    return ok, "two escaped processes, none left after %.1f s; no zombie after 10 runs" \
        % took if ok else "left: %s after %.1f s; zombies after 10 runs: %s" % (
            left, took, zombies), []


# Ten jailed runs in a process of their own, then its zombie children: a
# jail's PID-namespace init must not stay one (sandbox.reap_namespace_inits).
ZOMBIES = ("import os\nfrom kit import proc, sandbox\n"
           "for _ in range(10):\n    with sandbox.Drop() as d:\n"
           "        proc.run(['/bin/true'], 30, jail=sandbox.Jail(d))\n"
           "print(len(sandbox.zombie_children()))\n")


def jails_zombies():
    """The count of zombie children left by ten jailed runs, as text."""
    r = proc.run([sys.executable, "-c", ZOMBIES], 120, env=proc.clean_env(),
                 cwd=os.path.join(ROOT, "tools"))
    return (r.tail(1) or ["no output"])[0].strip() if r.ok else r.status()


# Write 16 MiB at a time into a file of FOLDER until the file system is full.
TMPFS = ("import os\nf = open(os.path.join(%r, 'hog'), 'wb')\nn = 0\n"
         "try:\n    while n < 768:\n        f.write(b'x' * (16 << 20)); f.flush(); n += 16\n"
         "except OSError as e:\n    print('full at', n, 'MiB:', e.strerror)\n")
TMP_MIB = sandbox.limits.TMP_LIMIT


def _full(r):
    return int(r.out.split("full at", 1)[1].split()[0])


def limit_checks():
    lines, ok = [], True
    cases = [
        ("memory", "b = []\nwhile True:\n    b.append(bytearray(16 << 20))\n", dict(mem=128),
         lambda r: r.limit == "memory"),
        ("processes", "import os\nn = 0\nfor i in range(100):\n    try:\n"
         "        if os.fork() == 0:\n            import time; time.sleep(30); os._exit(0)\n"
         "    except OSError:\n        n += 1\nprint('refused', n)\n", dict(procs=20),
         lambda r: "refused" in r.out and int(r.out.split()[-1]) > 0 and r.refused > 0),
        ("CPU", "while True:\n    pass\n", dict(cpu=1), lambda r: r.limit == "CPU time"),
        ("output", "import sys\nfor i in range(32):\n    sys.stdout.write('x' * (1 << 20))\n",
         {}, lambda r: r.truncated > 24 << 20 and len(r.out) < 5 << 20),
        ("shared", "import mmap\nm = mmap.mmap(-1, 768 << 20, mmap.MAP_SHARED)\n"
         "for i in range(0, 768 << 20, 4096):\n    m[i] = 1\nprint('kept')\n", dict(mem=256),
         lambda r: r.limit == "memory" and "kept" not in r.out),
        ("/tmp", TMPFS % "/tmp", {}, lambda r: "full at" in r.out and _full(r) <= TMP_MIB),
        ("/dev/shm", TMPFS % "/dev/shm", {}, lambda r: "full at" in r.out and _full(r) <= TMP_MIB),
    ]
    for name, code, kw, good in cases:
        if name == "processes" and not sandbox.limits_processes():
            lines.append("processes: no pids cgroup here: not limited (documented)")
            continue
        if name.startswith("/") and sandbox.mode()[0] != "bwrap":
            lines.append("%s: no walls here: not a private tmpfs (documented)" % name)
            continue
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        r, _ = jailed(code, **kw)
        grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) >> 10
        this = good(r) and grew < 64
        ok &= this
        lines.append("%-9s %s: %s, %.1f s, grader grew %d MiB" % (
            name, "ok" if this else "WRONG", r.status(), r.seconds, grew))
    return ok, "memory (shared too), processes, CPU, output, /tmp and /dev/shm limited", lines


# --- the fixtures ----------------------------------------------------------------------

def verdict_lines(report, wanted):
    """The lines saying how each (part, verdict, text) of @wanted was met."""
    bad = []
    for name, verdict, text in wanted:
        p = fixtures.part(report, name)
        if p is None:
            bad.append("%s: not in the report" % name)
            continue
        blob = "\n".join([p["summary"]] + p["details"])
        if p["verdict"] != verdict or not any(t in blob for t in text.split("|")):
            bad.append("%s: expected %s %r, got %s: %s" % (name, verdict, text, p["verdict"],
                                                          blob[:300]))
    return bad


def fixture_check(fx, build):
    def check():
        try:
            impl = fixtures.tree(fx, build)
        except mutants.PatchError as e:
            return False, "NOT VALID: %s" % e, []
        bad, got, seen = [], [], []
        words = fx.fields.get("refused", [])
        if words:
            r, _ = fixtures.grade(fx, impl, build, ["--precheck"])
            seen.append(r.out)
            missing = [w for w in words if w not in r.out]
            if r.rc != 1 or missing:
                bad += ["pre-build check: expected REFUSED naming %s" % ", ".join(words)] + r.tail(6)
            got.append("REFUSED (%s)" % ", ".join(words))
        for key, extra in (("expect", []), ("sandboxed", ["--no-precheck"])):
            wanted = fx.expectations(key)
            if not wanted:
                continue
            parts = ",".join(w[0] for w in wanted)
            r, report = fixtures.grade(fx, impl, build, extra + ["--parts", parts])
            seen += [r.out, json.dumps(report)]
            if report is None:
                bad += ["%s: no report" % key] + r.tail(10)
                continue
            bad += verdict_lines(report, wanted)
            got.append("%s%s" % ("sandboxed: " if extra else "", ", ".join(
                "%s %s" % (w[0], w[1]) for w in wanted)))
            peak = fx.field("grader-memory")
            if peak and report.get("grader_peak_mib", 1 << 30) > int(peak):
                bad.append("the grader held %s MiB (at most %s)" % (report["grader_peak_mib"], peak))
        for text in fx.fields.get("unseen", []):
            if any(text in s for s in seen):
                bad.append("%r reached the output or the report" % text)
        for path in fx.fields.get("untouched", []):
            full = os.path.join(ROOT, path)
            if os.path.exists(full):
                os.remove(full)
                if sandbox.mode()[0] == "bwrap":
                    bad.append("%s was written by the code under test" % path)
        if fx.field("survivors") == "none":
            left = fixtures.processes_of(impl.replace("/", "_"))
            if left:
                bad.append("processes left behind: %s" % left)
                for p in left:
                    try:
                        os.kill(p, 9)
                    except OSError:
                        pass
        return not bad, "; ".join(got) if not bad else "WRONG", bad + fx.about
    return check


# --- the students' tree and the platforms -----------------------------------------

_dist = []


def dist_tree(build):
    """BUILD/check-grader/dist: the students' tree, made once per run; (its
    path, its BUILD), or raises with why not.  Its BUILD is seeded with the
    kit's objects and with those of the skeletons (labs/): the tree's files
    are copies with the same times (same_times()), so make rebuilds exactly
    what differs; a file the builds read and the tree lacks is named by
    unshipped()."""
    dest = os.path.join(ROOT, build, "check-grader", "dist")
    tree, tbuild = os.path.join(dest, "kit"), os.path.join(dest, "build")
    if not _dist:
        shutil.rmtree(dest, ignore_errors=True)
        r = run([sys.executable, "tools/dist_student.py", "--dest", tree, "--no-grade"], ROOT)
        if r.rc != 0:
            raise RuntimeError("dist_student.py failed: %s" % r.out[-500:])
        seed(build, tbuild)
        same_times(tree)
        skeletons = os.path.join(ROOT, build, "labs")
        if os.path.isdir(skeletons):
            shutil.copytree(skeletons, os.path.join(tbuild, "labs"), symlinks=True)
        _dist.append(dest)
    return tree, tbuild


def dist_student(build):
    def check():
        try:
            tree, tbuild = dist_tree(build)
        except RuntimeError as e:
            return False, str(e), []
        bad = []
        for rel in ("solutions", "tests/mutants", "tests/grader", "docs/instructor.md",
                    "tools/autograder"):
            if os.path.exists(os.path.join(tree, rel)):
                bad.append("%s is in the students' tree" % rel)
        built = run(["make", "-j2"] + ["build-lab-%d" % lab.n for lab in layout.labs(build=build)]
                    + ["BUILD=" + tbuild], tree)
        if built.rc != 0:
            bad += ["make build-lab-N does not build every lab"] + built.tail(15)
        bad += ["%s differs from the kit's skeleton" % f for f in skeleton_copies(tree)]
        bad += ["%s is not in the students' tree, and the labs' builds read it" % f
                for f in unshipped(tree, tbuild, build)]
        r = run(["make", "grade", "PARTS=unit-plain", "BUILD=" + tbuild], tree)
        try:
            with open(os.path.join(tbuild, "grade", "results.json")) as f:
                report = json.load(f)
        except (OSError, ValueError):
            return False, "make grade wrote no report", r.tail(20)
        if report["kit"]["state"] != "intact":
            bad.append("integrity: " + report["kit"]["what"])
        for lab in report["labs"]:
            unbuilt = [p["name"] for p in lab["parts"] if "does not build" in p["summary"]]
            if unbuilt or lab["score"] >= lab["max_score"]:
                bad.append("lab-%d: score %d/%d%s" % (lab["lab"], lab["score"], lab["max_score"],
                                                      ", does not build: %s" % unbuilt if unbuilt else ""))
        if r.rc == 0:
            bad.append("make grade exited 0 on the skeletons")
        bad += tampered(tree, tbuild)
        detail = "%d labs build, unit-plain %d/%d; %s" % (len(report["labs"]), report["score"],
                                                    report["max_score"], report["kit"]["what"][:60])
        return not bad, detail, bad
    return check


def same_times(tree):
    """Give each file of labs/ in the students' tree @tree that is the
    kit's byte for byte the kit's time: dist_student.py writes them anew
    from git, and the seeded objects, built from those bytes, would all be
    compiled again."""
    for d, _, files in os.walk(os.path.join(tree, "labs")):
        for f in files:
            mine = os.path.join(d, f)
            kit = os.path.join(ROOT, os.path.relpath(mine, tree))
            try:
                with open(mine, "rb") as a, open(kit, "rb") as b:
                    if a.read() != b.read():
                        continue
                st = os.stat(kit)
            except OSError:
                continue
            os.utime(mine, ns=(st.st_atime_ns, st.st_mtime_ns))


def unshipped(tree, tbuild, build):
    """The files of the kit that the labs' builds read (their dependency
    files, seeded from @build and named from the kit's root) and that tree
    @tree lacks: with the seeded objects up to date nothing compiles, so
    no compiler would say so."""
    missing = set()
    for top in ("labs", "_kit"):
        for d, _, files in os.walk(os.path.join(tbuild, top)):
            for f in files:
                if not f.endswith(".d"):
                    continue
                with open(os.path.join(d, f)) as rule:
                    text = rule.read().replace("\\\n", " ")
                for dep in text.split():        # a target ends with ':'
                    if not dep.endswith(":") and not os.path.isabs(dep) and \
                            not dep.startswith(build.rstrip("/") + "/") and \
                            not os.path.exists(os.path.join(tree, dep)):
                        missing.add(dep)
    return sorted(missing)


def skeleton_copies(tree):
    """The files of labs/ in the students' tree @tree that are not byte for
    byte the kit's: the skeleton rows grade every part of the kit's
    skeletons (lab-N: skeleton fails every graded part), and what they
    found holds for copies; the tree's own grade then needs one part."""
    differ = []
    for d, _, files in os.walk(os.path.join(tree, "labs")):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), tree)
            kit = os.path.join(ROOT, rel)
            with open(os.path.join(d, f), "rb") as mine:
                if not os.path.exists(kit) or open(kit, "rb").read() != mine.read():
                    differ.append(rel)
    return differ


def tampered(tree, tbuild):
    """A changed test and an added one are named by the next grade."""
    test = os.path.join(tree, "tests", "lab2", "test_refcount.c")
    added = os.path.join(tree, "tests", "lab2", "test_zz_added.c")
    keep = open(test).read()
    try:
        with open(test, "a") as f:
            f.write("/* changed */\n")
        with open(added, "w") as f:
            f.write("/* added */\n")
        r = run([sys.executable, "tools/grade.py", "--lab", "2", "--build-root", tbuild,
                 "--parts", "unit-plain"], tree)
    finally:
        with open(test, "w") as f:
            f.write(keep)
        os.remove(added)
    line = next((l for l in r.out.splitlines() if l.startswith("kit:")), "")
    if "tests/lab2/test_refcount.c (changed)" in line and "test_zz_added.c (added)" in line:
        return []
    return ["a changed and an added test are not named: " + line]


def gradescope(build):
    def check():
        ag = work(build, "autograder")
        z = os.path.join(ag, "autograder.zip")
        r = run([sys.executable, "tools/autograder/gradescope.py", "zip", "--out", z,
                 "--extra-tests", "tests/grader/hidden", "--no-grade"], ROOT)
        if r.rc != 0:
            return False, "gradescope.py zip failed", r.tail(10)
        source = os.path.join(ag, "source")
        with zipfile.ZipFile(z) as f:
            names = f.namelist()
            for info in f.infolist():          # as unzip does: modes and times kept
                path = f.extract(info, source)
                os.chmod(path, info.external_attr >> 16 or 0o644)
                t = time.mktime(info.date_time + (0, 0, -1))
                os.utime(path, (t, t))
        bad = [n for n in ("setup.sh", "run_autograder", "kit/KIT.sha256",
                           "hidden/lab2/test_hidden.c") if n not in names]
        bad += [n for n in names if n.startswith(("kit/solutions/", "kit/tests/grader/"))]
        seed(build, os.path.join(ag, "build"))
        env = dict(AUTOGRADER_ROOT=ag)
        r = run(["bash", os.path.join(source, "setup.sh")], ag, **env)
        if r.rc != 0:
            return False, "setup.sh failed", r.tail(10)
        os.makedirs(os.path.join(ag, "submission", "my-work"))
        shutil.copy(os.path.join(ROOT, "solutions", "lab2-refcount", "refcount.c"),
                    os.path.join(ag, "submission", "my-work"))
        shutil.copy2(os.path.join(source, "run_autograder"), os.path.join(ag, "run_autograder"))
        # one assignment per lab: lab 4 edits a refcount.c too
        r = run([os.path.join(ag, "run_autograder")], ag, GRADE_LABS="2", **env)
        try:
            with open(os.path.join(ag, "results", "results.json")) as f:
                res = json.load(f)
        except (OSError, ValueError):
            return False, "no results/results.json", r.tail(20)
        lab2 = layout.lab(2, build=build)
        tests = {t["name"]: t for t in res.get("tests", [])}
        solved = layout.lab(2, impl="solutions", build=build)
        solved.make([solved.bins["unit-plain"]])
        declared = unit_tests(solved.bins["unit-plain"])
        plain = [n for n in tests if n.startswith("lab 2 unit-plain: ")]
        if res.get("score") != sum(lab2.points.values()) or len(plain) != declared + 1:
            bad.append("score %s, %d unit-plain tests (the kit's %d and the hidden one): %s"
                       % (res.get("score"), len(plain), declared, sorted(tests)[:8]))
        if "lab 2 unit-plain: hidden::get_rcu_returns_the_count_it_found" not in tests:
            bad.append("the hidden test is not a test of its own")
        if abs(sum(t["max_score"] for t in tests.values()) - sum(lab2.points.values())) > 0.01:
            bad.append("the tests' max_score add up to %s" % sum(
                t["max_score"] for t in tests.values()))
        bad += flat_upload(ag, env)
        return not bad, "score %s/%d, %d tests (one per item), hidden test counted; a flat " \
            "upload's unused files named" % (res.get("score"), sum(lab2.points.values()),
                                           len(tests)), bad
    return check


def flat_upload(ag, env):
    """A flat upload -- refcount.c (labs 2 and 4 both have one), notes.txt
    and lab 1's kref.c -- gets a visible test naming the two files it did
    not use, and no string the student sees holds a path of the grader's."""
    sub = os.path.join(ag, "submission")
    shutil.rmtree(sub)
    os.makedirs(sub)
    shutil.copy(os.path.join(ROOT, "solutions", "lab2-refcount", "refcount.c"), sub)
    shutil.copy(os.path.join(ROOT, "solutions", "lab1-kref", "kref.c"), sub)
    with open(os.path.join(sub, "notes.txt"), "w") as f:
        f.write("my notes\n")
    r = run([os.path.join(ag, "run_autograder")], ag, **env)
    try:
        with open(os.path.join(ag, "results", "results.json")) as f:
            res = json.load(f)
    except (OSError, ValueError):
        return ["flat upload: no results.json"] + r.tail(10)
    bad = []
    unused = next((t for t in res.get("tests", []) if t["name"] == "Uploaded files not used"), {})
    text = unused.get("output", "")
    if unused.get("visibility") != "visible" or "`refcount.c`: ambiguous" not in text or \
            "lab2-refcount/refcount.c" not in text or "`notes.txt`" not in text:
        bad.append("flat upload: no visible test naming refcount.c (ambiguous) and "
                   "notes.txt: %s" % text[:300])
    seen = json.dumps({k: v for k, v in res.items() if k != "extra_data"})
    for leak in (ag, "submission-", "/tmp/"):
        if leak in seen:
            at = seen.index(leak)
            bad.append("flat upload: results.json shows %r: ...%s..." % (leak, seen[at - 80:at + 40]))
    if "sandbox:" in res.get("output", "") or "KIT.sha256" in res.get("output", ""):
        bad.append("flat upload: the top-level output is the grader's, not the student's")
    return bad


def unit_tests(binary):
    """How many tests the Criterion binary @binary declares (--list)."""
    r = proc.run([binary, "--list"], 30)
    return sum(int(m) for m in re.findall(r"^\S+: (\d+) tests?$", r.out, re.M))


def classroom(build):
    def check():
        try:
            tree, tbuild = dist_tree(build)
        except RuntimeError as e:
            return False, str(e), []
        sys.path.insert(0, os.path.join(ROOT, "tools", "autograder"))
        import github_classroom
        r = run([sys.executable, "tools/autograder/github_classroom.py"], ROOT)
        steps = re.findall(r"- name: lab-(\d+) (\S+)\n\s+id: (\S+)\n.*?\n\s+command: (.*?)\n"
                           r".*?max-score: (\d+)", r.out, re.S)
        labs = layout.labs(build=build)
        bad = []
        want = [(str(l.n), p, str(v)) for l in labs for p, v in l.points.items()]
        if [(s[0], s[1], s[4]) for s in steps] != want:
            bad.append("steps %s, the manifests' parts %s" % (
                [(s[0], s[1], s[4]) for s in steps][:6], want[:6]))
        step = next((s[3] for s in steps if s[0] == "2" and s[1] == "unit-plain"), "")
        mine = os.path.join(tree, "labs", "lab2-refcount", "refcount.c")
        keep = os.path.join(os.path.dirname(tree), "refcount.c.skeleton")
        shutil.copy2(mine, keep)
        try:
            shutil.copy(os.path.join(ROOT, "solutions", "lab2-refcount", "refcount.c"), mine)
            r2 = run(["bash", "-c", step], tree, BUILD=tbuild)
        finally:
            shutil.copy2(keep, mine)
        if r2.rc != 0:
            bad += ["the lab-2 unit-plain step (%s) failed on the solution" % step] + r2.tail(15)
        bad += changed_labs(build, github_classroom.changed_script(labs), labs)
        return not bad, "%d steps, one per part; the lab-2 unit-plain step passes the " \
            "solution; a push grades the labs it changed, a tag all" % len(steps), bad
    return check


def changed_labs(build, script, labs):
    """The "changed" step's script, in a git repository where a push
    changed lab 2 only: it names lab 2 and its parts' runners; a tag (and
    a run by hand) names every lab."""
    repo = work(build, "classroom-git")
    git = ["git", "-C", repo, "-c", "user.name=check", "-c", "user.email=check@localhost"]
    for l in labs:
        os.makedirs(os.path.join(repo, "labs", l.folder))
        with open(os.path.join(repo, "labs", l.folder, "x.c"), "w") as f:
            f.write("/* %d */\n" % l.n)
    run(["git", "init", "-q", repo], repo)
    run(git + ["add", "-A"], repo)
    run(git + ["commit", "-qm", "one"], repo)
    before = run(git + ["rev-parse", "HEAD"], repo).out.strip()
    with open(os.path.join(repo, "labs", labs[1].folder, "x.c"), "a") as f:
        f.write("/* changed */\n")
    run(git + ["commit", "-qam", "two"], repo)
    bad = []
    for env, want in ((dict(EVENT="push", REF_TYPE="branch", BEFORE=before), [labs[1]]),
                      (dict(EVENT="push", REF_TYPE="tag", BEFORE=before), labs),
                      (dict(EVENT="workflow_dispatch", REF_TYPE="branch", BEFORE=""), labs)):
        out = os.path.join(repo, "output")
        open(out, "w").close()
        r = run(["bash", "-c", script], repo, GITHUB_OUTPUT=out, **env)
        got = dict(l.split("=", 1) for l in open(out).read().splitlines() if "=" in l)
        runners = ",".join("lab-%d-%s" % (l.n, p) for l in want for p in l.points)
        if got.get("labs", "").split() != [str(l.n) for l in want] or \
                got.get("runners") != runners:
            bad.append("changed (%s): %s, expected labs %s" % (env, got, [l.n for l in want]))
            bad += r.tail(5)
    return bad


def grade_all(build):
    def check():
        subs = work(build, "submissions")
        out = work(build, "grade-all")
        sol = os.path.join(subs, "alice-solution", "labs", "lab2-refcount")
        os.makedirs(sol)
        shutil.copy(os.path.join(ROOT, "solutions", "lab2-refcount", "refcount.c"), sol)
        skel = os.path.join(subs, "bob-skeleton", "lab2-refcount")
        os.makedirs(skel)
        shutil.copy(os.path.join(ROOT, "labs", "lab2-refcount", "refcount.c"), skel)
        for name in ("exit-in-get", "fake-synthesis", "forge-evidence", "asm-pasted"):
            tree = mutants.patched(fixtures.Fixture(name).path,
                                   fixtures.Fixture(name).base, os.path.join(subs, "carol-" + name))
            shutil.rmtree(os.path.join(tree, "lab2-refcount"), ignore_errors=True)
            shutil.rmtree(os.path.join(tree, "lab3-rcu-free"), ignore_errors=True)
        os.makedirs(os.path.join(subs, "dave-empty"))
        marker = out
        r = run([sys.executable, "tools/grade_all.py", "--submissions", subs, "--jobs", "2",
                 "--labs", "1 2", "--build-root", build, "--out", out], ROOT)
        with open(os.path.join(out, "results.csv")) as f:
            rows = {row["submission"]: row for row in csv.DictReader(f)}
        want = {"alice-solution": ("100", "lab2", "100"), "bob-skeleton": ("0", "lab2", "0"),
                "carol-exit-in-get": ("0", "verdicts", "lab1 unit-plain REFUSED"),
                "carol-fake-synthesis": ("0", "verdicts", "lab1 unit-plain REFUSED"),
                "carol-forge-evidence": ("0", "verdicts", "lab1 unit-plain SUSPECT"),
                "carol-asm-pasted": ("0", "verdicts", "lab1 unit-plain REFUSED"),
                "dave-empty": ("0", "verdicts", "lab1 missing")}
        bad = []
        for name, (score, col, text) in want.items():
            row = rows.get(name, {})
            if row.get("score") != score or text not in row.get(col, ""):
                bad.append("%s: expected score %s and %r in %s, got %s" % (name, score, text,
                                                                           col, row))
        left = fixtures.processes_of(marker)
        if left:
            bad.append("processes left behind: %s" % left)
        if r.rc != 0:
            bad += ["grade_all.py exited %s" % r.rc] + r.tail(10)
        return not bad, "%d submissions, the right CSV, no process left" % len(rows), \
            bad + (r.tail(12) if bad else [])
    return check


def group(name):
    """The group of row @name for a parallel make check (tools/check.py):
    the rows that use the students' tree, made once per run and changed
    for a while by each, run one after the other."""
    return "dist" if name.startswith(("grader: dist-student", "grader: GitHub Classroom")) \
        else None


def rows(build):
    """[(name, check, show)]: the grader's rows of make check."""
    found = [("grader: sandbox walls", walls, False),
             ("grader: sandbox leaves no process behind", survivors, False),
             ("grader: sandbox limits", limit_checks, True)]
    if os.path.isdir(fixtures.FOLDER):
        found += [("grader: fixture '%s'" % fx, fixture_check(fx, build), False)
                  for fx in fixtures.catalogue()]
    if os.path.isdir(os.path.join(ROOT, "solutions")):
        found += [("grader: dist-student builds, skeletons fail, KIT.sha256", dist_student(build), False),
                  ("grader: Gradescope layout, hidden tests, solutions", gradescope(build), False),
                  ("grader: GitHub Classroom workflow, solutions", classroom(build), False),
                  ("grader: grade-all JOBS=2, CSV, no process left", grade_all(build), False)]
        found += check_feedback.rows(build)
    return found
