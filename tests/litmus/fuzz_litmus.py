#!/usr/bin/env python3
"""fuzz_litmus.py - broken and mutated litmus files against the front end
(make litmus-fuzz; make check runs it).

  fuzz_litmus.py --bin BIN [--seed N] [--count N]

From the kit's own tests/litmus/*.litmus, a generator seeded with --seed
(default 21: the same files every run) makes --count mutants: a character
deleted or inserted, a token swapped for another (a loop keyword, an
unknown primitive, a number C cannot read), a line deleted, doubled or
moved, the file cut short, deep nesting, bytes that are not UTF-8.  Some
mutants are still litmus tests; most are not.  Every one must get either
an answer (the Observation line) or exactly one line "FILE:LINE: error: ..."
or "FILE:LINE: unsupported: ...", LINE inside the file, and no traceback,
crash or hang: all of them in one run of `litmus.py DIR`, a sample one file
at a time (exit status 2 and the line alone on stderr).  Then the same for
the interpreter's own reader: mutated programs given to the race binary
must load or be refused with one line "litmus: FILE:LINE: ...", never
crash.  Standard library only.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import litmus_parse  # noqa: E402

LITMUS = [sys.executable, os.path.join(ROOT, "tools", "litmus.py")]
TOKENS = ["while", "for", "struct", "goto", "return", "{", "}", "(", ")", ";", ",", "*", "&",
          "=", "==", "/\\", "\\/", "~", ":", "[", "]", "0:", "9:r0", "P7", "exists",
          "forall", "filter", "locations", "smp_mb()", "nosuch_prim(x)", "srcu_read_lock(x)",
          "08", "0x", "99999999999999999999", "-", "int", "atomic_t", "spinlock_t",
          "(*", "*)", "/*", "*/", "\"", "#", "@", "READ_ONCE(*x)", "if", "else", "x", "r0"]


def mutate(rng, text, corpus):
    """One mutant of @text, and what was done."""
    lines = text.split("\n")
    kind = rng.randrange(12)
    if kind == 0 and text:
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1:], "deleted a character"
    if kind == 1:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice("{}()[];,*&=<>+-/%!~^|:?.\\\"#@$`'\n\t 0a_") + text[i:], \
            "inserted a character"
    if kind == 2:
        toks = list(re.finditer(r"\w+|[^\w\s]", text))
        m = rng.choice(toks)
        return text[:m.start()] + rng.choice(TOKENS) + text[m.end():], "replaced a token"
    if kind == 3:
        return text[:rng.randrange(len(text) + 1)], "cut short"
    if kind == 4 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines), "deleted a line"
    if kind == 5:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return "\n".join(lines), "doubled a line"
    if kind == 6:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines), "swapped two lines"
    if kind == 7:
        other = rng.choice(corpus).split("\n")
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(other))
        return "\n".join(lines), "a line of another file"
    if kind == 8:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(["(" * 300, "{" * 300, "~" * 300, "*" * 300,
                                      "!" * 300]) + text[i:], "deep nesting"
    if kind == 9:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(["\0", "\xff", "\udcff"]) + text[i:], "bytes"
    if kind == 10:
        return text.replace("Result:", rng.choice(["Result", "Result: Maybe", ""]), 1), \
            "Result: line"
    toks = list(re.finditer(r"\b\w+\b", text))
    a, b = rng.choice(toks), rng.choice(toks)
    if a.start() > b.start():
        a, b = b, a
    if a.end() > b.start():
        return text, "unchanged"
    return (text[:a.start()] + b.group() + text[a.end():b.start()] + a.group() +
            text[b.end():]), "swapped two tokens"


def encode(text):
    return text.encode("utf-8", errors="surrogateescape")


def check_refusal(path, message, nlines, problems):
    m = re.match(r"^(.*):(\d+): (error|unsupported): \S", message)
    if not m or m.group(1) != path:
        problems.append("%s: not a FILE:LINE message: %r" % (path, message))
    elif not 1 <= int(m.group(2)) <= nlines + 1:
        problems.append("%s: line %s outside the file (%d lines)" % (path, m.group(2), nlines))


def fuzz_files(binary, seed, count, tmp):
    """The mutants in one directory run, a sample one by one; the problems."""
    rng = random.Random(seed)
    corpus_dir = os.path.join(ROOT, "tests", "litmus")
    corpus = [open(os.path.join(corpus_dir, f)).read()
              for f in sorted(os.listdir(corpus_dir)) if f.endswith(".litmus")]
    mutants, problems = {}, []
    for n in range(count):
        text, what = mutate(rng, rng.choice(corpus), corpus)
        if rng.randrange(3) == 0:
            text, more = mutate(rng, text, corpus)
            what += ", " + more
        path = os.path.join(tmp, "m%03d.litmus" % n)
        with open(path, "wb") as f:
            f.write(encode(text))
        mutants[path] = (what, text.count("\n") + 1)
    p = subprocess.run(LITMUS + ["--bin", binary, "--timeout", "20", tmp],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800)
    out = p.stdout.decode(errors="replace")
    if "Traceback" in out or p.returncode not in (0, 1):
        return ["litmus.py %s: exit %d\n%s" % (tmp, p.returncode, out[-3000:])], 0, 0
    seen, answered = set(), 0
    for line in out.splitlines():
        m = re.match(r"(agree|disagree|no-result)\s+\S+\s+Result: ", line)
        if m:
            answered += 1
            continue
        m = re.match(r"(unsupported|malformed) +(\S+?):\d+: ", line)
        if m:
            seen.add(m.group(2))
            check_refusal(m.group(2), line.split(None, 1)[1], mutants[m.group(2)][1], problems)
    if answered + len(seen) != count:
        problems.append("%d answers and %d refusals for %d files:\n%s" % (
            answered, len(seen), count, out[-2000:]))
    for path in sorted(mutants)[::max(1, count // 20)]:
        q = subprocess.run(LITMUS + ["--bin", binary, "--timeout", "20", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        err, qout = q.stderr.decode(errors="replace"), q.stdout.decode(errors="replace")
        if q.returncode == 2:
            if len(err.splitlines()) != 1 or qout:
                problems.append("%s (%s): exit 2 with %r / %r" % (path, mutants[path][0], qout, err))
            else:
                check_refusal(path, err.strip(), mutants[path][1], problems)
        elif q.returncode not in (0, 1) or "Observation " not in qout or err:
            problems.append("%s (%s): exit %d\n%s%s" % (path, mutants[path][0], q.returncode,
                                                       qout, err))
    return problems, answered, len(seen)


def fuzz_ir(binary, seed, count, tmp):
    """Mutated programs for the interpreter's reader; the problems."""
    rng = random.Random(seed + 1)
    with open(os.path.join(ROOT, "tests", "litmus", "dcl-once.litmus")) as f:
        ir = litmus_parse.parse(f.read(), "dcl-once").ir()
    problems, refused = [], 0
    for n in range(count):
        text, what = mutate(rng, ir, [ir])
        path = os.path.join(tmp, "p%03d.ir" % n)
        with open(path, "wb") as f:
            f.write(encode(text))
        p = subprocess.run([binary, "list"], env=dict(os.environ, LITMUS_IR=path),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode(errors="replace")
        if p.returncode == 2 and re.match(r"^litmus: %s(:\d+)?: \S.*\n$" % re.escape(path), err):
            refused += 1
        elif p.returncode != 0 or err:
            problems.append("%s (%s): exit %d: %s" % (path, what, p.returncode, err[-1500:]))
    return problems, refused


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--count", type=int, default=160)
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    with tempfile.TemporaryDirectory(prefix="litmus-fuzz-") as tmp:
        files, irs = os.path.join(tmp, "files"), os.path.join(tmp, "ir")
        os.mkdir(files)
        os.mkdir(irs)
        problems, answered, refused = fuzz_files(binary, args.seed, args.count, files)
        ir_problems, ir_refused = fuzz_ir(binary, args.seed, args.count // 3, irs)
    for p in problems + ir_problems:
        print("FUZZ: " + p)
    print("fuzz (seed %d): %d litmus files, %d answered, %d refused with FILE:LINE; "
          "%d programs, %d refused by the interpreter's reader; %d problem(s)"
          % (args.seed, args.count, answered, refused, args.count // 3, ir_refused,
             len(problems + ir_problems)))
    return 1 if problems or ir_problems else 0


if __name__ == "__main__":
    sys.exit(main())
