"""kit.mutants - the catalogues of known-wrong solutions (tests/mutants/)
and of correct alternatives (tests/alternatives/).

Each tests/<catalogue>/<folder>/<name>.patch is a unified diff against
solutions/ (paths a/<folder>/<file>), preceded by '#' lines: what is wrong
and which part should catch it, or what shape of correct solution it is.
tree() copies solutions/ under BUILD and applies the patch there; the copy
is then graded like any tree.  A known-wrong one must be rejected by some
part; an alternative must pass every part.
"""
import os
import shutil

from . import ROOT, proc

CATALOGUE = os.path.join(ROOT, "tests", "mutants")
ALTERNATIVES = os.path.join(ROOT, "tests", "alternatives")


class Mutant:
    """folder (labN-xxx), name, header (the patch's comment lines), path,
    root (the catalogue it is from), parts (the parts its "Parts:" header
    line names -- each must reject it, and make check-catalogues grades
    only those -- or None: every part)."""

    def __init__(self, folder, name, root=CATALOGUE):
        self.folder, self.name, self.root = folder, name, root
        self.path = os.path.join(root, folder, name + ".patch")
        self.header, self.parts = [], None
        with open(self.path) as f:
            for line in f:
                if not line.startswith("#"):
                    break
                self.header.append(line[1:].strip())
                if self.header[-1].startswith("Parts:"):
                    self.parts = self.header[-1][len("Parts:"):].replace(",", " ").split()

    def __str__(self):
        return "%s/%s" % (self.folder, self.name)


def catalogue(folder=None, root=CATALOGUE):
    """[Mutant] of lab folder @folder (every lab's if None) in catalogue
    @root, sorted."""
    found = []
    for d in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        if not os.path.isdir(os.path.join(root, d)) or (folder and d != folder):
            continue
        found += [Mutant(d, p[:-len(".patch")], root)
                  for p in sorted(os.listdir(os.path.join(root, d)))
                  if p.endswith(".patch")]
    return found


def alternatives(folder=None):
    """[Mutant] of tests/alternatives/@folder: correct solutions of other
    shapes, which must pass every part."""
    return catalogue(folder, ALTERNATIVES)


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
    """Copy solutions/ to BUILD/<catalogue>/<folder>-<name>/ (catalogue:
    mutants or alternatives) and apply the patch there; return the tree's
    path (as IMPL, relative to the root if BUILD is)."""
    return patched(mutant.path, "solutions",
                   os.path.join(build, os.path.basename(mutant.root),
                                "%s-%s" % (mutant.folder, mutant.name)))
