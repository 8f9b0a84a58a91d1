"""kit.layout - the labs, as make declares them.

Each lab's manifest (labs/labN-*/lab.mk) is read by make only; the tools
ask it:  make -s print-labs IMPL=... BUILD=...  prints a JSON array with one
object per lab (mk/labs.mk, lab_json), which Lab wraps.  Paths are relative
to the kit's root (or absolute, as IMPL and BUILD were given).
"""
import json
import os

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
    build                  $(B): where this tree's binaries are
    build_root             BUILD, as given
    extra_tests            EXTRA_TESTS (an instructor's hidden tests), or ''
    test_dirs              the folders its tests come from, hidden ones too
    api, symbols           what its student files may define, and call
                           beyond kit_symbols (the pre-build check)
    objs                   the plain objects of the student's files
    compile                {variant: the compiler command, without the file}
    bins                   {"unit-plain": path, "unit-asan": path,
                            "tsan": [paths], "race": path or ""}
    """

    def __init__(self, d):
        self.__dict__.update(d)
        self.exercises = [Exercise(e) for e in d["exercises"]]

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
        """make @targets for this lab's tree, BUILD and hidden tests; the
        kit.proc.Result."""
        return proc.make(["-s"] + list(targets), impl=self.impl, build=self.build_root,
                         timeout=timeout, extra=_extra(self.extra_tests))


def _extra(extra_tests):
    return ["EXTRA_TESTS=" + extra_tests] if extra_tests else []


def _ask(targets, impl, build, extra_tests=None):
    r = proc.make(["-s"] + targets, impl=impl, build=build, timeout=60,
                  extra=_extra(extra_tests))
    if r.rc != 0:
        raise LayoutError("make %s: %s" % (" ".join(targets), r.out.strip() or r.status()))
    try:
        return json.loads(r.out)
    except ValueError as e:
        raise LayoutError("make %s printed no JSON (%s): %s"
                          % (" ".join(targets), e, r.out[:200]))


def labs(impl="labs", build=None, extra_tests=None):
    """Every lab, in order, for tree @impl (and hidden tests @extra_tests)."""
    return [Lab(d) for d in _ask(["print-labs"], impl, build, extra_tests)]


def lab(n, impl="labs", build=None, extra_tests=None):
    """Lab @n for tree @impl (and hidden tests @extra_tests)."""
    return Lab(_ask(["print-lab", "N=%s" % n], impl, build, extra_tests))


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
