#!/usr/bin/env python3
"""contracts.py - every "Guarantees:" sentence of every lab header, and the
checks that fail when it is broken.

    python3 tools/contracts.py              check every lab (make check runs it)
    python3 tools/contracts.py --markdown   the mapping, as docs/contracts.md has it
    python3 tools/contracts.py --todo       the sentences with no entry yet,
                                            as entries to fill in

A lab's headers (labs/<folder>/*.h) state what each function guarantees in
kernel-doc comments; the sentences of a paragraph that starts with
"Guarantees:" are its contract.  labs/<folder>/contracts.txt maps each
sentence to the checks that can fail when the code breaks it:

    # comment
    kref.h kref_put: Returns 1 if this call released the object, 0 otherwise.
        unit kref::put_releases_on_last_reference_only
        race lookup_vs_remove
        lincheck cache put

A sentence line is "<header> <function>: <the sentence, as the header has
it>"; each indented line under it names one check:

    unit SUITE::TEST     a Criterion test of the lab's tests/ folders
    race SCENARIO        a race scenario (race_*.c)
    lincheck SPEC [OP]   the generated scenarios of a spec (race_*.c,
                         LIN_SPEC), or one operation of its table
    tsan PROGRAM CASE    a case of a TSan program (tsan_*.c)
    exercise FILE        an exercise of the manifest (lab.exercises)

The check fails (exit 1), one line per problem, when a sentence has no
entry or no check, when an entry's sentence is in no header (stale), or
when a check names a test that does not exist.  Standard library only.
"""
import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, layout  # noqa: E402

DATA = "contracts.txt"
KINDS = ("unit", "race", "lincheck", "tsan", "exercise")


# --- the headers ------------------------------------------------------------------

def sentences(text):
    """The sentences of @text: split after '.' before a capital, '@' or '('."""
    text = " ".join(text.split())
    return [s for s in re.split(r"(?<=\.)\s+(?=[A-Z@(])", text) if s]


def guarantees(path):
    """[(function, sentence)] of every Guarantees paragraph in header @path."""
    found = []
    for comment in re.findall(r"/\*\*(.*?)\*/", open(path).read(), re.S):
        lines = [re.sub(r"^\s*\*? ?", "", l) for l in comment.splitlines()]
        lines = [l for l in lines if l is not None]
        body = [l for l in lines if l.strip()]
        if not body:
            continue
        fn = body[0].split(" - ")[0].strip()
        for para in "\n".join(lines).split("\n\n"):
            _, sep, rest = para.partition("Guarantees:")
            if sep:
                found += [(fn, s) for s in sentences(rest)]
    return found


# --- the data ------------------------------------------------------------------------

class Entry:
    """One sentence of the data file: header, function, sentence, checks
    [(kind, args, line)], and the line it is on."""

    def __init__(self, header, fn, sentence, line):
        self.header, self.fn, self.line = header, fn, line
        self.sentence = " ".join(sentence.split())
        self.checks = []

    @property
    def key(self):
        return (self.header, self.fn, self.sentence)


def read_data(path):
    """([Entry], [problem]) of data file @path."""
    entries, problems = [], []
    if not os.path.exists(path):
        return entries, []
    for n, raw in enumerate(open(path), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            words = line.split("#")[0].split()
            if not entries:
                problems.append("%s:%d: a check before any sentence" % (path, n))
            elif words[0] not in KINDS:
                problems.append("%s:%d: unknown kind '%s' (kinds: %s)"
                                % (path, n, words[0], ", ".join(KINDS)))
            else:
                entries[-1].checks.append((words[0], words[1:], n))
            continue
        m = re.match(r"^(\S+\.h) (\S+): (.+)$", line)
        if not m:
            problems.append("%s:%d: expected '<header> <function>: <sentence>'"
                            % (path, n))
            continue
        entries.append(Entry(m.group(1), m.group(2), m.group(3), n))
    return entries, problems


# --- the checks ----------------------------------------------------------------------

class Tests:
    """The sources of a lab's test folders, to look checks up in."""

    def __init__(self, lab):
        self.lab = lab
        self.files = {}
        for d in lab.tests:
            for p in glob.glob(os.path.join(ROOT, "tests", d, "*.c")):
                self.files[os.path.relpath(p, ROOT)] = open(p).read()

    def grep(self, prefix, pattern):
        return [p for p, text in self.files.items()
                if os.path.basename(p).startswith(prefix) and re.search(pattern, text)]

    def missing(self, kind, args):
        """Why check (@kind, @args) names nothing, or None if it exists."""
        if not args:
            return "%s: what?" % kind
        name = re.escape(args[0])
        if kind == "unit":
            suite, _, test = args[0].partition("::")
            if self.grep("test_", r"Test\(\s*%s\s*,\s*%s\s*[,)]"
                         % (re.escape(suite), re.escape(test))):
                return None
            return "no Criterion test %s" % args[0]
        if kind == "race":
            if self.grep("race_", r'\.name\s*=\s*"%s"' % name):
                return None
            return "no race scenario %s" % args[0]
        if kind == "lincheck":
            files = self.grep("race_", r'LIN_SPEC\(\w+\)[^;]*?\.name\s*=\s*"%s"' % name)
            if not files:
                return "no LIN_SPEC named %s" % args[0]
            if len(args) > 1 and not any(args[1] in spec_ops(self.files[f]) for f in files):
                return "spec %s has no operation %s" % (args[0], args[1])
            return None
        if kind == "tsan":
            if len(args) < 2:
                return "tsan: a program and a case"
            text = self.files.get(os.path.join("tests", self.lab.tests[0], args[0] + ".c"))
            texts = [t for p, t in self.files.items()
                     if os.path.basename(p) == args[0] + ".c"]
            if any(re.search(r'\{\s*"%s",\s*"(clean|race)"' % re.escape(args[1]), t)
                   for t in texts + ([text] if text else [])):
                return None
            return "no TSan case %s %s" % (args[0], args[1])
        if kind == "exercise":
            if self.lab.exercise(args[0]):
                return None
            return "no exercise %s in the manifest" % args[0]
        return "unknown kind %s" % kind


def spec_ops(text):
    """The operation names a race_*.c file's tables declare: entries
    { "name", ... } and LIN_COLL_OPS("delete", ...) (lin_collection.h)."""
    ops = re.findall(r'\{\s*"(\w+)",\s*(?:LIN_|0\b)', text)
    for delete in re.findall(r'LIN_COLL_OPS\(\s*"(\w+)"', text):
        ops += ["insert", delete, "lookup", "put", "find"]
    return ops


def check_lab(lab):
    """([problem], [Entry] in header order, sentences count) for @lab."""
    data = os.path.join(ROOT, lab.dir, DATA)
    rel = os.path.relpath(data, ROOT)
    entries, problems = read_data(data)
    by_key = {e.key: e for e in entries}
    tests = Tests(lab)
    ordered, seen = [], set()
    for h in sorted(glob.glob(os.path.join(ROOT, lab.dir, "*.h"))):
        header = os.path.basename(h)
        for fn, s in guarantees(h):
            key = (header, fn, " ".join(s.split()))
            seen.add(key)
            e = by_key.get(key)
            if not e:
                problems.append("%s %s: \"%s\" -- no entry in %s"
                                % (os.path.relpath(h, ROOT), fn, s, rel))
                continue
            if not e.checks:
                problems.append("%s:%d: %s: no check for \"%s\"" % (rel, e.line, fn, s))
            for kind, args, n in e.checks:
                why = tests.missing(kind, args)
                if why:
                    problems.append("%s:%d: %s" % (rel, n, why))
            ordered.append(e)
    for e in entries:
        if e.key not in seen:
            problems.append("%s:%d: \"%s\" is no Guarantees sentence of %s %s "
                            "(the header changed?)" % (rel, e.line, e.sentence,
                                                       e.header, e.fn))
    return problems, ordered


# --- output --------------------------------------------------------------------------

def check_text(kind, args):
    if kind == "unit":
        return "unit test `%s`" % args[0]
    if kind == "race":
        return "scenario `%s`" % args[0]
    if kind == "lincheck":
        return "generated `lincheck:%s`%s" % (args[0], " (%s)" % args[1] if len(args) > 1 else "")
    if kind == "tsan":
        return "TSan `%s %s`" % (args[0], args[1])
    return "exercise `%s`" % args[0]


def markdown(labs):
    """docs/contracts.md: the mapping of every lab, as tables."""
    out = ["# Contracts and the checks that hold them", "",
           "Generated by `python3 tools/contracts.py --markdown` from each lab's",
           "`labs/<folder>/contracts.txt`; `make check` fails when a \"Guarantees:\"",
           "sentence of a lab header has no check, or this page is out of date.",
           "[design.md](design.md#contracts) says how the mapping is kept.", ""]
    for lab in labs:
        _, entries = check_lab(lab)
        if not entries:
            continue
        out += ["## Lab %d: %s" % (lab.n, lab.title), "",
                "| function | guarantee | checked by |", "|---|---|---|"]
        for e in entries:
            out.append("| `%s` | %s | %s |" % (
                e.fn, e.sentence.replace("|", "\\|"),
                "; ".join(check_text(k, a) for k, a, _ in e.checks)))
        out.append("")
    return "\n".join(out)


def todo(lab):
    """Entries to paste into the data file for the sentences without one."""
    problems, _ = check_lab(lab)
    return [p for p in problems if "no entry in" in p]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--todo", action="store_true")
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    args = ap.parse_args()
    labs = layout.labs(build=args.build_root)
    if args.markdown:
        print(markdown(labs))
        return 0
    bad = 0
    for lab in labs:
        if args.todo:
            for line in todo(lab):
                print(line)
            continue
        problems, entries = check_lab(lab)
        for p in problems:
            print(p)
        bad += len(problems)
        print("lab-%d: %d sentence(s), %d problem(s)" % (lab.n, len(entries), len(problems)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
