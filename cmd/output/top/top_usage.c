/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop's usage: the view's own options and those of the run it shows,
 * not cputrack's rows' (-o, --format, --listen, -r), which it refuses.
 */
#include <stdio.h>

#include "top.h"

void
top_usage(FILE *out, const char *engines)
{
	fprintf(out,
	    "Usage:\n"
	    "\tcputop [-c events]... [-T secs] [-b [-N count]] [-ef]\n"
	    "\t\t[-M name[,name]] [--engine=%s]\n"
	    "\t\t[command [args] | -p pid[,pid]... | --tid=tid[,tid]... |\n"
	    "\t\t--cgroup=dir | --for-each-cgroup=dir[,depth=n][,max=n]]\n"
	    "\tcputop --list[=glob] | --help | --version\n"
	    "\n"
	    "\tWith no target: the whole machine (as a user the BPF engine\n"
	    "\trefuses: that user's processes, counted from outside).\n"
	    "\n"
	    "\t-c events the events each line counts, a set per -c\n"
	    "\t\t  (default task-clock, context-switches, cpu-migrations,\n"
	    "\t\t  page-faults)\n"
	    "\t-T secs\t  seconds between counts, default 1\n"
	    "\t-b\t  the view as text on standard output, once per refresh\n"
	    "\t-N count  with -b: that many counts, then the totals\n"
	    "\t-e, -f\t  execs and forks are followed (always, in the view)\n"
	    "\t-M name[,name]\n"
	    "\t\t  a column per metric of perf's metric groups of this\n"
	    "\t\t  CPU (TopdownL1, Default: --list names them)\n"
	    "\t--engine=%s\n"
	    "\t\t  how threads are followed and counted\n"
	    "\t-p pid[,pid]...\n"
	    "\t\t  existing processes, which q leaves running\n"
	    "\t--tid=tid[,tid]...\n"
	    "\t\t  only these threads of existing processes\n"
	    "\t--cgroup=dir\n"
	    "\t\t  every process in a cgroup (v2) and below it\n"
	    "\t--for-each-cgroup=dir[,depth=n][,max=n]\n"
	    "\t\t  a line per cgroup below dir\n"
	    "\t--list[=glob]\n"
	    "\t\t  the events and metrics this machine counts\n"
	    "\n"
	    "\tKeys: q quits (a command started gets SIGINT, then SIGTERM,\n"
	    "\tthen SIGKILL); i types to the command; P sorts by CPU; ?\n"
	    "\tlists the others. Rows' options (-o, --format, --output-fd,\n"
	    "\t--listen, -r) are cputrack's: cputop shows the counts itself.\n",
	    engines, engines);
}
