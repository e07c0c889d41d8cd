#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Whether each place a document gives a function or a type is where the
C sources define it, and whether each call it says is made only from some
files is made from no other.

    docs_places.py TREE DOC...

prints "DOC:LINE: `name`: why" for each false claim and exits 1 if any.
A claim is read from a paragraph, a list item or a table row, in these
forms (`f()` a function, a macro with arguments or a BPF program;
`struct t` or `enum t` a type; `p` a path from the top of TREE: a file,
or a folder that ends in /):

  placed:       `f()` (`p`), (`f()`, `p`), `f()` in `p`, `f()`, in `p`;
                the names may be several (joined by ",", "and", "→"),
                the paths too: each name is defined in each path.
  folder table: in a table whose head is "| folder | owns |", each
                function of a row is defined under one of its folders.
  owner table:  in a table whose head begins "| resource | owner |",
                each function and type is placed, as above, and in
                "`f()`, from `g()`" (or "`g()` or `h()`", each maybe
                placed), each of g and h calls f, in each place given.
  called only:  "`f()` and `g()` are called only in `p`, `q` and `r`":
                outside the folders of tests, the sources call each of
                them only in those paths.
"""
import os
import re
import sys

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
FUNC = re.compile(r"^(" + NAME + r")\(\)$")
TYPE = re.compile(r"^(?:struct|enum|union) " + NAME + r"$")
PATH = re.compile(r"^[A-Za-z0-9_.+-]*(/[A-Za-z0-9_.+-]*)*"
                  r"(/|\.(c|h|def|awk|tsv|txt))$")
SPAN = re.compile(r"`([^`]+)`")
NAMES_GAP = re.compile(r"^\s*(,|,?\s*and|→|,?\s*or)\s*$")
PLACE_GAP = re.compile(r"^\s*(,|,?\s*in|\()\s*$")
FROM_GAP = re.compile(r"^\s*,\s*from\s*$")
FROM_CHAIN_GAP = re.compile(r"^\s*(,|,?\s*and|,?\s*or|,?\s*in|\()\s*$")
ONLY_GAP = re.compile(r"^\s*(is|are)\s+called\s+only\s+(in|from)\s*$")


def tree_files(tree):
    """The tree's files, paths from its top, without .git and builds."""
    out = []
    for top, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs
                   if d != ".git" and not d.startswith("build")]
        rel = os.path.relpath(top, tree)
        out += [os.path.normpath(os.path.join(rel, f)) for f in files]
    return out


def definitions(text, header):
    """The functions and types a C file defines, by the tree's style: a
    definition's name starts its line (in a header, after a line that
    says static); macros with arguments; BPF programs."""
    found, prev = set(), ""
    for line in text.split("\n"):
        m = re.match(r"(" + NAME + r")\(", line)
        if m and (not header or "static" in prev):
            found.add(m.group(1) + "()")
        m = re.match(r"#define (" + NAME + r")\(", line)
        if m:
            found.add(m.group(1) + "()")
        m = re.search(r"BPF_(?:PROG|KPROBE|KRETPROBE)\((" + NAME + ")", line)
        if m:
            found.add(m.group(1) + "()")
        for t in re.findall(r"((?:struct|enum|union) " + NAME + r") \{",
                            line):
            found.add(t)
        prev = line
    return found


def body_of(text, func):
    """The text of func's definition in a C file, or None."""
    m = re.search(r"^" + re.escape(func) + r"\(.*?^\}", text,
                  re.M | re.S)
    return m.group(0) if m else None


def without_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


class Tree:
    def __init__(self, top):
        self.top = top
        self.sources = {}
        for f in tree_files(top):
            if f.endswith((".c", ".h")):
                with open(os.path.join(top, f), errors="replace") as h:
                    self.sources[f] = h.read()
        self.defs = {f: definitions(t, f.endswith(".h"))
                     for f, t in self.sources.items()}

    def files_at(self, path):
        """The C files a path stands for: a file, or those under a
        folder."""
        if path.endswith("/"):
            return [f for f in self.sources if f.startswith(path)]
        return [path] if path in self.sources else []

    def defined_in(self, name, path):
        return any(name in self.defs[f] for f in self.files_at(path))

    def calls(self, caller, callee, paths=None):
        """Whether caller's definition in each of paths (or, with none,
        in some file) names callee."""
        word = re.compile(r"\b" + re.escape(callee[:-2]) + r"\b")

        def names_it(f):
            body = body_of(self.sources[f], caller[:-2])
            return bool(body and word.search(without_comments(body)[1:]))
        if paths:
            return all(names_it(f) for p in paths for f in self.files_at(p)
                       if caller in self.defs[f])
        return any(names_it(f) for f in self.sources
                   if caller in self.defs[f])

    def callers(self, func):
        """The C files outside tests that call func (its definitions'
        lines left out; headers only declare)."""
        call = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(func[:-2]) +
                          r"\s*\(")
        out = set()
        for f, text in self.sources.items():
            if "tests/" in f or f.startswith("tests") or f.endswith(".h"):
                continue
            for line in without_comments(text).split("\n"):
                if call.search(line) and not re.match(
                        re.escape(func[:-2]) + r"\(", line) and \
                        not line.startswith("#define"):
                    out.add(f)
        return out


def units(lines):
    """The document's paragraphs, list items and table rows, each as
    (first line's number, text with its lines, the table's head or None),
    fences left out."""
    out, cur, start, fenced, head = [], [], 0, False, None

    def close():
        if cur:
            out.append((start, "\n".join(cur), None))
        cur.clear()
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            close()
            fenced = not fenced
            continue
        if fenced:
            continue
        s = line.strip()
        if s.startswith("|"):
            close()
            if re.match(r"^\|[-| ]+\|$", s):
                continue
            if head is None:
                head = s
            out.append((n, s, head))
            continue
        head = None
        if not s or re.match(r"^(#|[-*] |\d+\. )", s):
            close()
        if s:
            if not cur:
                start = n
            cur.append(s)
    close()
    return out


class Tok:
    """A span, the text before it and its line."""

    def __init__(self, gap, span, line):
        self.gap, self.span, self.line = gap, span, line


def tokens(text, start):
    out, pos = [], 0
    for m in SPAN.finditer(text):
        out.append(Tok(text[pos:m.start()], m.group(1),
                       start + text.count("\n", 0, m.start())))
        pos = m.end()
    return out


def is_name(s):
    return bool(FUNC.match(s) or TYPE.match(s))


def runs(toks, i, test, gap):
    """The tokens from toks[i] on whose spans pass test, joined by gap."""
    j = i + 1
    while j < len(toks) and gap.match(toks[j].gap) and test(toks[j].span):
        j += 1
    return toks[i:j], j


def placements(toks):
    """(name tokens, paths) for each placement."""
    out, i = [], 0
    while i < len(toks):
        if not is_name(toks[i].span):
            i += 1
            continue
        names, j = runs(toks, i, is_name, NAMES_GAP)
        if j < len(toks) and PLACE_GAP.match(toks[j].gap) and \
                PATH.match(toks[j].span):
            paths, j = runs(toks, j, PATH.match, NAMES_GAP)
            out.append((names, [p.span for p in paths]))
        i = j
    return out


class Check:
    def __init__(self, tree, doc):
        self.tree, self.doc, self.bad = tree, doc, 0

    def say(self, tok, why):
        print("%s:%d: `%s`: %s" % (self.doc, tok.line, tok.span, why))
        self.bad += 1

    def unit(self, line, text, head):
        toks = tokens(text, line)
        places = placements(toks)
        for names, paths in places:
            for name in names:
                for p in paths:
                    if not self.tree.defined_in(name.span, p):
                        self.say(name, "not defined in " + p)
        self.called_only(toks)
        if head and re.match(r"^\|\s*folder\s*\|\s*owns\s*\|", head):
            self.folder_row(line, text)
        if head and re.match(r"^\|\s*resource\s*\|\s*owner\s*\|", head) \
                and text != head:
            self.owner_row(toks, places)

    def folder_row(self, line, text):
        cells = [c.strip() for c in text.strip("|").split("|")]
        folders = [s for s in SPAN.findall(cells[0]) if PATH.match(s)]
        for t in tokens(" ".join(cells[1:]), line):
            if FUNC.match(t.span) and not any(
                    self.tree.defined_in(t.span, f) for f in folders):
                self.say(t, "not defined under " + ", ".join(folders))

    def owner_row(self, toks, places):
        where = {}
        for names, paths in places:
            for name in names:
                where.setdefault(name.span, []).extend(paths)
        for t in toks:
            if is_name(t.span) and t.span not in where:
                self.say(t, "the owner table names no place for it")
        for i in range(1, len(toks)):
            if not (FROM_GAP.match(toks[i].gap) and
                    FUNC.match(toks[i].span)):
                continue
            callee = next((t.span for t in reversed(toks[:i])
                           if not PATH.match(t.span)), "")
            chain, _ = runs(toks, i, lambda s: FUNC.match(s) or
                            PATH.match(s), FROM_CHAIN_GAP)
            for c in chain:
                if FUNC.match(c.span) and FUNC.match(callee) and \
                        not self.tree.calls(c.span, callee,
                                            where.get(c.span)):
                    self.say(c, "does not call " + callee)

    def called_only(self, toks):
        for i in range(1, len(toks)):
            if not ONLY_GAP.match(toks[i].gap):
                continue
            j = i - 1
            while j > 0 and FUNC.match(toks[j - 1].span) and \
                    NAMES_GAP.match(toks[j].gap):
                j -= 1
            paths, _ = runs(toks, i, PATH.match, NAMES_GAP)
            for f in toks[j:i]:
                for where in sorted(self.tree.callers(f.span)):
                    if not any(where == p.span or (
                            p.span.endswith("/") and
                            where.startswith(p.span)) for p in paths):
                        self.say(f, "called in " + where + " too")


def main(argv):
    tree = Tree(argv[1])
    bad = 0
    for doc in argv[2:]:
        with open(os.path.join(argv[1], doc)) as f:
            lines = f.read().split("\n")
        check = Check(tree, doc)
        for line, text, head in units(lines):
            check.unit(line, text, head)
        bad += check.bad
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
