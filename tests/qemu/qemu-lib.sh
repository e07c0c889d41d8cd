# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# The host's half of the suites that boot a Debian kernel under QEMU
# (tests/hw: arm64 with an emulated PMU; tests/kernels: x86-64 kernels
# under TCG), sourced by their bash scripts:
#
#   ql_init NAME WORKDIR         messages are "NAME: ...", files in WORKDIR
#   ql_host_tools CHECK PKGS...  run CHECK (a shell function); if it fails,
#                                install PKGS with apt (root), or skip
#   ql_apt ARCH SUITE...         a private apt state for ARCH in WORKDIR,
#                                with Debian's SUITEs; sets APT_OPTS
#   ql_fetch PKG...              download what is not in $DEBS yet
#   ql_deb PKG                   the newest downloaded .deb of PKG
#   ql_kernel_pkg ARCH PREFIX    the linux-image package that
#                                linux-image-ARCH depends on in its newest
#                                version beginning with PREFIX (6.1.)
#   ql_copy_bin ROOT DIR FILE... FILEs into ROOT/DIR, and the shared
#                                libraries they load (ldd) into ROOT
#   ql_pack ROOT OUT             ROOT as a gzipped cpio (an initramfs)
#   ql_report TAG LOG...         the PASS/FAIL/SKIP lines of guest logs and
#                                their "TAG-DONE" lines; 1 if any failed
#
# Nothing on the host's package setup changes: the packages a guest needs
# are fetched with apt-get download through the private state and unpacked
# with dpkg -x. The mirror is deb.debian.org, or CPCTOOLS_DEBIAN_MIRROR.
# Exit status 77 (CTest's skip) says, with the reason, that the tools or
# packages cannot be had (no apt, no network, not root).

ql_init() {	# NAME WORKDIR
	QL_NAME=$1
	mkdir -p "$2"
	WORK=$(cd "$2" && pwd)
	DEBS=$WORK/debs
	mkdir -p "$DEBS"
	QL_START=$SECONDS
}

say() { echo "$QL_NAME: [$((SECONDS - QL_START))s] $*"; }
# The reason stays in QL_SKIPPED, for an EXIT trap.
# shellcheck disable=SC2034 # read by the sourcing script's trap
skip() { QL_SKIPPED="$*"; echo "$QL_NAME: SKIP: $*"; exit 77; }
die() { echo "$QL_NAME: FAIL: $*"; exit 1; }

ql_host_tools() {	# CHECK PKG...
	local check=$1
	shift
	"$check" && return 0
	command -v apt-get >/dev/null ||
	    skip "$* missing, and there is no apt-get"
	[ "$(id -u)" = 0 ] ||
	    skip "$* missing; run as root to install them (apt-get install $*)"
	say "installing host packages: $*"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=900 update -qq \
	    >"$WORK/apt-host.log" 2>&1 ||
	    skip "apt-get update failed (no network?): $(tail -1 "$WORK/apt-host.log")"
	apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
	    --no-install-recommends "$@" >>"$WORK/apt-host.log" 2>&1 ||
	    skip "apt-get install failed: $(tail -1 "$WORK/apt-host.log")"
	"$check" || die "host packages installed, but the tools are still missing"
}

# The security suite of a release lives beside the others, under
# debian-security.
ql_apt() {	# ARCH SUITE...
	local arch=$1 mirror=${CPCTOOLS_DEBIAN_MIRROR:-http://deb.debian.org} s
	shift
	QL_APT=$WORK/apt-$arch
	mkdir -p "$QL_APT/lists/partial" "$QL_APT/cache/archives/partial"
	[ -e "$QL_APT/status" ] || : >"$QL_APT/status"
	for s in "$@"; do
		case $s in
		*-security) echo "deb $mirror/debian-security $s main" ;;
		*) echo "deb $mirror/debian $s main" ;;
		esac
	done >"$QL_APT/sources.list.new"
	# Other suites: the lists must be made again.
	if ! cmp -s "$QL_APT/sources.list.new" "$QL_APT/sources.list"; then
		mv "$QL_APT/sources.list.new" "$QL_APT/sources.list"
		rm -f "$QL_APT/updated"
	fi
	rm -f "$QL_APT/sources.list.new"
	# The package cache is named, or apt-cache, which takes no lock,
	# would read every list again at each call.
	APT_OPTS=(-o Dir::State::Lists="$QL_APT/lists"
		-o Dir::Cache="$QL_APT/cache"
		-o Dir::Cache::pkgcache="$QL_APT/cache/pkgcache.bin"
		-o Dir::Cache::srcpkgcache=
		-o Dir::State::status="$QL_APT/status"
		-o Dir::Etc::SourceList="$QL_APT/sources.list"
		-o Dir::Etc::SourceParts=/nonexistent
		-o Debug::NoLocking=1
		-o APT::Architecture="$arch" -o APT::Architectures::="$arch"
		-o APT::Sandbox::User=root)
}

# The lists, made again when they are a day old (or when asked: a
# download that failed may want a newer version).
ql_apt_update() {	# [force]
	command -v apt-get >/dev/null || return 1
	if [ -z "${1:-}" ] && [ -e "$QL_APT/updated" ] &&
	    [ -z "$(find "$QL_APT/updated" -mmin +1440)" ]; then
		return 0
	fi
	apt-get "${APT_OPTS[@]}" update -qq >"$QL_APT/update.log" 2>&1 &&
	    apt-cache "${APT_OPTS[@]}" gencaches >>"$QL_APT/update.log" 2>&1 ||
		return 1
	touch "$QL_APT/updated"
}

ql_fetch() {	# PKG...
	local p v need='' force versions
	# The second try updates the lists again, even if fresh.
	for force in '' force; do
		ql_apt_update ${force:+"$force"} || return 1
		need=
		# Every candidate version in one call: apt-cache reads its
		# cache once, not once a package.
		versions=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "$@" \
		    2>/dev/null | awk '$1 == "Package:" { p = $2 }
			$1 == "Version:" { print p, $2 }')
		for p in "$@"; do
			v=$(echo "$versions" | awk -v p="$p" '$1 == p { print $2; exit }')
			[ -n "$v" ] || continue 2
			# Debs keep their versioned names; an epoch is "%3a".
			ls "$DEBS/${p}_${v/:/%3a}_"*.deb >/dev/null 2>&1 ||
			    need="$need $p"
		done
		[ -z "$need" ] && return 0
		# shellcheck disable=SC2086
		(cd "$DEBS" && apt-get "${APT_OPTS[@]}" download $need) \
		    >>"$QL_APT/update.log" 2>&1 && return 0
	done
	return 1
}

ql_deb() {	# PKG
	ls -t "$DEBS/${1}_"*.deb 2>/dev/null | head -1
}

ql_kernel_pkg() {	# ARCH PREFIX
	local v
	v=$(apt-cache "${APT_OPTS[@]}" show "linux-image-$1" 2>/dev/null |
	    awk -v p="$2" '$1 == "Version:" && index($2, p) == 1 { print $2 }' |
	    sort -V | tail -1)
	[ -n "$v" ] || return 1
	apt-cache "${APT_OPTS[@]}" depends "linux-image-$1=$v" 2>/dev/null |
	    awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'
}

# A kernel image out of its package (not its modules): the path.
ql_kernel_image() {	# DEB DIR
	mkdir -p "$2"
	dpkg-deb --fsys-tarfile "$1" |
	    tar -x -C "$2" --wildcards './boot/vmlinuz-*' || return 1
	ls "$2"/boot/vmlinuz-* | head -1
}

ql_copy_bin() {	# ROOT DIR FILE...
	local root=$1 dir=$2 f lib
	shift 2
	mkdir -p "$root/$dir"
	for f in "$@"; do
		cp "$f" "$root/$dir/" || return 1
		for lib in $(ldd "$f" 2>/dev/null |
		    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib" || return 1
		done
	done
}

ql_pack() {	# ROOT OUT
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1 >"$2.tmp") &&
	    mv "$2.tmp" "$2"
}

# The lines a guest printed on its serial console: PASS/FAIL/SKIP, the
# lines under a failure ("    | "), and "TAG-START" / "TAG-DONE ...
# fail=F ...". 1 when a check failed or a guest did not finish.
ql_report() {	# TAG LOG...
	local tag=$1 log done_line fail=0 p f s
	shift
	for log in "$@"; do
		echo "---- $(basename "$log" .log) (log $log)"
		grep -E "^($tag-START|PASS|FAIL|SKIP|    \|)" "$log"
		done_line=$(grep "^$tag-DONE" "$log")
		if [ -z "$done_line" ]; then
			echo "FAIL $(basename "$log" .log): the guest did not finish; its console ends:"
			tail -20 "$log" | sed 's/^/    | /'
			fail=1
		else
			echo "$done_line"
			case $done_line in *" fail=0 "*) ;; *) fail=1 ;; esac
		fi
	done
	p=$(cat "$@" | grep -c '^PASS ')
	f=$(cat "$@" | grep -c '^FAIL ')
	s=$(cat "$@" | grep -c '^SKIP ')
	echo "$QL_NAME: $p passed, $f failed, $s skipped"
	[ $fail = 0 ] && [ "$f" = 0 ]
}
