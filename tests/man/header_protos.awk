# SPDX-License-Identifier: BSD-2-Clause
# header_protos.awk HEADER...
#
# Print "name<TAB>prototype" for every function a C header declares, the
# prototype on one line, its blanks squeezed as proto_norm() does, so that
# it can be looked for in a rendered SYNOPSIS. Comments, preprocessor
# lines, typedefs and the bodies of structures are left out.

function proto_norm(s) {
	gsub(/[ \t\n]+/, " ", s)
	gsub(/\( /, "(", s)
	gsub(/ \)/, ")", s)
	gsub(/ ,/, ",", s)
	sub(/^ /, "", s)
	sub(/ $/, "", s)
	return s
}

/^[ \t]*#/ { next }
{ text = text " " $0 }

END {
	# Comments out.
	while ((i = index(text, "/*")) > 0) {
		rest = substr(text, i + 2)
		j = index(rest, "*/")
		text = substr(text, 1, i - 1) " " substr(rest, j + 2)
	}
	n = split(text, stmts, ";")
	for (k = 1; k <= n; k++) {
		s = stmts[k]
		sub(/.*[{}]/, "", s)		# what a brace ended or opened
		s = proto_norm(s)
		if (s ~ /^typedef / || s !~ /^[A-Za-z_][A-Za-z0-9_ *]*[ *][A-Za-z_][A-Za-z0-9_]*\(/)
			continue
		match(s, /[A-Za-z_][A-Za-z0-9_]*\(/)
		printf "%s\t%s;\n", substr(s, RSTART, RLENGTH - 1), s
	}
}
