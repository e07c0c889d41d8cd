# SPDX-License-Identifier: BSD-2-Clause
"""unit_argv.py UNIT [%I=INSTANCE] [VAR=VALUE]...: the argv of the unit's
ExecStart= as systemd runs it, one word a line: its Environment= lines,
with each VAR=VALUE set over them as "systemctl edit" would; ${VAR} is
one word, $VAR is split at blanks; %I is the instance's unescaped name."""
import re
import shlex
import sys

unit, settings = sys.argv[1], sys.argv[2:]
env, execstart, instance = {}, None, None
for line in open(unit):
    line = line.strip()
    if line.startswith("Environment="):
        for item in shlex.split(line[len("Environment="):]):
            key, value = item.split("=", 1)
            env[key] = value
    elif line.startswith("ExecStart="):
        execstart = line[len("ExecStart="):]
for setting in settings:
    key, value = setting.split("=", 1)
    if key == "%I":
        instance = value
    else:
        env[key] = value
argv = []
for word in execstart.split():
    if instance is not None:
        word = word.replace("%I", instance)
    m = re.fullmatch(r"\$([A-Z_]+)", word)
    if m:
        argv += env[m.group(1)].split()
    else:
        argv.append(re.sub(r"\$\{([A-Z_]+)\}", lambda g: env[g.group(1)], word))
print("\n".join(argv))
