# SPDX-License-Identifier: BSD-2-Clause
# cmd/metrics/metrics.tsv to C: the tables of metric_table.h. Usage:
#   LC_ALL=C awk -f metric_table.awk metrics.tsv > metric_table.c
# Records are grouped by model, as the data file writes them: a model
# line, then its cpuid, metric and event lines. Every text goes once into
# one pool of strings, and the tables hold offsets into it: constants with
# no pointer, which need no relocation when a command starts and are
# read from the file only by a run that uses them.

# The offset of s in the pool, adding it the first time.
function str(s) {
	if (!(s in offset)) {
		offset[s] = pos
		pool[npool++] = s
		pos += length(s) + 1
	}
	return offset[s]
}

function cstr(s) {
	gsub(/\\/, "&&", s)
	gsub(/"/, "\\\"", s)
	return "\"" s "\\0\""
}

function bad(why) {
	print "metric_table.awk: line " NR ": " why > "/dev/stderr"
	failed = 1
	exit 1
}

BEGIN {
	FS = "\t"
	n = -1
	npool = pos = ncpuid = nmetric = nevent = nlegacy = 0
	str("")
}

/^#/ || /^$/ { next }

$1 == "model" {
	if (NF != 7)
		bad("a model has 7 fields")
	n++
	tag[n] = $2
	index_of[$2] = n
	head[n] = str($2) ", " str($3) ", " str($4) ", " str($5) ", " str($6)
	chain[n] = $7
	cpuid0[n] = ncpuid
	metric0[n] = nmetric
	event0[n] = nevent
	next
}

n < 0 || $2 != tag[n] { bad("not a record of the model before it") }

$1 == "cpuid" && NF == 3 { cpuid[ncpuid++] = str($3); next }

$1 == "metric" && NF == 11 {
	metric[nmetric++] = str($3) ", " str($4) ", " str($5) ", " str($6) \
	    ", " str($7) ", " str($8) ", " str($9) ", " str($10) ", " str($11)
	next
}

$1 == "event" && NF == 5 {
	event[nevent++] = str($3) ", " str($4) ", " str($5)
	next
}

{ bad("not a record") }

END {
	if (failed)
		exit 1
	for (i = 0; i <= n; i++) {
		k = split(chain[i], link, " ")
		legacy0[i] = nlegacy
		for (j = 1; j <= k; j++) {
			if (!(link[j] in index_of)) {
				print "metric_table.awk: no model " link[j] > "/dev/stderr"
				exit 1
			}
			legacy[nlegacy++] = index_of[link[j]]
		}
	}
	cpuid0[n + 1] = ncpuid
	metric0[n + 1] = nmetric
	event0[n + 1] = nevent
	legacy0[n + 1] = nlegacy

	print "/* Generated from cmd/metrics/metrics.tsv by metric_table.awk. */"
	print "#include \"metric_table.h\""
	print ""
	print "const char metric_strings[] ="
	for (i = 0; i < npool; i++)
		print "\t" cstr(pool[i])
	print "\t;"
	print ""
	print "const unsigned metric_cpuids[] = {"
	for (i = 0; i < ncpuid; i++)
		print "\t" cpuid[i] ","
	print "\t0\n};"
	print "const unsigned short metric_legacy[] = {"
	for (i = 0; i < nlegacy; i++)
		print "\t" legacy[i] ","
	print "\t0\n};"
	print "const struct metric_def metric_defs[] = {"
	for (i = 0; i < nmetric; i++)
		print "\t{ " metric[i] " },"
	print "\t{ 0 }\n};"
	print "const struct metric_event metric_events[] = {"
	for (i = 0; i < nevent; i++)
		print "\t{ " event[i] " },"
	print "\t{ 0 }\n};"
	print "const struct metric_model metric_models[] = {"
	for (i = 0; i <= n; i++)
		printf "\t{ %s, %d, %d, %d, %d, %d, %d, %d, %d },\n", head[i], \
		    cpuid0[i], cpuid0[i + 1] - cpuid0[i], \
		    legacy0[i], legacy0[i + 1] - legacy0[i], \
		    metric0[i], metric0[i + 1] - metric0[i], \
		    event0[i], event0[i + 1] - event0[i]
	print "};"
	print "const int metric_nmodels = " n + 1 ";"
}
