"""kit.criterion - a Criterion binary's results, from its JSON report.

Criterion 2.4 writes a machine-readable report with --json=FILE: per suite,
per test, a status (PASSED, FAILED, ERRORED for a crash or a timeout,
SKIPPED) and the messages of its failed assertions.  run() has it written
to a file the caller does not share with the code under test, and reads
the verdicts from there, never from what the binary prints.
"""
import json
import os
import re
import tempfile

from . import limits, proc

# Lines worth showing from what a crashing test printed: a sanitizer's or
# the kit's own report (common/bug.c).  Diagnostics only, never a verdict.
DIAGNOSTIC = re.compile(r"^(BUG: (?!leak)|==\d+==ERROR|.*runtime error)")


class Test:
    """One test: suite, name, status (PASSED, FAILED, ERRORED, SKIPPED),
    messages (its failed assertions, "file:line: text")."""

    def __init__(self, suite, d):
        self.suite, self.name = suite, d["name"]
        self.status, self.messages = d["status"], d.get("messages", [])

    @property
    def passed(self):
        return self.status == "PASSED"

    def line(self):
        """'[FAIL] suite::name: first message' for a report."""
        tag = {"FAILED": "FAIL", "ERRORED": "CRASH"}.get(self.status, self.status)
        if self.messages and "timed out" in self.messages[0]:
            tag = "TIMEOUT"
        msg = self.messages[0] if self.messages else ""
        return "[%s] %s::%s%s" % (tag, self.suite, self.name, ": " + msg if msg else "")


class Report:
    """A run of a Criterion binary.

    tests        [Test] from the JSON report ([] if there was none)
    result       the kit.proc.Result of the run
    has_report   whether the binary wrote its report at all
    """

    def __init__(self, tests, result, has_report):
        self.tests, self.result, self.has_report = tests, result, has_report

    @property
    def failed(self):
        return [t for t in self.tests if not t.passed]

    @property
    def passed(self):
        """Every test ran and passed, and the binary said so too."""
        return (self.has_report and self.result.rc == 0 and not self.result.timed_out
                and self.tests and not self.failed)

    def summary(self):
        if self.result.timed_out:
            return "TIMEOUT after %ds" % self.result.seconds
        if not self.has_report:
            return "CRASH: the test binary died (%s) before its report" % self.result.status()
        counts = {}
        for t in self.tests:
            counts[t.status] = counts.get(t.status, 0) + 1
        return "%d tests: %d passed, %d failed, %d crashed" % (
            len(self.tests), counts.get("PASSED", 0), counts.get("FAILED", 0),
            counts.get("ERRORED", 0))

    def details(self):
        """The failed tests, then the distinct sanitizer/BUG lines printed
        (tests run in parallel: those cannot be pinned to one test)."""
        lines = sorted(t.line() for t in self.failed)
        seen = []
        for l in self.result.out.splitlines():
            if DIAGNOSTIC.match(l) and l not in seen:
                seen.append(l)
        if not self.has_report:
            lines += self.result.tail(8)
        return lines + ["  " + l for l in seen[:4]]


def run(binary, timeout=None, test_timeout=None, args=()):
    """Run the Criterion binary @binary; return its Report."""
    with tempfile.TemporaryDirectory(prefix="kit-criterion-") as tmp:
        path = os.path.join(tmp, "report.json")
        env = proc.clean_env(KIT_TEST_TIMEOUT=test_timeout or limits.TEST_TIMEOUT)
        r = proc.run([binary, "--color=never", "--json=" + path] + list(args),
                     timeout or limits.UNIT_TIMEOUT, env=env)
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            return Report([], r, False)
    tests = [Test(s["name"], t) for s in data.get("test_suites", [])
             for t in s.get("tests", [])]
    return Report(tests, r, True)
