"""kit.reports - a grade, written for people and for the platforms.

A Grade is what tools/grade.py found for one tree: the labs graded, their
Parts (kit.grading), the sandbox and the kit's integrity.  write() puts
these files in a folder (make grade: build/grade/):

  results.json     the kit's own report (docs/instructor.md, "Reports"):
                   every part, and every item of it with its points
  junit.xml        JUnit XML: a testsuite per part of each lab, a testcase
                   per graded item (test, TSan case, scenario, exercise);
                   FAIL is a <failure>, CRASH, TIMEOUT, OOM, DEADLOCK,
                   LIVELOCK and REFUSED an <error>; every testsuite has
                   tests=, failures=, errors=, skipped=, time= (checked
                   against kit.junit's schema by make check)
  gradescope.json  Gradescope's results.json: a test per graded item with
                   name, score, max_score, status, output (Markdown where
                   it holds a timeline), visibility
  labN/report.txt  every failure of lab N, in the handout's order (the
                   screen shows the first few)
  labN/result.json lab N alone, as in results.json (make hint-N reads it)
"""
import json
import os
import resource
import time
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

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
        self.when = getattr(self, "when", None) or datetime.now(timezone.utc)
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
        labs=[lab_json(lab, parts) for lab, parts in g.labs])


def lab_json(lab, parts):
    return dict(lab=lab.n, folder=lab.folder, title=lab.title,
                score=grading.score(parts)[0], max_score=grading.score(parts)[1],
                progress=grading.progress(parts), parts=[p.to_dict() for p in parts])


def _text(p):
    lines = [p.summary] + p.details
    if p.hint:
        lines.append("next: " + p.hint)
    return "\n".join(lines)


# How a verdict is written in JUnit: a test that ran and failed its checks
# is a <failure>; one that could not be judged (it crashed, hung, ran out
# of memory, deadlocked) or was refused is an <error>.
ERRORS = (grading.CRASH, grading.TIMEOUT, grading.OOM, grading.DEADLOCK, grading.LIVELOCK,
          grading.REFUSED, grading.SUSPECT)


def _cases(p):
    """[(name, verdict, message, text, seconds)] of part @p: one per item,
    or one for the part when it failed as a whole."""
    if p.items and p.verdict not in grading.WHOLE:
        each = p.seconds / len(p.items)
        return [(i.name, i.verdict, i.why, "\n".join([i.why] + i.details +
                                                      ["alone: " + i.alone]), each)
                for i in p.items]
    return [(p.name, p.verdict, p.summary, _text(p), p.seconds)]


def junit_xml(g):
    got, most = g.score()
    root = ET.Element("testsuites")
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    when = (getattr(g, "when", None) or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%S")
    k = 0
    for lab, ps in g.labs:
        for p in ps:
            if not p.graded:
                continue
            cases = _cases(p)
            counts = dict(tests=len(cases),
                          failures=sum(c[1] == grading.FAIL for c in cases),
                          errors=sum(c[1] in ERRORS for c in cases),
                          skipped=sum(c[1] == grading.SKIPPED for c in cases))
            suite = ET.SubElement(root, "testsuite", name="%s.%s" % (lab.folder, p.name),
                                  id=str(k), package=lab.folder, hostname="localhost",
                                  timestamp=when, time="%.2f" % p.seconds,
                                  **{n: str(v) for n, v in counts.items()})
            k += 1
            for n, v in counts.items():
                totals[n] += v
            props = ET.SubElement(suite, "properties")
            for name, value in (("points", "%s/%d" % (grading.fmt(p.points), p.max_points)),
                                ("verdict", p.verdict), ("sandbox", g.sandbox),
                                ("kit", g.integrity.what)):
                ET.SubElement(props, "property", name=name, value=value)
            for name, verdict, message, text, seconds in cases:
                case = ET.SubElement(suite, "testcase", classname="%s.%s" % (lab.folder, p.name),
                                     name=name, time="%.2f" % seconds)
                if verdict == grading.SKIPPED:
                    ET.SubElement(case, "skipped", message=message)
                elif verdict in ERRORS:
                    ET.SubElement(case, "error", type=verdict, message=message).text = text
                elif verdict != grading.PASS:
                    ET.SubElement(case, "failure", type=verdict, message=message).text = text
            ET.SubElement(suite, "system-out").text = "%s/%d points: %s" % (
                grading.fmt(p.points), p.max_points, p.summary)
    root.set("name", "lab kit: %s, score %s/%d" % (g.impl, grading.fmt(got), most))
    for n, v in totals.items():
        root.set(n, str(v))
    root.set("time", "%.1f" % g.seconds)
    return ET.tostring(root, encoding="unicode")


def _md(text_lines, code=()):
    """Markdown: the lines, then @code in a fenced block."""
    out = "\n\n".join(l.replace("\n", "  \n") for l in text_lines if l)
    if code:
        out += "\n\n```\n%s\n```" % "\n".join(code)
    return out


def gradescope_json(g):
    """Gradescope's results.json: a test per graded item (per part where
    the part failed as a whole), named as the handout names it."""
    got, _ = g.score()
    tests = []
    for lab, ps in g.labs:
        for n, p in enumerate((p for p in ps if p.graded), 1):
            if p.items and p.verdict not in grading.WHOLE:
                ordered = sorted(p.items, key=lambda i: i.rank)
                for k, i in enumerate(ordered, 1):
                    text = [("%s: %s" % (i.verdict, i.why)) if i.why else i.verdict]
                    if i.hint and not i.ok:
                        text.append("Hint: " + i.hint)
                    if not i.ok:
                        text.append("Run it alone: `%s`" % i.alone)
                    if p.note and not i.ok:
                        text.append("(%s)" % p.note)
                    tests.append(dict(
                        name="lab %d %s: %s" % (lab.n, p.name, i.name),
                        number="%d.%d.%d" % (lab.n, n, k), score=i.points,
                        max_score=i.max_points,
                        status="passed" if i.ok else "failed",
                        output=_md(text, i.details if not i.ok else ()),
                        output_format="md", visibility="visible"))
            else:
                tests.append(dict(name="lab %d %s" % (lab.n, p.name), number="%d.%d" % (lab.n, n),
                                  score=p.points, max_score=p.max_points,
                                  status="passed" if p.status == grading.PASS else "failed",
                                  output=_md(["%s: %s" % (p.verdict, p.summary)] +
                                             (["Next: " + p.hint] if p.hint else []), p.details),
                                  output_format="md", visibility="visible"))
    summary = ["lab %d (%s): %s/%d -- %s" % (lab.n, lab.title, grading.fmt(grading.score(ps)[0]),
                                             grading.score(ps)[1], grading.progress(ps))
               for lab, ps in g.labs]
    return dict(score=got, execution_time=int(g.seconds), tests=tests,
                output="\n".join(summary), output_format="text",
                stdout_visibility="hidden",
                extra_data=dict(sandbox=g.sandbox, kit=g.integrity.what))


def lab_report_path(folder, lab):
    """Where the full report of @lab goes in report folder @folder."""
    return os.path.join(folder, "lab%d" % lab.n, "report.txt")


def write(g, folder):
    """Write the reports into @folder; return the paths of the three for
    every lab (each lab's report.txt and result.json too)."""
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, n) for n in ("results.json", "junit.xml", "gradescope.json")]
    with open(paths[0], "w") as f:
        json.dump(kit_json(g), f, indent=1)
    with open(paths[1], "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n' + junit_xml(g) + "\n")
    with open(paths[2], "w") as f:
        json.dump(gradescope_json(g), f, indent=1)
    for lab, parts in g.labs:
        path = lab_report_path(folder, lab)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(grading.report_lines(lab, parts)) + "\n")
        with open(os.path.join(os.path.dirname(path), "result.json"), "w") as f:
            json.dump(dict(lab_json(lab, parts), impl=g.impl, extra_tests=g.extra_tests), f,
                      indent=1)
    return paths
