#!/usr/bin/env python3
"""race_layers.py - the includes and calls of the race reproducer
(common/race/), checked: no circle of files, no arrow that runs up a layer.

  race_layers.py [--root DIR] [--arrows] [--dot]

An arrow A -> B is A including B ("race/runtime/sched.h"), or A naming
something B alone defines (a function or variable of external linkage of
a .c file): a call, or a function's address taken.  Prototypes and extern
declarations are no arrows (the include that brings them is), and neither
are macro bodies (they are expanded where they are used), nor a header's
inline functions naming what a .c that includes it defines (the header is
that file's interface).  A call through
a function pointer registered at start-up is no arrow either: that is how
a lower layer notifies a higher one (docs/design.md, "The reproducer's
layers").

The layers, bottom to top (a file's layer is its folder):

  0  common/race/*.h       the API the tests include (scenario.h; lin.h
                           and lin_collection.h, of generated scenarios):
                           data and declarations only
  1  runtime/              threads and the token, the step record, objects
                           and their lifetimes, the failure path
  2  models/               one file per primitive family: memory, locks,
                           RCU, interrupts, what a thread holds
  3  explore/              the strategies, the reduction they call, one
                           execution, a search
  4  report/               timelines, verdicts, schedule files
  5  front/                the command line, replay, scenarios, generated
                           scenarios, debugging

An arrow may stay in its layer or go down; one that goes up, or a circle
(even inside one layer), fails.  Prints the files per layer, the number of
arrows, and every offence with the names that make it; --arrows lists
every arrow; --dot prints the graph for Graphviz.  Exit status 1 if
anything fails.  Standard library only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ("", "runtime", "models", "explore", "report", "front")
NAMES = ("API", "runtime", "models", "exploration", "reporting", "front ends")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case",
            "static", "extern", "const", "volatile", "struct", "union", "enum", "typedef",
            "inline", "unsigned", "signed", "int", "long", "char", "short", "void",
            "bool", "float", "double", "goto", "break", "continue", "default"}
TOKEN = re.compile(r"[A-Za-z_]\w*|\S")


def strip(text):
    """@text without comments, and with every string or character literal
    but an #include's made a space; line breaks kept."""
    out, i, n = [], 0, len(text)
    line_start = 0
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = len(out) + 1
        if text.startswith("/*", i) or text.startswith("//", i):
            j = text.find("*/", i + 2) + 2 if text[i + 1] == "*" else text.find("\n", i)
            j = n if j < 2 or j < 0 else j
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                j += 2 if text[j] == "\\" else 1
            include = re.match(r"\s*#\s*include\s*$", "".join(out[line_start:]))
            out.append(text[i:j + 1] if include else " ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_preprocessor(text):
    """(code without preprocessor lines, [#include targets])."""
    code, includes, cont = [], [], False
    for line in text.split("\n"):
        if cont or line.lstrip().startswith("#"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m and not cont:
                includes.append(m.group(1))
            cont = line.endswith("\\")
            code.append("")
            continue
        code.append(line)
    return "\n".join(code), includes


def statements(code):
    """Top-level pieces of @code: (tokens before a ';' or '{', body tokens
    if it opened a brace)."""
    toks = TOKEN.findall(code)
    i, n = 0, len(toks)
    while i < n:
        head = []
        while i < n and toks[i] not in (";", "{"):
            head.append(toks[i])
            i += 1
        if i >= n:
            break
        if toks[i] == ";":
            i += 1
            yield head, []
            continue
        depth, body = 0, []
        while i < n:
            t = toks[i]
            depth += (t == "{") - (t == "}")
            body.append(t)
            i += 1
            if depth == 0:
                break
        if not head or head[-1] != ")":     # not a function: "} name;"
            while i < n and toks[i] != ";":
                head.append(toks[i])
                i += 1
            i += 1
        yield head, body


def declared_name(head):
    """The name a top-level declaration defines: before '=', or before the
    first '(' of a function, or the last word."""
    depth = 0
    for j, t in enumerate(head):
        if t == "=" and depth == 0:
            return last_word(head[:j])
        if t == "(" and depth == 0 and j and re.match(r"\w", head[j - 1]) \
                and head[j - 1] not in KEYWORDS and head[j - 1] != "__attribute__":
            return head[j - 1]
        depth += (t in "([") - (t in ")]")
    return last_word(head)


def last_word(toks):
    words = [t for t in toks if re.match(r"[A-Za-z_]\w*$", t) and t not in KEYWORDS]
    return words[-1] if words else None


class Unit:
    def __init__(self, root, path):
        self.path = path
        self.rel = os.path.relpath(path, root)
        with open(path, errors="replace") as f:
            code, self.includes = split_preprocessor(strip(f.read()))
        self.defines, self.uses = set(), set()
        for head, body in statements(code):
            local = "static" in head or "typedef" in head
            name = declared_name(head)
            is_function_def = body and head and head[-1] == ")" and "=" not in head
            is_init = "=" in head and "extern" not in head
            if self.rel.endswith(".c") and not local and name and "extern" not in head \
                    and (is_function_def or is_init or (not body and "(" not in head)):
                self.defines.add(name)
            used = (head[head.index("=") + 1:] if is_init else []) + \
                (body if is_function_def or is_init else [])
            self.uses.update(t for t in used if re.match(r"[A-Za-z_]\w*$", t))
        self.uses -= KEYWORDS

    def layer(self, base):
        sub = os.path.relpath(os.path.dirname(self.path), base)
        sub = "" if sub == "." else sub.split(os.sep)[0]
        return LAYERS.index(sub) if sub in LAYERS else None


def load(root):
    base = os.path.join(root, "common", "race")
    units = {}
    for folder, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                u = Unit(root, os.path.join(folder, f))
                units[u.rel] = u
    return base, units


def arrows(root, units):
    """{(a, b): set of names}: includes (name '#include') and references."""
    owner = {}
    for u in units.values():
        for name in u.defines:
            owner.setdefault(name, set()).add(u.rel)
    out = {}
    for u in units.values():
        for inc in u.includes:
            for cand in (os.path.join("common", inc),
                         os.path.join(os.path.dirname(u.rel), inc)):
                cand = os.path.normpath(cand)
                if cand in units:
                    out.setdefault((u.rel, cand), set()).add("#include")
                    break
        for name in u.uses:
            where = owner.get(name, ())
            if len(where) == 1 and u.rel not in where:
                out.setdefault((u.rel, next(iter(where))), set()).add(name)
    # A header's inline functions naming what a .c that includes it defines
    # (sched.h's race_self() reading threads.c's race_current): the header
    # is that file's interface, one room with it, not a file above it.
    for a, b in list(out):
        if a.endswith(".h") and (b, a) in out and "#include" in out[(b, a)]:
            del out[(a, b)]
    return out


def circles(nodes, edges):
    """Strongly connected components of more than one file (Tarjan)."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ[a].append(b)
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--arrows", action="store_true")
    ap.add_argument("--dot", action="store_true")
    args = ap.parse_args()
    base, units = load(args.root)
    edges = arrows(args.root, units)
    if args.dot:
        print("digraph race {\n  rankdir=BT;")
        for (a, b) in sorted(edges):
            print('  "%s" -> "%s";' % (a, b))
        print("}")
        return 0
    bad = 0
    layer = {rel: u.layer(base) for rel, u in units.items()}
    for rel in sorted(units):
        if layer[rel] is None:
            print("FAIL %s: in no layer's folder (%s)" % (rel, ", ".join(
                "common/race/" + l for l in LAYERS)))
            bad += 1
    for lv, name in enumerate(NAMES):
        files = sorted(os.path.basename(r) for r in units if layer[r] == lv)
        print("layer %d %-11s %2d files: %s" % (lv, name, len(files), " ".join(files)))
    print("%d files, %d arrows" % (len(units), len(edges)))
    for (a, b), names in sorted(edges.items()):
        if args.arrows:
            print("  %s -> %s: %s" % (a, b, ", ".join(sorted(names))))
        if None not in (layer[a], layer[b]) and layer[b] > layer[a]:
            print("FAIL up a layer: %s (%s) -> %s (%s): %s" % (
                a, NAMES[layer[a]], b, NAMES[layer[b]], ", ".join(sorted(names))))
            bad += 1
    for comp in circles(units, edges):
        print("FAIL circle of %d files: %s" % (len(comp), ", ".join(comp)))
        for (a, b), names in sorted(edges.items()):
            if a in comp and b in comp:
                print("    %s -> %s: %s" % (a, b, ", ".join(sorted(names))))
        bad += 1
    print("race_layers: %s" % ("no circle, every arrow stays in its layer or goes down"
                               if not bad else "%d offence(s)" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
