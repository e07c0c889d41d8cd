#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A crowd of clients of an HTTP server on 127.0.0.1, each from a
loopback address of its own, for as long as the file STOP does not
exist; each connects again as soon as its connection ends.

  crowd.py idle PORT N STATUS STOP     each holds a connection and sends
                                       nothing
  crowd.py guess PORT N STATUS STOP    each sends GET /metrics with a
                                       wrong password (its own:
                                       guessN), reads the answer, and
                                       sends again
  crowd.py rotated PORT N STATUS STOP  the same, all with one old
                                       password, as scrapers left behind
                                       by a rotation
  crowd.py own PORT N STATUS STOP      each sends GET /metrics with a
                                       wrong password new each time,
                                       all from 127.0.0.1, the address
                                       of a scraper beside them
  crowd.py fresh PORT N STATUS STOP    N requests a second, each from a
                                       fresh address in a fresh /24
                                       (127.2.0.1, 127.2.1.1, ...), with
                                       a wrong password new each time;
                                       each waits for its answer and
                                       does not come again

The addresses (but own's and fresh's) are 127.1.0.1 on, 250 a /24 (127.1.0.1-250, 127.1.1.1-250,
...). STATUS is rewritten as it goes: "holds H made M closed C" then each
answer's status code and how many came (or "refused", "reset").
"""
import base64
import errno
import os
import selectors
import socket
import sys
import time


FIRST_PORT, PORTS, PORT_STRIDE = 10000, 20000, 7919


def address(n, mode):
    if mode == "own":
        return "127.0.0.1"
    if mode == "fresh":
        return "127.%d.%d.1" % (2 + n // 256, n % 256)
    return "127.1.%d.%d" % (n // 250, n % 250 + 1)


class Client:
    def __init__(self, crowd, n):
        self.crowd, self.n, self.sock = crowd, n, None
        self.buf = b""
        self.port = n

    def bind(self, s):
        """A source port below the ephemeral range, where the ports that
        tests beside this one choose to listen on are not taken by the
        crowd's thousands; each address has all of them."""
        for _ in range(PORTS):
            self.port = (self.port + PORT_STRIDE) % PORTS
            try:
                s.bind((address(self.n, self.crowd.mode),
                        FIRST_PORT + self.port))
                return
            except OSError as e:
                if e.errno != errno.EADDRINUSE:
                    raise
        raise OSError(errno.EADDRINUSE, "no source port")

    def connect(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.bind(s)
            err = s.connect_ex(("127.0.0.1", self.crowd.port))
        except OSError as e:
            err = e.errno
        if err not in (0, errno.EINPROGRESS):
            s.close()
            self.crowd.count("refused")
            self.crowd.retry.append(self)
            return
        self.sock, self.buf = s, b""
        self.crowd.made += 1
        self.crowd.sel.register(s, selectors.EVENT_WRITE, self)

    def writable(self):
        if self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
            self.gone("refused")
            return
        self.crowd.sel.modify(self.sock, selectors.EVENT_READ, self)
        if self.crowd.request is not None:
            try:
                self.sock.sendall(self.crowd.request(self.n))
            except OSError:
                self.gone("reset")

    def readable(self):
        try:
            data = self.sock.recv(4096)
        except OSError:
            data = None
        if data is None:
            self.gone("reset")
        elif data == b"":
            self.gone(self.code() or "closed")
        else:
            self.buf += data
            if b"\r\n\r\n" in self.buf:
                # A whole head: the answer is in (its body is short).
                self.gone(self.code())

    def code(self):
        return self.buf[9:12].decode("ascii", "replace") if self.buf else None

    def gone(self, what):
        self.crowd.sel.unregister(self.sock)
        self.sock.close()
        self.sock = None
        self.crowd.closed += 1
        self.crowd.count(what)
        if self.crowd.mode == "fresh":
            self.crowd.clients.remove(self)
        else:
            self.connect()


class Crowd:
    def __init__(self, mode, port, n, status, stop):
        self.port, self.status, self.stop = port, status, stop
        self.mode, self.tries = mode, 0
        self.made = self.closed = 0
        self.answers = {}
        self.retry = []
        self.sel = selectors.DefaultSelector()
        self.request = None
        if mode != "idle":
            self.request = lambda i: self.guess(mode, i)
        self.n = n
        self.clients = [] if mode == "fresh" else [
            Client(self, i) for i in range(n)]
        self.started = time.monotonic()

    def guess(self, mode, i):
        self.tries += 1
        password = b"old" if mode == "rotated" else b"guess%d" % i
        if mode in ("own", "fresh"):
            # Never the same twice: each costs a check.
            password = b"own%d.%d" % (i, self.tries)
        auth = base64.b64encode(b"prom:" + password)
        return (b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic "
                + auth + b"\r\n\r\n")

    def count(self, what):
        self.answers[what] = self.answers.get(what, 0) + 1

    def say(self):
        held = sum(1 for c in self.clients if c.sock is not None)
        text = "holds %d made %d closed %d %s\n" % (
            held, self.made, self.closed,
            " ".join("%s:%d" % kv for kv in sorted(self.answers.items())))
        with open(self.status + ".tmp", "w") as f:
            f.write(text)
        os.replace(self.status + ".tmp", self.status)

    def arrive(self):
        """fresh's newcomers, N a second since the start."""
        due = int((time.monotonic() - self.started) * self.n)
        while self.made < due:
            c = Client(self, self.made)
            self.clients.append(c)
            c.connect()

    def run(self):
        for c in list(self.clients):
            c.connect()
        said = 0
        while not os.path.exists(self.stop):
            if self.mode == "fresh":
                self.arrive()
            for key, events in self.sel.select(0.1):
                if events & selectors.EVENT_WRITE:
                    key.data.writable()
                else:
                    key.data.readable()
            retry, self.retry = self.retry, []
            for c in retry:
                c.connect()
            if time.monotonic() - said > 0.2:
                self.say()
                said = time.monotonic()
        self.say()


def main(argv):
    modes = ("idle", "guess", "rotated", "own", "fresh")
    if len(argv) != 5 or argv[0] not in modes:
        sys.exit(__doc__)
    Crowd(argv[0], int(argv[1]), int(argv[2]), argv[3], argv[4]).run()


if __name__ == "__main__":
    main(sys.argv[1:])
