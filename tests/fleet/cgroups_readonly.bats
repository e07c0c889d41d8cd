#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Nothing of the host's cgroups writable from the node daemon's
# container. The container's mounts are made as the DaemonSet asks for
# them, in a private mount namespace of this machine (its own layout:
# cgroup v2 alone, or v1 controllers on a tmpfs beside
# /sys/fs/cgroup/unified): the hierarchy read-only through, every
# submount included (readOnly with recursiveReadOnly), read-only at the
# top alone (readOnly without it, as clusters before Kubernetes 1.30 give
# it), and the unified hierarchy alone (the cgroup-unified component).
# cputrack --for-each-cgroup=/,readonly, the DaemonSet's argument, starts
# only where nothing is writable, and says which mount is otherwise;
# where it starts, writing a controller file, making a cgroup and moving
# a task each fail, as root, though each succeeds outside.

bats_require_minimum_version 1.5.0

load fleet_helper

# ro_run SETUP CMD...: CMD in a private mount namespace after SETUP, a
# shell text that makes its mounts.
ro_run() {
	local setup=$1
	shift
	unshare -m --propagation private sh -c "$setup"' && exec "$@"' sh "$@"
}

# Every mount at or below /sys/fs/cgroup read-only, top first.
ALL_RO='for m in $(awk '\''$5 ~ "^/sys/fs/cgroup(/|$)" { print $5 }'\'' /proc/self/mountinfo); do mount -o remount,bind,ro "$m" || exit 1; done'
# The top alone.
TOP_RO='mount -o remount,bind,ro /sys/fs/cgroup'

setup_file() {
	export D=$BATS_FILE_TMPDIR CGM CG V1
	[ "$(id -u)" -eq 0 ] ||
	    { echo "mount namespaces and cgroups need root here" >"$D/skip"; return 0; }
	command -v unshare >/dev/null ||
	    { echo "unshare (util-linux) is not installed" >"$D/skip"; return 0; }
	CGM=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	[ -n "$CGM" ] ||
	    { echo "no cgroup v2 hierarchy is mounted here" >"$D/skip"; return 0; }
	CG=$CGM/cpctools-ro-$$
	mkdir "$CG" ||
	    { echo "cannot make a cgroup under $CGM" >"$D/skip"; return 0; }
	# A v1 controller's hierarchy, where this machine has one.
	V1=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup" && $5 ~ /^\/sys\/fs\/cgroup\//) print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	if [ -n "$V1" ]; then
		V1=$V1/cpctools-ro-$$
		mkdir "$V1" || V1=
	fi
}

teardown_file() {
	[ -z "${CG:-}" ] || rmdir "$CG/child" "$CG" 2>/dev/null || true
	[ -z "${V1:-}" ] || rmdir "$V1" 2>/dev/null || true
}

setup() {
	[ -x "${CPUTRACK:-}" ] || fail "CPUTRACK must name the cputrack binary (ctest sets it)"
	[ ! -s "$D/skip" ] || skip "$(cat "$D/skip")"
}

# changes: write a v2 file and, where there is one, a v1 controller's;
# make a cgroup; move this shell's child there. Each that succeeds says
# so on standard output (and is undone); one line "no change" else.
# shellcheck disable=SC2016 # run by ro_run's shell, which expands it
CHANGES='
	n=0
	if { echo 5 >"$CG/cgroup.max.descendants"; } 2>/dev/null; then
		echo "wrote $CG/cgroup.max.descendants"; n=1
	fi
	if [ -n "$V1" ] && { echo 0 >"$V1/cgroup.clone_children"; } 2>/dev/null; then
		echo "wrote $V1/cgroup.clone_children"; n=1
	fi
	if mkdir "$CG/child" 2>/dev/null; then
		echo "made $CG/child"; rmdir "$CG/child"; n=1
	fi
	sleep 30 & p=$!  # not a wait: a task to move
	if { echo "$p" >"$CG/cgroup.procs"; } 2>/dev/null; then
		echo "moved $p into $CG"; n=1
	fi
	kill "$p"
	[ "$n" = 1 ] || echo "no change"
'

@test "outside the container's mounts, root changes the cgroups: the checks below can fail" {
	run ro_run true sh -c "$CHANGES"
	[ "$status" -eq 0 ]
	[[ $output == *"wrote $CG/cgroup.max.descendants"* ]] || fail "$output"
	[[ $output == *"made $CG/child"* ]] || fail "$output"
	[[ $output == *"into $CG"* ]] || fail "$output"
	[ -z "$V1" ] || [[ $output == *"wrote $V1/cgroup.clone_children"* ]] ||
	    fail "$output"
}

@test "readonly refuses a run where a cgroup mount is writable, in one line naming it; without readonly, root counts as before" {
	grep -qE ' /sys/fs/cgroup(/[^ ]*)? rw' /proc/self/mountinfo ||
	    skip "this machine's cgroup mounts are all read-only already"
	run -2 "$CPUTRACK" --for-each-cgroup=/,readonly -T 0.2 -N 1 -c task-clock
	[ "${#lines[@]}" -eq 1 ] || fail "$output"
	[[ ${lines[0]} =~ ^cputrack:\ --for-each-cgroup:\ readonly:\ /sys/fs/cgroup[^\ ]*\ \(cgroup2?\)\ is\ mounted\ read-write:\ a\ cgroup\ could\ be\ changed\ from\ here$ ]] ||
	    fail "${lines[0]}"
	run -0 "$CPUTRACK" --for-each-cgroup=/ -T 0.2 -N 1 -c task-clock
	[[ $output == *" cgroup "* ]] || fail "$output"
}

@test "read-only through (readOnly and recursiveReadOnly): the daemon counts, and no controller file, cgroup or task can be changed" {
	run -0 ro_run "$ALL_RO" "$CPUTRACK" --for-each-cgroup=/,readonly \
	    -T 0.2 -N 1 -c task-clock
	[[ $output == *" cgroup "* ]] || fail "$output"
	run -0 ro_run "$ALL_RO" sh -c "$CHANGES"
	[ "$output" = "no change" ] || fail "$output"
}

@test "read-only at the top alone (readOnly without recursiveReadOnly), on a hybrid layout: refused, naming a writable submount" {
	[ -n "$V1" ] ||
	    skip "no cgroup v1 hierarchy below /sys/fs/cgroup here (a hybrid layout has them)"
	run -2 ro_run "$TOP_RO" "$CPUTRACK" --for-each-cgroup=/,readonly \
	    -T 0.2 -N 1 -c task-clock
	[ "${#lines[@]}" -eq 1 ] || fail "$output"
	[[ ${lines[0]} =~ ^cputrack:\ --for-each-cgroup:\ readonly:\ /sys/fs/cgroup/[^\ ]+\ \(cgroup2?\)\ is\ mounted\ read-write ]] ||
	    fail "${lines[0]}"
	# What the refusal keeps from happening.
	run -0 ro_run "$TOP_RO" sh -c "$CHANGES"
	[ "$output" != "no change" ] || fail "nothing was writable"
}

@test "the unified hierarchy alone (the cgroup-unified component), on a hybrid layout: the daemon counts, and nothing can be changed" {
	[ "$CGM" = /sys/fs/cgroup/unified ] ||
	    skip "the unified hierarchy is not on /sys/fs/cgroup/unified here (a hybrid layout has it there)"
	# The host's unified hierarchy, read-only, on an empty read-only
	# tmpfs: the container's /sys/fs/cgroup holds nothing else (the
	# host's mounts there taken away, not hidden under it).
	local setup='mkdir -p /run/cpctools-ro-'$$' &&
	    mount --bind /sys/fs/cgroup/unified /run/cpctools-ro-'$$' &&
	    umount -l -R /sys/fs/cgroup &&
	    mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup &&
	    mkdir /sys/fs/cgroup/unified &&
	    mount --move /run/cpctools-ro-'$$' /sys/fs/cgroup/unified &&
	    mount -o remount,bind,ro /sys/fs/cgroup/unified &&
	    mount -o remount,bind,ro /sys/fs/cgroup'
	run -0 ro_run "$setup" "$CPUTRACK" --for-each-cgroup=/,readonly \
	    -T 0.2 -N 1 -c task-clock
	[[ $output == *" cgroup "* ]] || fail "$output"
	# The v1 file is not even there to be tried: V1 is not mounted.
	run -0 ro_run "$setup" sh -c "$CHANGES"
	[ "$output" = "no change" ] || fail "$output"
	rmdir "/run/cpctools-ro-$$" 2>/dev/null || true
}
