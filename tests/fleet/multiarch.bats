#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The image for amd64 and arm64, one name for both. scripts/cross-package
# cross-builds cpctools_*_arm64.deb on this amd64 host; scripts/image
# builds the amd64 image from package.deb_build's packages and the arm64
# image from the cross-built one, each added to one manifest list
# (--manifest). The list names both platforms, each with its image's
# digest; each image's programs are ELF files of its architecture, with
# the dynamic loader and every library they need in the image. The arm64
# image runs here only through a qemu-aarch64 binfmt handler
# (qemu-user-static); where the host has none, that test says so and
# skips (registering one would change how this shared host runs every
# foreign binary). tests/hw's guest runs the same arm64 root on an arm64
# kernel and counts there (tests/hw/guest-deb).

bats_require_minimum_version 1.5.0

load fleet_helper

setup_file() {
	export D=$BATS_FILE_TMPDIR
	export LIST=localhost/cpctools-multiarch-test:$$
	export AMD=localhost/cpctools-multiarch-test:$$-amd64
	export ARM=localhost/cpctools-multiarch-test:$$-arm64
	local debs=${BUILD_DIR:-}/package/build-deb/packages
	[ "$(id -u)" -eq 0 ] ||
	    { echo "podman builds the images as root here" >"$D/skip"; return 0; }
	[ "$(dpkg --print-architecture)" = amd64 ] ||
	    { echo "the cross build is from amd64; this host is $(dpkg --print-architecture)" >"$D/skip"; return 0; }
	command -v podman >/dev/null ||
	    { echo "no podman (apt-get install podman)" >"$D/skip"; return 0; }
	ls "$debs"/cpctools_*_amd64.deb >/dev/null 2>&1 ||
	    { echo "no packages in $debs (package.deb_build makes them)" >"$D/skip"; return 0; }
	local rc=0
	"$SOURCE_DIR/scripts/cross-package" "$BUILD_DIR/package/cross-arm64" \
	    >"$D/cross.out" 2>&1 || rc=$?
	if [ $rc = 77 ]; then
		sed -n 's/^cross-package: SKIP: //p' "$D/cross.out" >"$D/skip"
		return 0
	elif [ $rc != 0 ]; then
		echo "scripts/cross-package failed: $(tail -n 3 "$D/cross.out")" >"$D/failed"
		return 0
	fi
	export ARMDEB
	ARMDEB=$(tail -n 1 "$D/cross.out")
	"$SOURCE_DIR/scripts/image" --debs "$debs" --tag "$AMD" --manifest "$LIST" \
	    --work "$BUILD_DIR/package/image" >"$D/amd.out" 2>"$D/amd.err" ||
	    { echo "scripts/image (amd64) failed: $(tail -n 1 "$D/amd.err")" >"$D/failed"; return 0; }
	"$SOURCE_DIR/scripts/image" --arch arm64 --debs "$(dirname "$ARMDEB")" \
	    --tag "$ARM" --manifest "$LIST" --work "$BUILD_DIR/package/image" \
	    >"$D/arm.out" 2>"$D/arm.err" ||
	    { echo "scripts/image --arch arm64 failed: $(tail -n 1 "$D/arm.err")" >"$D/failed"; return 0; }
}

teardown_file() {
	podman manifest rm "$LIST" >/dev/null 2>&1 || true
	podman rmi -f "$AMD" "$ARM" >/dev/null 2>&1 || true
}

setup() {
	[ ! -s "$D/failed" ] || fail "$(cat "$D/failed")"
	[ ! -s "$D/skip" ] || skip "$(cat "$D/skip")"
}

# elf_machine FILE: readelf's Machine of FILE.
elf_machine() {
	readelf -h "$1" | sed -n 's/^ *Machine: *//p'
}

# image_files IMAGE DIR: IMAGE's files, copied into DIR.
image_files() {
	local ctr
	ctr=$(podman create "$1" --version) || return 1
	mkdir -p "$2"
	podman export "$ctr" | tar -x -C "$2"
	podman rm "$ctr" >/dev/null
}

@test "the arm64 package: its programs are aarch64 ELF, its Depends name what they need" {
	[ "$(dpkg-deb -f "$ARMDEB" Architecture)" = arm64 ] ||
	    fail "Architecture: $(dpkg-deb -f "$ARMDEB" Architecture)"
	dpkg-deb -x "$ARMDEB" "$D/deb"
	local f
	for f in usr/bin/cputrack usr/bin/cpc-cpustat usr/lib/aarch64-linux-gnu/cpctools/http.so; do
		[ "$(elf_machine "$D/deb/$f")" = AArch64 ] ||
		    fail "$f: $(elf_machine "$D/deb/$f")"
	done
	local deps
	deps=$(dpkg-deb -f "$ARMDEB" Depends)
	# The C library, --listen's libmicrohttpd, and the BPF engine's libbpf.
	for p in libc6 libmicrohttpd12 libbpf1 libpfm4 libjansson4; do
		[[ ", $deps," == *", $p ("* ]] || fail "Depends lacks $p: $deps"
	done
}

@test "the manifest list names both images, each under its platform" {
	podman manifest inspect "$LIST" >"$D/list.json"
	local amd arm
	amd=$(podman image inspect --format '{{.Digest}}' "$AMD")
	arm=$(podman image inspect --format '{{.Digest}}' "$ARM")
	run "$PY" - "$D/list.json" <<-'EOF'
		import json, sys
		for m in json.load(open(sys.argv[1]))["manifests"]:
		    p = m["platform"]
		    print(p["os"], p["architecture"], m["digest"])
	EOF
	[ "$status" = 0 ] || fail "$output"
	echo "$output"
	[ "$(echo "$output" | sort)" = "$(printf 'linux amd64 %s\nlinux arm64 %s' "$amd" "$arm")" ] ||
	    fail "want linux/amd64 at $amd and linux/arm64 at $arm"
	[ "$(podman image inspect --format '{{.Architecture}}' "$ARM")" = arm64 ] ||
	    fail "the arm64 image says $(podman image inspect --format '{{.Architecture}}' "$ARM")"
}

@test "each image's programs and libraries are ELF of its architecture" {
	local img arch want f interp lib
	for img in "$AMD amd64 X86-64" "$ARM arm64 AArch64"; do
		# (readelf says "Advanced Micro Devices X86-64" for amd64.)
		read -r img arch want <<<"$img"
		image_files "$img" "$D/$arch" || fail "cannot export $img"
		for f in usr/bin/cputrack usr/bin/cpc-cpustat; do
			[[ "$(elf_machine "$D/$arch/$f")" == *"$want" ]] ||
			    fail "$arch: $f is $(elf_machine "$D/$arch/$f")"
		done
		interp=$(readelf -l "$D/$arch/usr/bin/cputrack" |
		    sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
		[ -e "$D/$arch$interp" ] || fail "$arch: no $interp in the image"
		# Every library each ELF file needs is in the image, and is of
		# the image's architecture.
		while IFS= read -r f; do
			for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
				found=$(find "$D/$arch" -name "$lib" | head -n 1)
				[ -n "$found" ] || fail "$arch: ${f#"$D/$arch"} needs $lib, not in the image"
				[[ "$(elf_machine "$(readlink -f "$found")")" == *"$want" ]] ||
				    fail "$arch: $lib is not $want"
			done
		done < <(find "$D/$arch" -type f \( -name '*.so*' -o -path '*/bin/*' \))
	done
}

@test "the arm64 image runs cputrack --version under a qemu-aarch64 binfmt handler" {
	local h
	h=$(grep -l '^interpreter .*qemu-aarch64' /proc/sys/fs/binfmt_misc/* 2>/dev/null | head -n 1) || true
	if [ -z "$h" ] || ! grep -q '^enabled' "$h"; then
		skip "no qemu-aarch64 binfmt handler is registered (qemu-user-static): an arm64 image cannot run on this amd64 host"
	fi
	run podman run --rm --platform linux/arm64 "$ARM" --version
	[ "$status" = 0 ] || fail "exit $status: $output"
	[[ "$output" == cputrack* ]] || fail "$output"
}
