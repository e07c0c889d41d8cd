#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A signal that ends the run, as a shell sees it: the command cputrack
# started gets it exactly once, whether it was sent to cputrack alone or
# to the whole job (its process group, as Ctrl-C, systemd and kill -- -PGID
# send it), and cputrack then dies of it, so that its parent sees
# WIFSIGNALED (a shell loop around cputrack can be interrupted). SIGQUIT
# too, without a core. Run under both engines (tests/bpf).
load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
	PY=$(python3 -c "import sys; print(sys.executable)")
}

teardown() {
	ct_teardown
}

# A command that counts the signals it receives: it creates $1.ready once
# its handlers are in place, $1.got once one came, and writes the count of
# each to $1 once $1.handled is there: the test makes it when cputrack has
# said that the command has the signal, after any signal cputrack sends
# (which the command takes at its next system call, the look for the
# file). With $2, it ends after $2 seconds if no signal came.
COUNTER='
import os, signal, sys, time
out = sys.argv[1]
patience = float(sys.argv[2]) if len(sys.argv) > 2 else 3600
got = {}
def on(sig, frame):
    got[sig] = got.get(sig, 0) + 1
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
    signal.signal(s, on)
open(out + ".ready", "w").close()
start = time.monotonic()
while True:
    if got:
        if not os.path.exists(out + ".got"):
            open(out + ".got", "w").close()
        if os.path.exists(out + ".handled"):
            break
    elif time.monotonic() > start + patience:
        break
    time.sleep(0.02)
with open(out, "w") as f:
    f.write(" ".join("%s=%d" % (signal.Signals(s).name, n)
                     for s, n in sorted(got.items())) + "\n")
'

# run_and_signal SIG group|alone|late CPUTRACK-ARGS...: start cputrack (in
# a session of its own, default dispositions) on the counting command,
# send SIG to cputrack alone or to its process group once the command is
# ready, and print how cputrack ended: "signaled NAME core=0|1" or
# "exit N". late: to the group while cputrack is stopped, which goes on
# once the command has handled it (or after 2 s, if the engine holds it).
# The command's count is in $T/count.
run_and_signal() {
	local sig=$1 how=$2
	shift 2
	timeout -k 5 120 "$PY" - "$sig" "$how" "$T/count" "$T/err" "$CT" "$@" \
	    "$PY" -c "$COUNTER" "$T/count" 3>"$T/out" 2>"$T/err" <<'EOF'
import os, signal, subprocess, sys, time
sig = getattr(signal, "SIG" + sys.argv[1])
how, count, err, argv = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(argv, stdout=3, start_new_session=True, pass_fds=(3,))
for _ in range(1000):
    if os.path.exists(count + ".ready") or p.poll() is not None:
        break
    time.sleep(0.01)
if how == "late":
    os.kill(p.pid, signal.SIGSTOP)
    os.killpg(p.pid, sig)
    for _ in range(200):
        if os.path.exists(count + ".got"):
            break
        time.sleep(0.01)
    os.kill(p.pid, signal.SIGCONT)
elif how == "group":
    os.killpg(p.pid, sig)
else:
    os.kill(p.pid, sig)
# cputrack's word that the command has the signal, 60 s at most.
for _ in range(6000):
    with open(err) as f:
        if "waiting for the command to end" in f.read():
            break
    time.sleep(0.01)
open(count + ".handled", "w").close()
_, status = os.waitpid(p.pid, 0)
if os.WIFSIGNALED(status):
    print("signaled %s core=%d" % (signal.Signals(os.WTERMSIG(status)).name,
                                   1 if os.WCOREDUMP(status) else 0))
else:
    print("exit %d" % os.WEXITSTATUS(status))
EOF
}

@test "one signal to the job's process group reaches the command once; cputrack dies of it (INT, TERM, HUP)" {
	local sig result
	for sig in INT TERM HUP; do
		rm -f "$T/count" "$T/count".*
		result=$(run_and_signal $sig group -c "$WRITE")
		echo "SIG$sig: $result; the command counted: $(cat "$T/count" 2>/dev/null)"
		[ "$(cat "$T/count")" = "SIG$sig=1" ]
		[ "$result" = "signaled SIG$sig core=0" ]
		grep -qx "cputrack: SIG$sig: waiting for the command to end; a second signal kills it" "$T/err"
		# Tracked to its end.
		grep -q ' exit ' "$T/out"
	done
}

@test "one signal to the job, handled by the command before cputrack looks: the command gets it once" {
	local sig result
	for sig in INT TERM; do
		rm -f "$T/count" "$T/count".*
		result=$(run_and_signal $sig late -c "$WRITE")
		echo "SIG$sig: $result; the command counted: $(cat "$T/count" 2>/dev/null)"
		[ "$(cat "$T/count")" = "SIG$sig=1" ]
		[ "$result" = "signaled SIG$sig core=0" ]
		grep -qx "cputrack: SIG$sig: waiting for the command to end; a second signal kills it" "$T/err"
		grep -q ' exit ' "$T/out"
	done
}

@test "one signal to cputrack alone is passed on to the command once; cputrack dies of it" {
	local sig result
	for sig in INT TERM; do
		rm -f "$T/count" "$T/count".*
		result=$(run_and_signal $sig alone -c "$WRITE")
		echo "SIG$sig: $result; the command counted: $(cat "$T/count" 2>/dev/null)"
		[ "$(cat "$T/count")" = "SIG$sig=1" ]
		[ "$result" = "signaled SIG$sig core=0" ]
		grep -qx "cputrack: SIG$sig: waiting for the command to end; a second signal kills it" "$T/err"
		grep -q ' exit ' "$T/out"
	done
}

@test "SIGQUIT: the command gets it once, cputrack dies of it without a core" {
	local result
	result=$(run_and_signal QUIT group -c "$WRITE")
	echo "SIGQUIT: $result; the command counted: $(cat "$T/count" 2>/dev/null)"
	[ "$(cat "$T/count")" = "SIGQUIT=1" ]
	[ "$result" = "signaled SIGQUIT core=0" ]
	grep -qx "cputrack: SIGQUIT: waiting for the command to end; a second signal kills it" "$T/err"
	grep -q ' exit ' "$T/out"
}

@test "a bash loop around cputrack ends at the first SIGINT to the job" {
	local result
	# bash goes on with a loop when its foreground child exits after a
	# SIGINT, and ends it when the child dies of it.
	cat >"$T/loop" <<'EOF'
for i in $(seq 20); do
	"$@"
	echo "round $i over" >&2
done
EOF
	result=$(timeout -k 5 120 "$PY" - "$T" "$CT" "$WRITE" "$PY" \
	    "$COUNTER" 2>"$T/loop.err" <<'EOF'
import os, signal, subprocess, sys, time
t, ct, write, py, counter = sys.argv[1:]
signal.signal(signal.SIGINT, signal.SIG_DFL)
p = subprocess.Popen(["bash", t + "/loop", ct, "-c", write, py, "-c",
                      counter, t + "/count", "0.2"],
                     stdout=subprocess.DEVNULL, start_new_session=True)
for _ in range(1000):
    if os.path.exists(t + "/count.ready"):
        break
    time.sleep(0.01)
os.killpg(p.pid, signal.SIGINT)
# cputrack's word that the command has the signal, 60 s at most.
for _ in range(6000):
    with open(t + "/loop.err") as f:
        if "waiting for the command to end" in f.read():
            break
    time.sleep(0.01)
open(t + "/count.handled", "w").close()
_, status = os.waitpid(p.pid, 0)
print("signaled" if os.WIFSIGNALED(status) else "exit %d" % os.WEXITSTATUS(status))
EOF
)
	echo "the loop: $result; $(cat "$T/loop.err")"
	[ "$result" = signaled ]
	! grep -q 'round 2 over' "$T/loop.err"
}

# cputrack's pid, the child of the timeout(1) it runs under.
ct_child() {
	pgrep -P "$1" -x cputrack
}

has_rows() {
	grep -q ' tick ' "$T/out"
}

@test "SIGTSTP then SIGCONT to cputrack alone, close together: it goes on to the end, never stopped for good" {
	# Under timeout(1), cputrack's process group is not orphaned: a stop
	# signal stops it as it would stop a shell's job.
	timeout -k 5 60 "$CT" -T 0.1 -c "$WRITE" "$W/wl_paced" 100 3 \
	    >"$T/out" 2>"$T/err" &
	local bg=$! ct i status=0
	wait_for ct_child "$bg"
	ct=$(ct_child "$bg")
	wait_for has_rows
	for i in 1 2 3 4 5; do
		kill -TSTP "$ct"
		sleep 0.01 # not a wait: the stop is read before the continue comes, as from a slow sender; at most 5 passes
		kill -CONT "$ct"
	done
	wait "$bg" || status=$?
	cat "$T/err"
	[ "$status" -eq 0 ]
	[ "$(awk '$3 == "exit" { print $4 }' "$T/out")" = 300 ]
}
