#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The Kubernetes manifests (dist/kubernetes) as an operator applies them:
# the base with every combination of its components (operator,
# web-config, tracepoints, seccomp, cgroup-unified, in the documented
# order), rendered by the oldest kubectl docs/fleet.md says works
# (MIN_KUBECTL) and by the newest one found, each rendering checked by
# manifests_check.py: each component's changes, and the base's settings
# kept. The operator component's copies of the rules and the dashboard
# are those scripts/k8s-generated makes from their sources.

bats_require_minimum_version 1.5.0

load ../cli/helper

MIN_KUBECTL=27
COMPONENTS=(operator web-config tracepoints seccomp cgroup-unified)

# kubectl_minor PROG: the client's minor version, or nothing.
kubectl_minor() {
	"$1" version --client -o json 2>/dev/null |
	    python3 -c 'import json, sys; print(int(json.load(sys.stdin)["clientVersion"]["minor"].rstrip("+")))' 2>/dev/null
}

# kubectls: each kubectl to be found (KUBECTL, kubectl and kubectl.1.N
# in PATH and in the Google Cloud SDK's folder), a line "MINOR PATH".
kubectls() {
	local p m
	for p in ${KUBECTL:-} $(compgen -c kubectl | sort -u) \
	    /usr/lib/google-cloud-sdk/bin/kubectl*; do
		# A file alone: compgen -c names this file's functions too.
		p=$(type -P "$p") || continue
		m=$(kubectl_minor "$p")
		[ -z "$m" ] || echo "$m $p"
	done | sort -n -u
}

setup_file() {
	kubectls >"$BATS_FILE_TMPDIR/kubectls"
}

# render KUBECTL COMPONENT...: the base with those components, into
# $BATS_TEST_TMPDIR/out.yaml, from a kustomization of the test's.
render() {
	local kubectl=$1 dir=$BATS_TEST_TMPDIR/k rel c
	shift
	mkdir -p "$dir"
	rel=$(realpath --relative-to="$dir" "$SOURCE_DIR/dist/kubernetes")
	{
		echo "resources: [$rel/base]"
		echo "components:"
		for c in "$@"; do
			echo "  - $rel/$c"
		done
		[ $# -gt 0 ] || echo "  []"
	} >"$dir/kustomization.yaml"
	"$kubectl" kustomize "$dir" >"$BATS_TEST_TMPDIR/out.yaml"
}

# every_combination KUBECTL: each of the 32 rendered and checked.
every_combination() {
	local mask i comps bad=0
	for ((mask = 0; mask < 2 ** ${#COMPONENTS[@]}; mask++)); do
		comps=()
		for i in "${!COMPONENTS[@]}"; do
			if (((mask >> i) & 1)); then
				comps+=("${COMPONENTS[i]}")
			fi
		done
		if ! render "$1" "${comps[@]}"; then
			echo "$1 cannot render base ${comps[*]}"
			bad=1
			continue
		fi
		"$SOURCE_DIR/tests/fleet/manifests_check.py" "$SOURCE_DIR" \
		    "$BATS_TEST_TMPDIR/out.yaml" "${comps[@]}" || bad=1
	done
	return "$bad"
}

@test "every combination of the components renders with the stated minimum kubectl (1.$MIN_KUBECTL), each as it should" {
	local kubectl
	kubectl=$(awk -v m="$MIN_KUBECTL" '$1 == m { print $2; exit }' "$BATS_FILE_TMPDIR/kubectls")
	[ -n "$kubectl" ] ||
	    skip "no kubectl 1.$MIN_KUBECTL here (found: $(tr '\n' ' ' <"$BATS_FILE_TMPDIR/kubectls")); KUBECTL names one"
	run every_combination "$kubectl"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "every combination renders with the newest kubectl found" {
	local kubectl
	kubectl=$(awk -v m="$MIN_KUBECTL" '$1 >= m { p = $2 } END { print p }' "$BATS_FILE_TMPDIR/kubectls")
	[ -n "$kubectl" ] ||
	    skip "no kubectl 1.$MIN_KUBECTL or later here; KUBECTL names one"
	run every_combination "$kubectl"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "dist/kubernetes itself renders: the base, components listed there" {
	local kubectl
	kubectl=$(awk -v m="$MIN_KUBECTL" '$1 >= m { print $2; exit }' "$BATS_FILE_TMPDIR/kubectls")
	[ -n "$kubectl" ] ||
	    skip "no kubectl 1.$MIN_KUBECTL or later here; KUBECTL names one"
	"$kubectl" kustomize "$SOURCE_DIR/dist/kubernetes" >"$BATS_TEST_TMPDIR/out.yaml"
	"$SOURCE_DIR/tests/fleet/manifests_check.py" "$SOURCE_DIR" \
	    "$BATS_TEST_TMPDIR/out.yaml"
}

@test "the operator component's rules and dashboard are made from dist/prometheus and dist/grafana" {
	run "$SOURCE_DIR/scripts/k8s-generated" --check
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the seccomp component's profile: bpf(2) only with the engine's commands, clone(2) only without namespaces, no clone3(2), no name_to_handle_at(2), prctl(2) and seccomp(2) only to refuse exec" {
	run python3 - "$SOURCE_DIR/dist/kubernetes/seccomp/cpctools-node.json" <<-'PYEOF'
		import json, sys
		rules = json.load(open(sys.argv[1]))["syscalls"]
		plain = {n for r in rules if r["action"] == "SCMP_ACT_ALLOW"
		         and not r.get("args") for n in r["names"]}
		bad = plain & {"bpf", "clone", "clone3", "name_to_handle_at",
		               "unshare", "setns", "mount"}
		if bad:
		    sys.exit("allowed whatever the arguments: %s" % sorted(bad))
		# The engine's commands: maps, programs, BTF, its tracepoints'
		# links, test runs on a CPU; no pinning, attaching or lookups by id.
		cmds = {r["args"][0]["value"] for r in rules if r["names"] == ["bpf"]}
		if not cmds or cmds & {6, 7, 8, 9, 11, 12, 13, 14, 16, 19, 20, 23,
		                       29, 30, 31, 32, 33}:
		    sys.exit("bpf commands: %s" % sorted(cmds))
		clone = [r for r in rules if r["names"] == ["clone"]]
		if [a for r in clone for a in r["args"]] != [{"index": 0,
		        "value": 2114060288, "valueTwo": 0,
		        "op": "SCMP_CMP_MASKED_EQ"}]:
		    sys.exit("clone: %s" % clone)
		if not any(r["names"] == ["clone3"] and r.get("errnoRet") == 38
		           for r in rules):
		    sys.exit("clone3 is not answered ENOSYS")
		# What the daemon needs to refuse exec to itself: no_new_privs
		# (PR_SET_NO_NEW_PRIVS, 38) and a filter (SECCOMP_SET_MODE_FILTER).
		for name, only in (("prctl", 38), ("seccomp", 1)):
		    args = [a for r in rules if name in r["names"]
		            for a in r.get("args", [None])]
		    if args != [{"index": 0, "value": only, "op": "SCMP_CMP_EQ"}]:
		        sys.exit("%s: %s" % (name, args))
	PYEOF
	echo "$output"
	[ "$status" -eq 0 ]
}
