"""kit.layout - the labs, as make declares them.

Each lab's manifest (labs/labN-*/lab.mk) is read by make only; the tools
ask it:  make -s print-manifest IMPL=... BUILD=...  prints one line per
field, "N<tab>KEY<tab>VALUE" (mk/labs.mk, lab_lines), and manifest() makes
each lab's dict of them -- the JSON of make print-labs is json.dumps of
those dicts (python3 -m kit.layout), so nothing a manifest holds (a quote,
a backslash) can break it.  Lab wraps one.  Paths are relative to the
kit's root (or absolute, as IMPL and BUILD were given).
"""
import argparse
import json
import os
import sys

from . import ROOT, proc


class LayoutError(Exception):
    """make could not say what the labs are."""


class Exercise:
    """A file the student writes that is graded by replaying it: @file must
    drive @scenario to @verdict, at a step of function @at (or whose label
    starts with @at, if it has a dot), whose access is @access (read,
    write, update; None: any)."""

    def __init__(self, d):
        self.file, self.scenario = d["file"], d.get("scenario")
        self.verdict, self.at = d.get("verdict"), d.get("at")
        self.access = d.get("access")


class Lab:
    """One lab, for one tree (IMPL) and one BUILD.

    n, folder, title       labN-xxx and its title
    dir                    labs/<folder>: handout, manifest, headers, given code
    impl, impl_dir         the tree graded, and its folder for this lab
    handout                labs/<folder>/README.md (whatever the tree)
    problem                why the tree cannot be built ('' if it can)
    edit, given, tests     the manifest's lists
    include, cflags        its include path beyond its folder, its CFLAGS
    exercises              [Exercise]
    points                 {part: points}; the graded parts, in order
    weights                {test pattern: weight}: a test's share of its
                           part's points (kit.grading.share; default 1)
    order                  [test pattern]: the handout's order, in which
                           failures are listed (kit.grading.ordered_key)
    hints                  {exercise file: its hint} (lab.hint.<file>)
    build                  $(B): where this tree's binaries are
    build_root             BUILD, as given
    extra_tests            EXTRA_TESTS (an instructor's hidden tests), or ''
    test_dirs              the folders its tests come from, hidden ones too
    api, symbols           what its student files may define, and call
                           beyond kit_symbols (the pre-build check)
    objs                   the plain objects of the student's files
    compile                {variant: the compiler command, without the file}
    config                 {configuration: the flags it adds} (lab.configs:
                           the edited files built once more with each)
    bins                   {"unit-plain": path, "unit-asan": path,
                            "tsan": [paths], "race": path or ""}
    make_env               what make() adds to make's environment (a
                           grade's compile server: kit.jailcc.serving)
    """
    make_env = {}

    def __init__(self, d):
        self.__dict__.update(d)
        self.exercises = [Exercise(e) for e in d["exercises"]]
        for e in self.exercises:
            e.lab = self.n
        self.weights, self.order = d.get("weights", {}), d.get("order", [])
        self.hints = d.get("hints", {})

    @property
    def parts(self):
        """The graded parts, in the manifest's order."""
        return list(self.points)

    def exercise(self, filename):
        """The Exercise for @filename, or None."""
        return next((e for e in self.exercises if e.file == filename), None)

    def path(self, *parts):
        """A path relative to the kit's root, made absolute."""
        return os.path.join(ROOT, *parts)

    def make(self, targets, timeout=None):
        """make @targets for this lab's tree, BUILD and hidden tests (and
        make_env, kit.jailcc's server, in its environment); the
        kit.proc.Result."""
        return proc.make(["-s"] + list(targets), impl=self.impl, build=self.build_root,
                         timeout=timeout, extra=_extra(self.extra_tests),
                         env_add=self.make_env)


def _extra(extra_tests):
    return ["EXTRA_TESTS=" + extra_tests] if extra_tests else []


# How each KEY of print-manifest becomes JSON: a string, a list of words,
# a map of KEY=VALUE words (numbers as numbers), or one entry per line.
_WORDS = ("test_dirs", "edit", "given", "tests", "include", "api", "symbols", "kit_symbols",
          "objs", "order")
_MAPS = ("points", "weights")


def _value(v):
    return int(v) if v.isdigit() else v


def manifest(text):
    """[dict] of the labs in print-manifest's @text, in order."""
    labs = {}
    for line in text.splitlines():
        fields = line.split("\t", 2)
        if len(fields) != 3 or not fields[0].isdigit():
            continue
        n, key, value = int(fields[0]), fields[1], fields[2]
        d = labs.setdefault(n, dict(n=n, exercises=[], hints={}, compile={}, config={}, bins={}))
        if key in _WORDS:
            d[key] = value.split()
        elif key in _MAPS:
            d[key] = {k: _value(v) for k, _, v in (w.partition("=") for w in value.split())}
        elif key == "exercise":
            d["exercises"].append(dict(w.split("=", 1) for w in value.split() if "=" in w))
        elif key == "hint":
            name, _, text = value.partition(" ")
            d["hints"][name] = text
        elif key in ("compile", "config"):
            name, _, flags = value.partition(" ")
            d[key][name] = flags
        elif key == "bin":
            part, _, paths = value.partition(" ")
            d["bins"][part] = paths.split() if part == "tsan" else paths.strip()
        else:
            d[key] = value
    return [labs[n] for n in sorted(labs)]


def _ask(n, impl, build, extra_tests=None):
    targets = ["print-manifest"] + (["N=%s" % n] if n is not None else [])
    r = proc.make(["-s"] + targets, impl=impl, build=build, timeout=60,
                  extra=_extra(extra_tests))
    found = manifest(r.out) if r.rc == 0 else []
    if r.rc != 0 or not found:
        raise LayoutError("make %s: %s" % (" ".join(targets), r.out.strip()[:300] or r.status()))
    return found


def labs(impl="labs", build=None, extra_tests=None):
    """Every lab, in order, for tree @impl (and hidden tests @extra_tests)."""
    return [Lab(d) for d in _ask(None, impl, build, extra_tests)]


def lab(n, impl="labs", build=None, extra_tests=None):
    """Lab @n for tree @impl (and hidden tests @extra_tests)."""
    return Lab(_ask(n, impl, build, extra_tests)[0])


def built(n, impl, build, targets=None):
    """(Lab @n of tree @impl, the kit.proc.Result of making @targets, by
    default its race binary)."""
    l = lab(n, impl=impl, build=build)
    return l, proc.make(["-s"] + (targets or [l.bins["race"]]), impl=impl, build=build)


def find(path, build=None):
    """(Lab, impl) for a file under IMPL/labN-xxx/, or (None, None)."""
    parts = os.path.normpath(path).split(os.sep)
    folders = {l.folder: l.n for l in labs(build=build)}
    for i, part in enumerate(parts[:-1]):
        if part in folders:
            impl = os.sep.join(parts[:i]) or "."
            return lab(folders[part], impl=impl, build=build), impl
    return None, None


TABLE_START = "<!-- labs table: python3 -m kit.layout --readme-table (PYTHONPATH=tools) -->"
TABLE_END = "<!-- end of the labs table -->"


def readme_table(found):
    """The README's table of the labs, from their manifests (@found: [Lab])."""
    rows = ["| # | lab | folder | you edit | points |", "|---|-----|--------|----------|--------|"]
    for l in found:
        rows.append("| %d | %s | `labs/%s` | %s | %s |" % (
            l.n, l.title.replace("|", "\\|"), l.folder, ", ".join("`%s`" % f for f in l.edit),
            " + ".join("%s %d" % (p, v) for p, v in l.points.items())))
    return "\n".join([TABLE_START] + rows + [TABLE_END])


def main():
    """make print-labs / print-lab N=: the labs of IMPL, BUILD and
    EXTRA_TESTS (from the environment make gives) as JSON; --readme-table:
    the README's table of the labs."""
    ap = argparse.ArgumentParser(description="the labs' manifests, as JSON")
    ap.add_argument("--lab", default=None)
    ap.add_argument("--readme-table", action="store_true")
    args = ap.parse_args()
    if args.readme_table:
        print(readme_table(labs()))
        return 0
    try:
        found = _ask(args.lab or None, os.environ.get("IMPL"), os.environ.get("BUILD"),
                     os.environ.get("EXTRA_TESTS") or None)
    except LayoutError as e:
        sys.exit(str(e))
    print(json.dumps(found[0] if args.lab else found, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
