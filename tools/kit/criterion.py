"""kit.criterion - a Criterion binary's results, from evidence it cannot forge.

run() starts the binary in a jail (kit.sandbox) with two files in the
jail's drop, under names no one else knows:

  --json=REPORT    Criterion's machine-readable report: per test a status
                   (PASSED, FAILED, ERRORED for a crash or a timeout) and
                   the messages of its failed assertions
  KIT_EVIDENCE     the kit's own lines (tests/criterion_evidence.c): every
                   test the binary declares, before any runs; each test
                   that ran to its end; what the runner saw of each (exit
                   status, signal, timeout); a BUG the primitives caught

A test passes when it is declared, reported exactly once, PASSED, and ran
to its end; the binary passes when every declared test passes and it
exited 0.  Nothing the binary prints decides anything: its output is kept
(capped) for the diagnostics only.
"""
import json
import re

from . import limits, proc, sandbox

PASS, FAIL, CRASH, TIMEOUT, OOM = "PASS", "FAIL", "CRASH", "TIMEOUT", "OOM"
# Worst first: the verdict of a binary is that of its worst test.
SEVERITY = (OOM, TIMEOUT, CRASH, FAIL)
# Lines worth showing from what a crashing test printed: a sanitizer's
# report.  Diagnostics only, never a verdict.
DIAGNOSTIC = re.compile(r"^(==\d+==ERROR|.*runtime error|SUMMARY: )")
# Criterion's own lines (its banner, progress and synthesis): never a message.
BANNER = re.compile(r"^\[(----|====|RUN |PASS|FAIL|SKIP|ERR )\]|Criterion v\d")


def assertion_texts(messages):
    """The failed assertions' texts, first failure first, one string each.

    Criterion's report lists a test's failed assertions newest first, and
    splits a message of several lines into entries whose continuation
    lines start with two spaces."""
    texts = []
    for m in messages:
        if m.startswith("  ") and texts:
            texts[-1] += " " + m.strip()
        elif not BANNER.search(m):
            texts.append(m)
    return texts[::-1]


class Test:
    """One declared (or reported) test.

    suite, name     its names
    status          Criterion's: PASSED, FAILED, ERRORED, SKIPPED, or None
                    when the report does not have it
    messages        its failed assertions, "file:line: text"
    reported        how many times the report has it
    ended           its process ran it to its end
    outcome         what the runner saw: {"status", "exit", "signal",
                    "timeout"} (ints), or None
    expects         the signal and exit status the test expects to end in,
                    {"signal", "exit"} (0: none)
    """

    def __init__(self, suite, name):
        self.suite, self.name = suite, name
        self.status, self.messages, self.reported = None, [], 0
        self.ended, self.outcome, self.undeclared = False, None, False
        self.expects = {}

    def ended_as_expected(self):
        """It ended in the signal or exit status it declares it expects."""
        out, want = self.outcome or {}, self.expects
        return self.status == "PASSED" and (
            (want.get("signal") and out.get("signal") == want["signal"]) or
            (want.get("exit") and out.get("exit") == want["exit"] and not out.get("signal")))

    @property
    def id(self):
        return "%s/%s" % (self.suite, self.name)

    @property
    def display(self):
        """suite::name, as Criterion prints it (and the grade)."""
        return "%s::%s" % (self.suite, self.name)

    def verdict(self):
        """(PASS, FAIL, CRASH or TIMEOUT, why)."""
        out = self.outcome or {}
        if self.reported != 1:
            return FAIL, ("not in Criterion's report" if not self.reported
                          else "in Criterion's report %d times" % self.reported)
        if self.ended_as_expected():
            return PASS, ""
        if out.get("signal"):
            return CRASH, "killed by %s" % proc.signal_name(out["signal"])
        if out.get("timeout") or (self.messages and "timed out" in self.messages[0]):
            return TIMEOUT, ("over its time limit (%d s unless the test sets its own "
                             ".timeout: KIT_TEST_TIMEOUT)" % limits.TEST_TIMEOUT)
        if self.status == "ERRORED":
            return CRASH, self.messages[0] if self.messages else "crashed"
        if self.status == "FAILED":
            if self.messages:
                return FAIL, self.messages[0]
            return FAIL, ("its process exited with status %d before the test ended"
                          % out.get("exit", -1))
        if self.status != "PASSED":
            return FAIL, "status %s" % self.status
        if not self.ended:
            return FAIL, ("its process ended (status %d) before the test did: the code "
                          "under test ended the process" % out.get("exit", 0))
        return PASS, ""


class Report:
    """A run of a Criterion binary.

    binary       its path
    tests        [Test]: the declared ones, then any reported but undeclared
    result       the kit.proc.Result of the run
    has_report   whether the binary wrote its report at all
    declared     whether it declared its tests (the kit's evidence)
    bugs         the BUG lines the primitives noted
    """

    def __init__(self, binary, result, report, evidence):
        self.binary, self.result = binary, result
        self.has_report = report is not None
        self.tests, self.bugs = [], []
        by_id = {}
        for line in (evidence or "").splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "bug":
                self.bugs.append(rest)
                continue
            name, _, fields = rest.partition(" ")
            values = {k: int(v) for k, v in (f.split("=", 1) for f in fields.split() if "=" in f)
                      if v.lstrip("-").isdigit()}
            t = by_id.get(name)
            if kind == "declared" and t is None and "/" in name:
                t = by_id[name] = Test(*name.split("/", 1))
                t.expects = values
                self.tests.append(t)
            elif t and kind == "end":
                t.ended = True
            elif t and kind == "outcome":
                t.outcome = values
        self.declared = bool(self.tests)
        for s in (report or {}).get("test_suites", []):
            for d in s.get("tests", []):
                t = by_id.get("%s/%s" % (s["name"], d["name"]))
                if t is None:
                    t = by_id["%s/%s" % (s["name"], d["name"])] = Test(s["name"], d["name"])
                    t.undeclared = True
                    self.tests.append(t)
                t.reported += 1
                t.status = d.get("status")
                t.messages = assertion_texts(d.get("messages", []))

    @property
    def failed(self):
        return [t for t in self.tests if t.verdict()[0] != PASS or t.undeclared]

    def verdict(self):
        """(PASS, FAIL, CRASH, TIMEOUT or OOM, one line)."""
        r = self.result
        if r.limit == "memory":
            return OOM, "over the memory limit (%d MiB: KIT_MEM_LIMIT), killed" % limits.MEM_LIMIT
        if r.limit:
            return TIMEOUT, "over the %s limit (%s), killed" % (r.limit, _limit_setting(r.limit))
        if not self.declared or not self.has_report:
            return CRASH, "the test binary died (%s) before %s" % (
                r.status(), "its report" if self.declared else "running its tests")
        counts = {}
        for t in self.tests:
            v = t.verdict()[0]
            counts[v] = counts.get(v, 0) + 1
        summary = "%d tests: %d passed" % (len(self.tests), counts.get(PASS, 0)) + "".join(
            ", %d %s" % (counts[v], {FAIL: "failed", CRASH: "crashed", TIMEOUT: "timed out"}[v])
            for v in (FAIL, CRASH, TIMEOUT) if counts.get(v))
        worst = next((v for v in SEVERITY if counts.get(v)), None)
        if worst:
            return worst, summary
        if self.failed:
            return FAIL, summary + ", and tests it does not declare"
        if r.rc != 0:
            return FAIL, summary + ", but the binary exited %s" % r.status()
        return PASS, summary

    @property
    def passed(self):
        return self.verdict()[0] == PASS

    def trusted(self):
        """Whether each test's verdict can be counted on its own: the binary
        declared its tests, wrote its report, was not killed by a limit,
        reported no test it does not declare, and exited 0 unless a test
        failed.  Otherwise the binary is judged as a whole."""
        r = self.result
        if r.limit or not self.declared or not self.has_report:
            return False
        if any(t.undeclared for t in self.tests):
            return False
        return r.rc == 0 or any(t.verdict()[0] != PASS for t in self.tests)

    def summary(self):
        return self.verdict()[1]

    def alone(self, test):
        """The command that runs @test alone, outside the grader."""
        return "%s --filter '%s' --verbose" % (self.binary, test.id)

    def details(self):
        """Each failed test with its reason and the command that reruns it
        alone, then what the primitives and the sanitizers reported
        (diagnostics: tests run in parallel, those cannot be pinned to one
        test)."""
        lines = []
        for t in sorted(self.failed, key=lambda t: t.id):
            v, why = t.verdict()
            if t.undeclared:
                v, why = FAIL, "reported, but the binary does not declare it"
            lines += ["[%s] %s::%s: %s" % (v, t.suite, t.name, why), "    alone: " + self.alone(t)]
        if not self.declared or not self.has_report:
            lines += [l for l in self.result.tail(12) if not BANNER.search(l)][-6:]
            lines += ["    alone: " + self.binary]
        return lines + self.diagnostics()

    def diagnostics(self):
        """What the primitives and the sanitizers reported, and the limits
        that touched the run, indented: diagnostics of the whole run (tests
        run in parallel: they cannot be pinned to one test)."""
        seen = []
        for l in self.bugs + self.result.out.splitlines():
            if (l in self.bugs or DIAGNOSTIC.match(l)) and l not in seen:
                seen.append(l)
        if self.result.refused:
            seen.append("(the process limit, KIT_PROC_LIMIT %d, refused %d fork(s))"
                        % (limits.PROC_LIMIT, self.result.refused))
        if self.result.truncated:
            seen.append("(output: %d bytes left out, KIT_OUTPUT_CAP; no verdict comes from it)"
                        % self.result.truncated)
        return ["  " + l for l in seen[:5]]


def _limit_setting(limit):
    return {"wall time": "KIT_UNIT_TIMEOUT %d s" % limits.UNIT_TIMEOUT,
            "CPU time": "KIT_CPU_LIMIT %d s" % limits.CPU_LIMIT}.get(limit, limit)


def run(binary, timeout=None, test_timeout=None, args=()):
    """Run the Criterion binary @binary in a jail; return its Report."""
    with sandbox.Drop() as drop:
        report, evidence = drop.path("report.json"), drop.path("evidence")
        env = proc.clean_env(KIT_TEST_TIMEOUT=test_timeout or limits.TEST_TIMEOUT,
                             KIT_EVIDENCE=evidence)
        r = proc.run([binary, "--color=never", "--json=" + report] + list(args),
                     timeout or limits.UNIT_TIMEOUT, env=env, jail=sandbox.Jail(drop))
        try:
            data = json.loads(drop.read(report) or "")
        except ValueError:
            data = None
        return Report(binary, r, data, drop.read(evidence))
