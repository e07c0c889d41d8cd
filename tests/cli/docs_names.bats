#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The files, functions and types that docs/architecture.md and
# CONTRIBUTING.md name exist: a name the code no longer has fails here,
# with the document's line. What the documents write in backquotes is read
# as follows:
#   - `a/b.c`, `a/b/`: a path from the top of the tree (one that starts
#     with build is the build tree's, and left alone; one that starts
#     with / is the system's);
#   - `b.c`: a file name with no folder, which some file of the tree has;
#   - NAME in either stands for any name: `tests/cli/NAME.bats` is any
#     file there that ends so, and one must be there;
#   - `name()`: a function the C sources define (its name at the start
#     of a line, as the form of every definition puts it; in a header,
#     after a line that says static), a macro with arguments, or a BPF
#     program;
#   - `struct name`, `enum name`: a type the C sources define.
# And the places docs/architecture.md gives its functions and types, and
# the calls it says are made, are where the sources have them
# (docs_places.py says the forms it reads).

bats_require_minimum_version 1.5.0
load helper

setup() {
	SOURCE_DIR=${SOURCE_DIR:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
}

# The tree's files, one a line, from its top, without the build trees.
tree_files() {
	(cd "$1" && find . \( -name .git -o -name 'build*' \) -prune -o \
	    -type f -print | sed 's|^\./||')
}

# What the C sources of tree $1 define, one a line: "f name" for a
# function, a macro with arguments or a BPF program, "t struct name" or
# "t enum name" for a type.
defined_names() {
	tree_files "$1" | grep -E '\.[ch]$' | (cd "$1" && xargs awk '
		FNR == 1 { prev = "" }
		FILENAME ~ /\.c$/ && match($0, /^[A-Za-z_][A-Za-z0-9_]*\(/) {
			print "f " substr($0, 1, RLENGTH - 1)
		}
		FILENAME ~ /\.h$/ && prev ~ /static/ &&
		    match($0, /^[A-Za-z_][A-Za-z0-9_]*\(/) {
			print "f " substr($0, 1, RLENGTH - 1)
		}
		match($0, /^#define [A-Za-z_][A-Za-z0-9_]*\(/) {
			print "f " substr($0, 9, RLENGTH - 9)
		}
		match($0, /BPF_(PROG|KPROBE|KRETPROBE)\([A-Za-z_][A-Za-z0-9_]*/) {
			s = substr($0, RSTART, RLENGTH)
			sub(/^[^(]*\(/, "", s)
			print "f " s
		}
		match($0, /(struct|enum|union) [A-Za-z_][A-Za-z0-9_]* \{/) {
			s = substr($0, RSTART, RLENGTH - 2)
			print "t " s
		}
		{ prev = $0 }
	') | sort -u
}

# docs_missing TREE DOC...: each name of each DOC (a path from TREE's top)
# that TREE lacks, as "DOC:LINE: `name`: why", one a line; fails if any.
docs_missing() {
	local tree=$1
	shift
	(cd "$tree" && awk '
		BEGIN { status = 0 }
		# The first two inputs: what the sources define, the files.
		FILENAME == ARGV[1] { defined[$0] = 1; next }
		FILENAME == ARGV[2] {
			file[$0] = 1
			m = split($0, parts, "/")
			base[parts[m]] = 1
			d = $0
			while (sub(/\/[^\/]*$/, "", d))
				dir[d] = 1
			next
		}
		function say(what, why) {
			printf "%s:%d: `%s`: %s\n", FILENAME, FNR, what, why
			status = 1
		}
		# Whether any of the names of set s (file, base, dir) is
		# like pattern p, NAME standing for any name.
		function any_like(s, p,    k, re) {
			re = p
			gsub(/[.+?()|{}\[\]^$\\]/, "\\\\&", re)
			gsub(/NAME/, "[A-Za-z0-9_.-]+", re)
			re = "^" re "$"
			if (s == "file") {
				for (k in file) if (k ~ re) return 1
			} else if (s == "base") {
				for (k in base) if (k ~ re) return 1
			} else {
				for (k in dir) if (k ~ re) return 1
			}
			return 0
		}
		function check_path(p,    d) {
			if (p ~ /^build/)
				return
			if (p ~ /\/$/) {
				d = p
				sub(/\/$/, "", d)
				if (!any_like("dir", d))
					say(p, "no such folder in the tree")
			} else if (!any_like("file", p) && !any_like("dir", p))
				say(p, "no such file in the tree")
		}
		function check_span(s,    rest, f, t) {
			if (s ~ /^[A-Za-z0-9_.+-]*\/[A-Za-z0-9_.+\/-]*$/ &&
			    s !~ /^[\/.-]/) {
				check_path(s)
				return
			}
			if (s ~ /^[A-Za-z0-9_+-]+(\.[A-Za-z0-9_]+)*\.(c|h|bats|bash|py|awk|tsv|txt|md|syms|map|in|def|cmake|json|yaml|yml|service)$/) {
				if (!any_like("base", s))
					say(s, "no file of that name in the tree")
				return
			}
			rest = s
			while (match(rest, /[A-Za-z_][A-Za-z0-9_]*\(\)/)) {
				f = substr(rest, RSTART, RLENGTH - 2)
				rest = substr(rest, RSTART + RLENGTH)
				if (!(("f " f) in defined))
					say(f "()", "no C source defines it")
			}
			rest = s
			while (match(rest, /(struct|enum|union) [A-Za-z_][A-Za-z0-9_]*/)) {
				t = substr(rest, RSTART, RLENGTH)
				rest = substr(rest, RSTART + RLENGTH)
				if (!(("t " t) in defined))
					say(t, "no C source defines it")
			}
		}
		/^```/ { fenced = !fenced; next }
		fenced { next }
		{
			line = $0
			while (match(line, /`[^`]+`/)) {
				span = substr(line, RSTART + 1, RLENGTH - 2)
				line = substr(line, RSTART + RLENGTH)
				check_span(span)
			}
		}
		END { exit status }
	' <(defined_names "$tree") <(tree_files "$tree") "$@")
}

@test "docs/architecture.md names only what the tree has" {
	run docs_missing "$SOURCE_DIR" docs/architecture.md
	[ "$status" -eq 0 ] || fail "gone from the tree:"$'\n'"$output"
}

@test "CONTRIBUTING.md names only what the tree has" {
	run docs_missing "$SOURCE_DIR" CONTRIBUTING.md
	[ "$status" -eq 0 ] || fail "gone from the tree:"$'\n'"$output"
}

@test "a name the tree lacks fails, and is named with its line" {
	local tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree/src/sub" "$tree/docs"
	cat >"$tree/src/sub/here.c" <<-'EOF'
		struct kept {
		    int n;
		};

		int
		kept_function(void)
		{
		    return 0;
		}

		void
		caller(void)
		{
		    called_only();
		}
	EOF
	cat >"$tree/docs/doc.md" <<-'EOF'
		`src/sub/here.c` and `src/sub/` and `here.c` and `src/NAME/here.c`
		`kept_function()` and `struct kept` and `build/anything`
		`src/sub/gone.c`, `gone/`, `gone.h`
		and `called_only()`, `gone_function()`, `struct gone`
		```
		`src/in/a/fence.c`
		```
	EOF
	run docs_missing "$tree" docs/doc.md
	[ "$status" -eq 1 ]
	[ "$output" = "docs/doc.md:3: \`src/sub/gone.c\`: no such file in the tree
docs/doc.md:3: \`gone/\`: no such folder in the tree
docs/doc.md:3: \`gone.h\`: no file of that name in the tree
docs/doc.md:4: \`called_only()\`: no C source defines it
docs/doc.md:4: \`gone_function()\`: no C source defines it
docs/doc.md:4: \`struct gone\`: no C source defines it" ] ||
		fail "the check said: $output"
}

@test "docs/architecture.md places each name where the sources define it" {
	run python3 "$BATS_TEST_DIRNAME/docs_places.py" "$SOURCE_DIR" \
	    docs/architecture.md
	[ "$status" -eq 0 ] || fail "placed wrongly:"$'\n'"$output"
}

@test "a name placed, owned or called wrongly fails, named with its line" {
	local tree=$BATS_TEST_TMPDIR/places
	mkdir -p "$tree/src/sub" "$tree/docs"
	cat >"$tree/src/sub/here.c" <<-'EOF'
		struct kept {
		    int n;
		};

		int
		kept_function(void)
		{
		    return helper();
		}

		int
		helper(void)
		{
		    return 0;
		}
	EOF
	cat >"$tree/src/other.c" <<-'EOF'
		int
		elsewhere(void)
		{
		    return 1;
		}

		int
		caller(void)
		{
		    return kept_function() + elsewhere();
		}
	EOF
	cat >"$tree/docs/doc.md" <<-'EOF'
		True: `kept_function()` in `src/sub/here.c`, (`helper()`,
		`src/sub/`), `struct kept` (`src/sub/here.c`), and
		`kept_function()` is called only in `src/other.c`.
		False: `elsewhere()` in `src/sub/here.c`, (`kept_function()`,
		`helper()`, `src/other.c`), and `elsewhere()` is called only
		in `src/sub/here.c`.

		| folder | owns |
		|---|---|
		| `src/sub/` | the work (`kept_function()`, `elsewhere()`) |

		| resource | owner | made in | released in |
		|---|---|---|---|
		| a | `struct kept` in `src/sub/here.c` | `helper()` in `src/sub/here.c`, from `kept_function()` | `elsewhere()`, from `caller()` in `src/other.c` |
		| b | `struct kept` | `helper()` in `src/sub/here.c`, from `caller()` in `src/other.c` | |
	EOF
	run python3 "$BATS_TEST_DIRNAME/docs_places.py" "$tree" docs/doc.md
	[ "$status" -eq 1 ] || fail "status $status: $output"
	[ "$output" = "docs/doc.md:4: \`elsewhere()\`: not defined in src/sub/here.c
docs/doc.md:4: \`kept_function()\`: not defined in src/other.c
docs/doc.md:5: \`helper()\`: not defined in src/other.c
docs/doc.md:5: \`elsewhere()\`: called in src/other.c too
docs/doc.md:10: \`elsewhere()\`: not defined under src/sub/
docs/doc.md:14: \`kept_function()\`: the owner table names no place for it
docs/doc.md:14: \`elsewhere()\`: the owner table names no place for it
docs/doc.md:15: \`struct kept\`: the owner table names no place for it
docs/doc.md:15: \`caller()\`: does not call helper()" ] ||
		fail "the check said: $output"
}
