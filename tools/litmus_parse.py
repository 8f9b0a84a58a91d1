"""litmus_parse.py - the LKMM's C-litmus format, read as herd7 reads it for
the kernel (tools/litmus.py runs what this returns).

  parse(text, path) -> Test        or raises LitmusError(line, message)

A test is

  C <name>
  (* ... Result: Never|Sometimes|Always ... *)     the answer (optional)
  { <initial state> }                              int x = 1; int *y = &x;
                                                   atomic_t v = ATOMIC_INIT(1);
                                                   spinlock_t l; y=z; 0:r1=2;
  P0(int *x, spinlock_t *l) { <C body> }           one per process, P0 first
  ...
  locations [x; 0:r1]                              (optional) shown in states
  filter <proposition>                             (optional)
  exists|~exists|forall <proposition>              N:reg=v, loc=v, /\ \/ ~

The body is C: declarations of registers (int r0; int *r1 = ...;),
assignments to registers, if/else, blocks, plain accesses to shared memory
(*x = v; r = *x: the internal primitives __plain_store and __plain_load),
and the kernel's primitives (PRIMITIVES below).  What this front end does
not express -- a loop, a primitive it does not know -- raises
LitmusError(line, ..., unsupported=True): the caller prints "FILE:LINE:
unsupported: <construct>" and never a verdict.  A file that is not a
litmus test raises LitmusError(line, "error: ...").

The result is compiled into the small program the C interpreter of
common/litmus/ runs (Test.ir(), once per program order: Test.orders(),
the orders load buffering needs), and Test.holds(prop, state) evaluates a
proposition on one final state.  Standard library only.
"""
import re

MAX_PROCS = 4           # RACE_MAX_THREADS of common/race/scenario.h
MAX_REGS = 32           # per process: LITMUS_MAX_REGS of common/litmus/litmus.h
MAX_VARS = 32           # LITMUS_MAX_VARS
MAX_BOUND = 15          # dfs raises its bound to at most RACE_MAX_BOUNDS - 1
MAX_DEPTH = 40          # nesting of statements and expressions (the IR's is 64)
MAX_VALUE = 1 << 31     # numbers are the kernel's int
MAX_ORDERS = 64         # program orders a test may need (load buffering)
RESULTS = ("Never", "Sometimes", "Always", "DEADLOCK")
RACY = ("flag", "data-race")   # a state's key: its execution had a data race


class LitmusError(Exception):
    """A file it cannot run: line, what, and whether it is only unsupported
    (a litmus test the front end cannot express) or not a litmus test."""

    def __init__(self, line, what, unsupported=False):
        super().__init__(what)
        self.line, self.what, self.unsupported = line, what, unsupported

    def message(self, path):
        kind = "unsupported" if self.unsupported else "error"
        return "%s:%d: %s: %s" % (path, self.line, kind, self.what)


def unsupported(line, what):
    return LitmusError(line, what, unsupported=True)


# --- the kernel's primitives -----------------------------------------------------
#
# name: (argument kinds, returns a value, the location kind it acts on)
#   L  an lvalue *p: the location p points to (READ_ONCE(*x))
#   P  a pointer to the location (smp_load_acquire(x), atomic_inc(v))
#   V  a value
# Location kinds: "int" (READ_ONCE and the like, xchg, cmpxchg), "atomic"
# (atomic_t), "lock" (spinlock_t), None (no location).

def _atomic_family():
    prims = {
        "atomic_read": ("P", True), "atomic_read_acquire": ("P", True),
        "atomic_set": ("PV", False), "atomic_set_release": ("PV", False),
        "atomic_add_unless": ("PVV", True), "atomic_inc_not_zero": ("P", True),
        "atomic_inc_and_test": ("P", True), "atomic_dec_and_test": ("P", True),
        "atomic_sub_and_test": ("VP", True), "atomic_add_negative": ("VP", True),
    }
    for op in ("add", "sub", "and", "or", "xor"):
        prims["atomic_" + op] = ("VP", False)
    for op in ("inc", "dec"):
        prims["atomic_" + op] = ("P", False)
    for order in ("", "_relaxed", "_acquire", "_release"):
        for op in ("add", "sub"):
            prims["atomic_%s_return%s" % (op, order)] = ("VP", True)
        for op in ("inc", "dec"):
            prims["atomic_%s_return%s" % (op, order)] = ("P", True)
        for op in ("add", "sub", "and", "or", "xor"):
            prims["atomic_fetch_%s%s" % (op, order)] = ("VP", True)
        for op in ("inc", "dec"):
            prims["atomic_fetch_%s%s" % (op, order)] = ("P", True)
        prims["atomic_xchg" + order] = ("PV", True)
        prims["atomic_cmpxchg" + order] = ("PVV", True)
    return {k: (a, r, "atomic") for k, (a, r) in prims.items()}


PRIMITIVES = dict(_atomic_family(), **{
    "__plain_load": ("P", True, "int"), "__plain_store": ("PV", False, "int"),
    "READ_ONCE": ("L", True, "int"),
    "WRITE_ONCE": ("LV", False, "int"),
    "smp_load_acquire": ("P", True, "int"),
    "smp_store_release": ("PV", False, "int"),
    "smp_store_mb": ("LV", False, "int"),
    "rcu_dereference": ("L", True, "int"),
    "rcu_assign_pointer": ("LV", False, "int"),
    "xchg": ("PV", True, "int"), "xchg_relaxed": ("PV", True, "int"),
    "xchg_acquire": ("PV", True, "int"), "xchg_release": ("PV", True, "int"),
    "cmpxchg": ("PVV", True, "int"), "cmpxchg_relaxed": ("PVV", True, "int"),
    "cmpxchg_acquire": ("PVV", True, "int"), "cmpxchg_release": ("PVV", True, "int"),
    "smp_mb": ("", False, None), "smp_wmb": ("", False, None),
    "smp_rmb": ("", False, None), "barrier": ("", False, None),
    "smp_mb__before_atomic": ("", False, None),
    "smp_mb__after_atomic": ("", False, None),
    "smp_mb__after_spinlock": ("", False, None),
    "spin_lock": ("P", False, "lock"), "spin_unlock": ("P", False, "lock"),
    "spin_trylock": ("P", True, "lock"), "spin_is_locked": ("P", True, "lock"),
    "rcu_read_lock": ("", False, None), "rcu_read_unlock": ("", False, None),
    "synchronize_rcu": ("", False, None),
})

# Names herd7 knows for the kernel that this front end refuses, and why.
REFUSED = {
    "smp_mb__after_unlock_lock": "not modelled by the reproducer",
    "synchronize_rcu_expedited": "not modelled by the reproducer",
    "call_rcu": "callbacks are not litmus-test material here",
    "rcu_barrier": "not modelled in litmus tests",
    "srcu_read_lock": "SRCU is not modelled", "srcu_read_unlock": "SRCU is not modelled",
    "synchronize_srcu": "SRCU is not modelled",
    "srcu_down_read": "SRCU is not modelled", "srcu_up_read": "SRCU is not modelled",
    "rcu_dereference_protected": "not a marked access in the reproducer",
    "spin_unlock_wait": "removed from the kernel",
}

# Points a primitive makes, at most (the dfs bound is derived from them).
POINTS = {"barrier": 0, "smp_store_mb": 2, "atomic_add_unless": 8,
          "atomic_inc_not_zero": 8}

TYPE_WORDS = {"int", "long", "unsigned", "signed", "short", "char", "bool", "_Bool",
              "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "size_t",
              "intptr_t", "uintptr_t", "atomic_t", "spinlock_t", "void", "const",
              "volatile"}
KIND_OF_TYPE = {"atomic_t": "atomic", "spinlock_t": "lock"}

KEYWORDS_REFUSED = {"while": "a loop", "for": "a loop", "do": "a loop",
                    "goto": "goto", "switch": "switch", "return": "return",
                    "break": "break", "continue": "continue", "struct": "a struct",
                    "union": "a union", "typedef": "typedef", "sizeof": "sizeof",
                    "static": "static", "case": "switch"}


# --- lexing ------------------------------------------------------------------------

TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<ccom>/\*)
  | (?P<lcom>//[^\n]*)
  | (?P<num>0[xX][0-9a-fA-F]+|[0-9]+)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<str>"[^"\n]*")
  | (?P<op>/\\|\\/|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||->|\+\+|--|[-+*/%&|^]=
       |[{}()\[\];,*&=<>+\-/%!~^|:?.])
""", re.X)


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return "%s@%d" % (self.text, self.line)


def lex(text, first_line):
    """Tokens of @text (which starts at line @first_line), and the texts of
    the OCaml comments (* *) at brace depth 0 with their lines."""
    toks, comments = [], []
    line, i, depth, n = first_line, 0, 0, len(text)
    while i < n:
        if depth == 0 and text.startswith("(*", i):
            start, nest, j = line, 1, i + 2
            while j < n and nest:
                if text.startswith("(*", j):
                    nest, j = nest + 1, j + 2
                elif text.startswith("*)", j):
                    nest, j = nest - 1, j + 2
                else:
                    line += text[j] == "\n"
                    j += 1
            if nest:
                raise LitmusError(start, "a (* comment that never ends")
            comments.append((start, text[i + 2:j - 2]))
            i = j
            continue
        m = TOKEN.match(text, i)
        if not m:
            ch = text[i]
            raise LitmusError(line, "unexpected character %r" % ch)
        kind = m.lastgroup
        if kind == "nl":
            line += 1
        elif kind == "ccom":
            end = text.find("*/", i + 2)
            if end < 0:
                raise LitmusError(line, "a /* comment that never ends")
            line += text.count("\n", i, end)
            i = end + 2
            continue
        elif kind not in ("ws", "lcom"):
            t = m.group(0)
            if kind == "op" and t == "{":
                depth += 1
            elif kind == "op" and t == "}":
                depth = max(0, depth - 1)
            toks.append(Tok(kind, t, line))
        i = m.end()
    toks.append(Tok("eof", "end of file", line))
    return toks, comments


# --- the test ------------------------------------------------------------------------

class Loc:
    """A shared location: its index, name, kind, initial value, where declared."""

    def __init__(self, index, name, line):
        self.index, self.name, self.line = index, name, line
        self.kind, self.kind_line = "int", None     # None: no type given yet
        self.init = ("int", 0)


class Proc:
    """A process: its number, registers (name -> index), body, line."""

    def __init__(self, number, line):
        self.number, self.line = number, line
        self.params = {}            # name -> Loc
        self.regs = {}              # name -> index
        self.reg_init = {}          # index -> ("int", v) | ("addr", loc)
        self.body = None


class Test:
    """A parsed litmus test (see the module's docstring)."""

    def __init__(self, path):
        self.path = path
        self.name = None
        self.result = None          # "Never", "Sometimes", ..., or None
        self.result_line = None
        self.locs = {}              # name -> Loc
        self.procs = []
        self.shown = []             # ("reg", proc, name) | ("loc", name), in order
        self.filter = None
        self.quantifier = None      # "exists", "~exists", "forall"
        self.prop = None
        self.cond_text = ""

    # -- locations
    def loc(self, name, line):
        loc = self.locs.get(name)
        if loc is None:
            if len(self.locs) >= MAX_VARS:
                raise unsupported(line, "more than %d shared locations" % MAX_VARS)
            loc = self.locs[name] = Loc(len(self.locs), name, line)
        return loc

    def declare(self, name, kind, line):
        """@name is of @kind (a type in the initial state or a parameter list)."""
        loc = self.loc(name, line)
        if loc.kind_line is None:
            loc.kind, loc.kind_line = kind, line
        elif loc.kind != kind:
            raise LitmusError(line, "%s is a %s here and a %s on line %d"
                              % (name, kind_name(kind), kind_name(loc.kind), loc.kind_line))
        return loc

    def bound(self):
        """A preemption bound dfs must reach to see every execution: a
        thread can be preempted at most once at each of its points."""
        return max(0, sum(points(p.body) for p in self.procs) - 1)

    def orders(self):
        """The program orders to run: one body per process, the order
        written first (program_orders); raises LitmusError if there are
        more than MAX_ORDERS."""
        combos = [[]]
        for p in self.procs:
            combos = [c + [b] for c in combos for b in program_orders(p.body)]
            if len(combos) > MAX_ORDERS:
                raise unsupported(p.line, "more than %d program orders to explore (the "
                                  "stores that may pass earlier loads)" % MAX_ORDERS)
        return combos

    # -- the program the interpreter runs
    def ir(self, bodies=None):
        out = ["litmus-ir 1", "name %s" % self.name,
               "vars %d" % len(self.locs)]
        for loc in sorted(self.locs.values(), key=lambda l: l.index):
            out.append("var %d %s %s %s" % (loc.index, loc.kind, value_ir(loc.init),
                                            loc.name))
        out.append("procs %d" % len(self.procs))
        for p in self.procs:
            out.append("proc %d %d" % (p.number, len(p.regs)))
            for idx, init in sorted(p.reg_init.items()):
                out.append("reg %d %s" % (idx, value_ir(init)))
            out.append("body " + sexp(bodies[p.number] if bodies else p.body))
        out.append("end")
        return "\n".join(out) + "\n"

    # -- states
    def reg_names(self, proc):
        return sorted(self.procs[proc].regs, key=self.procs[proc].regs.get)

    def state_of(self, line):
        """The state of one line the interpreter wrote: {("reg", p, name) |
        ("loc", name): value}, a value being an int or a location's name."""
        state = {}
        locs = sorted(self.locs.values(), key=lambda l: l.index)
        parts = line.split("|")
        if len(parts) == len(self.procs) + 2 and parts[-1].strip() == "data-race":
            state[RACY] = True
            parts = parts[:-1]
        if len(parts) != len(self.procs) + 1:
            raise ValueError("a state with %d parts: %r" % (len(parts), line))
        for p, part in enumerate(parts[:-1]):
            vals = part.split()
            names = self.reg_names(p)
            if len(vals) != len(names):
                raise ValueError("P%d: %d registers in %r" % (p, len(vals), line))
            for name, v in zip(names, vals):
                state[("reg", p, name)] = self.value_of(v)
        vals = parts[-1].split()
        if len(vals) != len(locs):
            raise ValueError("%d locations in %r" % (len(vals), line))
        for loc, v in zip(locs, vals):
            state[("loc", loc.name)] = self.value_of(v)
        return state

    def value_of(self, v):
        if v.startswith("&"):
            locs = sorted(self.locs.values(), key=lambda l: l.index)
            return locs[int(v[1:])].name
        return int(v)

    def holds(self, prop, state):
        op = prop[0]
        if op == "true":
            return True
        if op == "false":
            return False
        if op == "not":
            return not self.holds(prop[1], state)
        if op == "and":
            return self.holds(prop[1], state) and self.holds(prop[2], state)
        if op == "or":
            return self.holds(prop[1], state) or self.holds(prop[2], state)
        return state[prop[1]] == prop[2]           # ("eq", key, value)

    def shown_keys(self):
        keys = []
        for key in self.shown:
            if key not in keys:
                keys.append(key)
        return keys


def kind_name(kind):
    return {"int": "plain location", "atomic": "atomic_t", "lock": "spinlock_t"}[kind]


def value_ir(v):
    return "n:%d" % v[1] if v[0] == "int" else "a:%d" % v[1].index


def sexp(node):
    if isinstance(node, (list, tuple)):
        return "(" + " ".join(sexp(x) for x in node) + ")"
    return str(node)


def depth(node):
    """How deep the s-expression of @node nests."""
    if not isinstance(node, (list, tuple)):
        return 0
    return 1 + max([depth(x) for x in node] or [0])


def points(stmt):
    """The most scheduling points a statement makes along one path."""
    kind = stmt[0]
    if kind == "seq":
        return sum(points(s) for s in stmt[1:])
    if kind == "line":
        return points(stmt[2])
    if kind == "if":
        return points(stmt[1]) + max(points(stmt[2]), points(stmt[3]))
    if kind in ("set", "eval"):
        return points(stmt[-1])
    if kind in ("int", "reg", "addr"):
        return 0
    if kind in ("un", "bin"):
        return sum(points(x) for x in stmt[2:])
    if kind == "cond":
        return points(stmt[1]) + max(points(stmt[2]), points(stmt[3]))
    if kind == "call":
        return POINTS.get(stmt[1], 1) + sum(points(x) for x in stmt[2:])
    raise AssertionError(kind)


# --- load buffering: the program orders a process may run in ------------------------
#
# The weak model runs each thread's accesses in the order it makes them,
# and a load reads only stores already made: it never returns a store that
# its own thread, or another, makes after it (load buffering, LB).  The
# LKMM allows that when nothing orders the load before the later store --
# no dependency (address, data or control), no fence, acquire, release,
# lock or RCU call between them, another location.  Such a store may as
# well be made first, so the front end runs the test once per order of
# each process that makes such a store before such loads (a CPU executing
# it early), and collects the final states of every run.  Everything else
# keeps the order written: the weak model already lets a load read an
# older store, which covers the other reorderings.

LB_LOADS = {"READ_ONCE", "rcu_dereference", "atomic_read", "__plain_load"}
LB_STORES = {"WRITE_ONCE", "atomic_set", "__plain_store"}


def flatten(body):
    """The statements of a process's body, nested blocks opened."""
    out = []
    for s in body[1:]:
        if s[0] == "seq":
            out += flatten(s)
        else:
            out.append(s)
    return out


def uses(node, regs, calls):
    """Collect the registers read and the calls made by @node."""
    if not isinstance(node, list) or not node:
        return
    if node[0] == "reg":
        regs.add(node[1])
        return
    if node[0] == "call":
        calls.append(node)
    for x in node[1:]:
        uses(x, regs, calls)


def facts(stmt):
    """(kind, location, registers read, registers written) of a statement:
    kind "load" (one relaxed load of a location named directly, into a
    register or nowhere), "store" (one relaxed store to a location named
    directly, of a value computed from registers), or "fixed" (anything
    else: it keeps its place against every other statement)."""
    body = stmt[2] if stmt[0] == "line" else stmt
    regs, calls = set(), []
    uses(body, regs, calls)
    written = {body[1]} if body[0] == "set" else set()
    if body[0] in ("set", "eval") and len(calls) == 1 and len(calls[0]) > 2 \
            and calls[0][2][0] == "addr":
        name = calls[0][1]
        if name in LB_LOADS:
            return "load", calls[0][2][1], regs, written
        if name in LB_STORES and body[0] == "eval" and body[1] is calls[0]:
            return "store", calls[0][2][1], regs, written
    return "fixed", None, regs, written


def program_orders(body):
    """Every order of @body's statements that keeps each pair in the order
    written but a relaxed load and a later relaxed store of another
    location that do not depend on it; the order written first."""
    stmts = flatten(body)
    f = [facts(s) for s in stmts]
    n = len(stmts)

    def before(i, j):           # must statement i (< j) stay before j?
        ki, li, ri, wi = f[i]
        kj, lj, rj, wj = f[j]
        if wi & (rj | wj) or ri & wj:
            return True
        return not (ki == "load" and kj == "store" and li != lj)

    preds = [{i for i in range(j) if before(i, j)} for j in range(n)]
    orders = []

    def extend(done, order):
        if len(orders) > MAX_ORDERS:
            return
        if len(order) == n:
            orders.append(["seq"] + [stmts[i] for i in order])
            return
        for j in range(n):
            if j not in done and preds[j] <= done:
                extend(done | {j}, order + [j])
    extend(frozenset(), [])
    return orders


# --- the parser ----------------------------------------------------------------------

def to_int(tok):
    """The value of a number token, as C reads it (0x.. hex, 0.. octal)."""
    t = tok.text
    try:
        v = int(t, 16) if t[:2].lower() == "0x" else int(t, 8) if len(t) > 1 and \
            t[0] == "0" else int(t)
    except ValueError:
        raise LitmusError(tok.line, "%s is no number" % t)
    if v >= MAX_VALUE:
        raise unsupported(tok.line, "the number %s (values are ints here)" % t)
    return v


class Parser:
    def __init__(self, toks, test):
        self.toks, self.i, self.test = toks, 0, test
        self.depth = 0

    def nest(self, line):
        """One level deeper into a statement, expression or proposition."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise unsupported(line, "nesting deeper than %d" % MAX_DEPTH)

    def unnest(self, value):
        self.depth -= 1
        return value

    # -- tokens
    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self):
        t = self.peek()
        if t.kind != "eof":
            self.i += 1
        return t

    def at(self, text, k=0):
        t = self.peek(k)
        return t.kind in ("op", "id") and t.text == text

    def expect(self, text, what=None):
        t = self.peek()
        if not self.at(text):
            raise LitmusError(t.line, "expected '%s'%s, got %s" % (
                text, " " + what if what else "", shown(t)))
        return self.next()

    def ident(self, what):
        t = self.peek()
        if t.kind != "id":
            raise LitmusError(t.line, "expected %s, got %s" % (what, shown(t)))
        return self.next()

    def number(self, what="a number"):
        t, sign = self.peek(), 1
        if self.at("-"):
            self.next()
            sign, t = -1, self.peek()
        if t.kind != "num":
            raise LitmusError(t.line, "expected %s, got %s" % (what, shown(t)))
        self.next()
        return sign * to_int(t)

    # -- the initial state
    def init_block(self):
        self.expect("{", "to open the initial state")
        while not self.at("}"):
            if self.peek().kind == "eof":
                raise LitmusError(self.peek().line, "the initial state never ends ('}' missing)")
            if self.at(";"):
                self.next()
                continue
            self.init_item()
            if not self.at("}"):
                self.expect(";", "after an initial value")
        self.next()

    def init_value(self):
        """A value of the initial state: a number, &loc or loc (its address)."""
        t = self.peek()
        if self.at("&"):
            self.next()
            name = self.ident("a location after &")
            return ("addr", self.test.loc(name.text, name.line))
        if self.at("ATOMIC_INIT"):
            self.next()
            self.expect("(")
            v = self.number()
            self.expect(")")
            return ("int", v)
        if self.at("NULL"):
            self.next()
            return ("int", 0)
        if t.kind == "id":
            self.next()
            return ("addr", self.test.loc(t.text, t.line))
        return ("int", self.number("an initial value"))

    def init_item(self):
        t = self.peek()
        if t.kind == "num" or (t.kind == "id" and re.match(r"P[0-9]+$", t.text)
                               and self.at(":", 1)):
            self.reg_init()
            return
        if t.kind == "id" and t.text in TYPE_WORDS:
            self.init_decl()
            return
        if t.kind == "id" and t.text in KEYWORDS_REFUSED:
            raise unsupported(t.line, "%s in the initial state" % KEYWORDS_REFUSED[t.text])
        name = self.ident("a location, a type or N:register")
        loc = self.test.loc(name.text, name.line)
        self.expect("=", "after %s" % name.text)
        loc.init = self.init_value()

    def reg_init(self):
        t = self.next()
        number = self.proc_number(t)
        self.expect(":")
        name = self.ident("a register")
        self.expect("=")
        value = self.init_value()
        self.test.pending_regs.append((t.line, number, name.text, value))

    def proc_number(self, t):
        """The process number of "N:" or "PN:"."""
        text = t.text[1:] if t.text.startswith("P") else t.text
        if not text.isdigit() or int(text) >= MAX_PROCS:
            raise LitmusError(t.line, "%s: no such process" % t.text)
        return int(text)

    def type_words(self):
        words, t = [], self.peek()
        while self.peek().kind == "id" and self.peek().text in TYPE_WORDS:
            words.append(self.next().text)
        if self.peek().kind == "id" and self.peek().text in ("struct", "union"):
            raise unsupported(self.peek().line, "a %s type" % self.peek().text)
        if not words:
            raise LitmusError(t.line, "expected a type, got %s" % shown(t))
        kinds = {KIND_OF_TYPE[w] for w in words if w in KIND_OF_TYPE}
        return kinds.pop() if kinds else "int"

    def init_decl(self):
        line = self.peek().line
        kind = self.type_words()
        while True:
            stars = 0
            while self.at("*"):
                self.next()
                stars += 1
            name = self.ident("a location's name")
            if self.at("["):
                raise unsupported(name.line, "an array")
            loc = self.test.declare(name.text, "int" if stars else kind, name.line)
            if self.at("="):
                self.next()
                loc.init = self.init_value()
                if loc.kind == "lock":
                    raise unsupported(line, "an initial value for spinlock_t %s" % name.text)
            if not self.at(","):
                break
            self.next()

    # -- processes
    def procs(self):
        while self.peek().kind == "id" and re.match(r"P[0-9]+$", self.peek().text):
            t = self.next()
            number = int(t.text[1:])
            if number != len(self.test.procs):
                raise LitmusError(t.line, "%s where P%d was expected (processes are "
                                  "numbered from P0, in order)" % (t.text, len(self.test.procs)))
            if number >= MAX_PROCS:
                raise unsupported(t.line, "more than %d processes (the reproducer "
                                  "runs at most %d threads)" % (MAX_PROCS, MAX_PROCS))
            proc = Proc(number, t.line)
            self.test.procs.append(proc)
            self.proc = proc
            self.params(proc)
            proc.body = self.block()
        if not self.test.procs:
            t = self.peek()
            raise LitmusError(t.line, "expected P0(...) { ... }, got %s" % shown(t))

    def params(self, proc):
        self.expect("(", "after P%d" % proc.number)
        if self.at("void") and self.at(")", 1):
            self.next()
        while not self.at(")"):
            t = self.peek()
            if t.kind == "eof":
                raise LitmusError(t.line, "the parameter list never ends")
            kind = self.type_words()
            stars = 0
            while self.at("*"):
                self.next()
                stars += 1
            name = self.ident("a parameter's name")
            if not stars:
                raise unsupported(name.line, "parameter %s is no pointer (a process "
                                  "reaches shared memory through pointers)" % name.text)
            if name.text in proc.params:
                raise LitmusError(name.line, "parameter %s twice" % name.text)
            loc = self.test.declare(name.text, "int" if stars > 1 else kind, name.line)
            proc.params[name.text] = loc
            if not self.at(")"):
                self.expect(",", "between parameters")
        self.next()

    # -- statements
    def block(self):
        self.nest(self.peek().line)
        self.expect("{", "to open a block")
        stmts = ["seq"]
        while not self.at("}"):
            if self.peek().kind == "eof":
                raise LitmusError(self.peek().line, "a block that never ends ('}' missing)")
            s = self.statement()
            if s is not None:
                stmts.append(s)
        self.next()
        return self.unnest(stmts)

    def statement(self):
        t = self.peek()
        if self.at(";"):
            self.next()
            return None
        if self.at("{"):
            return self.block()
        if t.kind == "id" and t.text in KEYWORDS_REFUSED:
            raise unsupported(t.line, KEYWORDS_REFUSED[t.text])
        if self.at("if"):
            self.next()
            self.expect("(", "after if")
            cond = self.value(self.expr())
            self.expect(")", "to close the condition")
            then = self.substatement()
            other = ["seq"]
            if self.at("else"):
                self.next()
                other = self.substatement()
            return ["line", t.line, ["if", cond, then, other]]
        if self.at("else"):
            raise LitmusError(t.line, "else without if")
        if t.kind == "id" and t.text in TYPE_WORDS and not self.at("(", 1):
            return self.decl()
        s = self.simple()
        self.expect(";", "after a statement")
        return s

    def substatement(self):
        self.nest(self.peek().line)
        s = self.statement()
        return self.unnest(s if s is not None else ["seq"])

    def decl(self):
        line = self.peek().line
        kind = self.type_words()
        if kind != "int":
            raise unsupported(line, "a local %s" % kind_name(kind))
        stmts = ["seq"]
        while True:
            while self.at("*"):
                self.next()
            name = self.ident("a register's name")
            if self.at("["):
                raise unsupported(name.line, "an array")
            if name.text in self.proc.params:
                raise LitmusError(name.line, "register %s has the name of a parameter"
                                  % name.text)
            self.reg(name.text, name.line)
            if self.at("="):
                self.next()
                stmts.append(["line", name.line,
                              ["set", self.proc.regs[name.text], self.value(self.expr())]])
            if not self.at(","):
                break
            self.next()
        self.expect(";", "after a declaration")
        return stmts

    def reg(self, name, line):
        regs = self.proc.regs
        if name not in regs:
            if len(regs) >= MAX_REGS:
                raise unsupported(line, "more than %d registers in P%d"
                                  % (MAX_REGS, self.proc.number))
            regs[name] = len(regs)
        return regs[name]

    def simple(self):
        """An expression statement: an assignment to a register, a call."""
        t = self.peek()
        if t.kind == "id" and t.text not in PRIMITIVES and (
                self.at("=", 1) or self.peek(1).text in ("+=", "-=", "*=", "&=", "|=",
                                                         "^=", "++", "--", "<<=", ">>=")):
            self.next()
            if t.text in self.proc.params:
                raise LitmusError(t.line, "%s is a pointer parameter: assign "
                                  "through it with WRITE_ONCE(*%s, ...)" % (t.text, t.text))
            op = self.next().text
            new = t.text not in self.proc.regs
            reg = self.reg(t.text, t.line)
            if op == "=":
                value = self.value(self.expr())
            elif new:
                raise LitmusError(t.line, "%s is used before it has a value" % t.text)
            elif op in ("++", "--"):
                value = ["bin", "add" if op == "++" else "sub", ["reg", reg], ["int", 1]]
            else:
                value = ["bin", BINOPS[op[:-1]], ["reg", reg], self.value(self.expr())]
            return ["line", t.line, ["set", reg, value]]
        e = self.expr()
        if self.at("="):
            if e[0] != "deref":
                raise LitmusError(self.peek().line, "cannot assign to this")
            self.next()
            value = self.value(self.expr())
            return ["line", t.line, ["eval", self.plain(e, value)]]
        if e[0] == "deref" and self.peek().kind == "op" and self.peek().text in (
                "+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"):
            raise unsupported(self.peek().line, "%s on shared memory (write the plain "
                              "load and the plain store)" % self.peek().text)
        return ["line", t.line, ["eval", self.value(e)]]

    # -- expressions (C precedence)
    def expr(self):
        cond = self.binary(0)
        if self.at("?"):
            self.next()
            a = self.expr()
            self.expect(":", "in ?:")
            b = self.expr()
            return ["cond", cond, a, b]
        return cond

    def binary(self, level):
        if level == len(LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek().kind == "op" and self.peek().text in LEVELS[level]:
            op = self.next().text
            right = self.binary(level + 1)
            left = ["bin", BINOPS[op], left, right]
        return left

    def unary(self):
        self.nest(self.peek().line)
        return self.unnest(self.unary_())

    def unary_(self):
        t = self.peek()
        if self.at("(") and self.peek(1).kind == "id" and self.peek(1).text in TYPE_WORDS:
            self.next()                     # a cast: values are untyped here
            self.type_words()
            while self.at("*"):
                self.next()
            self.expect(")", "to close a cast")
            return self.unary()
        if self.at("!") or self.at("~") or self.at("-") or self.at("+"):
            op = self.next().text
            e = self.unary()
            return e if op == "+" else ["un", {"!": "not", "~": "bnot", "-": "neg"}[op], e]
        if self.at("*"):
            self.next()
            return ["deref", self.unary(), t.line]
        if self.at("&"):
            self.next()
            inner = self.unary()
            if inner[0] == "deref":
                return inner[1]
            raise unsupported(t.line, "& of a register or an expression")
        if self.at("++") or self.at("--"):
            raise unsupported(t.line, "%s inside an expression" % t.text)
        return self.postfix(self.primary())

    def postfix(self, e):
        t = self.peek()
        if self.at("[") or self.at("->") or self.at("."):
            raise unsupported(t.line, "arrays and structs (%s)" % t.text)
        if self.at("++") or self.at("--"):
            raise unsupported(t.line, "%s inside an expression" % t.text)
        return e

    def primary(self):
        t = self.next()
        if t.kind == "num":
            return ["int", to_int(t)]
        if t.kind == "op" and t.text == "(":
            self.nest(t.line)
            e = self.expr()
            self.expect(")", "to close a parenthesis")
            return self.unnest(e)
        if t.kind != "id":
            raise LitmusError(t.line, "expected an expression, got %s" % shown(t))
        if self.at("("):
            return self.call(t)
        if t.text in KEYWORDS_REFUSED:
            raise unsupported(t.line, KEYWORDS_REFUSED[t.text])
        if t.text in ("true", "false"):
            return ["int", int(t.text == "true")]
        if t.text == "NULL":
            return ["int", 0]
        if t.text in self.proc.params:
            return ["addr", self.proc.params[t.text].index]
        if t.text in self.proc.regs:
            return ["reg", self.proc.regs[t.text]]
        if t.text in self.test.locs:
            raise LitmusError(t.line, "%s is not a parameter of P%d" % (t.text, self.proc.number))
        raise LitmusError(t.line, "unknown name %s" % t.text)

    def call(self, t):
        name = t.text
        self.expect("(")
        args = []
        while not self.at(")"):
            if self.peek().kind == "eof":
                raise LitmusError(t.line, "the arguments of %s never end" % name)
            args.append((self.peek().line, self.expr()))
            if not self.at(")"):
                self.expect(",", "between arguments")
        self.next()
        if name in REFUSED:
            raise unsupported(t.line, "%s (%s)" % (name, REFUSED[name]))
        if name.startswith("__"):
            raise unsupported(t.line, "%s()" % name)
        if name not in PRIMITIVES:
            if name in self.proc.regs or name in self.proc.params:
                raise LitmusError(t.line, "%s is not a function" % name)
            raise unsupported(t.line, "%s()" % name)
        kinds, _, loc_kind = PRIMITIVES[name]
        if len(args) != len(kinds):
            raise LitmusError(t.line, "%s takes %d argument%s, got %d" % (
                name, len(kinds), "" if len(kinds) == 1 else "s", len(args)))
        out = ["call", name]
        for (line, a), k in zip(args, kinds):
            if k == "L":
                if a[0] != "deref":
                    raise LitmusError(line, "%s needs a location: %s(*p, ...)" % (name, name))
                a = a[1]
                self.check_kind(name, a, loc_kind, line)
            elif k == "P":
                self.check_kind(name, a, loc_kind, line)
            out.append(self.value(a))
        return out

    def plain(self, e, store=None):
        """A plain C access *p (a ["deref", p, line]): a load, or a store of
        @store; the weak model sees it, and flags it if it races."""
        self.check_kind("a plain access", e[1], "int", e[2])
        if store is None:
            return ["call", "__plain_load", self.value(e[1])]
        return ["call", "__plain_store", self.value(e[1]), store]

    def value(self, e):
        """@e as the interpreter computes it: *p is a plain load."""
        if e[0] == "deref":
            return self.plain(e)
        if e[0] in ("un", "bin"):
            return e[:2] + [self.value(x) for x in e[2:]]
        if e[0] == "cond":
            return ["cond"] + [self.value(x) for x in e[1:]]
        return e

    def check_kind(self, name, a, kind, line):
        """A primitive of @kind on a location named directly: the right kind."""
        if a[0] == "addr" and kind:
            loc = next(l for l in self.test.locs.values() if l.index == a[1])
            if loc.kind != kind:
                raise unsupported(line, "%s on %s, a %s (one kind of access per "
                                  "location)" % (name, loc.name, kind_name(loc.kind)))

    # -- the final condition
    def tail(self):
        t = self.test
        if self.at("locations"):
            self.next()
            self.expect("[")
            while not self.at("]"):
                if self.peek().kind == "eof":
                    raise LitmusError(self.peek().line, "locations [ never ends")
                t.shown.append(self.key())
                if not self.at("]"):
                    self.expect(";", "between locations")
                    if self.at("]"):
                        break
            self.next()
        if self.at("filter"):
            self.next()
            t.filter = self.prop()
        q = self.peek()
        if self.at("~") and self.at("exists", 1):
            self.next()
            self.next()
            t.quantifier = "~exists"
        elif self.at("exists") or self.at("forall"):
            t.quantifier = self.next().text
        elif q.kind == "id" and q.text in ("cases", "final", "observed"):
            raise unsupported(q.line, "the %s clause" % q.text)
        else:
            raise LitmusError(q.line, "expected exists, ~exists or forall, got %s" % shown(q))
        start = self.i
        t.prop = self.prop()
        t.cond_text = " ".join(x.text for x in self.toks[start:self.i])
        if self.at(";"):
            self.next()
        if self.peek().kind != "eof":
            raise LitmusError(self.peek().line, "unexpected %s after the condition"
                              % shown(self.peek()))

    def prop(self):
        left = self.conj()
        while self.at("\\/"):
            self.next()
            left = ("or", left, self.conj())
        return left

    def conj(self):
        left = self.atom()
        while self.at("/\\"):
            self.next()
            left = ("and", left, self.atom())
        return left

    def atom(self):
        self.nest(self.peek().line)
        return self.unnest(self.atom_())

    def atom_(self):
        if self.at("~") or self.at("not"):
            self.next()
            return ("not", self.atom())
        if self.at("("):
            self.next()
            p = self.prop()
            self.expect(")", "to close the proposition")
            return p
        if self.at("true") or self.at("false"):
            return (self.next().text,)
        key = self.key()
        if self.peek().text in ("!=", "<>", "<", ">", "<=", ">="):
            raise unsupported(self.peek().line, "%s in a proposition" % self.peek().text)
        self.expect("=", "in a proposition")
        if self.peek().kind == "id":
            name = self.next()
            if name.text not in self.test.locs:
                raise LitmusError(name.line, "unknown location %s" % name.text)
            value = name.text
        else:
            value = self.number("a value")
        self.test.shown.append(key)
        return ("eq", key, value)

    def key(self):
        """N:reg or a location, as a state's key."""
        t = self.peek()
        if t.kind == "num" or (t.kind == "id" and re.match(r"P[0-9]+$", t.text) and
                               self.at(":", 1)):
            self.next()
            number = self.proc_number(t)
            self.expect(":")
            name = self.ident("a register")
            if number >= len(self.test.procs):
                raise LitmusError(t.line, "%d:%s: there is no P%d" % (number, name.text, number))
            if name.text not in self.test.procs[number].regs:
                raise LitmusError(t.line, "%d:%s: P%d has no register %s"
                                  % (number, name.text, number, name.text))
            return ("reg", number, name.text)
        name = self.ident("N:register or a location")
        if name.text not in self.test.locs:
            raise LitmusError(name.line, "unknown location %s" % name.text)
        return ("loc", name.text)


LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
          ("<<", ">>"), ("+", "-"), ("*", "/", "%")]
BINOPS = {"&&": "land", "||": "lor", "|": "or", "^": "xor", "&": "and", "==": "eq", "!=": "ne", "<": "lt", ">": "gt",
          "<=": "le", ">=": "ge", "<<": "shl", ">>": "shr", "+": "add", "-": "sub",
          "*": "mul", "/": "div", "%": "mod"}


def shown(tok):
    return "end of file" if tok.kind == "eof" else "'%s'" % tok.text


def header(text):
    """The name on the first line ("C name"), and where the rest starts."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        m = re.match(r"\s*C\s+(\S+)\s*$", line)
        if not m:
            if re.match(r"\s*[A-Za-z0-9_]+\s+\S+", line):
                raise unsupported(n + 1, "a litmus test for %s, not the kernel's C"
                                  % line.split()[0])
            raise LitmusError(n + 1, "expected 'C <name>' on the first line")
        return m.group(1), n + 1, "\n".join(lines[n + 1:])
    raise LitmusError(1, "an empty file: expected 'C <name>'")


def fences_in_place(test):
    """smp_mb__before_atomic() must be followed, and smp_mb__after_atomic()
    preceded, by an atomic read-modify-write: there the kernel's fence is
    the full fence the interpreter makes of it; elsewhere it orders less."""
    rmw = {n for n, (a, r, k) in PRIMITIVES.items()
           if (k == "atomic" and n not in ("atomic_read", "atomic_read_acquire",
                                            "atomic_set", "atomic_set_release"))
           or n.startswith(("xchg", "cmpxchg"))}

    def calls(stmt):
        """The primitives of a straight-line statement, in order, with lines."""
        out = []

        def walk(node, line):
            if isinstance(node, list) and node:
                if node[0] == "line":
                    line = node[1]
                if node[0] == "call":
                    for x in node[2:]:
                        walk(x, line)
                    out.append((node[1], line))
                    return
                if node[0] == "if":
                    out.append(("if", line))
                for x in node[1:]:
                    walk(x, line)
        walk(stmt, None)
        return out

    for p in test.procs:
        seq = calls(p.body)
        for i, (name, line) in enumerate(seq):
            if name == "smp_mb__before_atomic" and (i + 1 >= len(seq) or seq[i + 1][0] not in rmw):
                raise unsupported(line, "smp_mb__before_atomic() not right before an "
                                  "atomic read-modify-write")
            if name == "smp_mb__after_atomic" and (i == 0 or seq[i - 1][0] not in rmw):
                raise unsupported(line, "smp_mb__after_atomic() not right after an "
                                  "atomic read-modify-write")
            if name == "smp_mb__after_spinlock" and (i == 0 or seq[i - 1][0] != "spin_lock"):
                raise unsupported(line, "smp_mb__after_spinlock() not right after "
                                  "spin_lock()")


def parse(text, path="<litmus>"):
    """The Test of @text; raises LitmusError."""
    if "\0" in text:
        raise LitmusError(text[:text.index("\0")].count("\n") + 1, "a NUL byte: not a text file")
    test = Test(path)
    test.pending_regs = []
    test.name, first, rest = header(text)
    toks, comments = lex(rest, first + 1)
    for line, body in comments:
        m = re.search(r"Result:\s*([A-Za-z-]+)", body)
        if m:
            test.result = m.group(1)
            test.result_line = line + body[:m.start()].count("\n")
            break
    p = Parser(toks, test)
    if p.peek().kind == "str":
        p.next()                            # herd7's optional doc string
    p.init_block()
    p.procs()
    for line, number, name, value in test.pending_regs:
        if number >= len(test.procs):
            raise LitmusError(line, "%d:%s: there is no P%d" % (number, name, number))
        p.proc = test.procs[number]
        test.procs[number].reg_init[p.reg(name, line)] = value
    p.tail()
    for proc in test.procs:
        if depth(proc.body) > 60:
            raise unsupported(proc.line, "P%d nests deeper than the interpreter reads"
                              % proc.number)
    fences_in_place(test)
    if test.bound() > MAX_BOUND:
        raise unsupported(test.procs[0].line, "up to %d preemptions to see every execution; "
                          "the reproducer's dfs goes to %d" % (test.bound(), MAX_BOUND))
    return test
