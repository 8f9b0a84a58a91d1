"""check_feedback.py - make check's rows for what a grade tells a student
(issue: grades a student can learn from).  tools/check_grader.py adds
rows(); each is (name, check, show), check() returning (ok, detail, lines).

  half-done     lab 1 with kref.c alone solved scores its passing tests, and
                the tsan and race parts give their own verdicts; lab 5
                with half of fdtable.c scores more than 0
  order         the untouched lab 1: its failures in the handout's order,
                counted in tests, the rest in report.txt, the schedule file
                "not written yet", score 0
  reports       JUnit against kit.junit's schema, a testcase per item;
                results.json's items; make hint-N from the last grade
  watch         make watch-N's progress line
  students      make help in three sections, the README's quick start
                without make check and its table of labs as generated;
                quiet builds (V=1 shows the commands); make demo's folder
  manifests     a '"' and a '\\' in a lab title: the tools still read it
                and the lab grades (in the students' tree of check_grader)
  dist-student  a solved file in the working tree is not shipped; a
                committed one is refused
Each fixture is a tree built here from labs/ and solutions/ (no copy of
a solution is kept in tests/).  Standard library only.
"""
import json
import os
import re
import shutil
import subprocess
import sys

from kit import ROOT, junit, layout, proc
import check_grader


def work(build, name):
    return check_grader.work(build, os.path.join("feedback", name))


def tree(build, name, folder, files):
    """BUILD/check-grader/feedback/NAME/tree/<folder>/: the skeleton of
    @folder with @files ({name: text}) written over it; its path (IMPL)."""
    impl = os.path.join(work(build, name), "tree")
    shutil.copytree(os.path.join(ROOT, "labs", folder), os.path.join(impl, folder))
    for f, text in files.items():
        with open(os.path.join(impl, folder, f), "w") as out:
            out.write(text)
    return impl


def solved(folder, f):
    with open(os.path.join(ROOT, "solutions", folder, f)) as src:
        return src.read()


def grade(build, impl, lab, *args):
    """tools/grade.py on @impl: (Result, results.json as a dict or None,
    report folder)."""
    report = os.path.join(os.path.dirname(impl), "report")
    r = proc.run([sys.executable, os.path.join(ROOT, "tools", "grade.py"), "--lab", str(lab),
                  "--impl", impl, "--build-root", build, "--build", "--report-dir", report]
                 + list(args), 900, env=proc.clean_env(), cpu=0)
    try:
        with open(os.path.join(report, "results.json")) as f:
            return r, json.load(f), report
    except (OSError, ValueError):
        return r, None, report


def parts(report):
    return {p["name"]: p for p in report["labs"][0]["parts"]}


# --- a student half way ------------------------------------------------------------

def half_lab1(build):
    def check():
        impl = tree(build, "lab1-half", "lab1-kref", {"kref.c": solved("lab1-kref", "kref.c")})
        r, report, folder = grade(build, impl, 1)
        if report is None:
            return False, "no report", r.tail(20)
        ps, bad = parts(report), []
        unit = ps["unit-plain"]
        if not 0 < unit["points"] < unit["max_points"]:
            bad.append("unit-plain scores %s/%s" % (unit["points"], unit["max_points"]))
        for name in ("tsan", "race"):
            if ps[name]["verdict"] == "SKIPPED" or not ps[name]["items"]:
                bad.append("%s: %s, no verdict of its own" % (name, ps[name]["verdict"]))
            elif "unit tests fail" not in ps[name]["note"]:
                bad.append("%s does not say it depends on the unit tests" % name)
        if re.search(r"\[SKIP\]|Test is disabled|\bSKIPPED\b", r.out):
            bad.append("the grade prints skipped parts or tests")
        if "sandbox:" in r.out or "git HEAD" in r.out.split("lab-1 (")[0].replace(
                "differ from git HEAD", ""):
            bad.append("the sandbox's or the kit's line reaches the student")
        with open(os.path.join(folder, "junit.xml")) as f:
            problems = junit.check(f.read())
        n = sum(len(p["items"]) for p in ps.values())
        with open(os.path.join(folder, "junit.xml")) as f:
            cases = f.read().count("<testcase ")
        if problems or cases != n:
            bad += ["junit.xml: %d testcases for %d items" % (cases, n)] + problems[:5]
        hint = proc.run([sys.executable, os.path.join(ROOT, "tools", "student.py"), "hint",
                         "--lab", "1", "--impl", impl, "--build-root", build,
                         "--grade-dir", folder], 60, env=proc.clean_env())
        if "cache::lookup_takes_a_reference (unit-plain): Find the key" not in hint.out:
            bad += ["make hint-1 does not give the failing test's hint"] + hint.tail(5)
        return not bad, "score %s/100: unit-plain %s/%s, tsan %s, race %s; junit valid, " \
            "%d testcases" % (report["score"], unit["points"], unit["max_points"],
                              ps["tsan"]["verdict"], ps["race"]["verdict"], cases), \
            bad + (r.tail(30) if bad else [])
    return check


def half_lab5(build):
    def check():
        mine = solved("lab5-fdtable", "fdtable.c")
        with open(os.path.join(ROOT, "labs", "lab5-fdtable", "fdtable.c")) as f:
            skeleton = f.read()
        cut = "int dup2_fd(struct files_struct *files"
        half = mine[:mine.index(cut)] + skeleton[skeleton.index(cut):]
        impl = tree(build, "lab5-half", "lab5-fdtable", {"fdtable.c": half})
        r, report, _ = grade(build, impl, 5, "--parts", "unit-plain,unit-asan")
        if report is None:
            return False, "no report", r.tail(20)
        unit = parts(report)["unit-plain"]
        ok = 0 < report["score"] < 100 and unit["verdict"] == "FAIL"
        passed = sum(i["verdict"] == "PASS" for i in unit["items"])
        return ok, "fdtable.c up to close_fd solved: %s points, unit-plain %d/%d tests" % (
            report["score"], passed, len(unit["items"])), [] if ok else r.tail(30)
    return check


def skeleton_order(build):
    def check():
        impl = tree(build, "lab1-skeleton", "lab1-kref", {})
        r, report, folder = grade(build, impl, 1)
        if report is None:
            return False, "no report", r.tail(20)
        bad = []
        section = r.out.split("\nunit-plain: ")[1].split("\n\n")[0] if "\nunit-plain: " in r.out \
            else ""
        fails = re.findall(r"^    \[\w+\] (\S+): ", section, re.M)
        if not fails or not fails[0].startswith("kref::"):
            bad.append("unit-plain's failures do not start with kref:: (the handout's "
                       "order): %s" % fails[:3])
        more = re.search(r"\.\.\. (\d+) more failing tests: see (\S+)", section)
        total = sum(i["verdict"] != "PASS" for i in parts(report)["unit-plain"]["items"])
        if not more or int(more.group(1)) + len(fails) != total or \
                not os.path.exists(more.group(2)):
            bad.append("no '... N more failing tests: see FILE' counting tests (%d failing, "
                       "%d shown)" % (total, len(fails)))
        else:
            with open(more.group(2)) as f:
                listed = len(re.findall(r"^    \[\w+\] ", f.read().split("\nunit-asan")[0],
                                        re.M))
            if listed != total:
                bad.append("%s lists %d of the %d failing tests" % (more.group(2), listed, total))
        race = parts(report)["race"]["items"]
        if not race or race[0]["name"] != "race.sched" or "not written yet" not in race[0]["why"]:
            bad.append("the race part does not start with race.sched 'not written yet'")
        if report["score"] != 0:
            bad.append("the skeleton scores %s" % report["score"])
        return not bad, "score 0, kref:: first, '... %s more failing tests: see report.txt', " \
            "race.sched not written yet" % (more.group(1) if more else "?"), bad + r.tail(20)
    return check


def watch(build):
    def check():
        impl = os.path.join(ROOT, build, "check-grader", "feedback", "lab1-half", "tree")
        if not os.path.isdir(impl):
            impl = tree(build, "lab1-half", "lab1-kref",
                        {"kref.c": solved("lab1-kref", "kref.c")})
        r = proc.run([sys.executable, os.path.join(ROOT, "tools", "student.py"), "watch",
                      "--lab", "1", "--impl", impl, "--build-root", build, "--rounds", "1"],
                     600, env=proc.clean_env(), cpu=0)
        line = next((l for l in r.out.splitlines() if "start:" in l), "")
        want = re.search(r"unit-plain 8/13 \u00b7 tsan \d/2 \u00b7 race \d/5 \u00b7 "
                         r"race\.sched not written yet", line)
        return bool(want and r.rc == 0), line.strip()[:110], [] if want else r.tail(10)
    return check


# --- the students' face -------------------------------------------------------------

def ci_commands():
    """What the README must show of .ci/run's last line: its first two
    commands as one (make deps && make check), then each later one (make
    check-catalogues), as CI runs them."""
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        line = [l for l in f.read().splitlines() if l.strip()][-1]
    cmds = [c.strip() for c in line.split("&&")]
    return [" && ".join(cmds[:2])] + cmds[2:]


def faces(build):
    def check():
        bad = []
        r = proc.run(["make", "-s", "help"], 60, env=proc.clean_env())
        heads = [l for l in r.out.splitlines() if l and not l.startswith(" ")]
        if [h.split()[0] for h in heads[:3]] != ["Students", "Instructors", "Developing"]:
            bad.append("make help's sections: %s" % heads[:4])
        student = r.out.split("Instructors")[0]
        for target in ("make lab-N", "make test-N", "make hint-N", "make watch-N",
                       "make race-N"):
            if target not in student:
                bad.append("%s is not in the students' section" % target)
        if "make check" in student:
            bad.append("make check is in the students' section")
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        quick = readme.split("## Developing the kit")[0]
        if "make check" in quick:
            bad.append("the README shows make check before 'Developing the kit'")
        for cmd in ci_commands():
            if cmd not in readme:
                bad.append("the README lost CI's command %r (.ci/run)" % cmd)
        table = layout.readme_table(layout.labs(build=build))
        if table not in readme:
            bad.append("the README's table of labs is not the generated one: "
                       "PYTHONPATH=tools python3 -m kit.layout --readme-table")
        return not bad, "help in 3 sections, README quick start, labs table as generated", bad
    return check


def quiet(build):
    def check():
        scratch = os.path.join(ROOT, build, "check-grader", "quiet")
        seeded = check_grader.seed(build, scratch)
        obj = os.path.join(seeded, "common", "plain", "common", "bug.o")
        outs = []
        for v in ("", "1"):
            if os.path.exists(obj):
                os.remove(obj)
            r = proc.make([obj], build=seeded, extra=["V=" + v] if v else [])
            outs.append((r, r.out.rstrip().splitlines()))
        (q, ql), (v, vl) = outs
        ok = q.ok and v.ok and ql == ["  CC      %s" % obj] and len(vl) == 1 and \
            " -c common/bug.c -o " in vl[0]
        return ok, "quiet: one '  CC' line; V=1: the command", [] if ok else ql + vl
    return check


def demo_folder(build):
    def check():
        races = os.path.join(ROOT, build, "races", "lab1-lookup_unlocked_vs_remove.sched")
        before = os.path.getmtime(races) if os.path.exists(races) else None
        r = proc.run([sys.executable, os.path.join(ROOT, "tools", "demo.py"), "--build-root",
                      build], 600, env=proc.clean_env(), cpu=0)
        after = os.path.getmtime(races) if os.path.exists(races) else None
        mine = os.path.join(build, "demo", "lab1-lookup_unlocked_vs_remove.sched")
        ok = r.ok and before == after and mine in r.out and "the value before it" in r.out
        return ok, "make demo writes %s, not build/races/; its timeline says what = v is" \
            % mine, [] if ok else r.tail(15)
    return check


# --- manifests and the students' tree ----------------------------------------------

def quoted_title(build):
    def check():
        try:
            tree_, tbuild = check_grader.dist_tree(build)
        except RuntimeError as e:
            return False, str(e), []
        mk = os.path.join(tree_, "labs", "lab1-kref", "lab.mk")
        with open(mk) as f:
            keep = f.read()
        title = 'kref "and" its race \\ (50% done)'
        try:
            with open(mk, "w") as f:
                f.write(re.sub(r"(?m)^lab\.title\s*:=.*$", "lab.title     := " + title, keep))
            r = check_grader.run([sys.executable, "tools/grade.py", "--lab", "1", "--build-root",
                                  tbuild, "--build", "--parts", "unit-plain", "--report-dir",
                                  os.path.join(tbuild, "quoted")], tree_)
            try:
                with open(os.path.join(tbuild, "quoted", "results.json")) as f:
                    report = json.load(f)
            except (OSError, ValueError):
                report = None
        finally:
            with open(mk, "w") as f:
                f.write(keep)
        ok = report is not None and report["labs"][0]["title"] == title
        return ok, "a lab titled %s grades (%s)" % (title, "score %s" % report["score"]
                                                    if report else "no report"), \
            [] if ok else r.tail(10)
    return check


def dist_solved(build):
    def check():
        clone = work(build, "dist-clone")
        git = ["git", "-c", "user.name=check", "-c", "user.email=check@localhost"]
        r = subprocess.run(["git", "clone", "-q", ROOT, clone], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode:
            return False, "git clone failed", r.stdout.splitlines()[-5:]
        for d, _, files in os.walk(clone):     # older than the seeded objects
            for f in files:
                os.utime(os.path.join(d, f), (0, 0))
        mine = os.path.join(clone, "labs", "lab1-kref", "kref.c")
        with open(mine, "w") as f:
            f.write(solved("lab1-kref", "kref.c"))
        check_grader.seed(build, os.path.join(clone, "build"))
        bad = []
        r = check_grader.run([sys.executable, "tools/dist_student.py", "--dest", "build/d1",
                              "--no-grade"], clone)
        shipped = os.path.join(clone, "build", "d1", "labs", "lab1-kref", "kref.c")
        with open(os.path.join(ROOT, "labs", "lab1-kref", "kref.c")) as f:
            skeleton = f.read()
        if r.rc != 0 or not os.path.exists(shipped) or open(shipped).read() != skeleton:
            bad.append("a solved kref.c in the working tree: the skeleton was not shipped")
        if "labs/lab1-kref/kref.c: your working copy differs" not in r.out:
            bad.append("the solved kref.c is not named")
        subprocess.run(git + ["-C", clone, "commit", "-qam", "solved"], stdout=subprocess.PIPE)
        r2 = check_grader.run([sys.executable, "tools/dist_student.py", "--dest", "build/d2"],
                              clone)
        if r2.rc == 0 or "lab-1" not in r2.out or os.path.exists(
                os.path.join(clone, "build", "d2")):
            bad += ["a committed solved kref.c was shipped"] + r2.tail(5)
        shutil.rmtree(clone, ignore_errors=True)
        return not bad, "working-tree solution: skeleton shipped and named; committed " \
            "solution: refused (%s)" % (r2.tail(1) or [""])[0][:60], bad + r.tail(5)
    return check


def unit_tests():
    """tests/feedback/test_feedback.py: the readings on fixed inputs."""
    def check():
        r = proc.run([sys.executable, os.path.join(ROOT, "tests", "feedback", "test_feedback.py")],
                     120, env=proc.clean_env())
        return r.ok, (r.tail(1) or [r.status()])[0], r.tail(25)
    return check


def asserted():
    """Every cr_assert of the labs listed has a message of its own."""
    def check():
        import glob
        from kit import testsrc
        bad, counts = [], {}
        for n in sorted(os.listdir(os.path.join(ROOT, "tests"))):
            if not re.match(r"^lab\d+$", n):
                continue
            found = sum((testsrc.unasserted(p) for p in sorted(
                glob.glob(os.path.join(ROOT, "tests", n, "*.c")))), [])
            counts[n] = len(found)
            if n in MESSAGED:
                bad += [os.path.relpath(l, ROOT) for l in found]
        return not bad, "without a message: %s (must be 0: %s)" % (
            ", ".join("%s %d" % kv for kv in sorted(counts.items())), ", ".join(MESSAGED)), bad
    return check


def hinted():
    """Every test declared in tests/labN/ has a hint (make hint-N shows it
    when the test fails)."""
    def check():
        import glob
        from kit import testsrc
        bad, counts = [], []
        for n in sorted(os.listdir(os.path.join(ROOT, "tests"))):
            if not re.match(r"^lab\d+$", n):
                continue
            found = tests = 0
            for p in sorted(glob.glob(os.path.join(ROOT, "tests", n, "*.c"))):
                missing = testsrc.unhinted(p)
                tests += len(testsrc.scan(p))
                found += len(missing)
                bad += [os.path.relpath(l, ROOT) for l in missing]
            counts.append("%s %d/%d" % (n, tests - found, tests))
        return not bad, "tests with a hint: %s" % ", ".join(counts), bad
    return check


# The labs whose every assertion must have its author's message (a lab
# left out would show Criterion's "The expression ... is false.").
MESSAGED = ("lab1", "lab2", "lab3", "lab4", "lab5", "lab6")


def rows(build):
    """[(name, check, show)]."""
    return [("feedback: grades read on fixed inputs (test_feedback.py)", unit_tests(), False),
            ("feedback: a message on every cr_assert", asserted(), True),
            ("feedback: a hint on every test (make hint-N)", hinted(), True),
            ("feedback: lab 1, kref.c alone solved: points, tsan and race verdicts",
             half_lab1(build), False),
            ("feedback: lab 5, half of fdtable.c solved: more than 0", half_lab5(build), False),
            ("feedback: lab 1 skeleton: handout's order, counted, report.txt", 
             skeleton_order(build), False),
            ("feedback: make watch-1's progress line", watch(build), False),
            ("feedback: make help, README quick start and labs table", faces(build), False),
            ("feedback: quiet builds, V=1 shows commands", quiet(build), False),
            ("feedback: make demo writes to its own folder", demo_folder(build), False),
            ("feedback: a quote in a lab title grades", quoted_title(build), False),
            ("feedback: dist-student ships committed skeletons only", dist_solved(build), False)]
