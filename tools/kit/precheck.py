"""kit.precheck - a submission's files, checked before any of it runs.

A student's file may define only the lab's API (lab.api) and static
helpers, may call only the kit's primitives (KIT_SYMBOLS, mk/labs.mk), the
given functions of the lab and the few C library functions it needs
(lab.symbols), and may not depend on how it is built.  check(lab) looks at
the sources (lab.edit) and at their plain objects, compiled but never run
(nm, readelf), and returns one line per refusal, naming the file, the line
where it can, and the symbol or macro:

  includes  every file the preprocessor reads for a student's file (the
            compiler's own list, -M, for each variant's flags: not the
            text, which a macro can spell) is the lab's own header, a
            header of common/, one of the tree's own edited files, a copy
            of one of the lab's headers identical to the kit's, or the
            C library's (the compiler's <...> search path): not a .c file
            of the kit, not solutions/,
            not tests/, not another lab, not any other file.  It runs
            before the first compile (includes()), so that no compiler
            message ever quotes a file the student may not read
  sources   no reference to a macro whose definition differs between the
            build variants (CONFIG_RACE_HARNESS, the sanitizers' macros and
            __has_feature, and every macro the kit's headers define only in
            some variants: computed with the compiler, -dM -E, for each
            variant's flags), no inline assembly, no constructor,
            destructor, section, alias or ifunc attribute
  objects   no constructors or destructors (.init_array and kin), no global
            symbol beyond lab.api (a function, not data), no ifunc, no
            reference outside the allow-list

So the code under test cannot end the process (exit, abort), start one
(fork, exec, system), touch files or print (its verdicts come from files
the grader chose, kit.criterion, kit.tsan, kit.race), or behave one way
under the tests of one variant and another way under the others.
"""
import os
import re
import subprocess
import tempfile

from . import ROOT, proc

VARIANT_NAMES = ("CONFIG_RACE_HARNESS", "__has_feature", "__has_extension",
                 "__SANITIZE_ADDRESS__", "__SANITIZE_THREAD__")
VARIANT_PREFIXES = ("__SANITIZE_", "CONFIG_KIT_", "__SANITIZER_")
ASM = ("asm", "__asm", "__asm__")
BAD_ATTRIBUTES = ("constructor", "destructor", "section", "alias", "weakref", "ifunc")
BAD_SECTIONS = (".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors")
IDENT = re.compile(r"[A-Za-z_]\w*")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\((.*?)\)\)", re.S)


class PrecheckError(Exception):
    """The check could not be made (a tool is missing, the object would
    not build): not the submission's refusal."""


def _strip(text):
    """@text without comments, string and character literals, line breaks
    kept (so line numbers stay right)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scan_source(path, variant_macros):
    """Refusals of the source file @path: the lines naming a variant macro,
    inline assembly, or a forbidden attribute."""
    rel = os.path.relpath(path, ROOT)
    try:
        text = _strip(open(path, errors="replace").read())
    except OSError as e:
        return ["%s: cannot be read (%s)" % (rel, e.strerror)]
    found = []
    for no, line in enumerate(text.splitlines(), 1):
        for name in IDENT.findall(line):
            if name in variant_macros or name in VARIANT_NAMES or name.startswith(VARIANT_PREFIXES):
                found.append("%s:%d: names %s, which differs between the builds the "
                             "tests use: the code must not depend on how it is built"
                             % (rel, no, name))
            elif name in ASM:
                found.append("%s:%d: inline assembly (%s) is not allowed" % (rel, no, name))
    for m in ATTRIBUTE.finditer(text):
        bad = [a for a in IDENT.findall(m.group(1)) if a in BAD_ATTRIBUTES]
        if bad:
            no = text.count("\n", 0, m.start()) + 1
            found.append("%s:%d: attribute %s is not allowed (no code may run before "
                         "or after the tests, or under another name)" % (rel, no, bad[0]))
    return sorted(set(found), key=found.index)


def variant_macros(lab, sources):
    """The macros whose definitions differ between the variants' builds of
    @sources (compiler -dM -E over all of them at once, nothing run; the
    variants side by side)."""
    runs = []
    first = sum((["-include", s] for s in sources), [])
    for variant, cmd in sorted(lab.compile.items()):
        flags = [w for w in cmd.split() if w not in ("-MMD", "-MP")]
        runs.append((variant, subprocess.Popen(
            flags + ["-dM", "-E"] + first + ["-x", "c", os.devnull], cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)))
    defs = []
    for variant, p in runs:
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        if p.returncode != 0:
            raise PrecheckError("%s -dM -E %s failed: %s" % (variant, " ".join(sources),
                                                            (err.strip().splitlines() or [""])[-1]))
        d = {}
        for line in out.splitlines():
            m = IDENT.match(line[len("#define "):]) if line.startswith("#define ") else None
            if m:
                d[m.group(0)] = line
        defs.append(d)
    names = set().union(*defs) if defs else set()
    return {n for n in names if len({d.get(n) for d in defs}) > 1}


_SYSTEM_DIRS = {}


def system_dirs(cc):
    """The folders compiler @cc searches for <...> headers (its -E -v
    list), as real paths."""
    if cc not in _SYSTEM_DIRS:
        r = proc.run([cc, "-E", "-v", "-x", "c", os.devnull], 60)
        dirs, inside = [], False
        for line in r.out.splitlines():
            if line.startswith("#include <...> search starts here"):
                inside = True
            elif line.startswith("End of search list"):
                inside = False
            elif inside and line.startswith(" "):
                dirs.append(os.path.realpath(line.strip().split(" (")[0]))
        if not dirs:
            raise PrecheckError("%s -E -v printed no include search path" % cc)
        _SYSTEM_DIRS[cc] = dirs
    return _SYSTEM_DIRS[cc]


def _under(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _dependencies(out):
    """The files of a make rule as `cc -M` prints it."""
    text = out.replace("\\\n", " ")
    text = text.split(":", 1)[1] if ":" in text else ""
    return [w.replace("\\ ", " ") for w in re.findall(r"(?:\\ |\S)+", text)]


def _allowed_folders(lab):
    folders = [os.path.join(ROOT, "common"), os.path.join(ROOT, lab.dir)]
    folders += [os.path.join(ROOT, "labs", f) for f in lab.include]
    return [os.path.realpath(f) for f in folders]


def _kit_copy(path, folders):
    """True if @path is a header that is, byte for byte, the one of that
    name in one of the lab's @folders: a tree copied whole from labs/ (a
    student's clone, a fixture) holds the kit's headers beside the files
    the student edits, and the compiler reads them there first."""
    if not path.endswith(".h"):
        return False
    try:
        mine = open(path, "rb").read()
    except OSError:
        return False
    for folder in folders:
        kit = os.path.join(folder, os.path.basename(path))
        if os.path.isfile(kit) and open(kit, "rb").read() == mine:
            return True
    return False


def _own_error(out, src):
    """The first error the compiler gave on a line of @src itself (the
    student's own text), without the path; else a line that quotes
    nothing."""
    for line in out.splitlines():
        if line.startswith(src + ":") and "error" in line:
            return os.path.basename(src) + line[len(src):][:200]
    return "an #include of a file that does not exist, or an #error"


def includes(lab):
    """Refusals of the files tree lab.impl's sources of @lab include: one
    line per source and file outside what the lab allows (module doc).
    Nothing of what the compiler says is shown: only the student's own
    spelling of a path they may not include."""
    sources = [os.path.join(lab.impl_dir, f) for f in lab.edit if f.endswith((".c", ".h"))]
    own = {os.path.realpath(os.path.join(ROOT, s)) for s in sources}
    folders = _allowed_folders(lab)
    found = []
    for variant, cmd in sorted(lab.compile.items()):
        flags = [w for w in cmd.split() if w not in ("-MMD", "-MP")]
        system = system_dirs(flags[0])
        for src in sources:
            if not src.endswith(".c"):
                continue
            rel = os.path.relpath(os.path.join(ROOT, src), ROOT)
            with tempfile.TemporaryDirectory() as tmp:
                deps = os.path.join(tmp, "deps")
                r = proc.run(flags + ["-M", "-MF", deps, "-w", "-o", os.devnull,
                                      os.path.join(ROOT, src)], 60, cwd=ROOT)
                rule = open(deps).read() if os.path.exists(deps) else ""
            if r.rc != 0:
                found.append("%s: the preprocessor stops on it: %s" % (rel, _own_error(
                    r.out, os.path.join(ROOT, src))))
                continue
            for dep in _dependencies(rule)[1:]:
                real = os.path.realpath(os.path.join(ROOT, dep))
                header = real.endswith(".h") and any(_under(real, f) for f in folders)
                if real in own or header or any(_under(real, f) for f in system):
                    continue
                if _kit_copy(real, folders):
                    continue
                shown = os.path.relpath(real, ROOT) if _under(real, ROOT) else dep
                found.append("%s: includes %s, which a file of this lab may not include "
                             "(only the lab's headers, common/'s and the C library's)"
                             % (rel, shown))
    return sorted(set(found), key=found.index)


def _tool(cmd):
    r = proc.run(cmd, 60)
    if r.rc != 0:
        raise PrecheckError("%s failed: %s" % (" ".join(cmd), r.status()))
    return r.out


def scan_object(obj, source, allowed, api):
    """Refusals of object file @obj (compiled from @source)."""
    rel = os.path.relpath(source, ROOT)
    found = []
    for line in _tool(["readelf", "-SW", obj]).splitlines():
        m = re.search(r"\]\s+(\S+)", line)
        if m and m.group(1).startswith(BAD_SECTIONS):
            found.append("%s: has a constructor or destructor (section %s): no code may "
                         "run before or after the tests" % (rel, m.group(1)))
    for line in _tool(["nm", "-P", obj]).splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in "Uwv":
            if name not in allowed:
                found.append("%s: uses %s, which a file of this lab may not use (its handout "
                             "lists what it may)" % (rel, name))
        elif kind == "i":
            found.append("%s: defines %s as an ifunc: not allowed" % (rel, name))
        elif kind.isupper() and kind not in "TW" and name not in api:
            found.append("%s: defines global data %s: make it static (the lab's "
                         "API names the data a file may define)" % (rel, name))
        elif kind in "TW" and name not in api:
            found.append("%s: defines %s, which is not part of the lab's API: make it "
                         "static" % (rel, name))
    return found


def check(lab):
    """The refusals of tree lab.impl's files of @lab, one line each ([]:
    accepted).  The plain objects must be built (lab.objs)."""
    allowed = set(lab.kit_symbols) | set(lab.symbols) | set(lab.api)
    found = []
    sources = [os.path.join(lab.impl_dir, f) for f in lab.edit if f.endswith((".c", ".h"))]
    c_files = [s for s in sources if s.endswith(".c")]
    macros = variant_macros(lab, c_files) if c_files else set()
    for src in sources:
        found += scan_source(src, macros)
    if not lab.api:
        return found
    objs = {os.path.splitext(os.path.basename(o))[0]: o for o in lab.objs}
    for src in sources:
        if src.endswith(".c"):
            obj = objs.get(os.path.splitext(os.path.basename(src))[0])
            if not obj or not os.path.exists(obj):
                raise PrecheckError("no object %s for %s" % (obj, src))
            found += scan_object(obj, src, allowed, set(lab.api))
    return found
