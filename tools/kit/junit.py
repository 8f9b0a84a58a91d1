"""kit.junit - the JUnit XML schema the kit's junit.xml must meet, and a
checker for it (standard library only: no XSD processor is needed).

SCHEMA is the JUnit 4 report format as CI systems read it (the Ant
junitreport format, with the <skipped> element and the skipped= count that
Jenkins and GitLab take): for each element, its attributes -- required or
not, and their type -- and the children it may have, how many times.
check() validates a document against it and then checks the counts: a
testsuite's tests=, failures=, errors= and skipped= are the numbers of its
testcases and of their <failure>, <error> and <skipped> children, and
testsuites' counts their sums.  make check validates the junit.xml of a
real grade with it (tools/check_feedback.py).
"""
import re
import xml.etree.ElementTree as ET

INT = re.compile(r"^\d+$")
DECIMAL = re.compile(r"^\d+(\.\d+)?$")
TOKEN = re.compile(r"^\S(.*\S)?$|^\S$")
DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
STRING = re.compile(r"^.*$", re.S)

# element: (attributes {name: (required, type)}, children {tag: (min, max)}, text allowed)
SCHEMA = {
    "testsuites": ({"name": (False, STRING), "tests": (True, INT), "failures": (True, INT),
                    "errors": (True, INT), "skipped": (True, INT), "time": (True, DECIMAL)},
                   {"testsuite": (0, None)}, False),
    "testsuite": ({"name": (True, TOKEN), "tests": (True, INT), "failures": (True, INT),
                   "errors": (True, INT), "skipped": (True, INT), "time": (True, DECIMAL),
                   "timestamp": (True, DATETIME), "hostname": (True, TOKEN),
                   "id": (True, INT), "package": (True, TOKEN)},
                  {"properties": (0, 1), "testcase": (0, None), "system-out": (0, 1),
                   "system-err": (0, 1)}, False),
    "properties": ({}, {"property": (0, None)}, False),
    "property": ({"name": (True, TOKEN), "value": (True, STRING)}, {}, False),
    "testcase": ({"name": (True, TOKEN), "classname": (True, TOKEN), "time": (True, DECIMAL)},
                 {"skipped": (0, 1), "error": (0, 1), "failure": (0, 1),
                  "system-out": (0, 1), "system-err": (0, 1)}, False),
    "skipped": ({"message": (False, STRING)}, {}, True),
    "error": ({"message": (False, STRING), "type": (True, TOKEN)}, {}, True),
    "failure": ({"message": (False, STRING), "type": (True, TOKEN)}, {}, True),
    "system-out": ({}, {}, True),
    "system-err": ({}, {}, True),
}
# A testcase has at most one of these: its verdict.
OUTCOMES = ("skipped", "error", "failure")


def _element(e, where, problems):
    spec = SCHEMA.get(e.tag)
    if spec is None:
        problems.append("%s: element <%s> is not in the schema" % (where, e.tag))
        return
    attrs, children, text = spec
    for name, (required, kind) in attrs.items():
        value = e.get(name)
        if value is None:
            if required:
                problems.append("%s: <%s> has no %s=" % (where, e.tag, name))
        elif not kind.match(value):
            problems.append("%s: <%s %s=%r>: not a valid value" % (where, e.tag, name, value))
    for name in e.attrib:
        if name not in attrs:
            problems.append("%s: <%s> has an attribute the schema lacks: %s=" % (where, e.tag, name))
    if not text and (e.text or "").strip():
        problems.append("%s: <%s> holds text" % (where, e.tag))
    for tag, (least, most) in children.items():
        n = len(e.findall(tag))
        if n < least or (most is not None and n > most):
            problems.append("%s: <%s> has %d <%s>" % (where, e.tag, n, tag))
    if e.tag == "testcase" and sum(len(e.findall(t)) for t in OUTCOMES) > 1:
        problems.append("%s: <testcase> has more than one of %s" % (where, ", ".join(OUTCOMES)))
    for k, child in enumerate(e):
        if child.tag not in children:
            problems.append("%s: <%s> may not hold <%s>" % (where, e.tag, child.tag))
            continue
        _element(child, "%s/%s[%d]" % (where, child.tag, k + 1), problems)


def counts(suite):
    """{tests, failures, errors, skipped} of a <testsuite>'s testcases."""
    cases = suite.findall("testcase")
    return dict(tests=len(cases), failures=sum(c.find("failure") is not None for c in cases),
                errors=sum(c.find("error") is not None for c in cases),
                skipped=sum(c.find("skipped") is not None for c in cases))


def check(text):
    """[problem] of JUnit XML @text against SCHEMA and its counts; [] if
    it is valid."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        return ["not well-formed XML: %s" % e]
    if root.tag != "testsuites":
        return ["the root is <%s>, not <testsuites>" % root.tag]
    problems = []
    _element(root, "testsuites", problems)
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    for k, suite in enumerate(root.findall("testsuite"), 1):
        for name, n in counts(suite).items():
            totals[name] += n
            if suite.get(name) != str(n):
                problems.append("testsuite[%d] %s: %s=%s, but it has %d" % (
                    k, suite.get("name"), name, suite.get(name), n))
    for name, n in totals.items():
        if root.get(name) != str(n):
            problems.append("testsuites: %s=%s, but its suites have %d" % (name, root.get(name), n))
    return problems
