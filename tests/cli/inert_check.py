#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Whether text a command wrote may reach a terminal: each FILE valid
UTF-8, with no control character but the line feed (C0, DEL, C1), no
bidirectional control and no line or paragraph separator
(cpctools-output(5), "Names"). Says the first offence of each file and
exits 1; exits 0 when every file is inert.

Usage: inert_check.py [--tabs] FILE...   (--tabs: a tab is allowed too,
as in --list's columns)
"""
import sys

BIDI = {0x061C, 0x200E, 0x200F, 0x2028, 0x2029} | set(range(0x202A, 0x202F)) \
    | set(range(0x2066, 0x206A))


def offence(text, tabs):
    """The first character a terminal would act on, as (line, what)."""
    for number, line in enumerate(text.split("\n"), 1):
        for ch in line:
            c = ord(ch)
            if c == 0x09 and tabs:
                continue
            if c < 0x20 or 0x7F <= c <= 0x9F:
                return number, "control U+%04X" % c
            if c in BIDI:
                return number, "bidirectional control U+%04X" % c
    return None


def main(argv):
    tabs = argv[:1] == ["--tabs"]
    files = argv[1:] if tabs else argv
    if not files:
        sys.exit(__doc__)
    bad = 0
    for path in files:
        data = open(path, "rb").read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            print("%s: not UTF-8 at byte %d: %r" % (path, e.start,
                  data[max(0, e.start - 20):e.start + 4]))
            bad += 1
            continue
        found = offence(text, tabs)
        if found is not None:
            number, what = found
            print("%s:%d: %s: %r" % (path, number, what,
                  text.split("\n")[number - 1]))
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
