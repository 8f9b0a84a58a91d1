"""kit.mutants - the catalogue of known-wrong solutions (tests/mutants/).

Each tests/mutants/<folder>/<name>.patch is a unified diff against
solutions/ (paths a/<folder>/<file>), preceded by '#' lines: what is wrong,
and which part should catch it.  tree() copies solutions/ under BUILD and
applies the patch there; the copy is then graded like any tree.
"""
import os
import shutil

from . import ROOT, proc

CATALOGUE = os.path.join(ROOT, "tests", "mutants")


class Mutant:
    """folder (labN-xxx), name, header (the patch's comment lines), path."""

    def __init__(self, folder, name):
        self.folder, self.name = folder, name
        self.path = os.path.join(CATALOGUE, folder, name + ".patch")
        self.header = []
        with open(self.path) as f:
            for line in f:
                if not line.startswith("#"):
                    break
                self.header.append(line[1:].strip())

    def __str__(self):
        return "%s/%s" % (self.folder, self.name)


def catalogue(folder=None):
    """[Mutant] of lab folder @folder (every lab's if None), sorted."""
    found = []
    for d in sorted(os.listdir(CATALOGUE)):
        if not os.path.isdir(os.path.join(CATALOGUE, d)) or (folder and d != folder):
            continue
        found += [Mutant(d, p[:-len(".patch")])
                  for p in sorted(os.listdir(os.path.join(CATALOGUE, d)))
                  if p.endswith(".patch")]
    return found


class PatchError(Exception):
    """The patch does not apply to solutions/."""


def patched(patch, base, rel):
    """Copy the tree @base (solutions, labs) to @rel (relative to the root,
    or absolute) and apply @patch there; return @rel."""
    path = os.path.join(ROOT, rel)
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, base), path)
    r = proc.run(["patch", "-p1", "--quiet", "--no-backup-if-mismatch",
                  "-d", path, "-i", patch], 60)
    if r.rc != 0:
        raise PatchError("%s does not apply to %s/: %s" % (patch, base, r.out.strip()))
    return rel


def tree(mutant, build):
    """Copy solutions/ to BUILD/mutants/<folder>-<name>/ and apply the
    patch there; return the tree's path (as IMPL, relative to the root if
    BUILD is)."""
    return patched(mutant.path, "solutions",
                   os.path.join(build, "mutants", "%s-%s" % (mutant.folder, mutant.name)))
