# SPDX-License-Identifier: BSD-2-Clause
#
# unit_syscalls.py TRACE UNIT COMMAND: what COMMAND did, in TRACE (strace
# -f of its run, unit_sandbox.bash), is allowed by what UNIT's seccomp
# settings let it do: every system call it made after its execve is in
# UNIT's SystemCallFilter= (the sets expanded by systemd-analyze
# syscall-filter, the ~ lines taken out), its sockets are of
# RestrictAddressFamilies=, and it made no memory writable and executable
# (MemoryDenyWriteExecute=), changed no personality (LockPersonality=) and
# asked for no realtime scheduling (RestrictRealtime=). Exit 0, or 1 with
# what was not.
import re
import subprocess
import sys

trace, unit, command = sys.argv[1:4]


def expand(name):
    out = subprocess.run(["systemd-analyze", "syscall-filter", name],
                         capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines()[1:]:
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        names |= expand(word) if word.startswith("@") else {word}
    return names


allow, deny, families = set(), set(), set()
for line in open(unit):
    line = line.strip()
    if line.startswith("RestrictAddressFamilies="):
        families |= set(line.split("=", 1)[1].split())
    if not line.startswith("SystemCallFilter="):
        continue
    value = line.split("=", 1)[1]
    into = allow
    if value.startswith("~"):
        into, value = deny, value[1:]
    for word in value.split():
        into |= expand(word) if word.startswith("@") else {word}
allowed = allow - deny
assert allow and families, "the unit has no SystemCallFilter= or RestrictAddressFamilies="

made, started, wrong = set(), False, []
for line in open(trace):
    m = re.match(r'^\d+\s+(?:<\.\.\. )?([a-z0-9_]+)(?:\(| resumed>)', line)
    if not m:
        continue
    name = m.group(1)
    if not started:
        started = ('execve("%s",' % command) in line and line.rstrip().endswith("= 0")
        continue
    made.add(name)
    if name in ("mmap", "mprotect", "pkey_mprotect") and \
            "PROT_WRITE" in line and "PROT_EXEC" in line:
        wrong.append("writable and executable memory: " + line.strip())
    m = re.match(r'^\d+\s+socket\((AF_[A-Z0-9]+),', line)
    if m and m.group(1) not in families:
        wrong.append("a socket of a family the unit does not allow: " + line.strip())
    if name == "personality":
        wrong.append("a change of personality: " + line.strip())
    if name in ("sched_setscheduler", "sched_setattr") and \
            re.search(r'SCHED_(FIFO|RR|DEADLINE)', line):
        wrong.append("realtime scheduling: " + line.strip())
if not started:
    sys.exit("%s never ran in %s" % (command, trace))
outside = sorted(made - allowed)
if outside:
    wrong.append("outside SystemCallFilter=: " + " ".join(outside))
print("%d system calls: %s" % (len(made), " ".join(sorted(made))))
for w in wrong:
    print(w)
sys.exit(1 if wrong else 0)
