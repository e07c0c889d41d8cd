/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bounded queue between the commands and their output, and the writer
 * thread that empties it, so that no write ever holds up a command: a
 * full pipe, a stopped reader or a slow disk fill the queue, and what
 * does not fit is refused at once, for the caller to count.
 *
 * The queue holds records as the command put them; the writer renders
 * them (a function it is given) into the text it writes, so that the
 * command spends no time on formatting. It also runs the replacement of
 * a file (the metrics, each time they change), given as a function,
 * whenever it is asked to.
 */
#ifndef OUT_QUEUE_H
#define OUT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "out_buf.h"

struct out_queue;

/*
 * One record, appended to text as it is to be written; len is its bytes
 * and their padding.
 */
typedef void(out_record_fn)(
    void *arg, const void *rec, size_t len, struct out_buf *text);
/* The replacement job: 0, or the errno of its failure. */
typedef int(out_replace_fn)(void *arg);

/*
 * Records rendered for fd (or -1: none), cap bytes of them at most
 * waiting. Both functions get arg.
 */
struct out_queue *out_queue_new(int fd, size_t cap, out_record_fn *render,
    out_replace_fn *replace, void *arg);
/*
 * A reader's pace (--input): a record that does not fit waits for the
 * writer to make room instead of being refused, so that nothing is
 * dropped. Before the first out_queue_put.
 */
void out_queue_pace(struct out_queue *q);
/* The writer thread, blocking every signal but SIGPIPE: 0 or an errno. */
int out_queue_start(struct out_queue *q);
/*
 * Queue one record made of the n parts, or refuse it (false) when it does
 * not fit. The last quarter of the queue is kept for records that may use
 * the reserve: a row of a thread's start or end, its totals, is some
 * 300 bytes, and a stopped reader of a churn of a thousand threads has
 * to keep two thousand of them.
 */
bool out_queue_put(
    struct out_queue *q, const struct iovec *parts, int n, bool reserve);
/*
 * Have the writer write what is queued: at once if it sleeps, within its
 * nap (10 ms) if it has just written. The errno of the first failed write
 * or replacement, or 0.
 */
int out_queue_kick(struct out_queue *q);
/* Have the writer run the replacement job (once, however often asked). */
void out_queue_replace(struct out_queue *q);
/* The errno of the first failed write or replacement, or 0. */
int out_queue_error(struct out_queue *q);
/*
 * Write out everything queued, run a replacement still asked for, and
 * stop the writer; then free the queue. The first failure's errno, or 0.
 */
int out_queue_finish(struct out_queue *q);

#endif /* OUT_QUEUE_H */
