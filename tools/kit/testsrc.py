"""kit.testsrc - what the grade tells a student about each test, read from
the tests' own sources: where it is declared, and its hint.

A test is declared in a lab's test folders (lab.test_dirs) as:

  Test(suite, name ...)              test_*.c     item "suite::name"
  { "case", "clean|race", ... }      tsan_*.c     item "tsan_prog::case"
  RACE_SCENARIO(name)                race_*.c     item "name"

A hint is the end of the comment just above the declaration, from
"Hint:" on; it says what to look at when the test fails, in a sentence or two,
without giving the answer away.  The hints of the exercises (schedule
files) are in the lab's manifest (lab.hint.<file>).  make hint-N prints the
hints of the tests that failed in the last grade; every grade shows them
under each failure.

Nothing here decides a verdict: the declaration order only sorts the
failures (kit.grading.ordered_key), the hints are text.

unasserted() lists each cr_assert*() of a test file that gives no message
of its own (Criterion then prints "The expression ... is false."): make
check requires a message on every one.
"""
import os
import re

from . import ROOT

_DECL = (
    ("test_", re.compile(r"^\s*(?:Test|ParameterizedTest|Theory)\(\s*(\w+)\s*,\s*(\w+)"),
     lambda prog, m: "%s::%s" % (m.group(1), m.group(2))),
    ("tsan_", re.compile(r'^\s*\{\s*"([\w.-]+)"\s*,\s*"(?:clean|race)"'),
     lambda prog, m: "%s::%s" % (prog, m.group(1))),
    ("race_", re.compile(r"^\s*RACE_SCENARIO\(\s*(\w+)\s*\)"),
     lambda prog, m: m.group(1)),
)

_cache = {}


def _sources(dirs):
    for d in dirs:
        d = os.path.join(ROOT, d)
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            if n.endswith(".c"):
                yield os.path.join(d, n)


def _comment_text(block):
    """The words of a comment block (its lines), without the markers."""
    words = []
    for line in block:
        line = re.sub(r"^\s*(/\*+|\*+(?!/)|//)", "", line)
        line = re.sub(r"\*+/\s*$", "", line)
        words += line.split()
    return " ".join(words)


def scan(path):
    """[(item name, line, hint or None)] of the tests declared in @path."""
    prog = os.path.basename(path)[:-2]
    kind = next(((rx, name) for pre, rx, name in _DECL if prog.startswith(pre)), None)
    if kind is None:
        return []
    rx, name = kind
    found, block, in_comment = [], [], False
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if in_comment or stripped.startswith(("/*", "//")):
                if not in_comment:
                    block = []
                block.append(line)
                in_comment = ("/*" in stripped or in_comment) and "*/" not in stripped
                if stripped.startswith("//"):
                    in_comment = False
                continue
            m = rx.match(line)
            if m:
                text = _comment_text(block)
                at = text.find("Hint:")
                hint = text[at + 5:].strip() if at >= 0 else None
                found.append((name(prog, m), n, hint or None))
            if stripped:
                block = []
    return found


def _read(lab):
    key = tuple(lab.test_dirs)
    if key not in _cache:
        found = []
        for path in _sources(lab.test_dirs):
            found += scan(path)
        _cache[key] = found
    return _cache[key]


def declared(lab):
    """{item name: its place}, in the order the tests are declared (file by
    file, in name order)."""
    return {name: k for k, (name, _, _) in enumerate(_read(lab))}


def hints(lab):
    """{item name: hint}: every test's hint, and each exercise's
    (lab.hints)."""
    found = {name: hint for name, _, hint in _read(lab) if hint}
    found.update(getattr(lab, "hints", {}) or {})
    return found


# cr_assert(cond, "message", ...) / cr_assert_eq(a, b, "message", ...):
# the message is the first string argument after the operands.
_ASSERT = re.compile(r"\b(cr_(?:assert|expect)(?:_(\w+))?)\s*\(")
_OPERANDS = {None: 1, "not": 1, "null": 1, "not_null": 1, "eq": 2, "neq": 2, "lt": 2,
             "leq": 2, "gt": 2, "geq": 2, "str_eq": 2, "str_neq": 2, "float_eq": 3,
             "float_neq": 3, "arr_eq": 3, "arr_neq": 3, "str_empty": 1,
             "str_not_empty": 1, "arr_eq_cmp": 4, "zero": 1, "not_zero": 1}


def _arguments(text, start):
    """The top-level arguments of the call whose '(' is at @start, and
    where it ends."""
    depth, args, cur, k, quote = 0, [], "", start, None
    while k < len(text):
        c = text[k]
        if quote:
            cur += c
            if c == "\\":
                cur += text[k + 1:k + 2]
                k += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            cur += c
        elif c == "(":
            depth += 1
            if depth > 1:
                cur += c
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append(cur.strip())
                return args, k
            cur += c
        elif c == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
        k += 1
    return args, k


def unasserted(path):
    """["file:line: cr_assert_eq(...)"] of each assertion in @path that
    gives no message of its own."""
    with open(path, errors="replace") as f:
        text = f.read()
    found = []
    for m in _ASSERT.finditer(text):
        if m.group(2) not in _OPERANDS:
            continue
        args, _ = _arguments(text, m.end() - 1)
        line = text.count("\n", 0, m.start()) + 1
        if len(args) <= _OPERANDS[m.group(2)]:
            found.append("%s:%d: %s(%s)" % (path, line, m.group(1), ", ".join(args)[:60]))
    return found
