#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The rule of cpctools-output(5) ("Names"), written again from the page
for the tests to compare the commands' output with: a control character
(C0, DEL, C1), a bidirectional control, U+2028, U+2029 and each byte that
begins no well-formed UTF-8 sequence are \\xNN a byte; JSON has each such
character (not a bad byte) as itself, a bad byte as U+FFFD.

  names_rule.py chunks DIR    writes DIR/args.N (NUL-separated xargs -0
                              input: /bin/true, then a chunk of bytes:
                              every byte 1-255 over the chunks, then C1,
                              the bidirectional controls and the
                              separators), DIR/table.N, DIR/csv.N (what the
                              exec marker's args are in the table and in
                              CSV) and DIR/json.N (the JSON string, as
                              JSON text); prints the number of chunks
  names_rule.py comms DIR     writes DIR/want.N: the same bytes in
                              chunks of 15 (a process's name at most,
                              the kernel's comm), each by the rule;
                              prints the number of chunks
  names_rule.py procs FILE    a process for each of those chunks, named
                              so (PR_SET_NAME), each until this one ends;
                              their pids in FILE, comma-separated, once
                              all are named
  names_rule.py escape BYTES  BYTES (Python bytes literal syntax, \\xNN)
                              by the rule
  names_rule.py json-has FILE JSONFILE
                              whether a JSON line (or a trace) of FILE
                              has a string value equal to the one in
                              JSONFILE
"""
import ast
import ctypes
import json
import os
import signal
import sys

SPECIAL = {0x061C, 0x200E, 0x200F, 0x2028, 0x2029} | \
    set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def sequence(data, i):
    """The well-formed UTF-8 sequence at data[i:] (RFC 3629), or None."""
    lead = data[i]
    if lead < 0x80:
        return data[i:i + 1]
    n = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else \
        4 if 0xF0 <= lead <= 0xF4 else 0
    if n == 0:
        return None
    try:
        # Python's strict decoder refuses overlong forms, surrogates and
        # code points past U+10FFFF, as RFC 3629 does.
        data[i:i + n].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return data[i:i + n] if len(data[i:i + n]) == n else None


def shown(ch):
    c = ord(ch)
    return not (c < 0x20 or 0x7F <= c <= 0x9F or c in SPECIAL)


def escape(data):
    """data by the rule, as text."""
    out, i = [], 0
    while i < len(data):
        seq = sequence(data, i)
        if seq is not None and shown(seq.decode("utf-8")):
            out.append(seq.decode("utf-8"))
            i += len(seq)
            continue
        for b in (seq if seq is not None else data[i:i + 1]):
            out.append("\\x%02x" % b)
        i += len(seq) if seq is not None else 1
    return "".join(out)


def json_value(data):
    """The string JSON carries for data: a bad byte U+FFFD."""
    out, i = [], 0
    while i < len(data):
        seq = sequence(data, i)
        out.append(seq.decode("utf-8") if seq is not None else "\ufffd")
        i += len(seq) if seq is not None else 1
    return "".join(out)


def csv_field(text):
    if "," in text or '"' in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def chunks():
    every = bytes(range(1, 256))
    parts = [every[i:i + 32] for i in range(0, len(every), 32)]
    special = "\u0085\u009b" + "".join(chr(c) for c in sorted(SPECIAL))
    encoded = special.encode("utf-8")
    parts += [encoded[:30], encoded[30:]]
    # Split within a character: what is left of one is bad bytes.
    return parts


def names():
    """The bytes of chunks() in pieces of 15, for process names."""
    every = b"".join(chunks())
    return [every[i:i + 15] for i in range(0, len(every), 15)]


def write_comms(d):
    parts = names()
    for n, part in enumerate(parts):
        with open(os.path.join(d, "want.%d" % n), "w") as f:
            f.write(escape(part) + "\n")
    print(len(parts))


def named_procs(path):
    libc = ctypes.CDLL(None, use_errno=True)
    pids = []
    for name in names():
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            libc.prctl(15, name)  # PR_SET_NAME
            os.write(w, b"n")
            while True:
                signal.pause()
        os.close(w)
        os.read(r, 1)
        os.close(r)
        pids.append(pid)
    with open(path + ".tmp", "w") as f:
        f.write(",".join(str(p) for p in pids) + "\n")
    os.rename(path + ".tmp", path)
    while True:
        signal.pause()


def write_chunks(d):
    parts = chunks()
    for n, part in enumerate(parts):
        args = b"/bin/true " + part
        with open(os.path.join(d, "args.%d" % n), "wb") as f:
            f.write(b"/bin/true\0" + part + b"\0")
        text = escape(args)
        with open(os.path.join(d, "table.%d" % n), "w") as f:
            f.write("# '%s'\n" % text)
        with open(os.path.join(d, "csv.%d" % n), "w") as f:
            f.write(csv_field(text) + "\n")
        with open(os.path.join(d, "json.%d" % n), "w") as f:
            f.write(json.dumps(json_value(args)) + "\n")
    print(len(parts))


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def json_has(path, want_path):
    want = json.load(open(want_path))
    text = open(path, encoding="utf-8").read()
    try:
        docs = [json.loads(text)]
    except ValueError:
        docs = [json.loads(line) for line in text.splitlines() if line]
    return any(s == want for d in docs for s in strings(d))


def main(argv):
    if argv[:1] == ["chunks"] and len(argv) == 2:
        write_chunks(argv[1])
    elif argv[:1] == ["comms"] and len(argv) == 2:
        write_comms(argv[1])
    elif argv[:1] == ["procs"] and len(argv) == 2:
        named_procs(argv[1])
    elif argv[:1] == ["escape"] and len(argv) == 2:
        print(escape(ast.literal_eval("b'" + argv[1] + "'")))
    elif argv[:1] == ["json-has"] and len(argv) == 3:
        sys.exit(0 if json_has(argv[1], argv[2]) else 1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
