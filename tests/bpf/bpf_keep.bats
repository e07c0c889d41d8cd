#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Programs kept loaded between runs of root's (bpfeng_keep.c): a run
# leaves its programs and maps pinned under /sys/fs/bpf/cpctools, in a
# directory named by a digest of the build, the kernel and the run's
# settings, and the next run of the same digest takes them and loads
# nothing. Each case runs cputrack with a BPF file system of its own at
# /sys/fs/bpf (a mount namespace of its own), so that what it keeps is
# its alone, and checks that every run counts exactly: a taken instance
# holds nothing of the run before.

load bpf_helper

setup() {
	bd_setup
	command -v unshare >/dev/null || skip "unshare is not installed"
	command -v bpftool >/dev/null || skip "bpftool is not installed"
	KEEPFS=$T/bpffs
	mkdir "$KEEPFS"
	mount -t bpf bpf "$KEEPFS" ||
		skip "a BPF file system cannot be mounted here"
	KEPT=$KEEPFS/cpctools
	# cputrack with that file system: for the helpers that run "$CT".
	cat >"$T/kept-cputrack" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c \\
    'mount --bind "\$1" /sys/fs/bpf && shift && exec "\$@"' \\
    sh "$KEEPFS" "$CPUTRACK" "\$@"
EOF
	chmod +x "$T/kept-cputrack"
}

teardown() {
	ct_teardown
	umount -l "$KEEPFS" 2>/dev/null || true
}

# own_bpffs COMMAND...: COMMAND with the test's BPF file system at
# /sys/fs/bpf, in a mount namespace of its own.
own_bpffs() {
	unshare -m --propagation private sh -c \
	    'mount --bind "$1" /sys/fs/bpf && shift && exec "$@"' \
	    sh "$KEEPFS" "$@"
}

# kept_run [cputrack args...]: cputrack --engine=bpf -D ARGS, under a
# timeout, with the test's BPF file system; $T/out, $T/err; sets status.
kept_run() {
	status=0
	own_bpffs timeout -k 5 120 "$CPUTRACK" --engine=bpf -D "$@" \
	    >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 0 ] || cat "$T/err"
}

# how [ERR]: how the run of $T/err (or ERR) had its programs.
how() {
	sed -n 's/^cputrack: the BPF engine counts: programs [^;]*; [0-9]* loaded, [0-9]* attached; \([^;]*\);.*/\1/p' \
	    "${1:-$T/err}"
}

# loaded [ERR]: the run loaded its programs itself.
loaded() {
	case "$(how "$@")" in
	"two threads loaded them" | "one thread loaded them") ;;
	*) echo "not loaded: '$(how "$@")'"; return 1 ;;
	esac
}

taken() {
	[ "$(how "$@")" = "kept loaded from an earlier run" ] ||
	    { echo "not taken: '$(how "$@")'"; return 1; }
}

# The instances kept, a name each.
instances() {
	find "$KEPT" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort
}

# exact [OUT]: wl_threads 2 5's rows: two threads of five writes each.
exact() {
	[ "$(awk '$(NF - 1) == "lwp_exit" { print $NF }' "${1:-$T/out}" |
	    sort | uniq -c | awk '{ print $1, $2 }')" = "2 5" ] ||
	    { cat "${1:-$T/out}"; return 1; }
}

@test "a run keeps its programs, root's alone, and the next of the same settings takes them and loads nothing: each counts exactly" {
	local first
	kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	loaded
	exact
	[ "$(instances | wc -l)" -eq 1 ]
	first=$(instances)
	[[ "$first" =~ ^[0-9a-f]{32}-0$ ]]
	[ "$(stat -c '%u %a' "$KEPT")" = "0 700" ]
	[ "$(stat -c '%u %a' "$KEPT/$first")" = "0 700" ]
	[ -e "$KEPT/$first/p-on_switch" ]
	[ -e "$KEPT/$first/m-records" ]
	# Nothing is left attached, and no counter is held: the kept
	# programs count nothing, and hold nothing of the run.
	[ -z "$(bpftool link show 2>/dev/null |
	    grep -wF "prog $(pin_id "$KEPT/$first/p-on_switch")")" ]
	[ "$(entries "$KEPT/$first/m-counters")" -eq 0 ] ||
	    { bpftool map dump pinned "$KEPT/$first/m-counters"; false; }

	kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	taken
	exact
	[ "$(instances)" = "$first" ]

	# Other settings (-f) are another digest: loaded, and kept beside.
	kept_run -f -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	loaded
	[ "$(instances | wc -l)" -eq 2 ]
}

# both_at_once: two runs of the same settings at once, each counting
# wl_threads 2 5 once its own FIFO lets it go, which happens only once
# both have started; their files $T/out.N, $T/err.N.
both_at_once() {
	local n pids=()
	for n in 1 2; do
		rm -f "$T/go.$n"
		mkfifo "$T/go.$n"
		own_bpffs timeout -k 5 120 "$CPUTRACK" --engine=bpf -D \
		    -c "$WRITE" sh -c 'read -r _ <"$1" && exec "$2" 2 5' \
		    sh "$T/go.$n" "$W/wl_threads" \
		    >"$T/out.$n" 2>"$T/err.$n" &
		pids+=("$!")
		ct_bg "$!"
	done
	for n in 1 2; do
		wait_while "${pids[n - 1]}" grep -q 'BPF engine counts' \
		    "$T/err.$n"
	done
	# A line written with no reader yet is lost when the writer closes:
	# each writer waits, in the background and bounded, for its command
	# to open the FIFO, so a run that ended without it cannot hang us.
	for n in 1 2; do
		timeout 120 sh -c 'echo >"$1"' sh "$T/go.$n" 3>&- &
	done
	for n in 1 2; do
		wait "${pids[n - 1]}"
	done
}

@test "two runs at once each take an instance of their own, and keep it again" {
	both_at_once
	loaded "$T/err.1"
	loaded "$T/err.2"
	exact "$T/out.1"
	exact "$T/out.2"
	[ "$(instances | sed 's/^[0-9a-f]*-//' | tr '\n' ' ')" = "0 1 " ]

	both_at_once
	taken "$T/err.1"
	taken "$T/err.2"
	exact "$T/out.1"
	exact "$T/out.2"
	[ "$(instances | wc -l)" -eq 2 ]
}

# pin_id PIN: the id of the program or map pinned at PIN.
pin_id() {
	{ bpftool prog show pinned "$1" 2>/dev/null ||
	    bpftool map show pinned "$1"; } | sed -n '1s/^\([0-9]*\):.*/\1/p'
}

# value_size PIN: the value size of the map pinned at PIN.
value_size() {
	bpftool map show pinned "$1" | sed -n 's/.* value \([0-9]*\)B.*/\1/p'
}

@test "an instance that is not what the run would load is never taken: a map of another shape, other read-only data, another program; it goes" {
	local first tamper size
	for tamper in shape rodata program; do
		rm -rf "$KEPT"
		kept_run -c "$WRITE" "$W/wl_threads" 2 5
		[ "$status" -eq 0 ]
		first=$KEPT/$(instances)
		case $tamper in
		shape)
			rm "$first/m-threads"
			bpftool map create "$first/m-threads" type hash \
			    key 4 value 8 entries 16 name threads
			;;
		rodata)
			size=$(value_size "$first/m-bpfeng_b_rodata")
			[ -n "$size" ]
			rm "$first/m-bpfeng_b_rodata"
			bpftool map create "$first/m-bpfeng_b_rodata" \
			    type array key 4 value "$size" entries 1 \
			    name bpfeng_b.rodata flags 0x480
			;;
		program)
			rm "$first/p-on_switch"
			bpftool prog pin id "$(pin_id "$first/p-on_exit")" \
			    "$first/p-on_switch"
			;;
		esac
		kept_run -c "$WRITE" "$W/wl_threads" 2 5
		[ "$status" -eq 0 ]
		loaded || { echo "tampered: $tamper"; false; }
		exact
		# The tampered one went; the run's own took its place.
		[ "$(instances | wc -l)" -eq 1 ]
		[ "$(value_size "$first/m-threads")" != 8 ]
		[ "$(bpftool prog show pinned "$first/p-on_switch" |
		    sed -n 's/.* name \([a-z_]*\) .*/\1/p')" = on_switch ]
		kept_run -c "$WRITE" "$W/wl_threads" 2 5
		[ "$status" -eq 0 ]
		taken
		exact
	done
}

@test "none is kept or taken with CPCTOOLS_KEEP_PROGRAMS=0, or where the directory is not root's alone" {
	CPCTOOLS_KEEP_PROGRAMS=0 kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	loaded
	exact
	[ ! -e "$KEPT" ]

	kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	CPCTOOLS_KEEP_PROGRAMS=0 kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	loaded
	exact
	[ "$(instances | wc -l)" -eq 1 ]

	local owner
	for owner in nobody:0700 root:0755; do
		rm -rf "$KEPT"
		mkdir "$KEPT"
		chown "${owner%:*}" "$KEPT"
		chmod "${owner#*:}" "$KEPT"
		kept_run -c "$WRITE" "$W/wl_threads" 2 5
		[ "$status" -eq 0 ]
		kept_run -c "$WRITE" "$W/wl_threads" 2 5
		[ "$status" -eq 0 ]
		loaded || { echo "directory $owner"; false; }
		exact
		[ -z "$(instances)" ] || { echo "directory $owner"; false; }
	done
}

@test "a user who is not root, with CAP_BPF and CAP_PERFMON, neither keeps nor takes" {
	command -v setcap >/dev/null || skip "setcap is not installed"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	CAPDIR=$(mktemp -d /tmp/cputrack-keep.XXXXXX)
	chmod 0755 "$CAPDIR"
	cp "$CPUTRACK" "$W/wl_threads" "$CAPDIR/"
	chmod 0755 "$CAPDIR"/*
	setcap cap_bpf,cap_perfmon+ep "$CAPDIR/cputrack" 2>/dev/null ||
		{ rm -rf "$CAPDIR"; skip "file capabilities cannot be set here"; }
	kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	local n
	for n in 1 2; do
		status=0
		# (No tracepoint: this user may not read tracefs.)
		own_bpffs setpriv --reuid=nobody --regid=nogroup --clear-groups \
		    timeout -k 5 120 "$CAPDIR/cputrack" --engine=bpf -D \
		    -c task-clock "$CAPDIR/wl_threads" 2 5 \
		    >"$T/out" 2>"$T/err" || status=$?
		[ "$status" -eq 0 ] || { cat "$T/err"; rm -rf "$CAPDIR"; false; }
		loaded || { rm -rf "$CAPDIR"; false; }
		[ "$(awk '$(NF - 1) == "lwp_exit"' "$T/out" | wc -l)" -eq 2 ] ||
		    { cat "$T/out"; rm -rf "$CAPDIR"; false; }
	done
	rm -rf "$CAPDIR"
	# Root's instance is where it was, untaken.
	[ "$(instances | wc -l)" -eq 1 ]
}

# The events themselves are the counters', not the programs': sets of
# different sizes, or -f, make other digests.
SETTINGS=(task-clock task-clock,page-faults
	task-clock,page-faults,context-switches
	task-clock,page-faults,context-switches,cpu-migrations "-f -c task-clock")

# settings N: cputrack's options for SETTINGS[N].
settings() {
	case ${SETTINGS[$1]} in
	-*) echo "${SETTINGS[$1]}" ;;
	*) echo "-c ${SETTINGS[$1]}" ;;
	esac
}

@test "at most four are kept, the one used longest ago going first; what runs that died left goes" {
	mkdir -m 0700 "$KEPT"
	mkdir "$KEPT/taken-2147483646" "$KEPT/made-2147483646"
	local n
	for n in 0 1 2 3 4; do
		# shellcheck disable=SC2046 # the options, a word each
		kept_run $(settings "$n") true
		[ "$status" -eq 0 ]
		loaded || { echo "${SETTINGS[n]}"; false; }
	done
	[ "$(instances | wc -l)" -eq 4 ]
	[ -z "$(instances | grep -E '^(taken|made)-')" ]
	# Another event, the same digest.
	kept_run -f -c page-faults true
	[ "$status" -eq 0 ]
	taken
	# shellcheck disable=SC2046 # the options, a word each
	kept_run $(settings 1) true
	[ "$status" -eq 0 ]
	taken
	# shellcheck disable=SC2046 # the options, a word each
	kept_run $(settings 0) true
	[ "$status" -eq 0 ]
	loaded
}

# entries PIN: the entries of the hash map pinned at PIN.
entries() {
	bpftool map dump pinned "$1" |
	    sed -n 's/^Found \([0-9]*\) elements*$/\1/p'
}

# bytes N HEX: N bytes of value HEX, as bpftool takes them.
bytes() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf '%s ' "$2"
	done
}

@test "what an instance holds is emptied when a run takes it: threads and processes of another run, global data; the run counts exactly" {
	local first
	kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	first=$KEPT/$(instances)
	# A thread and a process no run of this test tracks (init), and
	# every global of the programs (the set in use among them) all ones.
	bpftool map update pinned "$first/m-threads" key 1 0 0 0 \
	    value $(bytes "$(value_size "$first/m-threads")" 0)
	bpftool map update pinned "$first/m-procs" key 1 0 0 0 \
	    value $(bytes "$(value_size "$first/m-procs")" 0)
	bpftool map update pinned "$first/m-bpfeng_b_bss" key 0 0 0 0 \
	    value $(bytes "$(value_size "$first/m-bpfeng_b_bss")" 0xff)
	[ "$(entries "$first/m-threads")" -eq 1 ]

	kept_run -c "$WRITE" "$W/wl_threads" 2 5
	[ "$status" -eq 0 ]
	taken
	exact
	[ -z "$(grep -v '^cputrack: \(the BPF engine counts\|start\):' "$T/err")" ] ||
	    { cat "$T/err"; false; }
	[ "$(entries "$first/m-threads")" -eq 0 ]
	[ "$(entries "$first/m-procs")" -eq 0 ]
}
