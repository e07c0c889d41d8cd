#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# unit_sandbox.bash UID TRACE COMMAND [ARG...]: run COMMAND as the exporter
# unit (dist/cpctools-cpustat-exporter.service.in) has systemd run it, as
# nearly as a machine without systemd as PID 1 can. Run it as root in new
# mount, IPC and UTS namespaces (unshare --mount --ipc --uts --propagation
# private), which give PrivateMounts=, PrivateIPC= and ProtectHostname=;
# here it makes the unit's file system view, then runs COMMAND as UID
# with the unit's capabilities and no_new_privs, under strace -f -o TRACE
# unless TRACE is "-". What this cannot make (the seccomp filter, the
# address families, IPAddressDeny=), the trace lets the caller check
# against the unit. Notes on anything left out go to descriptor 7.
set -eu
uid=$1 trace=$2
shift 2
note() { echo "unit_sandbox: $*" >&7; }
# The command's install tree (the parent of its directory, which holds the
# HTTP module it loads too), kept through the private /tmp and homes.
dir=$(dirname "$(dirname "$1")")
exec 9<"$dir"

# PrivateDevices=: a /dev of its own with the pseudo-devices only (the
# counters need no device), staged in a tmpfs on /tmp.
mount -t tmpfs -o mode=755 tmpfs /tmp
mkdir /tmp/dev
mount -t tmpfs -o mode=755,nosuid,noexec tmpfs /tmp/dev
for n in null zero full random urandom tty; do
	touch "/tmp/dev/$n"
	mount --bind "/dev/$n" "/tmp/dev/$n"
done
mkdir /tmp/dev/shm /tmp/dev/pts
mount --move /tmp/dev /dev
umount /tmp

# ProtectProc=invisible: a /proc of its own that hides other users'
# processes.
mount -t proc -o hidepid=invisible proc /proc

# ProtectSystem=strict, ProtectKernelTunables=, ProtectControlGroups=:
# every mount read-only, /proc/sys and the like among them (a bind mount
# of each, so that the host's mounts are left as they are); the new /dev
# and /proc stay as systemd leaves them.
for m in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus /proc/fs; do
	[ ! -e "$m" ] || mount --bind "$m" "$m"
done
findmnt -rn -o TARGET,OPTIONS | while read -r m opts; do
	m=$(printf '%b' "$m")
	case $m in
	/dev | /dev/* | /proc) continue ;;
	esac
	case ,$opts, in
	*,ro,*) continue ;;
	esac
	mount -o remount,bind,ro "$m" || note "$m stays writable"
done

# PrivateTmp=: an empty /tmp and /var/tmp. ProtectHome=: no homes.
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /var/tmp
for m in /home /root /run/user; do
	[ ! -d "$m" ] || mount -t tmpfs -o mode=755 tmpfs "$m"
done
# The command's tree where it was, if that was in one of them (systemd
# runs the installed one, under /usr).
if [ ! -x "$1" ]; then
	mkdir -p "$dir"
	mount --no-canonicalize --bind /proc/self/fd/9 "$dir"
fi
exec 9<&-
for m in /home /root /run/user; do
	[ ! -d "$m" ] || mount -o remount,bind,ro "$m"
done

# LimitNOFILE=65536 (or the most this machine allows), UMask=0077.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
umask 077

# DynamicUser= (a user and group of its own, no other groups),
# AmbientCapabilities=CAP_PERFMON, CapabilityBoundingSet=CAP_PERFMON,
# NoNewPrivileges=yes.
set -- setpriv --reuid="$uid" --regid="$uid" --clear-groups \
    --inh-caps=-all,+perfmon --ambient-caps=-all,+perfmon \
    --bounding-set=-all,+perfmon --no-new-privs -- "$@"
if [ "$trace" != - ]; then
	# (LeakSanitizer cannot run under ptrace: a sanitizer build's leak
	# check is left to the tests that do not trace it.)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    exec strace -f -qq -o "$trace" "$@"
fi
exec "$@"
