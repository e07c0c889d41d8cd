# SPDX-License-Identifier: BSD-2-Clause
# kernel_fields.awk: the list of the kernel's fields the programs read
# (kernel_fields.txt) as the C lists the engine and its test take, written
# to the file out:
#
#   LC_ALL=C awk -f kernel_fields.awk -v out=bpfeng_fields.h kernel_fields.txt
#
#   BPFENG_STRUCTS_READ  each struct read, once
#   BPFENG_MEMBERS_READ  each member on a path read, once
#   BPFENG_FIELDS_READ   each struct and the first member of a path, once
#
# A malformed line of the list stops the build, naming the line and why.

function fail(why) {
	printf("%s:%d: %s\n", FILENAME, FNR, why) > "/dev/stderr"
	failed = 1
	exit 1
}

# bpfeng_btf.c matches names of up to NAME_MAX_LEN (24) characters.
function is_name(s) {
	return s ~ /^[A-Za-z_][A-Za-z0-9_]*$/ && length(s) <= 24
}

# Each string once, in the order first seen.
function add(list, seen, s) {
	if (!(s in seen)) {
		seen[s] = 1
		list[++list[0]] = s
	}
}

function put_list(name, list,	i) {
	printf("#define %s \\\n", name) > out
	for (i = 1; i <= list[0]; i++)
		printf("\t%s%s\n", list[i], i < list[0] ? ", \\" : "") > out
}

BEGIN {
	if (out == "") {
		print "kernel_fields.awk: no output file (-v out=FILE)" \
		    > "/dev/stderr"
		exit 2
	}
	structs[0] = members[0] = fields[0] = 0
}

/^[ \t]*(#|$)/ { next }

{
	if (NF != 3)
		fail("want STRUCT FIELD FLAVOUR, found " NF " words")
	if (!is_name($1))
		fail("struct '" $1 "' is not a C name of 24 characters or less")
	if ($3 != "-" && !is_name($3))
		fail("flavour '" $3 "' is neither - nor a C name")
	n = split($2, path, ".")
	for (i = 1; i <= n; i++)
		if (!is_name(path[i]))
			fail("field '" $2 "' is not a path of C names of 24 " \
			    "characters or less")
	if (($1 " " $2 " " $3) in lines)
		fail("'" $1 " " $2 " " $3 "' is listed twice")
	lines[$1 " " $2 " " $3] = 1
	add(structs, seen_struct, "\"" $1 "\"")
	for (i = 1; i <= n; i++)
		add(members, seen_member, "\"" path[i] "\"")
	add(fields, seen_field, "{ \"" $1 "\", \"" path[1] "\" }")
}

END {
	if (failed)
		exit 1
	if (structs[0] == 0) {
		print FILENAME ": no fields listed" > "/dev/stderr"
		exit 1
	}
	print "/* Made from kernel_fields.txt by kernel_fields.awk: " \
	    "do not edit. */" > out
	print "#ifndef BPFENG_FIELDS_H" > out
	print "#define BPFENG_FIELDS_H\n" > out
	put_list("BPFENG_STRUCTS_READ", structs)
	print "" > out
	put_list("BPFENG_MEMBERS_READ", members)
	print "" > out
	put_list("BPFENG_FIELDS_READ", fields)
	print "\n#endif /* BPFENG_FIELDS_H */" > out
}
