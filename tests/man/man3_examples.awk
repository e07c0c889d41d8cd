# SPDX-License-Identifier: BSD-2-Clause
# awk -v outdir=DIR -f man3_examples.awk PAGE
#
# Write each program of the EXAMPLES section of a man(7) page, a .EX/.EE
# block with an #include, to DIR/<page>_<n>.c (n from 1), with the roff
# escapes the pages use in code undone: \e, \-, \& and \(aq. Any other
# escape is an error, so that no example is compiled other than it reads.

function unescape(line,    out, i, c, next2) {
	out = ""
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (c != "\\") {
			out = out c
			continue
		}
		next2 = substr(line, i + 1, 1)
		if (next2 == "e") {
			out = out "\\"
			i++
		} else if (next2 == "-") {
			out = out "-"
			i++
		} else if (next2 == "&") {
			i++
		} else if (substr(line, i + 1, 3) == "(aq") {
			out = out "'"
			i += 3
		} else {
			printf "%s:%d: unknown escape in an example: %s\n",
			    FILENAME, FNR, substr(line, i, 4) > "/dev/stderr"
			bad = 1
			exit 1
		}
	}
	return out
}

FNR == 1 {
	page = FILENAME
	sub(/.*\//, "", page)
	sub(/\.[^.]*$/, "", page)
}

/^\.SH / { section = substr($0, 5); next }

section == "EXAMPLES" && $0 == ".EX" { inblock = 1; code = ""; next }

inblock && $0 == ".EE" {
	inblock = 0
	if (code ~ /#include/) {
		file = outdir "/" page "_" ++n ".c"
		printf "%s", code > file
		close(file)
		print file
	}
	next
}

inblock { code = code unescape($0) "\n" }

END { if (bad) exit 1 }
