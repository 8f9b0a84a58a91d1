"""kit.precheck - a submission's files, checked before any of it runs.

A student's file may define only the lab's API (lab.api) and static
helpers, may call only the kit's primitives (KIT_SYMBOLS, mk/labs.mk), the
given functions of the lab and the few C library functions it needs
(lab.symbols), and may not depend on how it is built.  check(lab) reads
what the compiler reads and makes -- the sources, the preprocessed
translation unit of each build variant, the plain objects, compiled but
never run -- and returns one line per refusal, naming the file, the line
where it can, and what is refused.  Every compiler pass runs jailed
(kit.sandbox.compile: it sees only the lab's headers, common/'s and the
student's folder; its messages about other files are cut to their names).

  includes  every file the preprocessor reads for a student's file (the
            compiler's own list, -M, for each variant's flags: not the
            text, which a macro can spell) is the lab's own header, a
            header of common/, one of the tree's own edited files, a copy
            of one of the lab's headers identical to the kit's, or the
            C library's (the compiler's <...> search path): not a .c file
            of the kit, not solutions/ (which the jail does not even
            show), not tests/, not another lab, not any other file.  It
            runs before the first compile (includes())
  sources   the text: no #line or line marker (the locations below must
            be true), no reference to a macro whose definition differs
            between the build variants (CONFIG_RACE_HARNESS, the
            sanitizers' macros and __has_feature, and every macro the
            kit's headers define only in some variants: computed with the
            compiler, -dM -E, for each variant's flags), no inline
            assembly, no constructor, destructor, section, alias or ifunc
            attribute
  tokens    the preprocessed unit of each variant (-E), and token by
            token with where each was spelled (clang -dump-tokens) that
            of the plain build and of every variant whose -E gives the
            student's lines another text (same text, same tokens): no inline
            assembly, attribute outside ATTRIBUTES or __builtin_ outside
            BUILTINS that the student's text spelled (a macro of the
            kit's, such as barrier(), may expand to them), no #pragma or
            _Pragma in the student's lines (-E), and the same lines of the
            student's files compiled in every variant (else a condition
            tells the variants apart, however it is spelled).  A unit whose
            student's lines, as -E expanded them, hold no asm keyword, no
            attribute and no __builtin_ outside BUILTINS gets no dump: the
            dump looks at those tokens of those lines only (_needs_dump)
  objects   sections: code (.text, AX), read-only data, data and bss by
            name and by flags, and the toolchain's own (debug, notes,
            symbols); no constructors or destructors; no global symbol
            beyond lab.api (a function, not data), no ifunc, no data in
            code or code in data; relocations: only the kinds a C
            compiler emits for code, no reference outside the allow-list,
            and no data that holds a function's address (no table of
            function pointers: the labs' APIs need none)

So the code under test cannot end the process (exit, abort), start one
(fork, exec, system), touch files or print (its verdicts come from files
the grader chose, kit.criterion, kit.tsan, kit.race), place code or data
where the test framework or the loader reads it, or behave one way under
the tests of one variant and another way under the others.  What no check
of the source can prove: C can compute any address (a function's, the
evidence's) from another; the run does not depend on the check for that
(kit.sandbox's walls, common/evidence.h's lockdown, docs/instructor.md).
"""
import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor

from . import ROOT, proc, sandbox

VARIANT_NAMES = ("CONFIG_RACE_HARNESS", "__has_feature", "__has_extension",
                 "__SANITIZE_ADDRESS__", "__SANITIZE_THREAD__")
VARIANT_PREFIXES = ("__SANITIZE_", "CONFIG_KIT_", "__SANITIZER_")
ASM = ("asm", "__asm", "__asm__")
BAD_ATTRIBUTES = ("constructor", "destructor", "section", "alias", "weakref", "ifunc")
BAD_SECTIONS = (".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors")
# What a student's own text may say in an __attribute__ or [[...]] (the
# names without their __ __): nothing that places code or data, renames,
# runs code before or after the tests, or turns a sanitizer off.
ATTRIBUTES = {"unused", "maybe_unused", "noinline", "always_inline", "noreturn", "aligned",
              "packed", "format", "cold", "hot", "pure", "const", "warn_unused_result",
              "nonnull", "fallthrough", "deprecated", "returns_nonnull", "malloc",
              "may_alias", "nodiscard"}
# The compiler's built-in functions a student's own text may call: none
# that reaches a return address, a frame, the unwinder or new code.
BUILTINS = {"__builtin_expect", "__builtin_unreachable", "__builtin_offsetof",
            "__builtin_types_compatible_p", "__builtin_constant_p", "__builtin_choose_expr",
            "__builtin_memcpy", "__builtin_memset", "__builtin_memmove", "__builtin_memcmp",
            "__builtin_prefetch", "__builtin_trap", "__builtin_va_list", "__builtin_va_start",
            "__builtin_va_end", "__builtin_va_arg", "__builtin_va_copy"}
BUILTIN_PREFIXES = ("__builtin_clz", "__builtin_ctz", "__builtin_popcount", "__builtin_ffs",
                    "__builtin_abs", "__builtin_labs", "__builtin_add_overflow",
                    "__builtin_sub_overflow", "__builtin_mul_overflow")
IDENT = re.compile(r"[A-Za-z_]\w*")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\((.*?)\)\)", re.S)
# A directive that says which file and line the next lines come from.
LINE_DIRECTIVE = re.compile(r"^\s*(?:#|%:)\s*(?:line\b|\d)")
# One token of clang -dump-tokens: kind, text, where it is (the expansion),
# and where it was spelled if elsewhere.
TOKEN = re.compile(r"^(\S+) '(.*)'\t.*?Loc=<(.+?):(\d+):\d+(?: <Spelling=(.+?):\d+:\d+>)?>$")
MARKER = re.compile(r'^# (\d+) "(.*)"')
# A definition -dD writes where it is made (a directive: no line of code
# can begin so once preprocessed).
DEFINITION = re.compile(r"^#(define|undef) ([A-Za-z_]\w*)")
# Sections: the code's, the data's, and the toolchain's own.
CODE_SECTION = re.compile(r"^\.text(\..*)?$")
DATA_SECTION = re.compile(r"^\.(rodata|data|bss|tdata|tbss)(\..*)?$|^\.data\.rel(\.ro)?(\..*)?$")
TOOL_SECTION = re.compile(r"^(\.debug_\w+|\.rela?.+|\.comment|\.note\..*|\.symtab|\.strtab|"
                          r"\.shstrtab|\.group|\.llvm_addrsig|\.eh_frame|\.symtab_shndx)$|^$")
# Relocations a C compiler emits for code.
CODE_RELOCS = {"R_X86_64_PC32", "R_X86_64_PLT32", "R_X86_64_GOTPCREL", "R_X86_64_GOTPCRELX",
               "R_X86_64_REX_GOTPCRELX", "R_X86_64_32", "R_X86_64_32S", "R_X86_64_64",
               "R_X86_64_PC64"}
# Bytes of a token dump read (a unit past it is refused: too large).
TOKENS_CAP = 32 << 20
# What a token dump looks at (scan_tokens), as -E writes it: an asm
# keyword, an attribute (GNU or C2x), a compiler built-in.
DUMPED = re.compile(r"\b(?:%s|__attribute|__attribute__)\b|\[\s*\[|\b__builtin_\w+"
                    % "|".join(ASM))
# Data a student's data may point to: the C library's streams.
DATA_POINTEES = {"stdout", "stderr"}


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


def _spliced(text):
    """@text with its backslash-newlines joined (a directive may be split
    by them), each joined line padded so line numbers stay right."""
    lines, out, carry = text.split("\n"), [], ""
    pending = 0
    for line in lines:
        if line.endswith("\\"):
            carry += line[:-1]
            pending += 1
            continue
        out.append(carry + line)
        out += [""] * pending
        carry, pending = "", 0
    if carry:
        out.append(carry)
    return "\n".join(out)


def scan_source(path, variant_macros):
    """Refusals of the source file @path: the lines naming a variant macro,
    inline assembly, or a forbidden attribute, and #line directives."""
    rel = os.path.relpath(path, ROOT)
    try:
        text = _strip(_spliced(open(path, errors="replace").read()))
    except OSError as e:
        return ["%s: cannot be read (%s)" % (rel, e.strerror)]
    found = []
    for no, line in enumerate(text.splitlines(), 1):
        if LINE_DIRECTIVE.match(line):
            found.append("%s:%d: a #line directive (or line marker) is not allowed: the "
                         "grader must know where each line comes from" % (rel, no))
        for name in IDENT.findall(line):
            if name in variant_macros or name in VARIANT_NAMES or name.startswith(VARIANT_PREFIXES):
                found.append("%s:%d: names %s, which differs between the builds the "
                             "tests use: the code must not depend on how it is built"
                             % (rel, no, name))
            elif name in ASM:
                found.append("%s:%d: inline assembly (%s) is not allowed" % (rel, no, name))
    for m in ATTRIBUTE.finditer(text):
        bad = [a for a in IDENT.findall(m.group(1)) if a.strip("_") in BAD_ATTRIBUTES]
        if bad:
            no = text.count("\n", 0, m.start()) + 1
            found.append("%s:%d: attribute %s is not allowed (no code may run before "
                         "or after the tests, or under another name)" % (rel, no, bad[0]))
    return sorted(set(found), key=found.index)


def _flags(cmd):
    """The words of a variant's compile command, without dependency
    output (the check writes its own)."""
    return [w for w in cmd.split() if w not in ("-MMD", "-MP")]


class _OverLimit(Exception):
    """A compiler pass over a student's file went over a build limit: the
    file is refused (the line says which limit)."""


def _compile(cmd, what, cap=None):
    """Run compiler pass @cmd jailed (kit.sandbox.compile); _OverLimit if
    a limit stopped it."""
    c = sandbox.compile(cmd, cap=cap)
    if c.limit:
        raise _OverLimit("%s: %s" % (what, c.out.strip().splitlines()[-1]))
    return c


def variant_macros(units):
    """The macros whose definitions differ between the variants' builds:
    @units, {file: [_Unit of each variant's -E]}, each holding the macros
    defined at the end of its file (-dD).  None (an empty set) if a file
    does not preprocess: the units then say why, in the student's words."""
    names = set()
    for pre in units.values():
        if any(u.stopped for u in pre):
            return set()
        defs = [u.macros for u in pre]
        every = set().union(*defs)
        names |= {n for n in every if len({d.get(n) for d in defs}) > 1}
    return names


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
    return "an #include of a file that does not exist here, or an #error"


def _sources(lab, kinds=(".c", ".h")):
    return [os.path.join(lab.impl_dir, f) for f in lab.edit if f.endswith(kinds)]


def _deps_refusals(lab, rel, deps, cc):
    """Refusals of the files @deps (paths as the compiler printed them)
    that source @rel may not read (module doc)."""
    own = {os.path.realpath(os.path.join(ROOT, s)) for s in _sources(lab)}
    folders, system = _allowed_folders(lab), system_dirs(cc)
    found = []
    for dep in deps:
        real = os.path.realpath(os.path.join(ROOT, dep))
        header = real.endswith(".h") and any(_under(real, f) for f in folders)
        if real in own or header or any(_under(real, f) for f in system):
            continue
        if _kit_copy(real, folders):
            continue
        shown = os.path.relpath(real, ROOT) if _under(real, ROOT) else dep
        found.append("%s: includes %s, which a file of this lab may not include "
                     "(only the lab's headers, common/'s and the C library's)" % (rel, shown))
    return found


def includes(lab):
    """The refusals of tree lab.impl's sources of @lab that must stop it
    before anything of it is built: a file it may not read, a file the
    preprocessor stops on, a build limit.  It reads everything check()
    reads before the build (the text, the preprocessed units: module doc)
    and keeps those refusals for check() (lab.precheck_later)."""
    try:
        now, later = _before_build(lab)
    except _OverLimit as e:
        now, later = [str(e)], []
    lab.precheck_later = later
    return now


def _before_build(lab):
    """(refusals that stop the build, the others) of the text and the
    preprocessed units; a build limit raises _OverLimit."""
    now, later, pre = [], [], {}
    student = _Student(lab)
    for src in _sources(lab, ".c"):
        rel = os.path.relpath(os.path.join(ROOT, src), ROOT)
        units = _units(lab, src, student)
        pre[src] = [u for name, _, u in units if name in lab.compile]
        for name, cc, unit in units:
            now += _deps_refusals(lab, rel, unit.deps, cc)
            (now if unit.stopped else later).extend(unit.refusals)
        if not any(u.stopped for _, _, u in units):
            later += _variant_lines([(name, u.lines) for name, _, u in units])
    macros = variant_macros(pre)
    text = sum((scan_source(src, macros) for src in _sources(lab)), [])
    return _unique(now), _unique(text + later)


def _units(lab, src, student):
    """[(name, compiler, _Unit)] of @src: -E in every variant (and with the
    kit's compiler if it is not clang), and the token dump of the plain
    variant and of every variant whose -E gives the student's lines
    another text than the plain one's.

    A dump is the costly pass (a line written for each token of every
    header); where a variant expands the student's lines to the same text
    as plain, its tokens are plain's tokens, so plain's dump speaks for it.
    The dumps start once every -E has ended within the build's limits: a
    file the preprocessor cannot expand within them (a macro bomb) is
    refused then, without a dump running to the time limit."""
    jobs = sorted(lab.compile.items())
    with ThreadPoolExecutor(max_workers=2) as pool:
        pre = list(pool.map(sandbox.carried(lambda vc: scan_preprocessed(vc[1], src, student)),
                            jobs))
        others = list(pool.map(sandbox.carried(lambda cc: scan_preprocessed(
            lab.compile["plain"], src, student, cc)), _compilers(lab.compile["plain"])[1:]))
        base = pre[[v for v, _ in jobs].index("plain")]
        dumps = {v: pool.submit(sandbox.carried(scan_tokens), v, cmd, src, student)
                 for (v, cmd), unit in zip(jobs, pre)
                 if (v == "plain" or (not unit.stopped and unit.text != base.text))
                 and _needs_dump(unit)}
        units = [(v, _token_flags(cmd)[0], unit) for (v, cmd), unit in zip(jobs, pre)]
        units += [("%s -E" % u.cc_name, u.cc, u) for u in others]
        units += [("%s (token dump)" % v, _token_flags(lab.compile[v])[0], f.result())
                  for v, f in sorted(dumps.items())]
    return units


def _needs_dump(unit):
    """Whether the token dump of the -E pass @unit's file and flags could
    refuse it: its student's lines hold a token scan_tokens() looks at --
    an asm keyword, an attribute, a built-in outside BUILTINS -- or the
    preprocessor stopped on it.  The dump reads the tokens whose place of
    expansion is a student's line: the tokens of those lines in -E."""
    if unit.stopped:
        return True
    text = "\n".join(unit.text.values())
    return any(not (m.group().startswith("__builtin_") and _allowed_builtin(m.group()))
               for m in DUMPED.finditer(text))


def _allowed_builtin(name):
    return name in BUILTINS or name.startswith(BUILTIN_PREFIXES)


def _unique(lines):
    return sorted(set(lines), key=lines.index)


def _directive_blocks(where):
    """{line: block} of file @where: a block is the run of lines between two
    preprocessor directives, the most a condition can keep or drop."""
    try:
        with open(os.path.join(ROOT, where), errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return {}
    blocks, block, continued = {}, 0, False
    for n, l in enumerate(text, 1):
        if continued or l.lstrip().startswith("#"):
            block += 1
            continued = l.rstrip().endswith("\\")
        blocks[n] = block
    return blocks


def _variant_lines(seen):
    """Refusals of code compiled in some of @seen's (build, lines) only.

    Compared by the blocks between directives, not by lines: where the
    tokens after a macro call that spans lines are said to be differs
    (clang's -E puts them on the call's first line, its token dump and gcc's
    -E on their own), and only a directive can make a build leave code out."""
    blocks = {}

    def block(at):
        where, line = at
        if where not in blocks:
            blocks[where] = _directive_blocks(where)
        return (where, blocks[where].get(line, -line))
    seen = [(v, {block(at): at for at in lines}) for v, lines in seen]
    every = set.intersection(*[set(b) for _, b in seen]) if seen else set()
    found = []
    for variant, lines in seen:
        for where, line in sorted(lines[b] for b in set(lines) - every)[:1]:
            found.append("%s:%d: compiled in the %s build but not in every build the tests "
                         "use: the code must not depend on how it is built"
                         % (os.path.relpath(os.path.join(ROOT, where), ROOT), line, variant))
    return found


# --- the preprocessed unit ---------------------------------------------------------

def _token_flags(cmd, cc=None):
    """The variant's flags for compiler @cc (default clang: -dump-tokens is
    clang's; the kit's compiler may be gcc, whose flags clang does not all
    know), warnings off."""
    if cc is None:
        cc = shutil.which("clang")
        if not cc:
            raise PrecheckError("clang is not installed ('make deps' installs it): the "
                                "pre-build check reads the preprocessed file with it")
        return [cc] + [w for w in _flags(cmd)[1:] if w not in ("-Werror", "-Wno-tsan")] + ["-w"]
    return [cc] + _flags(cmd)[1:] + ["-w"]


def _compilers(cmd):
    """The compilers whose -E the check reads: clang, and the kit's own if
    it is another (a condition on the compiler is one on the build)."""
    cc = _flags(cmd)[0]
    return [None] if os.path.basename(cc).startswith("clang") else [None, cc]


class _Student:
    """Tells the student's files (the tree's folder, but not a header
    identical to the kit's) from the kit's, by the path the compiler
    prints."""

    def __init__(self, lab):
        self.folder = os.path.realpath(os.path.join(ROOT, lab.impl_dir))
        self.kit = _allowed_folders(lab)
        self.known = {}

    def __call__(self, path):
        if path.startswith("<scratch"):
            return True
        if path not in self.known:
            real = os.path.realpath(os.path.join(ROOT, path))
            self.known[path] = (os.path.dirname(real) == self.folder
                                and not _kit_copy(real, self.kit))
        return self.known[path]


class _Unit:
    """What one pass over a preprocessed unit found: refusals, lines (the
    student's (file, line)s that compile), deps (the files read), stopped
    (the compiler stopped on it), cc and cc_name (the compiler), text
    ({(file, line): the student's line as -E expanded it}) and macros
    ({name: its #define line} at the end of the file): -E passes only."""

    def __init__(self, refusals=(), lines=(), deps=(), stopped=False, cc=None, text=None,
                 macros=None):
        self.refusals, self.lines, self.deps = list(refusals), set(lines), list(deps)
        self.stopped, self.cc, self.text, self.macros = stopped, cc, text, macros or {}
        self.cc_name = os.path.basename(cc or "clang")


def _attribute_names(tokens, i):
    """The names in the attribute list opening at tokens[i] (after
    __attribute__, or at [[), each with its token."""
    names, depth, j, expect = [], 0, i, True
    while j < len(tokens):
        text = tokens[j][1]
        if text in ("(", "["):
            depth += 1
            expect = True
        elif text in (")", "]"):
            depth -= 1
            if depth == 0:
                break
        elif text in (",", "::"):
            expect = True
        elif expect and depth in (1, 2) and re.match(r"^\w+$", text):
            names.append((text, tokens[j]))
            expect = False
        else:
            expect = False
        j += 1
    return names


def _at(where, line):
    return "%s:%s" % (where if where.startswith("<") else
                      os.path.relpath(os.path.join(ROOT, where), ROOT), line)


def _read(path):
    """The text of @path, "" if there is none."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def scan_tokens(variant, cmd, src, student):
    """The _Unit of @src in @variant: clang -dump-tokens (where each token
    was spelled) and -MD (the files it read)."""
    rel = os.path.relpath(os.path.join(ROOT, src), ROOT)
    with tempfile.TemporaryDirectory(dir=sandbox.scratch()) as tmp:
        deps = os.path.join(tmp, "deps")
        c = _compile(_token_flags(cmd) + ["-fsyntax-only", "-Xclang", "-dump-tokens",
                                          "-MD", "-MF", deps, src],
                     "%s: %s tokens" % (rel, variant), cap=TOKENS_CAP)
        rule = _read(deps)
    if c.result.truncated:
        return _Unit(["%s: the preprocessed file is too large to check" % rel], stopped=True)
    mine = (os.path.dirname(src) + os.sep, "<scratch")
    tokens = [m.groups() for m in map(TOKEN.match, (
        l for l in c.result.out.splitlines() if mine[0] in l or mine[1] in l)) if m]
    if not c.ok:
        return _Unit(["%s: the preprocessor stops on it: %s" % (rel, _own_error(c.out, src))],
                     stopped=True)
    found, lines = [], set()
    for i, (kind, text, where, line, spelled) in enumerate(tokens):
        if not student(where):
            continue
        lines.add((where, int(line)))
        own = student(spelled or where)
        if kind == "asm" and own:
            found.append("%s: inline assembly (%s) is not allowed" % (_at(where, line), text))
        elif own and text.startswith("__builtin_") and not _allowed_builtin(text):
            found.append("%s: %s is not allowed (the handout lists what a file may use)"
                         % (_at(where, line), text))
        elif kind == "__attribute" or (text == "[" and i + 1 < len(tokens)
                                       and tokens[i + 1][1] == "["):
            for name, tok in _attribute_names(tokens, i + 1 if kind == "__attribute" else i):
                if student(tok[4] or tok[2]) and name.strip("_") not in ATTRIBUTES:
                    found.append("%s: attribute %s is not allowed (nothing may place code "
                                 "or data, rename, run before or after the tests, or "
                                 "change how a build checks it)" % (_at(where, line), name))
    return _Unit(found, lines, _dependencies(rule)[1:])


def scan_preprocessed(cmd, src, student, cc=None):
    """The _Unit of @src's -E with compiler @cc (None: clang) and the
    variant's flags @cmd: a #pragma or _Pragma in the student's lines (the
    markers say whose each line is), the lines that compile, the files
    read (-MD: the compiler's own list, and the files the markers enter),
    and (-dD: each definition where it is made) the macros defined at the
    end of the file."""
    rel = os.path.relpath(os.path.join(ROOT, src), ROOT)
    with tempfile.TemporaryDirectory(dir=sandbox.scratch()) as tmp:
        out, deps = os.path.join(tmp, "unit.i"), os.path.join(tmp, "deps")
        c = _compile(_token_flags(cmd, cc) + ["-E", "-dD", "-MD", "-MF", deps, "-o", out, src],
                     "%s -E" % rel)
        text = _read(out) if c.ok else ""
        rule = _read(deps) if c.ok else ""
    cc = cc or _token_flags(cmd)[0]
    if not c.ok:
        return _Unit(["%s: the preprocessor stops on it: %s" % (rel, _own_error(c.out, src))],
                     stopped=True, cc=cc)
    found, lines, files, where, line, mine, macros = [], set(), set(), src, 0, {}, {}
    own = student(where)
    for l in text.splitlines():
        if l[:1] == "#":
            m = MARKER.match(l)
            if m:
                line, where = int(m.group(1)), m.group(2)
                own = student(where)
                if not where.startswith("<"):
                    files.add(where)
                continue
            d = DEFINITION.match(l)
            if d:
                if d.group(1) == "define":
                    macros[d.group(2)] = l
                else:
                    macros.pop(d.group(2), None)
                line += 1
                continue
        if own:
            if l.lstrip().startswith("#pragma") and not (
                    where.endswith(".h") and l.split()[1:2] == ["once"]):
                found.append("%s: %s is not allowed (it changes how the file is built)"
                             % (_at(where, line), " ".join(l.split()[:3])))
            elif l.strip():
                lines.add((where, line))
                mine[(where, line)] = l
        line += 1
    files |= set(_dependencies(rule)[1:])
    return _Unit(found, lines, sorted(files - {src}), cc=cc, text=mine, macros=macros)


# --- the object --------------------------------------------------------------------

def _tool(cmd):
    r = proc.run(cmd, 60)
    if r.rc != 0:
        raise PrecheckError("%s failed: %s" % (" ".join(cmd), r.status()))
    return r.out


SECTION_LINE = re.compile(r"^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+([A-Z]*)\s+\d")


def sections(obj):
    """{index: (name, type, flags)} of the object's sections."""
    found = {}
    for line in _tool(["readelf", "-SW", obj]).splitlines():
        m = SECTION_LINE.match(line)
        if m:
            found[int(m.group(1))] = (m.group(2), m.group(3), m.group(4))
    return found


def symbols(obj):
    """[(name, type, bind, section index or UND/ABS/COM)] of the object."""
    found = []
    for line in _tool(["readelf", "-sW", obj]).splitlines():
        f = line.split()
        if len(f) >= 7 and f[0].endswith(":") and f[0][:-1].isdigit():
            found.append((f[7] if len(f) > 7 else "", f[3], f[4], f[6]))
    return found


def relocations(obj):
    """{section name: [(type, symbol)]} of the object's relocations."""
    found, current = {}, None
    for line in _tool(["readelf", "-rW", obj]).splitlines():
        m = re.match(r"^Relocation section '\.rela?(.*)' at", line)
        if m:
            current = found.setdefault(m.group(1), [])
            continue
        f = line.split()
        if current is not None and len(f) >= 3 and f[2].startswith("R_"):
            current.append((f[2], f[4] if len(f) > 4 else ""))
    return found


def global_roles(syms, code):
    """[(name, role)] of the global and weak symbols of @syms (symbols()),
    as nm's letters sort them, @code the indexes of the code sections:
    "uses" (undefined: U, w, v), "code" (in a code section, or weak and no
    object: T, W), "data" (the rest: D, B, R, C, A, V); an ifunc (i) has
    none (scan_object refuses it)."""
    found = []
    for name, kind, bind, ndx in syms:
        if not name or bind not in ("GLOBAL", "WEAK") or kind == "GNU_IFUNC":
            continue
        if ndx == "UND":
            role = "uses"
        elif bind == "WEAK":
            role = "data" if kind == "OBJECT" else "code"
        else:
            role = "code" if ndx.isdigit() and int(ndx) in code else "data"
        found.append((name, role))
    return found


def scan_object(obj, source, allowed, api):
    """Refusals of object file @obj (compiled from @source)."""
    rel = os.path.relpath(source, ROOT)
    found = []
    secs = sections(obj)
    code = {i for i, (n, t, fl) in secs.items() if "X" in fl}
    for i, (name, kind, flags) in sorted(secs.items()):
        if i == 0:
            continue
        if name.startswith(BAD_SECTIONS):
            found.append("%s: has a constructor or destructor (section %s): no code may "
                         "run before or after the tests" % (rel, name))
        elif CODE_SECTION.match(name):
            if flags.replace("G", "") != "AX":
                found.append("%s: section %s has flags %s: code is AX, never writable"
                             % (rel, name, flags))
        elif DATA_SECTION.match(name):
            if "X" in flags:
                found.append("%s: section %s is executable: data never is" % (rel, name))
        elif not TOOL_SECTION.match(name) or "X" in flags or (
                "A" in flags and name not in (".eh_frame",) and not name.startswith(".note.")):
            found.append("%s: has a section %s (%s): only code, read-only data, data "
                         "and bss may be placed" % (rel, name, flags or "no flags"))
    names = {i: n for i, (n, _, _) in secs.items()}
    kinds = {}
    syms = symbols(obj)
    for name, kind, bind, ndx in syms:
        kinds[name] = kind
        where = int(ndx) if ndx.isdigit() else None
        if kind == "OBJECT" and where in code:
            found.append("%s: %s is data placed in code (section %s)"
                         % (rel, name, names.get(where)))
        elif kind == "FUNC" and where is not None and where not in code:
            found.append("%s: %s is code placed in data (section %s)"
                         % (rel, name, names.get(where)))
        elif kind == "GNU_IFUNC":
            found.append("%s: defines %s as an ifunc: not allowed" % (rel, name))
        elif kind == "TLS" and bind != "LOCAL" and name not in api:
            found.append("%s: defines thread-local %s: make it static" % (rel, name))
    for name, role in global_roles(syms, code):
        if role == "uses":
            if name not in allowed:
                found.append("%s: uses %s, which a file of this lab may not use (its handout "
                             "lists what it may)" % (rel, name))
        elif role == "data" and name not in api:
            found.append("%s: defines global data %s: make it static (the lab's "
                         "API names the data a file may define)" % (rel, name))
        elif role == "code" and name not in api:
            found.append("%s: defines %s, which is not part of the lab's API: make it "
                         "static" % (rel, name))
    code_names = {names[i] for i in code}
    for target, relocs in sorted(relocations(obj).items()):
        if target == ".eh_frame" or target.startswith(".debug_"):
            continue                # the unwinder's and the debugger's
        in_code = CODE_SECTION.match(target) is not None
        for rtype, sym in relocs:
            if rtype not in CODE_RELOCS:
                found.append("%s: relocation %s in %s: not one a C compiler emits for "
                             "the lab's code" % (rel, rtype, target))
            elif not in_code and (kinds.get(sym) == "FUNC" or sym in code_names or (
                    kinds.get(sym) == "NOTYPE" and sym not in DATA_POINTEES)):
                found.append("%s: data in %s holds the address of %s: no table of "
                             "function pointers (the lab's API needs none)" % (rel, target, sym))
    return sorted(set(found), key=found.index)


def check(lab):
    """The refusals of tree lab.impl's files of @lab, one line each ([]:
    accepted): what includes() read and kept, and the objects.  The plain
    objects must be built (lab.objs)."""
    allowed = set(lab.kit_symbols) | set(lab.symbols) | set(lab.api)
    if not hasattr(lab, "precheck_later"):
        includes(lab)
    found = list(lab.precheck_later)
    c_files = _sources(lab, ".c")
    if not lab.api:
        return found
    objs = {os.path.splitext(os.path.basename(o))[0]: o for o in lab.objs}
    for src in c_files:
        obj = objs.get(os.path.splitext(os.path.basename(src))[0])
        if not obj or not os.path.exists(obj):
            raise PrecheckError("no object %s for %s" % (obj, src))
        found += scan_object(obj, src, allowed, set(lab.api))
    return _unique(found)
