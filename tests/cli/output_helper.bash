# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# Shared set-up for the output_*.bats tests: the formats, the queue, the
# metrics, the recipes.
load cputrack_helper

# Debian's Python, whose modules (pandas, prometheus_client) scripts/deps
# installs.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

out_setup() {
	ct_setup
	CS=$CPUSTAT
	# The cgroup label of the processes the tests start (in this shell's
	# cgroup), as an ERE with its comma; none outside cgroup v2.
	CGRE=$(sed -n 's/^0:://p' "/proc/$$/cgroup" |
	    sed 's/[][\\.*^$+?(){}|]/\\&/g')
	[ -z "$CGRE" ] || CGRE="cgroup=\"$CGRE\","
}

out_teardown() {
	ct_teardown
}

# need_py MODULE: skip, with the reason, where Python lacks the module.
need_py() {
	"$PY" -c "import $1" 2>/dev/null ||
		skip "Python module $1 is missing (scripts/deps installs it)"
}

# cs_run [cpustat args...]: cpustat under a timeout, once no cpustat
# elsewhere holds the CPUs, and again if one took them first. Sets status,
# output (the rows, $T/out) and stderr ($T/err).
cs_run() {
	for _ in 1 2 3 4 5 6 7 8; do
		status=0
		timeout -k 5 120 "$CS" "$@" >"$T/out" 2>"$T/err" || status=$?
		grep -qE 'Resource temporarily unavailable|went offline' "$T/err" ||
			break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 8 tries
	done
	output=$(cat "$T/out")
	stderr=$(cat "$T/err")
}

# A TCP port on the loopback that nothing listens on now.
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# http_get URL [ACCEPT]: the body; the status line and headers go to
# $T/headers.
http_get() {
	curl -sS -D "$T/headers" ${2:+-H "Accept: $2"} "$1"
}

# The Accept header Prometheus sends when it scrapes.
PROMETHEUS_ACCEPT='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

# need_listener: skip, with the reason, where curl or this build's HTTP
# server (libmicrohttpd) is missing.
need_listener() {
	command -v curl >/dev/null || skip "curl is not installed"
	if "$CS" --listen=127.0.0.1:1 --version 2>&1 | grep -q 'no HTTP server'; then
		skip "this build has no HTTP server (libmicrohttpd)"
	fi
}

# lingering PORT: the landing page of the listener on 127.0.0.1:PORT
# says the run has ended (its counts are final, --linger), which a
# scrape of / does not take.
lingering() {
	curl -sf "http://127.0.0.1:$1/" | grep -q 'The run has ended'
}

# om_check FILE: a strict OpenMetrics parser takes FILE whole, and each
# counter's sample has its _created with the same labels, a time since
# the epoch that has passed.
om_check() {
	need_py prometheus_client
	"$PY" - "$1" <<'PYEOF'
import sys, time
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open(sys.argv[1], encoding="utf-8").read()
assert text.endswith("# EOF\n"), text[-40:]
fams = list(text_string_to_metric_families(text))
assert fams, "no metric families"
labels = lambda s: tuple(sorted(s.labels.items()))
for f in fams:
    if f.type != "counter":
        continue
    totals = {labels(s) for s in f.samples if s.name == f.name + "_total"}
    created = {labels(s): s.value for s in f.samples
               if s.name == f.name + "_created"}
    assert totals == set(created), (f.name, totals ^ set(created))
    assert all(1e9 < v <= time.time() for v in created.values()), (f.name, created)
PYEOF
}

# promtool_check FILE: promtool check metrics accepts FILE.
promtool_check() {
	command -v promtool >/dev/null ||
		skip "promtool is missing (Debian's prometheus package; the fleet test installs it)"
	promtool check metrics <"$1"
}

# prometheus_check FILE: FILE is the Prometheus text format: promtool
# check metrics takes it where promtool is installed, and Python's
# prometheus_client parser otherwise.
prometheus_check() {
	if command -v promtool >/dev/null; then
		promtool check metrics <"$1"
		return
	fi
	need_py prometheus_client
	"$PY" -c 'import sys
from prometheus_client.parser import text_string_to_metric_families
assert list(text_string_to_metric_families(open(sys.argv[1]).read()))' "$1"
}

# every_cpu_counted FILE: FILE (cpustat's metrics) has counts of every CPU
# it measures: stopping it then leaves no CPU out of its totals.
every_cpu_counted() {
	"$PY" - "$1" <<'EOF'
import os, re, sys
cpus = {int(c) for c in re.findall(r'^cpustat_running_seconds_total\{cpu="(\d+)"',
                                   open(sys.argv[1]).read(), re.M)}
sys.exit(0 if cpus >= os.sched_getaffinity(0) else 1)
EOF
}

# A copy of cpustat that nobody can run, and run it so.
as_nobody_cpustat() {
	local d
	d=$(mktemp -d)
	chmod 755 "$d"
	cp "$CS" "$d/cpustat"
	chmod 755 "$d/cpustat"
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup \
	    --clear-groups "$d/cpustat" "$@"
	rm -rf "$d"
}

# bcrypt_hash PASSWORD COST: a bcrypt hash made by libcrypt, as
# htpasswd -B makes them.
bcrypt_hash() {
	"$PY" - "$1" "$2" <<'PYEOF'
import ctypes, sys
lib = ctypes.CDLL("libcrypt.so.1")
lib.crypt_gensalt.restype = lib.crypt.restype = ctypes.c_char_p
salt = lib.crypt_gensalt(b"$2b$", int(sys.argv[2]), None, 0)
print(lib.crypt(sys.argv[1].encode(), salt).decode())
PYEOF
}
