#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# same_layout.sh FULL.skel.h PLAIN.skel.h: fail unless the two skeletons'
# structs (maps, programs, links, global data) are the same but for their
# names, so that the plain object may be opened through the full one's.
set -eu
layout() {
	sed -e 's/bpfeng_plain_bpf/bpfeng_bpf/g' "$1" |
		sed -n '/^struct bpfeng_bpf {$/,/^};$/p'
}
full=$(layout "$1")
plain=$(layout "$2")
if [ -z "$full" ] || [ "$full" != "$plain" ]; then
	echo "$2: not laid out as $1" >&2
	exit 1
fi
