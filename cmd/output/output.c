/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rows in every format (see output.h), and where they go.
 *
 * A row goes at once, under the output's lock, as it is (a struct
 * row_rec with its values and strings) into the bounded queue
 * (out_queue.c); the writer thread renders it (out_table.c, out_csv.c,
 * out_json.c, out_trace.c) and writes it out, so that the commands spend no
 * time on formatting. A row also goes to each sink the run opened
 * (out_sink.h): the command hands them in, and this file names none. The
 * formats that write no rows (the metrics) are a sink's text, written
 * whole into a file that each change replaces (by the writer: a temporary
 * file in the same directory, then rename(2)), or to the stream once at
 * the end; a sink that takes the stream (the live view) writes its own
 * text there instead of rows.
 *
 * Rows are in time order: a row's time is when its counts were read, or
 * when it was written for a row without counts, and never earlier than
 * the row before it. A total stated after later counts were read (the
 * per-set totals of an exit, cpustat's totals), and the rows of CPUs read
 * in the same instant, take the time of the row before them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "out_format.h"
#include "out_queue.h"
#include "out_sink.h"
#include "out_table.h"
#include "output.h"

#define MAX_KINDS 16 /* labels counted apart when rows are dropped */
#define MAX_NOTES 16 /* reasons for values not counted, said once */
#define MAX_SINKS 4  /* sinks a run opens */

/*
 * A record in the queue: text already rendered (REC_TEXT: the title, the
 * stream's head), or a row (REC_ROW), at t ns after the start. The row
 * goes as one block, struct out_row whole, so that a field added to it
 * goes too; its pointers are worthless in the queue (but label's, a
 * literal) and the writer sets them again from what follows: the row's
 * values (nvalues), its metrics, its CPUs where they say which parts it
 * holds (has_cpus: cpustat's, of a set with parts), then each string of
 * STRINGS that it has (a bit each in strings), NUL-terminated: the row's,
 * and text that goes before it (cpustat -T's timestamp line; a REC_TEXT's
 * text). The process's name goes only where the format writes it (the
 * trace).
 */
enum rec_kind { REC_TEXT, REC_ROW };
enum { S_NOT_COUNTED, S_PARTIAL, S_ARGS, S_BEFORE, S_COMM, S_UNIT, STRINGS };

struct row_rec {
	struct out_row row;
	hrtime_t t;
	uint16_t nvalues;
	uint16_t nmetrics; /* its set's metrics, after the counts */
	uint8_t kind;
	uint8_t strings;
	bool has_cpus;
};

static out_record_fn render;

struct drops {
	const char *label;
	unsigned long long n;
};

/* A sink the run opened, and its state. */
struct sink {
	const struct out_sink_ops *ops;
	void *state;
};

struct output {
	struct out_run run;
	pthread_mutex_t lock;
	hrtime_t last;	     /* the latest row's time */
	struct out_buf rec;  /* text for the next record */
	struct out_buf snap; /* the writer's: the metrics file */
	struct out_queue *queue;
	const struct out_format_ops *format; /* of the rows, or NULL */
	void *format_state;		     /* the writer's, after the head */
	struct sink sinks[MAX_SINKS];	     /* in the command's order */
	int nsinks;
	const struct sink *whole;  /* renders the stream whole, or NULL */
	struct out_sink_host host; /* lent to the sinks */
	int fd;			   /* the stream's descriptor, or -1 */
	bool own_fd;
	/*
	 * A file of --output: made by this run (to be removed if the run
	 * never starts), or one there before, emptied only when it starts.
	 */
	const char *path;
	bool created;
	bool empty_at_start;
	bool replace;		 /* metrics: a file replaced whole */
	char name[PATH_MAX + 8]; /* for messages */
	mode_t file_mode;	 /* of a replaced file: 0666 & ~umask */
	bool rows;		 /* a stream of rows: not the metrics */
	bool title_wanted;
	bool head_done; /* the title or the stream's head went out */
	bool started;
	bool incomplete; /* a row not counted, or partial */
	bool err_told;	 /* output_flush gave the error */
	bool multiplex_noted;
	struct drops drops[MAX_KINDS + 1]; /* the last: any other */
	unsigned long long dropped;
	unsigned cgroups_folded; /* --for-each-cgroup's, under lock */
	char *noted[MAX_NOTES];
	int nnoted;
};

/*
 * The formats of rows --format names, one per line of formats.def. A
 * sink's (the exporter's metrics) write no rows: the sink renders them
 * whole (OUT_SINK).
 */
static const struct {
	const char *name;
	enum out_format id;
	const struct out_format_ops *rows;
} formats[] = {
#define FORMAT(word, NAME) { #word, OUT_##NAME, &out_##word##_format },
#include "formats.def"
#undef FORMAT
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

int
output_parse_format(const char *arg, enum out_format *format)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (strcmp(arg, formats[i].name) == 0) {
			*format = formats[i].id;
			return 0;
		}
	return -1;
}

const char *
output_format_word(size_t i, bool *summarizes)
{
	if (i >= NFORMATS)
		return NULL;
	*summarizes = formats[i].rows->summary != NULL;
	return formats[i].name;
}

static const struct out_format_ops *
rows_format(enum out_format id)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (formats[i].id == id)
			return formats[i].rows;
	return NULL;
}

bool
output_format_summarizes(enum out_format format)
{
	const struct out_format_ops *rows = rows_format(format);

	return rows != NULL && rows->summary != NULL;
}

hrtime_t
output_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool
metrics_format(const struct output *o)
{
	return o->run.cfg.format == OUT_SINK;
}

/*
 * The metrics file, replaced whole: written to a temporary file in its
 * directory, then renamed over it, so that a reader (node_exporter's
 * textfile collector) sees the old file or the new one, never a part.
 * Run by the writer thread; 0 or an errno.
 */
static int
replace_file(void *arg)
{
	struct output *o = arg;
	const char *path = o->run.cfg.path;
	size_t len = strlen(path);
	char *tmp;
	int fd, err = 0;

	pthread_mutex_lock(&o->lock);
	out_buf_reset(&o->snap);
	o->whole->ops->render(o->whole->state, &o->snap, output_now());
	pthread_mutex_unlock(&o->lock);
	if ((tmp = malloc(len + 8)) == NULL)
		return ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".XXXXXX", 8);
	/* A name no one can foresee, made here (O_EXCL), never followed. */
	if ((fd = mkostemp(tmp, O_CLOEXEC | O_NOFOLLOW)) < 0) {
		err = errno;
		free(tmp);
		return err;
	}
	err = out_buf_write(&o->snap, fd);
	if (err == 0 && fchmod(fd, o->file_mode) != 0)
		err = errno;
	if (close(fd) != 0 && err == 0)
		err = errno;
	if (err == 0 && rename(tmp, path) != 0)
		err = errno;
	if (err != 0)
		(void)unlink(tmp);
	free(tmp);
	return err;
}

void
output_process(
    struct output *o, pid_t pid, const char *comm, const char *cgroup)
{
	int i;

	pthread_mutex_lock(&o->lock);
	for (i = 0; i < o->nsinks; i++)
		if (o->sinks[i].ops->process != NULL)
			o->sinks[i].ops->process(
			    o->sinks[i].state, pid, comm, cgroup);
	pthread_mutex_unlock(&o->lock);
}

void
output_cgroups_folded(struct output *o, unsigned n)
{
	pthread_mutex_lock(&o->lock);
	o->cgroups_folded = n;
	pthread_mutex_unlock(&o->lock);
}

/* A sink's thread (a scrape): fn with the output's counts, locked. */
static void
sink_locked(void *arg,
    void (*fn)(void *fn_arg, const struct out_sink_stats *stats), void *fn_arg)
{
	struct output *o = arg;
	struct out_sink_stats stats;

	pthread_mutex_lock(&o->lock);
	stats.rows_dropped = o->dropped;
	stats.cgroups_folded = o->cgroups_folded;
	fn(fn_arg, &stats);
	pthread_mutex_unlock(&o->lock);
}

/*
 * A path to write the stream to. open(2) never waits: a FIFO that no
 * process reads is refused at once, rather than holding the run, before
 * it starts, for ever; writes then block as they should. A file that is
 * there keeps what it holds until the run starts (output_title): a run
 * that fails to start leaves it as it was.
 */
static int
open_path(struct output *o, const char *path)
{
	struct stat st;
	int flags, err;

	o->path = path;
	o->fd = open(
	    path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NONBLOCK, 0666);
	o->created = o->fd >= 0;
	if (o->fd < 0 && errno == EEXIST) {
		o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
		o->empty_at_start =
		    o->fd >= 0 && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode);
	}
	if (o->fd < 0) {
		err = errno;
		if (err == ENXIO && stat(path, &st) == 0 &&
		    S_ISFIFO(st.st_mode))
			diag(NULL,
			    "cannot open '%s' for writing: a FIFO that "
			    "no process reads\n",
			    path);
		else
			diag(NULL, "cannot open '%s' for writing: %s\n", path,
			    strerror(err));
		return -1;
	}
	o->own_fd = true;
	if ((flags = fcntl(o->fd, F_GETFL)) < 0 ||
	    fcntl(o->fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		diag(NULL, "cannot write to '%s': %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
output_check_fd(int fd)
{
	int flags;

	if ((flags = fcntl(fd, F_GETFL)) < 0 ||
	    (flags & O_ACCMODE) == O_RDONLY) {
		diag(NULL, "cannot write to descriptor %d: %s\n", fd,
		    flags < 0 ? strerror(errno) :
				"it is open for reading only");
		return -1;
	}
	return 0;
}

/* The stream: the file, the descriptor given, or standard output. */
static int
open_stream(struct output *o)
{
	const struct out_config *cfg = &o->run.cfg;
	struct stat st;

	/*
	 * The metrics replace a regular file whole; anything else (a device
	 * such as /dev/null, a FIFO) is written to as a stream, never
	 * renamed over.
	 */
	if (cfg->path != NULL && metrics_format(o) &&
	    (stat(cfg->path, &st) != 0 || S_ISREG(st.st_mode))) {
		snprintf(o->name, sizeof(o->name), "'%s'", cfg->path);
		o->fd = -1;
		o->replace = true;
		return 0;
	}
	if (cfg->path != NULL) {
		snprintf(o->name, sizeof(o->name), "'%s'", cfg->path);
		return open_path(o, cfg->path);
	}
	o->fd = cfg->fd >= 0 ? cfg->fd : STDOUT_FILENO;
	if (cfg->fd >= 0)
		snprintf(o->name, sizeof(o->name), "descriptor %d", cfg->fd);
	else /* as each command has always said it */
		snprintf(o->name, sizeof(o->name), "%s",
		    cfg->tool == OUT_CPUTRACK ? "'stdout'" : "stdout");
	if (cfg->fd < 0)
		return 0;
	if (output_check_fd(o->fd) != 0)
		return -1;
	/* Ours alone: a command started does not inherit it. */
	if (o->fd > STDERR_FILENO)
		(void)fcntl(o->fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

/*
 * A file made for a run that never started is removed, if it is still
 * the one made: an empty file that this descriptor holds.
 */
static void
unmake_file(const struct output *o)
{
	struct stat held, named;

	if (o->created && o->own_fd && fstat(o->fd, &held) == 0 &&
	    held.st_size == 0 && lstat(o->path, &named) == 0 &&
	    held.st_dev == named.st_dev && held.st_ino == named.st_ino)
		(void)unlink(o->path);
}

/* Nothing is served from the sinks from now on. */
static void
stop_sinks(struct output *o)
{
	int i;

	for (i = 0; i < o->nsinks; i++)
		if (o->sinks[i].ops->stop != NULL)
			o->sinks[i].ops->stop(o->sinks[i].state);
}

static void
output_free(struct output *o)
{
	stop_sinks(o);
	(void)out_queue_finish(o->queue);
	unmake_file(o);
	while (o->nsinks > 0) {
		o->nsinks--;
		o->sinks[o->nsinks].ops->close(o->sinks[o->nsinks].state, NULL);
	}
	if (o->format_state != NULL)
		o->format->state_free(o->format_state);
	if (o->own_fd)
		(void)close(o->fd);
	out_buf_free(&o->rec);
	out_buf_free(&o->snap);
	out_run_fini(&o->run);
	while (o->nnoted > 0)
		free(o->noted[--o->nnoted]);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

/*
 * The sinks the run wants, of those the command handed in, open; the one
 * that renders the metrics formats whole, and whether one takes the
 * stream. 0, or -1 (said).
 */
static int
open_sinks(struct output *o, bool *stream_taken)
{
	const struct out_config *cfg = &o->run.cfg;
	const struct out_sink *use;
	struct sink *s;

	o->host = (struct out_sink_host) { sink_locked, o };
	for (use = cfg->sinks; use < cfg->sinks + cfg->nsinks; use++) {
		if (!use->ops->wanted(cfg, use->cfg))
			continue;
		if (o->nsinks == MAX_SINKS) {
			diag(NULL, "more than %d sinks for one run\n",
			    MAX_SINKS);
			return -1;
		}
		s = &o->sinks[o->nsinks];
		s->state = use->ops->open(&o->run, use->cfg, o->fd, &o->host);
		if (s->state == NULL)
			return -1;
		s->ops = use->ops;
		o->nsinks++;
		if (s->ops->takes_stream)
			*stream_taken = true;
		if (s->ops->render != NULL && o->whole == NULL)
			o->whole = s;
	}
	if (metrics_format(o) && o->whole == NULL) {
		diag(NULL, "the metrics formats are not in this command\n");
		return -1;
	}
	return 0;
}

struct output *
output_open(cpc_t *cpc, const struct out_config *cfg)
{
	bool stream_taken = false;
	struct output *o;
	mode_t mask;

	if ((o = calloc(1, sizeof(*o))) == NULL) {
		diag(NULL, "no memory available\n");
		return NULL;
	}
	pthread_mutex_init(&o->lock, NULL);
	o->fd = -1;
	if (out_run_init(&o->run, cpc, cfg) != 0) {
		diag(NULL, "no memory available\n");
		output_free(o);
		return NULL;
	}
	o->last = o->run.start;
	mask = umask(0);
	umask(mask);
	o->file_mode = 0666 & ~mask;
	if (open_stream(o) != 0) {
		output_free(o);
		return NULL;
	}
	/* A reader at a terminal is told what each column counts. */
	if (cfg->default_events || (cfg->title && o->fd >= 0 && isatty(o->fd)))
		o->run.cfg.name_pics = true;
	if (open_sinks(o, &stream_taken) != 0) {
		output_free(o);
		return NULL;
	}
	/* The file is there from the start: a bad path ends the run now. */
	if (o->replace && (errno = replace_file(o)) != 0) {
		diag(NULL, "cannot write '%s': %s\n", cfg->path,
		    strerror(errno));
		output_free(o);
		return NULL;
	}
	o->format = stream_taken ? NULL : rows_format(cfg->format);
	if (o->format != NULL && o->format->state_new != NULL &&
	    (o->format_state = o->format->state_new(&o->run)) == NULL) {
		diag(NULL, "no memory available\n");
		output_free(o);
		return NULL;
	}
	o->rows = o->format != NULL;
	o->queue = out_queue_new(o->fd, OUTPUT_QUEUE_BYTES, render,
	    o->replace ? replace_file : NULL, o);
	if (o->queue == NULL) {
		diag(NULL, "no memory available\n");
		output_free(o);
		return NULL;
	}
	if (cfg->paced)
		out_queue_pace(o->queue);
	return o;
}

/* Count a row that did not fit, by its label. */
static void
count_drop(struct output *o, const char *label)
{
	int i;

	o->dropped++;
	for (i = 0; i < MAX_KINDS && o->drops[i].label != NULL; i++)
		if (strcmp(o->drops[i].label, label) == 0)
			break;
	if (i < MAX_KINDS && o->drops[i].label == NULL)
		o->drops[i].label = label;
	o->drops[i].n++;
}

/*
 * A record goes to the writer, or is dropped: a row (kind REC_ROW), with
 * the text rendered so far before it, or that text alone (REC_TEXT).
 * Interval rows (tick) go first: the other rows, the totals among them,
 * have the queue's reserve too.
 */

/*
 * A row of one interval (a tick, a gap, a cgroup's): the queue may drop
 * it when full, as the totals that follow hold its counts too.
 */
static bool
interval_row(const char *label)
{
	return strcmp(label, "tick") == 0 || strcmp(label, "gap") == 0 ||
	    strcmp(label, "cgroup") == 0 || strcmp(label, "rmdir") == 0;
}

/* A row's name goes with it if the format shows it, or names a cgroup. */
static bool
wants_comm(const struct output *o, const struct out_row *r)
{
	return (o->format != NULL && o->format->wants_comm) ||
	    (o->run.cfg.cgroup_names && r->pid == 0);
}

/*
 * Whether the row's CPUs say which parts it holds: a cpustat row of a set
 * with parts (core PMUs', boxes'). Other rows leave them out of the
 * queue, which then carries no more than before.
 */
static bool
holds_parts(const struct output *o, const struct out_row *r)
{
	const struct spec *spec;

	if (r->cpus == NULL || r->setno < 0 || r->values == NULL)
		return false;
	spec = o->run.specs[r->setno];
	return spec->nparts > 0 || spec->nboxes > 0;
}

/* A row's values, metrics and CPUs, as parts after its block. */
static int
row_parts(struct output *o, struct row_rec *rec, struct iovec *parts)
{
	const struct out_row *r = &rec->row;
	const struct out_metric *first;
	int n = 0;

	if (r->values != NULL && r->not_counted == NULL) {
		rec->nvalues = (uint16_t)spec_nvalues(o->run.specs[r->setno]);
		parts[n++] = (struct iovec) { (void *)r->values,
			(size_t)rec->nvalues * sizeof(uint64_t) };
	}
	if (r->metrics != NULL) {
		rec->nmetrics =
		    (uint16_t)out_run_set_metrics(&o->run, r->setno, &first);
		parts[n++] = (struct iovec) { (void *)r->metrics,
			(size_t)rec->nmetrics * sizeof(*r->metrics) };
	}
	if (rec->has_cpus)
		parts[n++] =
		    (struct iovec) { (void *)r->cpus, sizeof(*r->cpus) };
	return n;
}

static void
queue_record(
    struct output *o, enum rec_kind kind, const struct out_row *r, hrtime_t t)
{
	struct row_rec rec = {
		.row = *r,
		.t = t,
		.kind = (uint8_t)kind,
		.has_cpus = holds_parts(o, r),
	};
	const char *strings[STRINGS] = {
		r->not_counted,
		r->partial,
		r->args,
		o->rec.len > 0 ? o->rec.data : NULL,
		wants_comm(o, r) ? r->comm : NULL,
		r->unit,
	};
	struct iovec parts[4 + STRINGS];
	int n, i;

	if (o->rec.failed) {
		count_drop(o, r->label);
		out_buf_reset(&o->rec);
		return;
	}
	n = 1 + row_parts(o, &rec, parts + 1);
	for (i = 0; i < STRINGS; i++)
		if (strings[i] != NULL) {
			rec.strings |= (uint8_t)(1u << i);
			parts[n++] = (struct iovec) { (void *)strings[i],
				strlen(strings[i]) + 1 };
		}
	parts[0] = (struct iovec) { &rec, sizeof(rec) };
	if (!out_queue_put(o->queue, parts, n, !interval_row(r->label)))
		count_drop(o, r->label);
	if (o->rec.len > 0)
		out_buf_reset(&o->rec);
}

/*
 * A record's row, its pointers set again to the parts after its block
 * (NULL where it has none); the text before it, or NULL.
 */
static void
read_parts(const struct row_rec *rec, struct out_row *row, const char **before)
{
	const char *at = (const char *)(rec + 1);
	const char **strings[STRINGS] = {
		&row->not_counted,
		&row->partial,
		&row->args,
		before,
		&row->comm,
		&row->unit,
	};
	int i;

	*row = rec->row;
	row->values = rec->nvalues > 0 ? (const void *)at : NULL;
	at += (size_t)rec->nvalues * sizeof(uint64_t);
	row->metrics = rec->nmetrics > 0 ? (const void *)at : NULL;
	at += (size_t)rec->nmetrics * sizeof(struct metric_value);
	row->cpus = rec->has_cpus ? (const void *)at : NULL;
	at += rec->has_cpus ? sizeof(cpu_set_t) : 0;
	for (i = 0; i < STRINGS; i++) {
		*strings[i] = NULL;
		if (rec->strings & (1u << i)) {
			*strings[i] = at;
			at += strlen(at) + 1;
		}
	}
}

/* The writer's: one record, as the format writes it. */
static void
render(void *arg, const void *data, size_t len, struct out_buf *text)
{
	const struct output *o = arg;
	const struct row_rec *rec = data;
	const char *before;
	struct out_row row;

	(void)len;
	read_parts(rec, &row, &before);
	if (before != NULL)
		out_buf_str(text, before);
	if (rec->kind == REC_TEXT)
		return;
	o->format->row(o->format_state, &o->run, text, &row, rec->t);
}

/* The writer and the server start with the run, never before a fork. */
static void
start_threads(struct output *o)
{
	int err, i;

	if (o->started)
		return;
	o->started = true;
	if ((err = out_queue_start(o->queue)) != 0)
		diag(NULL,
		    "cannot start the output thread: %s; rows are "
		    "written as they come\n",
		    strerror(err));
	for (i = 0; i < o->nsinks; i++)
		o->sinks[i].ops->start(o->sinks[i].state);
}

static void
write_head(struct output *o)
{
	/* A stream has one head, however many runs (-r) it holds. */
	if (o->format == NULL || (o->head_done && !o->format->head_each_run))
		return;
	o->head_done = true;
	o->format->head(o->format_state, &o->run, &o->rec);
	if (o->rec.len > 0)
		queue_record(
		    o, REC_TEXT, &(struct out_row) { .label = "title" }, 0);
}

hrtime_t
output_start_clock(struct output *o)
{
	hrtime_t start;

	pthread_mutex_lock(&o->lock);
	out_run_start(&o->run);
	o->last = start = o->run.start;
	if (o->title_wanted) {
		o->title_wanted = false;
		write_head(o);
	}
	start_threads(o);
	pthread_mutex_unlock(&o->lock);
	return start;
}

/*
 * The title goes first: at the start, or at once when the clock runs.
 * The run has started: the file given to it is its own from now on.
 */
void
output_title(struct output *o)
{
	pthread_mutex_lock(&o->lock);
	if (o->empty_at_start && ftruncate(o->fd, 0) != 0)
		o->incomplete = true;
	o->empty_at_start = o->created = false;
	if (o->started)
		write_head(o);
	else
		o->title_wanted = true;
	pthread_mutex_unlock(&o->lock);
}

/*
 * Say once, on stderr, that a row's counts ran part of the time: as they
 * were counted, or for a set of several groups ({...}), scaled to the
 * whole time (the least counted group's share is said).
 */
static void
note_multiplex(struct output *o, const struct out_row *row)
{
	bool scaled;

	if (row->setno < 0 || row->not_counted != NULL)
		return;
	scaled =
	    row->setno < o->run.nsets && o->run.specs[row->setno]->ngroups > 1;
	o->multiplex_noted = true;
	diag(NULL,
	    "note: set %d ran %.1f%% of its enabled time "
	    "(counters multiplexed, or the PMU held by a CPU-wide counter); "
	    "counts are %s\n",
	    row->setno,
	    row->enabled_ns ?
		100.0 * (double)row->running_ns / (double)row->enabled_ns :
		0.0,
	    scaled ? "scaled to the whole time, each by its group's share "
		     "(estimates)" :
		     "not scaled");
}

/* Who a row is about, for a message. */
static void
row_subject(
    const struct output *o, const struct out_row *row, char *buf, size_t size)
{
	if (o->run.cfg.tool == OUT_CPUSTAT && row->cpu >= 0)
		snprintf(buf, size, "cpu%d %s", row->cpu, row->label);
	else if (o->run.cfg.tool == OUT_CPUSTAT)
		snprintf(buf, size, "%s", row->label);
	else
		snprintf(buf, size, "pid %d lwp %d %s", (int)row->pid, row->lwp,
		    row->label);
}

/*
 * On stderr: each partial total, and each reason for values not
 * counted, once.
 */
static void
say_incomplete(struct output *o, const struct out_row *row)
{
	char who[96];
	int i;

	row_subject(o, row, who, sizeof(who));
	if (row->partial != NULL && row->not_counted == NULL) {
		diag(NULL, "%s of set %d is partial: %s\n", who, row->setno,
		    row->partial);
		return;
	}
	for (i = 0; i < o->nnoted; i++)
		if (strcmp(o->noted[i], row->not_counted) == 0)
			return;
	if (o->nnoted < MAX_NOTES &&
	    (o->noted[o->nnoted] = strdup(row->not_counted)) != NULL)
		o->nnoted++;
	diag(NULL, "%s of set %d: not counted: %s%s\n", who, row->setno,
	    row->not_counted,
	    o->nnoted < MAX_NOTES ? "" : " (and maybe more reasons, not said)");
}

void
output_summary(struct output *o, const struct out_summary *sum)
{
	pthread_mutex_lock(&o->lock);
	if (o->format != NULL && o->format->summary != NULL)
		o->format->summary(&o->run, &o->rec, sum);
	if (o->rec.len > 0)
		queue_record(
		    o, REC_TEXT, &(struct out_row) { .label = "summary" }, 0);
	pthread_mutex_unlock(&o->lock);
}

void
output_row(struct output *o, const struct out_row *row)
{
	struct out_row r = *row;
	hrtime_t when = r.at_start ? o->run.start : r.when, t;
	int i;

	/* A set enabled but never given a counter counted nothing. */
	if (r.setno >= 0 && r.not_counted == NULL && r.enabled_ns > 0 &&
	    r.running_ns == 0)
		r.not_counted =
		    "the kernel never let the set count "
		    "(multiplexed out, or the PMU held by a CPU-wide counter "
		    "such as cpustat's)";
	if (when == 0)
		when = output_now();
	pthread_mutex_lock(&o->lock);
	/* The metrics: worked out once, for the formats and the sinks. */
	r.metrics = out_run_row_metrics(&o->run, &r);
	/* Never earlier than the row before: see the top. */
	if (when < o->last)
		when = o->last;
	o->last = when;
	t = when - o->run.start;
	/* Said, unless the rows cannot be written at all any more. */
	if (r.setno >= 0 && !r.stopped_early &&
	    (r.not_counted != NULL || r.partial != NULL)) {
		o->incomplete = true;
		if (out_queue_error(o->queue) == 0)
			say_incomplete(o, &r);
	}
	for (i = 0; i < o->nsinks; i++)
		o->sinks[i].ops->row(o->sinks[i].state, &r, when);
	if (r.running_ns < r.enabled_ns && !o->multiplex_noted &&
	    o->format == &out_table_format)
		note_multiplex(o, &r);
	/* -r -n writes no row, but a row not counted is said all the same. */
	if (o->rows && !o->run.cfg.summary_only)
		queue_record(o, REC_ROW, &r, t);
	pthread_mutex_unlock(&o->lock);
}

/* cpustat -T u|d: the line goes with the row that follows. */
void
output_timestamp(struct output *o)
{
	if (o->format != &out_table_format || o->run.cfg.timestamp == 0)
		return;
	pthread_mutex_lock(&o->lock);
	out_table_timestamp(&o->run, &o->rec);
	pthread_mutex_unlock(&o->lock);
}

int
output_flush(struct output *o)
{
	const struct sink *s;
	int err;

	pthread_mutex_lock(&o->lock);
	if (!o->started)
		start_threads(o);
	for (s = o->sinks; s < o->sinks + o->nsinks; s++)
		if (s->ops->flush != NULL && s->ops->flush(s->state, &o->rec))
			queue_record(o, REC_TEXT,
			    &(struct out_row) { .label = s->ops->name }, 0);
	err = out_queue_kick(o->queue);
	if (o->replace && o->whole->ops->changed(o->whole->state))
		out_queue_replace(o->queue);
	if (err != 0 && err != EPIPE && !o->err_told)
		diag(NULL, "write error on %s: %s\n", o->name, strerror(err));
	if (err != 0)
		o->err_told = true;
	pthread_mutex_unlock(&o->lock);
	errno = err;
	return err != 0 ? -1 : 0;
}

/* The metrics to the stream, whole, at the end. 0 or an errno. */
static int
write_metrics(struct output *o)
{
	out_buf_reset(&o->rec);
	o->whole->ops->render(o->whole->state, &o->rec, output_now());
	return out_buf_write(&o->rec, o->fd);
}

/* The stream's end, after every row (the trace's: a whole document). */
static int
write_tail(struct output *o)
{
	out_buf_reset(&o->rec);
	o->format->tail(&o->rec);
	return out_buf_write(&o->rec, o->fd);
}

/* How many rows were dropped, of which kinds, on one line. */
static void
say_drops(struct output *o)
{
	struct out_buf b = { 0 };
	int i;

	for (i = 0; i <= MAX_KINDS; i++)
		if (o->drops[i].n > 0)
			out_buf_printf(&b, "%s %llu %s", b.len ? "," : "",
			    o->drops[i].n,
			    o->drops[i].label != NULL ? o->drops[i].label :
							"other");
	diag(NULL,
	    "%llu rows dropped: the output to %s did not keep up (a "
	    "queue of %d bytes was full):%s\n",
	    o->dropped, o->name, OUTPUT_QUEUE_BYTES,
	    b.data != NULL ? b.data : "");
	out_buf_free(&b);
}

/*
 * The run has ended by itself: the sinks that serve the final counts
 * wait, as their own options say (the exporter's --linger).
 */
void
output_linger(struct output *o)
{
	int i;

	if (o == NULL)
		return;
	for (i = 0; i < o->nsinks; i++)
		if (o->sinks[i].ops->linger != NULL)
			o->sinks[i].ops->linger(o->sinks[i].state);
}

/*
 * A sink that takes the stream ends before it: the terminal as it was,
 * then its last text on the stream. It is let go here.
 */
static void
close_stream_sinks(struct output *o)
{
	int i, n = 0;

	for (i = 0; i < o->nsinks; i++) {
		if (!o->sinks[i].ops->takes_stream) {
			if (o->whole == &o->sinks[i])
				o->whole = &o->sinks[n];
			o->sinks[n++] = o->sinks[i];
			continue;
		}
		o->sinks[i].ops->close(o->sinks[i].state, &o->rec);
		queue_record(o, REC_TEXT,
		    &(struct out_row) { .label = o->sinks[i].ops->name }, 0);
	}
	o->nsinks = n;
}

int
output_close(struct output *o)
{
	int err, status = 0;

	if (o == NULL)
		return 0;
	/* No request is served from here on. */
	stop_sinks(o);
	pthread_mutex_lock(&o->lock);
	if (o->replace)
		out_queue_replace(o->queue);
	close_stream_sinks(o);
	pthread_mutex_unlock(&o->lock);
	err = out_queue_finish(o->queue);
	o->queue = NULL;
	if (err == 0 && metrics_format(o) && o->fd >= 0)
		err = write_metrics(o);
	if (err == 0 && o->head_done && o->format->tail != NULL)
		err = write_tail(o);
	if (err != 0 && err != EPIPE && !o->err_told) {
		diag(NULL, "write error on %s: %s\n", o->name, strerror(err));
		status = 1;
	}
	if (o->incomplete)
		status = 1;
	if (o->dropped > 0) {
		say_drops(o);
		if (status == 0)
			status = OUTPUT_STATUS_DROPPED;
	}
	output_free(o);
	return status;
}
