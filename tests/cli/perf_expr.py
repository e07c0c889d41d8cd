# SPDX-License-Identifier: BSD-2-Clause
"""perf's metric expression language, evaluated in Python: the tests' own
oracle, written from the facts of perf's grammar (tools/perf/util/expr.y
and expr.l), sharing nothing with cpctools' C.

The language:
- numbers: [0-9]+.?[0-9]* or [0-9]*.?[0-9]+, then e-?[0-9]+ optionally;
- names: letters, digits, _ . : ? and the escapes \\- \\, \\=; an @ opens a
  part taken whole up to the next @ (cpu@EVENT\\,cmask\\=1@); the longest
  token wins, a keyword or a number over a name of the same length;
- literals: # then [0-9a-zA-Z_.-]+, in any case (#smt_on, #SMT_on);
- keywords (case-sensitive): if else min max d_ratio source_count aggr_nr
  has_event strcmp_cpuid_str NaN;
- bison's precedence, loosest first, each left-associative: | ^ & (< >)
  (+ -) (* / %) and unary minus; "A if C else B" is a whole formula or a
  parenthesised one, its B another such: a function's arguments and a
  condition are plain expressions.

Its values (NaN: none), perf 6.1's (expr.y of v6.1):
- + - * < > are NaN when a side is; < and > give 1 or 0;
- a / b leaves the whole formula without a value where b is 0 (bison's
  YYABORT), a branch not taken included: every part is evaluated;
- d_ratio(a, b) is 0 where b is 0, else a / b;
- a % b likewise has no value where b is 0, else (long)a % (long)b, C's
  remainder; a (long)b of 0 leaves the whole formula with no value (perf
  would die of SIGFPE);
- | & ^ are bitwise on (long) of each side, NaN where a side is NaN;
- (long) of an infinity or a NaN (for %, which does not look) is what an
  x86-64 gives, LONG_MIN;
- min(a, b) is a < b ? a : b, max(a, b) a > b ? a : b, as C compares;
- A if C else B is B where C is 0, else A (a NaN condition included);
- a literal without a value leaves the whole formula without one.

Later releases (and cpctools) changed three of those (LATER, which a
Context may ask for, each by name): "div", a / 0 is NaN alone; "logical",
| & ^ are logical: both sides finite, 1 or 0; one side finite, | gives the
other where the finite one is 0 (else 1), & gives the other where the
finite one is not 0 (else 0), ^ is NaN; neither finite, NaN; "mod", a NaN
or infinite side gives NaN.
"""
import math
import re

NAN = float("nan")
LONG_MIN = -(1 << 63)
LATER = frozenset(("div", "logical", "mod"))
KEYWORDS = {"if", "else", "min", "max", "d_ratio", "source_count",
            "aggr_nr", "has_event", "strcmp_cpuid_str", "NaN"}
FUNCS_OF_NAME = {"source_count", "aggr_nr", "has_event", "strcmp_cpuid_str"}
FUNCS_OF_TWO = {"min", "max", "d_ratio"}
NUMBER = re.compile(r"([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)?")
LITERAL = re.compile(r"#[0-9a-zA-Z_.\-]+")
NAME_CHAR = re.compile(r"[0-9a-zA-Z_.:?]")
OPERATORS = "|^&<>+-*/%(),"
# Binary operators by precedence, loosest first.
LEVELS = ("|", "^", "&", "<>", "+-", "*/%")


class ParseError(Exception):
    pass


class NoValue(Exception):
    """The whole formula has no value (perf abandons it)."""


class NotConstant(Exception):
    """A name's value is asked where only constants are known."""


def unescape(name):
    return re.sub(r"\\(.)", r"\1", name)


def _name_at(text, i):
    """The length of the name at text[i:], or 0."""
    j = i
    while j < len(text):
        c = text[j]
        if c == "\\" and j + 1 < len(text) and text[j + 1] in "-,=":
            j += 2
        elif c == "@":
            end = j + 1
            while end < len(text) and text[end] != "@" and \
                    not text[end].isspace():
                end += 1
            if end >= len(text) or text[end] != "@":
                raise ParseError("an @ without its closing @ at %d" %
                                 (j + 1))
            j = end + 1
        elif NAME_CHAR.match(c):
            j += 1
        else:
            break
    return j - i


def tokens(text):
    """(kind, text) pairs: num, name, lit, kw, op."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == "#":
            m = LITERAL.match(text, i)
            if not m:
                raise ParseError("a # that starts no literal at %d" % (i + 1))
            out.append(("lit", m.group(0)))
            i = m.end()
            continue
        if c in OPERATORS:
            out.append(("op", c))
            i += 1
            continue
        m = NUMBER.match(text, i)
        nlen = m.end() - i if m and m.end() > i else 0
        alen = _name_at(text, i)
        if nlen == 0 and alen == 0:
            raise ParseError("unexpected %r at %d" % (c, i + 1))
        if nlen >= alen:
            out.append(("num", text[i:i + nlen]))
            i += nlen
        else:
            word = text[i:i + alen]
            out.append(("kw" if word in KEYWORDS else "name", word))
            i += alen
    return out


class _Parser:
    def __init__(self, text):
        self.toks = tokens(text)
        self.at = 0

    def peek(self):
        return self.toks[self.at] if self.at < len(self.toks) else (None, None)

    def take(self, kind=None, text=None):
        k, t = self.peek()
        if k is None or (kind and k != kind) or (text and t != text):
            raise ParseError("expected %s, found %s" % (text or kind, t))
        self.at += 1
        return t

    def if_expr(self):
        then = self.expr(0)
        if self.peek() == ("kw", "if"):
            self.take()
            cond = self.expr(0)
            self.take("kw", "else")
            other = self.if_expr()
            return ("if", then, cond, other)
        return then

    def expr(self, level):
        if level == len(LEVELS):
            return self.unary()
        left = self.expr(level + 1)
        while True:
            k, t = self.peek()
            if k != "op" or t not in LEVELS[level]:
                return left
            self.take()
            left = ("bin", t, left, self.expr(level + 1))

    def unary(self):
        k, t = self.peek()
        if (k, t) == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        if (k, t) == ("op", "("):
            self.take()
            inner = self.if_expr()
            self.take("op", ")")
            return inner
        if k == "num":
            self.take()
            return ("num", float(t))
        if (k, t) == ("kw", "NaN"):
            self.take()
            return ("num", NAN)
        if k == "lit":
            self.take()
            return ("lit", t)
        if k == "name":
            self.take()
            return ("name", t)
        if k == "kw" and t in FUNCS_OF_NAME:
            self.take()
            self.take("op", "(")
            name = self.take("name")
            self.take("op", ")")
            return ("fn1", t, name)
        if k == "kw" and t in FUNCS_OF_TWO:
            self.take()
            self.take("op", "(")
            a = self.expr(0)
            self.take("op", ",")
            b = self.expr(0)
            self.take("op", ")")
            return ("fn2", t, a, b)
        raise ParseError("unexpected %s" % t)


def parse(text):
    """A formula's tree; ParseError where it is not perf's language."""
    p = _Parser(text)
    tree = p.if_expr()
    if p.at != len(p.toks):
        raise ParseError("unexpected %s after the formula" % p.peek()[1])
    return tree


def names(tree, uses=None):
    """{name: set of uses} of a tree: "value", or a function of a name."""
    uses = {} if uses is None else uses
    kind = tree[0]
    if kind == "name":
        uses.setdefault(tree[1], set()).add("value")
    elif kind == "fn1":
        uses.setdefault(tree[2], set()).add(tree[1])
    elif kind in ("bin", "fn2"):
        names(tree[2], uses)
        names(tree[3], uses)
    elif kind == "neg":
        names(tree[1], uses)
    elif kind == "if":
        for sub in tree[1:]:
            names(sub, uses)
    return uses


def literals(tree, out=None):
    out = set() if out is None else out
    if tree[0] == "lit":
        out.add(tree[1])
    for sub in tree[1:]:
        if isinstance(sub, tuple):
            literals(sub, out)
    return out


def _c_long(v):
    """C's (long)v on x86-64: toward zero; out of range, or NaN,
    LONG_MIN (cvttsd2si's "integer indefinite")."""
    if not math.isfinite(v) or not LONG_MIN <= v < -LONG_MIN:
        return LONG_MIN
    return int(v)


def _logical(op, a, b):
    fa, fb = math.isfinite(a), math.isfinite(b)
    if fa and fb:
        x, y = a != 0, b != 0
        return float({"|": x or y, "&": x and y, "^": x != y}[op])
    if not fa and not fb:
        return NAN
    known, other = (a, b) if fa else (b, a)
    if op == "|":
        return other if known == 0 else 1.0
    if op == "&":
        return other if known != 0 else 0.0
    return NAN


def _bitwise(op, a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    x, y = _c_long(a), _c_long(b)
    return float({"|": x | y, "&": x & y, "^": x ^ y}[op])


def _remainder(a, b, later):
    if b == 0:
        raise NoValue("remainder by 0")
    if later and not (math.isfinite(a) and math.isfinite(b)):
        return NAN
    x, y = _c_long(a), _c_long(b)
    if y == 0 or (x == LONG_MIN and y == -1):
        raise NoValue("remainder that traps")
    r = abs(x) % abs(y)
    return float(-r if x < 0 else r)


class Context:
    """What a formula's names stand for; subclass and override."""
    later = frozenset()  # of LATER: the rules taken from later releases

    def value(self, name):  # an event's count or another metric's value
        return NAN

    def literal(self, lit):  # NaN: none
        return NAN

    def source_count(self, name):
        return 1.0

    def aggr_nr(self, name):
        return 1.0

    def has_event(self, name):
        return 0.0

    def cpuid_match(self, name):
        return 0.0


def _eval(t, ctx):
    kind = t[0]
    if kind == "num":
        return t[1]
    if kind == "name":
        return ctx.value(t[1])
    if kind == "lit":
        v = ctx.literal(t[1])
        if v is None or math.isnan(v):
            raise NoValue("no value for %s" % t[1])
        return v
    if kind == "neg":
        return -_eval(t[1], ctx)
    if kind == "if":
        then, cond, other = (_eval(s, ctx) for s in t[1:])
        return other if cond == 0 else then
    if kind == "fn1":
        return {"source_count": ctx.source_count, "aggr_nr": ctx.aggr_nr,
                "has_event": ctx.has_event,
                "strcmp_cpuid_str": ctx.cpuid_match}[t[1]](t[2])
    a, b = _eval(t[2], ctx), _eval(t[3], ctx)
    if kind == "fn2":
        if t[1] == "min":
            return a if a < b else b
        if t[1] == "max":
            return a if a > b else b
        return 0.0 if b == 0 else a / b  # d_ratio
    op = t[1]
    if op in "|&^":
        return (_logical if "logical" in ctx.later else _bitwise)(op, a, b)
    if op == "%":
        return _remainder(a, b, "mod" in ctx.later)
    if op == "/" and b == 0:
        if "div" in ctx.later:
            return NAN
        raise NoValue("division by 0")
    if math.isnan(a) or math.isnan(b):
        return NAN
    if op == "/":
        return a / b
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "<":
        return float(a < b)
    return float(a > b)


def evaluate(tree, ctx):
    """The formula's value (NaN: none)."""
    try:
        return _eval(tree, ctx)
    except NoValue:
        return NAN


def _constant(tree, ctx):
    """The tree's value where it reads constants alone, else None."""
    try:
        return _eval(tree, ctx)
    except NotConstant:
        return None
    except NoValue:
        return NAN


def needed(tree, ctx, uses=None):
    """The names a formula reads once its constants are known (ctx's
    value() raises NotConstant, its literals and functions of names
    answer), as perf opens a metric's events: a conditional whose
    condition is constant reads the branch it takes; | and & whose
    constant side decides read nothing of the other; a / b and d_ratio(a,
    b) with b a constant 0 read nothing of a."""
    uses = {} if uses is None else uses
    kind = tree[0]
    if kind == "if":
        cond = _constant(tree[2], ctx)
        if cond is not None:
            return needed(tree[3] if cond == 0 else tree[1], ctx, uses)
    elif kind == "bin" and tree[1] in "|&":
        for known, other in ((tree[2], tree[3]), (tree[3], tree[2])):
            v = _constant(known, ctx)
            if v is not None and math.isfinite(v) and \
                    (v != 0) == (tree[1] == "|"):
                return uses
    elif kind in ("bin", "fn2") and tree[1] in ("/", "d_ratio"):
        if _constant(tree[3], ctx) == 0:
            return needed(tree[3], ctx, uses)
    if kind == "name":
        uses.setdefault(tree[1], set()).add("value")
    elif kind == "fn1":
        uses.setdefault(tree[2], set()).add(tree[1])
    for sub in tree[1:]:
        if isinstance(sub, tuple):
            needed(sub, ctx, uses)
    return uses
