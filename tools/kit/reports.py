"""kit.reports - a grade, written for people and for the platforms.

A Grade is what tools/grade.py found for one tree: the labs graded, their
Parts (kit.grading), the sandbox and the kit's integrity.  write() puts
three files in a folder (make grade: build/grade/):

  results.json     the kit's own report (docs/instructor.md, "Reports")
  junit.xml        JUnit XML: a testsuite per lab, a testcase per part
                   (CI systems and most dashboards read it)
  gradescope.json  Gradescope's results.json: a test per graded part with
                   name, score, max_score, status, output, visibility
"""
import json
import os
import resource
import time
import xml.etree.ElementTree as ET

from . import grading

FORMAT = 1      # results.json's "format": raised when a field changes meaning


class Grade:
    """impl, extra_tests, sandbox (one line), integrity (kit.integrity.Check),
    labs: [(Lab, [Part])], seconds."""

    def __init__(self, impl, extra_tests, sandbox, integrity):
        self.impl, self.extra_tests = impl, extra_tests or ""
        self.sandbox, self.integrity = sandbox, integrity
        self.labs, self.start, self.seconds = [], time.monotonic(), 0.0

    def add(self, lab, parts):
        self.labs.append((lab, parts))
        self.seconds = time.monotonic() - self.start

    def score(self):
        got = sum(grading.score(parts)[0] for _, parts in self.labs)
        return got, sum(grading.score(parts)[1] for _, parts in self.labs)

    @property
    def full(self):
        got, most = self.score()
        return got == most and all(p.status != grading.FAIL
                                   for _, parts in self.labs for p in parts)


def kit_json(g):
    got, most = g.score()
    return dict(
        format=FORMAT, impl=g.impl, extra_tests=g.extra_tests, score=got, max_score=most,
        seconds=round(g.seconds, 1), sandbox=g.sandbox, kit=g.integrity.to_dict(),
        grader_peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10,
        labs=[dict(lab=lab.n, folder=lab.folder, title=lab.title,
                   score=grading.score(parts)[0], max_score=grading.score(parts)[1],
                   parts=[p.to_dict() for p in parts]) for lab, parts in g.labs])


def _text(p):
    lines = [p.summary] + p.details
    if p.hint:
        lines.append("next: " + p.hint)
    return "\n".join(lines)


def junit_xml(g):
    got, most = g.score()
    parts = [p for _, ps in g.labs for p in ps if p.graded]
    root = ET.Element("testsuites", name="lab kit: %s" % g.impl, tests=str(len(parts)),
                      failures=str(sum(p.status == grading.FAIL for p in parts)),
                      time="%.1f" % g.seconds)
    for lab, ps in g.labs:
        graded = [p for p in ps if p.graded]
        suite = ET.SubElement(root, "testsuite", name=lab.folder, tests=str(len(graded)),
                              failures=str(sum(p.status == grading.FAIL for p in graded)),
                              skipped=str(sum(p.verdict == grading.SKIPPED for p in graded)),
                              time="%.1f" % sum(p.seconds for p in graded))
        props = ET.SubElement(suite, "properties")
        for k, v in (("score", "%d/%d" % grading.score(ps)), ("sandbox", g.sandbox),
                     ("kit", g.integrity.what)):
            ET.SubElement(props, "property", name=k, value=v)
        for p in graded:
            case = ET.SubElement(suite, "testcase", classname=lab.folder, name=p.name,
                                 time="%.2f" % p.seconds)
            if p.verdict == grading.SKIPPED:
                ET.SubElement(case, "skipped", message=p.summary)
            elif p.status == grading.FAIL:
                fail = ET.SubElement(case, "failure", type=p.verdict, message=p.summary)
                fail.text = _text(p)
            ET.SubElement(case, "system-out").text = "%d/%d points: %s" % (
                p.points, p.max_points, p.summary)
    root.set("name", "lab kit: %s, score %d/%d" % (g.impl, got, most))
    return ET.tostring(root, encoding="unicode")


def gradescope_json(g):
    got, _ = g.score()
    tests = []
    for lab, ps in g.labs:
        for i, p in enumerate((p for p in ps if p.graded), 1):
            tests.append(dict(name="lab %d (%s): %s" % (lab.n, lab.folder, p.name),
                              number="%d.%d" % (lab.n, i), score=p.points,
                              max_score=p.max_points,
                              status="passed" if p.status == grading.PASS else "failed",
                              output="%s: %s" % (p.verdict, _text(p)), visibility="visible"))
    return dict(score=got, execution_time=int(g.seconds), tests=tests,
                output="%s\n%s" % (g.sandbox, g.integrity.what), stdout_visibility="hidden")


def write(g, folder):
    """Write the three reports into @folder; return their paths."""
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, n) for n in ("results.json", "junit.xml", "gradescope.json")]
    with open(paths[0], "w") as f:
        json.dump(kit_json(g), f, indent=1)
    with open(paths[1], "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n' + junit_xml(g) + "\n")
    with open(paths[2], "w") as f:
        json.dump(gradescope_json(g), f, indent=1)
    return paths
