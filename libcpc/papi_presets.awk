# SPDX-License-Identifier: BSD-2-Clause
# papi_presets.awk: PAPI's preset tables (papi_presets.tsv) as the C table
# of libcpc (struct papi_preset, evname.h), written to the file out:
#
#   LC_ALL=C awk -f papi_presets.awk -v out=papi_presets.c papi_presets.tsv
#
# Each string is cut into pieces of at most 62 characters, after the last
# blank or ':' that fits, so that every line stays within 80 columns. A
# malformed line of the data stops the build, naming the line and why.

function fail(why) {
	printf("%s:%d: %s\n", FILENAME, FNR, why) > "/dev/stderr"
	failed = 1
	exit 1
}

function put(line) {
	print line > out
}

function cstring(s, suffix,	cut, i, c) {
	while (length(s) > 62) {
		cut = 62
		for (i = 62; i >= 1; i--) {
			c = substr(s, i, 1)
			if (c == " " || c == ":")
				break
		}
		if (i >= 1)
			cut = i
		put("\t    \"" substr(s, 1, cut) "\"")
		s = substr(s, cut + 1)
	}
	put("\t    \"" s "\"" suffix)
}

BEGIN {
	if (out == "") {
		print "papi_presets.awk: no output file (-v out=FILE)" \
		    > "/dev/stderr"
		failed = 1
		exit 2
	}
	FS = "\t"
	put("/* SPDX-License-Identifier: BSD-2-Clause */")
	put("/*")
	put(" * Which native events PAPI's preset tables (papi_events.csv of " \
	    "the PAPI")
	put(" * project) count each preset with, per libpfm4 core PMU: the " \
	    "facts of")
	put(" * those tables, in our own form. Where a CPU appears in " \
	    "several of")
	put(" * PAPI's sections, the last definition of a preset is the one " \
	    "kept.")
	put(" *")
	put(" * expr: the events, joined by \" + \" and \" - \", each " \
	    "\"EVENT\" or")
	put(" * \"N*EVENT\" where PAPI weighs it; a weight of 0 marks an " \
	    "event that only")
	put(" * has to count alongside the first (Pentium 4 tagging).")
	put(" */")
	put("#include \"evname.h\"")
	put("")
	put("const struct papi_preset cpclib_papi_presets[] = {")
}

/^#/ || /^$/ {
	next
}

{
	if (NF != 3)
		fail("want 3 fields separated by tabs, not " NF)
	if ($1 !~ /^PAPI_[A-Z0-9_]+$/)
		fail("\"" $1 "\" is not a PAPI preset name")
	if ($2 !~ /^[a-z0-9_]+( [a-z0-9_]+)*$/)
		fail("\"" $2 "\" is not a list of PMU names")
	if ($3 == "" || $3 ~ /["\\]/ || $3 ~ /^ / || $3 ~ / $/)
		fail("\"" $3 "\" is not an event expression")
	if (prev != "" && prev >= $1 "\t" $2)
		fail("not sorted: " $1 " " $2 " comes after " prevname)
	prev = $1 "\t" $2
	prevname = $1 " " $2
	put("\t{ \"" $1 "\",")
	cstring($2, ",")
	cstring($3, " },")
	n++
}

END {
	if (failed)
		exit 1
	if (n == 0) {
		print "papi_presets.awk: no presets in the data" > "/dev/stderr"
		exit 1
	}
	put("};")
	put("const size_t cpclib_npapi_presets =")
	put("    sizeof(cpclib_papi_presets) / sizeof(cpclib_papi_presets[0]);")
}
