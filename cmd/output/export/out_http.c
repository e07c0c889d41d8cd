/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The metrics over HTTP (see out_http.h): the HTTP module's code, which
 * the commands load at their first --listen (out_http_module.h).
 *
 * The listening socket is made when the server opens (listen_addr.c),
 * before anything starts, so that a taken port ends the run before a
 * command is started. libmicrohttpd serves on it from one thread of ours that
 * polls its epoll descriptor: every socket is non-blocking, so a slow client
 * holds no thread, only a connection.
 *
 * What a client can hold is bounded, so that no crowd of clients, however
 * slow and however many their sockets and addresses, keeps a scraper
 * from being answered. After each turn of the server, once the requests
 * that came in have been read (bounds_keep):
 *
 * - A connection is cut when its request has not come whole within
 *   OUT_HTTP_REQUEST_MS of its start or of its previous answer, or its
 *   answer has not been taken within OUT_HTTP_ANSWER_MS. libmicrohttpd's
 *   own timeout counts from the last byte, which a client that sends one
 *   byte now and then renews forever.
 * - A source keeps OUT_HTTP_PER_CLIENT connections (an IPv4 address, an
 *   IPv6 /64), not counting one younger than OUT_HTTP_GRACE_MS whose
 *   request has not come: on a busy machine a scraper that shares its
 *   address with a crowd may send its request turns after it connected.
 *   All clients together keep a share of the descriptor limit
 *   (conn_limit), password checks from sources that never failed not
 *   counted (the checker's places bound those, web_auth.h). Past a
 *   bound, what costs the least to drop goes (conn_rank): a connection
 *   that has sent no whole request in OUT_HTTP_GRACE_MS; then one idle
 *   that long after its answer; then (past the bound of all) one
 *   younger, whose request may be on its way; then (there too) one
 *   whose password waits for its check from a source whose passwords
 *   failed before;
 *   then an answer older than OUT_HTTP_BUSY_MS; among equals, that of a
 *   network (an IPv4 /24, an IPv6 /48) that holds more than a quarter
 *   of all, then that of the source that holds the most connections,
 *   the oldest first. Never cut are a connection accepted in the last
 *   turn (its request, sent as it connected, is read in the next), a
 *   request that has just come whole, an answer sent less than
 *   OUT_HTTP_GRACE_MS ago (its client may still be reading it: a cut
 *   may lose it), a password check for its own source's bound (the
 *   checker's places for the source bound those), and a password
 *   check from a source that never failed: a scraper, which sends its
 *   request as it connects, is answered, and a crowd that holds
 *   connections loses its oldest instead of keeping the door shut, as
 *   a bound that refused newcomers would (libmicrohttpd's stops
 *   accepting, and closes what it accepts past its own bound,
 *   OUT_HTTP_BACKSTOP times ours, a backstop only).
 * - A connection's request has OUT_HTTP_CONN_MEMORY bytes, and answers
 *   not yet taken OUT_HTTP_HELD_BYTES together (the first always goes),
 *   kept before an answer is rendered, by the size of the last one:
 *   room is made by cutting the connections whose answers have waited
 *   longest, for OUT_HTTP_BUSY_MS at least, to be taken (clients that
 *   ask and never read); without such, 503, and nothing rendered.
 *
 * Cutting is shutdown(2): libmicrohttpd reads the end of the stream and
 * closes the connection itself, in this same thread, after telling
 * conn_notify, so no descriptor is touched after it is closed. A
 * connection that never sent a request, cut for a bound, is counted out
 * at once but shut down OUT_HTTP_HOLD_MS later (conn_hold): a crowd
 * that connects again as soon as it is cut comes back once in that time,
 * not thousands of times a second.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "web_auth.h"
#include "web_token.h"
#include "webconfig.h"

#include "cpctools_version.h"
#include "diag.h"
#include "listen_addr.h"
#include "out_http_module.h"

#define OUT_HTTP_PER_CLIENT	 4     /* connections of one source */
#define OUT_HTTP_NET_SHARE	 4     /* a network's share: a quarter of all */
#define OUT_HTTP_FD_SHARE	 16    /* all clients: RLIMIT_NOFILE / 16, */
#define OUT_HTTP_MIN_CONNECTIONS 8     /* at least 8, */
#define OUT_HTTP_MAX_CONNECTIONS 256   /* at most 256 */
#define OUT_HTTP_REQUEST_MS	 5000  /* to send a whole request */
#define OUT_HTTP_ANSWER_MS	 10000 /* to take the whole answer */
#define OUT_HTTP_BUSY_MS	 1000  /* an answer this young is not cut */
#define OUT_HTTP_GRACE_MS	 250   /* for a first request to come */
#define OUT_HTTP_IDLE_S		 10    /* libmicrohttpd's: no byte at all */
#define OUT_HTTP_CONN_MEMORY	 16384 /* a connection's request buffers */
#define OUT_HTTP_HELD_BYTES	 ((size_t)64 << 20)
#define OUT_HTTP_TICK_MS	 250  /* deadlines are kept this closely */
#define OUT_HTTP_BACKSTOP	 8    /* libmicrohttpd's bound: 8 times ours */
#define OUT_HTTP_HOLD_MS	 5000 /* a cut idle connection, kept this long */

#define CLIENT_LEN 16

/*
 * A client: the connections from one source (an IPv4 address, an IPv6
 * /64), or from one network (an IPv4 /24, an IPv6 /48).
 */
struct client {
	struct client *next;
	unsigned char key[CLIENT_LEN];
	unsigned conns; /* connections, cut or not */
	unsigned live;	/* connections not cut */
};

/* A connection, as the bounds see it. */
struct conn {
	struct conn *prev, *next;
	struct client *client; /* its source */
	struct client *net;    /* its network */
	int fd;
	uint64_t born;	   /* ms: accepted */
	uint64_t since;	   /* ms: waiting, or answering, since */
	uint64_t deadline; /* ms: cut then */
	size_t held;	   /* bytes of its answer */
	unsigned answers;  /* requests answered on it */
	bool final;	   /* its answer holds the final counts */
	bool judged;	   /* it has had a turn to send its request */
	bool busy;	   /* a request is being answered */
	bool cut;	   /* counted out, not yet closed */
	uint64_t release;  /* ms: shut down then (0: already, or live) */
	struct MHD_Connection *mhd;
	bool checking; /* suspended for its password check */
	bool doubtful; /* ... from a source whose passwords failed */
	int verdict;   /* the check's (web_auth.h), atomic */
	int resumed;   /* the server's eventfd: a check is done */
};

/*
 * What cutting a connection costs, least first (see the top of this
 * file); RANK_KEEP: it is not cut. A password check waiting is never cut
 * for its own source's bound (own): the checker's places for each
 * source bound those (web_auth.h), so that a crowd on a scraper's own
 * address that churns its connections cannot push the scraper's check
 * out, and it waits its turn among theirs. Past the bound of all, one
 * from a source whose passwords failed goes; one from a source that
 * never failed stays, bounded by the checker's places for all.
 */
enum rank {
	RANK_NO_REQUEST, /* has sent no whole request in OUT_HTTP_GRACE_MS */
	RANK_IDLE,	 /* waits for its next request */
	RANK_YOUNG,	 /* its first request may be on its way */
	RANK_DOUBTFUL,	 /* its check, from a source that failed */
	RANK_LATE,	 /* an answer older than OUT_HTTP_BUSY_MS */
	RANK_KEEP,
};

/*
 * The order of cutting: by rank, then that of a network over its share,
 * then that of the source that holds the most connections, then the
 * oldest first.
 */
struct ranked {
	struct conn *k;
	enum rank rank;
	bool crowded;  /* its network holds more than its share */
	unsigned held; /* its source's connections */
};

struct out_http {
	int fd;
	out_render_fn *render;
	void *render_arg;
	struct web_config *web; /* --web-config, or NULL */
	struct web_auth *auth;	/* its users' passwords, or NULL */
	struct MHD_Daemon *daemon;
	pthread_t thread;
	bool serving;
	int wake;    /* eventfd: stop serving */
	int resumed; /* eventfd: a connection's check is done */
	int taken;   /* eventfd: a final answer was taken whole */
	int final;   /* atomic: the counts are final */
	struct client *clients;
	struct client *nets;
	struct conn *conns;    /* newest first */
	struct ranked *ranked; /* room for all, for bounds_keep */
	size_t nranked;
	unsigned live;	  /* connections not cut */
	unsigned limit;	  /* live connections, all clients */
	unsigned holding; /* cut, and shut down at their release */
	size_t held;	  /* bytes of answers not yet taken */
	size_t last;	  /* bytes of the last answer: the next one's size */
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
    const char *url, const char *method, const char *version,
    const char *upload, size_t *upload_size, void **request);

/*
 * Whether libmicrohttpd takes the certificate and key (a pair, in PEM):
 * a daemon that listens nowhere is started with them, and stopped, so
 * that a bad file is said before the run, not when serving would begin.
 */
static bool
tls_usable(struct out_http *h)
{
	struct MHD_Daemon *d;

	d = MHD_start_daemon(MHD_USE_TLS | MHD_USE_NO_LISTEN_SOCKET, 0, NULL,
	    NULL, answer, h, MHD_OPTION_HTTPS_MEM_KEY, h->web->key_pem,
	    MHD_OPTION_HTTPS_MEM_CERT, h->web->cert_pem,
	    MHD_OPTION_HTTPS_PRIORITIES, h->web->tls_priorities,
	    MHD_OPTION_END);
	if (d == NULL)
		return false;
	MHD_stop_daemon(d);
	return true;
}

/* The web configuration, read before anything listens: 0 or -1 (said). */
static int
web_open(struct out_http *h, const char *path)
{
	char why[1024];

	if (path == NULL)
		return 0;
	if ((h->web = web_config_load(path, why, sizeof(why))) == NULL) {
		diag(NULL, "%s\n", why);
		return -1;
	}
	if (h->web->cert_pem != NULL &&
	    MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		diag(NULL,
		    "--web-config '%s': this build's libmicrohttpd has no "
		    "TLS\n",
		    path);
		return -1;
	}
	if (h->web->cert_pem != NULL && !tls_usable(h)) {
		diag(NULL,
		    "--web-config '%s': its cert_file and key_file are not a "
		    "certificate and its key (PEM)\n",
		    path);
		return -1;
	}
	return 0;
}

static void http_close(struct out_http *h);

static struct out_http *
http_open(const char *arg, const char *web_config, out_render_fn *render,
    void *render_arg)
{
	struct out_http *h;

	if ((h = calloc(1, sizeof(*h))) == NULL) {
		diag(NULL, "no memory available\n");
		return NULL;
	}
	h->render = render;
	h->render_arg = render_arg;
	h->fd = -1;
	h->wake = -1;
	if ((h->taken = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		diag(NULL, "cannot listen on '%s': %s\n", arg, strerror(errno));
		free(h);
		return NULL;
	}
	if ((h->resumed = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		diag(NULL, "cannot listen on '%s': %s\n", arg, strerror(errno));
		close(h->taken);
		free(h);
		return NULL;
	}
	if (web_open(h, web_config) != 0) {
		http_close(h);
		return NULL;
	}
	if ((h->fd = listen_addr_bind(arg)) < 0) {
		http_close(h);
		return NULL;
	}
	return h;
}

static const char openmetrics_type[] =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
static const char prometheus_type[] =
    "text/plain; version=0.0.4; charset=utf-8";

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Who a peer is, for its bounds: its source (its IPv4 address, or its
 * IPv6 /64) in key, its network (its IPv4 /24, or its IPv6 /48) in net.
 */
static void
client_key(const struct sockaddr *sa, unsigned char key[CLIENT_LEN],
    unsigned char net[CLIENT_LEN])
{
	const struct sockaddr_in6 *six;
	const struct sockaddr_in *four;

	memset(key, 0, CLIENT_LEN);
	memset(net, 0, CLIENT_LEN);
	if (sa == NULL)
		return;
	if (sa->sa_family == AF_INET) {
		four = (const struct sockaddr_in *)(const void *)sa;
		memcpy(key, &four->sin_addr, 4);
		key[CLIENT_LEN - 1] = 4;
		memcpy(net, key, 3);
		net[CLIENT_LEN - 1] = 24;
	} else if (sa->sa_family == AF_INET6) {
		six = (const struct sockaddr_in6 *)(const void *)sa;
		if (IN6_IS_ADDR_V4MAPPED(&six->sin6_addr)) {
			memcpy(key, &six->sin6_addr.s6_addr[12], 4);
			key[CLIENT_LEN - 1] = 4;
			memcpy(net, key, 3);
			net[CLIENT_LEN - 1] = 24;
		} else {
			memcpy(key, &six->sin6_addr, 8);
			key[CLIENT_LEN - 1] = 6;
			memcpy(net, key, 6);
			net[CLIENT_LEN - 1] = 48;
		}
	}
}

/* The client of key in list, made if it is new: or NULL. */
static struct client *
client_get(struct client **list, const unsigned char key[CLIENT_LEN])
{
	struct client *cl;

	for (cl = *list; cl != NULL; cl = cl->next)
		if (memcmp(cl->key, key, CLIENT_LEN) == 0)
			return cl;
	if ((cl = calloc(1, sizeof(*cl))) == NULL)
		return NULL;
	memcpy(cl->key, key, CLIENT_LEN);
	cl->next = *list;
	*list = cl;
	return cl;
}

static void
client_put(struct client **list, struct client *cl)
{
	struct client **pp;

	if (--cl->conns > 0)
		return;
	for (pp = list; *pp != cl; pp = &(*pp)->next)
		continue;
	*pp = cl->next;
	free(cl);
}

/* A new connection's source and network, made where new: 0 or -1. */
static int
conn_clients(struct out_http *h, struct MHD_Connection *c, struct conn *k)
{
	const union MHD_ConnectionInfo *info;
	unsigned char key[CLIENT_LEN], net[CLIENT_LEN];

	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	client_key(info != NULL ? info->client_addr : NULL, key, net);
	if ((k->client = client_get(&h->clients, key)) == NULL)
		return -1;
	k->client->conns++;
	if ((k->net = client_get(&h->nets, net)) == NULL) {
		client_put(&h->clients, k->client);
		return -1;
	}
	k->net->conns++;
	return 0;
}

static struct conn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info;

	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return info != NULL ? info->socket_context : NULL;
}

/* Waiting for a request from now on. */
static void
conn_wait(struct conn *k, uint64_t now)
{
	k->busy = false;
	k->since = now;
	k->deadline = now + OUT_HTTP_REQUEST_MS;
}

/*
 * Count a connection out of the bounds. One that waits for its password
 * check is resumed, its check forgotten, so that it goes now and costs
 * the checker nothing.
 */
static void
conn_count_out(struct out_http *h, struct conn *k)
{
	/* Its answer is freed as libmicrohttpd closes it, in this turn. */
	h->held -= k->held;
	k->held = 0;
	if (k->checking && web_auth_cancel(h->auth, k)) {
		__atomic_store_n(
		    &k->verdict, WEB_AUTH_REFUSED, __ATOMIC_RELEASE);
		MHD_resume_connection(k->mhd);
	}
	k->cut = true;
	k->client->live--;
	k->net->live--;
	h->live--;
}

/* End a connection now (see the top of this file). */
static void
conn_cut(struct out_http *h, struct conn *k)
{
	(void)shutdown(k->fd, SHUT_RDWR);
	conn_count_out(h, k);
}

/*
 * End a connection that has never sent a request: counted out now, so
 * that it makes room at once, but shut down OUT_HTTP_HOLD_MS later, and
 * never answered meanwhile. A crowd that connects again as soon as it is
 * cut would otherwise come back at once, thousands of times a second,
 * each time to be cut again: held, it comes back once in
 * OUT_HTTP_HOLD_MS. No more are held than OUT_HTTP_BACKSTOP - 2 times
 * the bound of all, so that libmicrohttpd's own bound is not reached
 * through them (a scraper's connection would wait for a place): past
 * that, it is cut at once.
 */
static void
conn_hold(struct out_http *h, struct conn *k, uint64_t now)
{
	if (h->holding >= (OUT_HTTP_BACKSTOP - 2) * h->limit) {
		conn_cut(h, k);
		return;
	}
	conn_count_out(h, k);
	k->release = now + OUT_HTTP_HOLD_MS;
	h->holding++;
}

/* Shut down a held connection: its time is up. */
static void
conn_release(struct out_http *h, struct conn *k)
{
	(void)shutdown(k->fd, SHUT_RDWR);
	k->release = 0;
	h->holding--;
}

static enum rank
conn_rank(const struct conn *k, uint64_t now, bool own)
{
	/* Accepted in the last turn: its request is read in the next. */
	if (!k->judged)
		return RANK_KEEP;
	if (k->checking)
		return !own && k->doubtful ? RANK_DOUBTFUL : RANK_KEEP;
	if (k->busy)
		return now - k->since >= OUT_HTTP_BUSY_MS ? RANK_LATE :
							    RANK_KEEP;
	/*
	 * Just answered: its client may still be reading the answer, which
	 * a cut now may lose, as one in progress.
	 */
	if (k->answers > 0)
		return now - k->since >= OUT_HTTP_GRACE_MS ? RANK_IDLE :
							     RANK_KEEP;
	/* Its request may be on its way: only the bound of all cuts it. */
	if (now - k->born < OUT_HTTP_GRACE_MS)
		return own ? RANK_KEEP : RANK_YOUNG;
	return RANK_NO_REQUEST;
}

static int
rank_order(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->crowded != y->crowded)
		return x->crowded ? -1 : 1;
	if (x->held != y->held)
		return x->held > y->held ? -1 : 1;
	return x->k->since < y->k->since ? -1 : x->k->since > y->k->since;
}

/* A network's share of all, never less than a source's bound. */
static unsigned
net_bound(const struct out_http *h)
{
	unsigned n = h->limit / OUT_HTTP_NET_SHARE;

	return n > OUT_HTTP_PER_CLIENT ? n : OUT_HTTP_PER_CLIENT;
}

/*
 * Cut up to excess live connections of source cl (own), or of all (cl
 * NULL), the cheapest first. Past the bound of all, password checks from
 * sources that never failed are not counted: the checker's places bound
 * them.
 */
static void
cut_excess(struct out_http *h, const struct client *cl, unsigned excess,
    bool own, uint64_t now)
{
	struct ranked *r = h->ranked;
	unsigned checks = 0;
	struct conn *k;
	size_t n = 0, i;

	for (k = h->conns; k != NULL && n < h->nranked; k = k->next) {
		if (k->cut || (cl != NULL && k->client != cl))
			continue;
		checks += !own && k->checking && !k->doubtful;
		r[n].k = k;
		r[n].crowded = k->net->live > net_bound(h);
		r[n].held = k->client->live;
		if ((r[n].rank = conn_rank(k, now, own)) != RANK_KEEP)
			n++;
	}
	if (excess <= checks)
		return;
	excess -= checks;
	qsort(r, n, sizeof(*r), rank_order);
	for (i = 0; i < n && i < excess; i++)
		/* A keep-alive one, answered before, may be asked again. */
		if (r[i].rank <= RANK_YOUNG && r[i].k->answers == 0)
			conn_hold(h, r[i].k, now);
		else
			conn_cut(h, r[i].k);
}

/*
 * The bounds (see the top of this file): late connections are cut, then
 * those of each source beyond its own bound, then, beyond the bound of
 * all, the cheapest of all, a crowded network's first.
 */
static void
bounds_keep(struct out_http *h)
{
	struct client *cl;
	struct conn *k;
	uint64_t now = now_ms();

	for (k = h->conns; k != NULL; k = k->next)
		if (k->release != 0 && now >= k->release)
			conn_release(h, k);
		else if (!k->cut && now >= k->deadline)
			conn_cut(h, k);
	if (h->ranked == NULL)
		return;
	for (cl = h->clients; cl != NULL; cl = cl->next)
		if (cl->live > OUT_HTTP_PER_CLIENT)
			cut_excess(
			    h, cl, cl->live - OUT_HTTP_PER_CLIENT, true, now);
	if (h->live > h->limit)
		cut_excess(h, NULL, h->live - h->limit, false, now);
	for (k = h->conns; k != NULL; k = k->next)
		k->judged = true;
}

static void
conn_notify(void *cls, struct MHD_Connection *c, void **context,
    enum MHD_ConnectionNotificationCode code)
{
	struct out_http *h = cls;
	const union MHD_ConnectionInfo *info;
	struct conn *k = *context;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (k == NULL)
			return;
		if (k->prev != NULL)
			k->prev->next = k->next;
		else
			h->conns = k->next;
		if (k->next != NULL)
			k->next->prev = k->prev;
		if (!k->cut) {
			k->client->live--;
			k->net->live--;
			h->live--;
		}
		if (k->release != 0)
			h->holding--;
		client_put(&h->clients, k->client);
		client_put(&h->nets, k->net);
		h->held -= k->held;
		free(k);
		*context = NULL;
		return;
	}
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (info == NULL)
		return;
	if ((k = calloc(1, sizeof(*k))) == NULL || conn_clients(h, c, k) != 0) {
		/* It could not be bounded: it is not served. */
		free(k);
		(void)shutdown(info->connect_fd, SHUT_RDWR);
		return;
	}
	k->fd = info->connect_fd;
	k->mhd = c;
	k->resumed = h->resumed;
	k->born = now_ms();
	conn_wait(k, k->born);
	k->next = h->conns;
	if (h->conns != NULL)
		h->conns->prev = k;
	h->conns = k;
	k->client->live++;
	k->net->live++;
	h->live++;
	*context = k;
}

/* A request answered, or given up: the connection waits for the next. */
static void
request_done(void *cls, struct MHD_Connection *c, void **request,
    enum MHD_RequestTerminationCode toe)
{
	struct out_http *h = cls;
	uint64_t one = 1;
	struct conn *k;

	(void)request;
	if ((k = conn_of(c)) == NULL)
		return;
	if (k->final && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK &&
	    write(h->taken, &one, sizeof(one)) != sizeof(one))
		diag(NULL, "cannot tell that the final counts were taken: %s\n",
		    strerror(errno));
	k->final = false;
	h->held -= k->held;
	k->held = 0;
	k->answers++;
	conn_wait(k, now_ms());
}

/*
 * Room for an answer of len bytes among those not yet taken, made by
 * cutting the connections whose answers have waited longest to be
 * taken, each for OUT_HTTP_BUSY_MS at least (clients that ask and never
 * read), not that of self: whether there is room. The first answer
 * always has it.
 */
static bool
held_room(struct out_http *h, const struct conn *self, size_t len)
{
	uint64_t now = now_ms();
	struct conn *k, *oldest;

	while (h->held > 0 && h->held + len > OUT_HTTP_HELD_BYTES) {
		oldest = NULL;
		for (k = h->conns; k != NULL; k = k->next)
			if (k != self && !k->cut && k->held > 0 &&
			    now - k->since >= OUT_HTTP_BUSY_MS &&
			    (oldest == NULL || k->since < oldest->since))
				oldest = k;
		if (oldest == NULL)
			return false;
		conn_cut(h, oldest);
	}
	return true;
}

/* A short text answer, from a literal. */
static struct MHD_Response *
text_response(const char *text)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(
	    strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (r != NULL)
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
		    "text/plain; charset=utf-8");
	return r;
}

static enum MHD_Result
reply_text(struct MHD_Connection *c, unsigned status, const char *text,
    const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if ((r = text_response(text)) == NULL)
		return MHD_NO;
	if (allow != NULL)
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * The checker's verdict: the connection goes on with it, now, not at
 * the server's next tick: the server is woken.
 */
static void
auth_done(void *arg, enum web_auth_verdict verdict)
{
	struct conn *k = arg;
	int resumed = k->resumed; /* k may be gone once resumed */
	uint64_t one = 1;

	__atomic_store_n(&k->verdict, verdict, __ATOMIC_RELEASE);
	MHD_resume_connection(k->mhd);
	/* An eventfd takes 1 unless it is at its maximum: it is not. */
	if (write(resumed, &one, sizeof(one)) != sizeof(one))
		diag(
		    NULL, "cannot wake the HTTP server: %s\n", strerror(errno));
}

/*
 * A bearer token, where the web configuration names one, is judged here
 * and now, apart from the password checks (web_token.h): a right one is
 * let in, a wrong one refused, neither waiting for nor taking a place
 * among the checks; a request without one goes on to basic auth.
 */
static enum web_token_verdict
authorize_token(const struct out_http *h, struct MHD_Connection *c)
{
	if (!h->web->token)
		return WEB_TOKEN_NONE;
	return web_token_match(h->web->token_sha256,
	    MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
}

/*
 * With users or a token in the web configuration, only they are
 * answered. A user and password not known to have passed wait,
 * suspended, for the checker (web_auth.h); the request is answered again
 * when it is done. The connection is suspended before the check is
 * asked for: a resume that came before the suspension would be lost.
 */
static enum web_auth_verdict
authorize(const struct out_http *h, struct MHD_Connection *c, struct conn *k)
{
	enum web_auth_verdict v = WEB_AUTH_REFUSED;
	char *user, *password = NULL;

	if (!web_config_guarded(h->web))
		return WEB_AUTH_ALLOWED;
	if (k != NULL &&
	    (v = __atomic_exchange_n(&k->verdict, WEB_AUTH_NONE,
		 __ATOMIC_ACQUIRE)) != WEB_AUTH_NONE) {
		k->checking = false;
		return v;
	}
	switch (authorize_token(h, c)) {
	case WEB_TOKEN_RIGHT:
		return WEB_AUTH_ALLOWED;
	case WEB_TOKEN_WRONG:
		return WEB_AUTH_REFUSED;
	case WEB_TOKEN_NONE:
		break;
	}
	if (h->auth == NULL)
		return WEB_AUTH_REFUSED;
	user = MHD_basic_auth_get_username_password(c, &password);
	if (user == NULL || password == NULL || k == NULL)
		v = WEB_AUTH_REFUSED;
	else if (web_auth_known(h->auth, user, password))
		v = WEB_AUTH_ALLOWED;
	else {
		MHD_suspend_connection(c);
		k->checking = true;
		k->doubtful = web_auth_doubtful(h->auth, k->client->key);
		v = web_auth_check(h->auth, k->client->key, k->net->key, user,
		    password, auth_done, k);
		if (v != WEB_AUTH_PENDING) {
			__atomic_store_n(&k->verdict, v, __ATOMIC_RELEASE);
			MHD_resume_connection(c);
			v = WEB_AUTH_PENDING;
		}
	}
	MHD_free(user);
	MHD_free(password);
	return v;
}

/*
 * 401, with the schemes the configuration takes: Basic for its users,
 * Bearer for its token (each its own WWW-Authenticate, RFC 9110, 11.6.1).
 */
static enum MHD_Result
refuse(const struct out_http *h, struct MHD_Connection *c)
{
	const char *text = "the metrics need a user and password\n";
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (h->web->token)
		text = h->web->nusers > 0 ?
		    "the metrics need a user and password, or the token\n" :
		    "the metrics need the token\n";
	if ((r = text_response(text)) == NULL)
		return MHD_NO;
	if (h->web->token)
		(void)MHD_add_response_header(r,
		    MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		    "Bearer realm=\"cpctools\"");
	if (h->web->nusers > 0)
		ret = MHD_queue_basic_auth_fail_response(c, "cpctools", r);
	else
		ret = MHD_queue_response(c, MHD_HTTP_UNAUTHORIZED, r);
	MHD_destroy_response(r);
	return ret;
}

static void
auth_stats(const struct out_http *h, struct out_http_auth *out)
{
	struct web_auth_stats st;

	if (h->auth == NULL)
		return;
	web_auth_stats(h->auth, &st);
	out->on = true;
	out->checked = st.checked;
	out->remembered = st.remembered;
	out->busy = st.busy;
}

/* The mark of a request whose headers are in. */
static char request_seen;

/* /: what a person who opens the address in a browser looks for. */
static enum MHD_Result
reply_landing(struct out_http *h, struct MHD_Connection *c)
{
	static const char head[] =
	    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	    "<title>cpctools exporter</title></head>\n<body>"
	    "<h1>cpctools exporter</h1>\n"
	    "<p>The counters: <a href=\"/metrics\">/metrics</a></p>\n";
	static const char ended[] =
	    "<p>The run has ended: these are its final counts.</p>\n";
	static const char tail[] = "</body></html>\n";
	bool final = __atomic_load_n(&h->final, __ATOMIC_SEQ_CST) != 0;
	struct out_buf b = { 0 };
	struct MHD_Response *r;
	enum MHD_Result ret;

	out_buf_str(&b, head);
	if (final)
		out_buf_str(&b, ended);
	out_buf_str(&b, tail);
	if (b.failed || b.data == NULL) {
		out_buf_free(&b);
		return MHD_NO;
	}
	/* The response takes the buffer, and frees it when it is sent. */
	r = MHD_create_response_from_buffer(
	    b.len, b.data, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		out_buf_free(&b);
		return MHD_NO;
	}
	(void)MHD_add_response_header(
	    r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * /-/healthy and /-/ready, the paths Prometheus and its exporters answer
 * probes at: whether the server answers, and whether its counts go on
 * (not once the run has ended and these are its final ones). No series
 * and no password: a kubelet's probe has none, and its answer says
 * nothing a port scan would not.
 */
static bool
reply_probe(struct out_http *h, struct MHD_Connection *c, const char *url,
    enum MHD_Result *ret)
{
	bool final;

	if (strcmp(url, "/-/healthy") == 0) {
		*ret = reply_text(c, MHD_HTTP_OK, "healthy\n", NULL);
		return true;
	}
	if (strcmp(url, "/-/ready") != 0)
		return false;
	final = __atomic_load_n(&h->final, __ATOMIC_SEQ_CST) != 0;
	*ret = final ? reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			   "the run has ended\n", NULL) :
		       reply_text(c, MHD_HTTP_OK, "ready\n", NULL);
	return true;
}

/*
 * /metrics, for a request let in: the render, in the format the scraper
 * accepts, its size held against the connection k (NULL: not known).
 */
static enum MHD_Result
reply_metrics(struct out_http *h, struct MHD_Connection *c, struct conn *k,
    const char *method)
{
	struct out_http_auth stats = { 0 };
	struct out_buf b = { 0 };
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *accept;
	bool om, final;

	accept = MHD_lookup_connection_value(
	    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	om = accept != NULL &&
	    strstr(accept, "application/openmetrics-text") != NULL;
	auth_stats(h, &stats);
	/*
	 * Read before the render: the rows were all in before it was set.
	 * A HEAD request takes no counts.
	 */
	final = __atomic_load_n(&h->final, __ATOMIC_SEQ_CST) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_GET) == 0;
	/*
	 * Answers not yet taken are bounded together, before the render
	 * (its cost is what a crowd that asks and never reads would make
	 * the server pay): by the size of the last answer.
	 */
	if (!held_room(h, k, h->last))
		return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "too many answers not yet taken; try again\n", NULL);
	h->render(h->render_arg, &b, om, &stats);
	if (b.failed || b.data == NULL) {
		out_buf_free(&b);
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "no memory available\n", NULL);
	}
	h->last = b.len;
	/* The response takes the buffer, and frees it when it is sent. */
	r = MHD_create_response_from_buffer(
	    b.len, b.data, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		out_buf_free(&b);
		return MHD_NO;
	}
	if (k != NULL) {
		k->held += b.len;
		h->held += b.len;
		k->final = final;
	}
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    om ? openmetrics_type : prometheus_type);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size,
    void **request)
{
	struct out_http *h = cls;
	enum MHD_Result ret;
	struct conn *k;
	uint64_t now;

	(void)version;
	(void)upload;
	/* Held, cut: it is not answered (conn_hold). */
	if ((k = conn_of(c)) != NULL && k->release != 0)
		return MHD_NO;
	/* The request is in: its answer has its own deadline. */
	if ((k = conn_of(c)) != NULL && !k->busy) {
		now = now_ms();
		k->busy = true;
		k->since = now;
		k->deadline = now + OUT_HTTP_ANSWER_MS;
	}
	/*
	 * The first call has the headers: the answer waits for the second,
	 * when the request is whole. libmicrohttpd closes a connection
	 * answered at the first, and a scraper would connect again each time.
	 */
	if (*request == NULL &&
	    (strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
		strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)) {
		*request = &request_seen;
		return MHD_YES;
	}
	/* Another method is answered at once: its body is never read. */
	if (*request == NULL)
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "only GET and HEAD\n", "GET, HEAD");
	/* A body sent with GET is read, and ignored. */
	if (*upload_size != 0) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (reply_probe(h, c, url, &ret))
		return ret;
	switch (authorize(h, c, k)) {
	case WEB_AUTH_ALLOWED:
		break;
	case WEB_AUTH_PENDING:
		return MHD_YES;
	case WEB_AUTH_BUSY:
		return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "too many passwords to check; try again\n", NULL);
	default:
		return refuse(h, c);
	}
	if (strcmp(url, "/") == 0)
		return reply_landing(h, c);
	if (strcmp(url, "/metrics") != 0)
		return reply_text(c, MHD_HTTP_NOT_FOUND,
		    "the metrics are at /metrics\n", NULL);
	return reply_metrics(h, c, k, method);
}

/*
 * The server's thread: libmicrohttpd's epoll descriptor, polled at least
 * every OUT_HTTP_TICK_MS so that deadlines are kept, the descriptor the
 * password checks wake it with, and the one http_close wakes it with.
 */
static void *
serve(void *arg)
{
	struct out_http *h = arg;
	const union MHD_DaemonInfo *info;
	MHD_UNSIGNED_LONG_LONG mhd_ms;
	struct pollfd pfd[3];
	uint64_t n;
	int timeout;

	info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	pfd[0].fd = info->epoll_fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = h->wake;
	pfd[1].events = POLLIN;
	pfd[2].fd = h->resumed;
	pfd[2].events = POLLIN;
	for (;;) {
		timeout = OUT_HTTP_TICK_MS;
		if (MHD_get_timeout(h->daemon, &mhd_ms) == MHD_YES &&
		    mhd_ms < (MHD_UNSIGNED_LONG_LONG)timeout)
			timeout = (int)mhd_ms;
		if (poll(pfd, 3, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents != 0)
			break;
		/* Read before MHD_run: a later wake is not lost. */
		if (pfd[2].revents != 0 &&
		    read(h->resumed, &n, sizeof(n)) != sizeof(n))
			n = 0;
		(void)MHD_run(h->daemon);
		bounds_keep(h);
	}
	return NULL;
}

/* All clients together: a share of the descriptors, within bounds. */
static unsigned
conn_limit(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return OUT_HTTP_MIN_CONNECTIONS;
	n = rl.rlim_cur / OUT_HTTP_FD_SHARE;
	if (n < OUT_HTTP_MIN_CONNECTIONS)
		return OUT_HTTP_MIN_CONNECTIONS;
	if (n > OUT_HTTP_MAX_CONNECTIONS)
		return OUT_HTTP_MAX_CONNECTIONS;
	return (unsigned)n;
}

static int
http_start(struct out_http *h)
{
	bool tls = h->web != NULL && h->web->cert_pem != NULL;
	struct MHD_OptionItem tls_options[] = {
		{ tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0,
		    tls ? h->web->key_pem : NULL },
		{ tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0,
		    tls ? h->web->cert_pem : NULL },
		{ tls ? MHD_OPTION_HTTPS_PRIORITIES : MHD_OPTION_END, 0,
		    tls ? h->web->tls_priorities : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	sigset_t all, old;
	int err;

	if (h->daemon != NULL)
		return 0;
	h->limit = conn_limit();
	/* libmicrohttpd holds OUT_HTTP_BACKSTOP times as many at most. */
	h->nranked = OUT_HTTP_BACKSTOP * (size_t)h->limit;
	if ((h->ranked = calloc(h->nranked, sizeof(*h->ranked))) == NULL) {
		diag(NULL, "cannot start the HTTP server: %s\n",
		    strerror(errno));
		return -1;
	}
	if (h->web != NULL && h->web->nusers > 0 &&
	    (h->auth = web_auth_new(h->web)) == NULL) {
		diag(NULL, "cannot start the password checks: %s\n",
		    strerror(errno));
		return -1;
	}
	if ((h->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		diag(NULL, "cannot start the HTTP server: %s\n",
		    strerror(errno));
		return -1;
	}
	/*
	 * libmicrohttpd's own bound is a multiple of ours: connections cut
	 * but not yet closed still count there, and so do those kept past
	 * ours (a turn's newcomers, password checks), and it must go on
	 * accepting the newcomers that cutting makes room for.
	 */
	h->daemon = MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | (tls ? MHD_USE_TLS : 0),
	    0, NULL, NULL, answer, h, MHD_OPTION_LISTEN_SOCKET,
	    (MHD_socket)h->fd, MHD_OPTION_CONNECTION_LIMIT,
	    OUT_HTTP_BACKSTOP * h->limit, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned)OUT_HTTP_IDLE_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)OUT_HTTP_CONN_MEMORY, MHD_OPTION_NOTIFY_CONNECTION,
	    conn_notify, h, MHD_OPTION_NOTIFY_COMPLETED, request_done, h,
	    MHD_OPTION_ARRAY, tls_options, MHD_OPTION_END);
	if (h->daemon == NULL && tls) {
		diag(NULL,
		    "cannot start the HTTPS server: the certificate or the "
		    "key of '%s' cannot be used\n",
		    h->web->path);
		close(h->wake);
		h->wake = -1;
		return -1;
	}
	if (h->daemon == NULL) {
		diag(NULL, "cannot start the HTTP server\n");
		close(h->wake);
		h->wake = -1;
		return -1;
	}
	/* Its thread takes none of the commands' signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&h->thread, NULL, serve, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		diag(NULL, "cannot start the HTTP server: %s\n", strerror(err));
		MHD_stop_daemon(h->daemon); /* closes the socket too */
		h->daemon = NULL;
		h->fd = -1;
		close(h->wake);
		h->wake = -1;
		return -1;
	}
	h->serving = true;
	return 0;
}

static void
http_close(struct out_http *h)
{
	uint64_t one = 1;

	if (h == NULL)
		return;
	if (h->serving) {
		/* An eventfd takes 1 unless it is at its maximum: it is not. */
		if (write(h->wake, &one, sizeof(one)) != sizeof(one))
			diag(NULL, "cannot stop the HTTP server: %s\n",
			    strerror(errno));
		pthread_join(h->thread, NULL);
	}
	/*
	 * Then, with no request being answered, the checks waiting resume
	 * their connections, refused, before the daemon stops.
	 */
	web_auth_free(h->auth);
	h->auth = NULL;
	if (h->daemon != NULL)
		MHD_stop_daemon(h->daemon); /* closes the socket too */
	else if (h->fd >= 0)
		close(h->fd);
	if (h->wake >= 0)
		close(h->wake);
	close(h->resumed);
	close(h->taken);
	web_config_free(h->web);
	free(h->ranked);
	free(h);
}

/* Whether SIGINT, SIGTERM, SIGHUP or SIGQUIT waits, blocked. */
static bool
ending_signal_pending(void)
{
	sigset_t pending;

	return sigpending(&pending) == 0 &&
	    (sigismember(&pending, SIGINT) == 1 ||
		sigismember(&pending, SIGTERM) == 1 ||
		sigismember(&pending, SIGHUP) == 1 ||
		sigismember(&pending, SIGQUIT) == 1);
}

/*
 * Polled in steps: a signal the command blocks (to read it from a
 * descriptor of its own) does not interrupt poll, and is looked for
 * between them.
 */
static int
http_wait_final(struct out_http *h, long timeout_ms)
{
	struct pollfd p = { .fd = h->taken, .events = POLLIN };
	uint64_t end = now_ms() + (uint64_t)timeout_ms, now;
	int n;

	if (!h->serving)
		return 0;
	__atomic_store_n(&h->final, 1, __ATOMIC_SEQ_CST);
	while (!ending_signal_pending() && (now = now_ms()) < end) {
		n = poll(&p, 1, (int)(end - now < 100 ? end - now : 100));
		if (n > 0)
			return 1;
		if (n < 0 && errno == EINTR)
			return -1;
	}
	return now_ms() < end ? -1 : 0;
}

/* What a command finds in this module when it loads it. */
__attribute__((visibility("default")))
const struct out_http_module cpctools_http_module = {
	.abi = OUT_HTTP_MODULE_ABI,
	.version = CPCTOOLS_VERSION,
	.open = http_open,
	.start = http_start,
	.wait_final = http_wait_final,
	.close = http_close,
};
