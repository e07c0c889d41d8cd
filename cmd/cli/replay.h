/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --input FILE: a record of a run (the JSON Lines of -j, cpctools-output(5))
 * written again, as perf stat report does: in any format, with any -M
 * whose events the record holds, evaluated on the recorded machine's
 * facts (its head's "machine"). Nothing is counted.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include "cmdline.h"

/*
 * Write the record at path as cl's options ask: the status to exit with
 * (0; 1 for a row not counted, as a run would; 2, said in one line that
 * names the line and the field, for a file that cannot be read, is not
 * such a record, is another command's, has a field of a wrong type or
 * out of range or missing, a line too long, or holds none of -M's events).
 */
int replay_record(struct cmdline *cl, const char *path);
/*
 * The same, of a record read from in, named name in messages (a fuzzer's
 * input); in is left open.
 */
int replay_stream(struct cmdline *cl, FILE *in, const char *name);

/*
 * A record's line is at most this long: a head of many sets with their
 * boxes, or a row with its parts, is a few tens of kilobytes.
 */
#define REPLAY_LINE_MAX (1024 * 1024)

#endif /* REPLAY_H */
