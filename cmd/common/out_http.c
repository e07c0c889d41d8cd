/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The metrics over HTTP (see out_http.h).
 *
 * The listening socket is made here, close-on-exec, before anything
 * starts, so that a taken port ends the run before a command is started;
 * libmicrohttpd serves on it. At most OUT_HTTP_CONNECTIONS connections
 * are served at once, and one that sends nothing is closed after
 * OUT_HTTP_TIMEOUT seconds.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef CPCTOOLS_HTTP
#include <microhttpd.h>
#endif

#include "diag.h"
#include "out_http.h"

#define OUT_HTTP_CONNECTIONS	16
#define OUT_HTTP_TIMEOUT	10
#define OUT_HTTP_BACKLOG	16

struct out_http {
	int		 fd;
	out_render_fn	*render;
	void		*render_arg;
#ifdef CPCTOOLS_HTTP
	struct MHD_Daemon *daemon;
#endif
};

bool
out_http_available(void)
{
#ifdef CPCTOOLS_HTTP
	return true;
#else
	return false;
#endif
}

/* Split ADDR:PORT; host is "" for all addresses. 0, or -1. */
static int
split(const char *arg, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon, *close;
	size_t n;
	long p;
	char *end;

	if (arg[0] == '[') {
		if ((close = strchr(arg, ']')) == NULL || close[1] != ':')
			return -1;
		colon = close + 1;
		arg++;
		n = (size_t)(close - arg);
		if (n == 0)
			return -1;
	} else {
		if ((colon = strrchr(arg, ':')) == NULL)
			return -1;
		n = (size_t)(colon - arg);
		/* An IPv6 address needs its brackets. */
		if (memchr(arg, ':', n) != NULL)
			return -1;
	}
	if (n >= hostlen || strlen(colon + 1) >= portlen)
		return -1;
	memcpy(host, arg, n);
	host[n] = '\0';
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno != 0 ||
	    p < 1 || p > 65535)
		return -1;
	snprintf(port, portlen, "%ld", p);
	return 0;
}

int
out_http_parse(const char *arg)
{
	char host[256], port[8];

	return split(arg, host, sizeof(host), port, sizeof(port));
}

static int
bind_one(const struct addrinfo *ai, bool dual)
{
	int fd, on = 1, off = 0, err;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
	    ai->ai_protocol);
	if (fd < 0)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (dual && ai->ai_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off,
		    sizeof(off));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
	    listen(fd, OUT_HTTP_BACKLOG) != 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/*
 * The listening socket. With no address, every address: IPv6 taking
 * IPv4 too where it can, or else IPv4.
 */
static int
listen_on(const char *arg)
{
	struct addrinfo hints, *res, *ai;
	char host[256], port[8];
	int fd = -1, rc, pass, err = EADDRNOTAVAIL;

	if (split(arg, host, sizeof(host), port, sizeof(port)) != 0) {
		diag(NULL, "invalid listen address '%s'\n", arg);
		return -1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((rc = getaddrinfo(host[0] != '\0' ? host : NULL, port, &hints,
	    &res)) != 0) {
		diag(NULL, "cannot listen on '%s': %s\n", arg,
		    gai_strerror(rc));
		return -1;
	}
	for (pass = 0; pass < 2 && fd < 0; pass++)
		for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
			if ((ai->ai_family == AF_INET6) != (pass == 0))
				continue;
			if ((fd = bind_one(ai, host[0] == '\0')) < 0)
				err = errno;
		}
	freeaddrinfo(res);
	if (fd < 0)
		diag(NULL, "cannot listen on '%s': %s\n", arg, strerror(err));
	return fd;
}

struct out_http *
out_http_open(const char *arg, out_render_fn *render, void *render_arg)
{
	struct out_http *h;

	if (!out_http_available()) {
		diag(NULL, "cannot listen on '%s': this build has no HTTP "
		    "server (libmicrohttpd)\n", arg);
		return NULL;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		diag(NULL, "no memory available\n");
		return NULL;
	}
	h->render = render;
	h->render_arg = render_arg;
	if ((h->fd = listen_on(arg)) < 0) {
		free(h);
		return NULL;
	}
	return h;
}

#ifdef CPCTOOLS_HTTP

static const char openmetrics_type[] =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
static const char prometheus_type[] =
    "text/plain; version=0.0.4; charset=utf-8";

static enum MHD_Result
reply_text(struct MHD_Connection *c, unsigned status, const char *text,
    const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
	    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "text/plain; charset=utf-8");
	if (allow != NULL)
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **request)
{
	struct out_http *h = cls;
	struct out_buf b = { 0 };
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *accept;
	bool om;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)request;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "only GET and HEAD\n", "GET, HEAD");
	if (strcmp(url, "/metrics") != 0)
		return reply_text(c, MHD_HTTP_NOT_FOUND,
		    "the metrics are at /metrics\n", NULL);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_ACCEPT);
	om = accept != NULL &&
	    strstr(accept, "application/openmetrics-text") != NULL;
	h->render(h->render_arg, &b, om);
	if (b.failed || b.data == NULL) {
		out_buf_free(&b);
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "no memory available\n", NULL);
	}
	/* The response takes the buffer, and frees it when it is sent. */
	r = MHD_create_response_from_buffer(b.len, b.data,
	    MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		out_buf_free(&b);
		return MHD_NO;
	}
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    om ? openmetrics_type : prometheus_type);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

int
out_http_start(struct out_http *h)
{
	sigset_t all, old;

	if (h->daemon != NULL)
		return 0;
	/* Its threads take none of the commands' signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	h->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
	    MHD_USE_AUTO, 0, NULL, NULL, answer, h,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)h->fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)OUT_HTTP_CONNECTIONS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)OUT_HTTP_TIMEOUT,
	    MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (h->daemon == NULL) {
		diag(NULL, "cannot start the HTTP server\n");
		return -1;
	}
	return 0;
}

void
out_http_close(struct out_http *h)
{
	if (h == NULL)
		return;
	if (h->daemon != NULL)
		MHD_stop_daemon(h->daemon);	/* closes the socket too */
	else
		close(h->fd);
	free(h);
}

#else /* no libmicrohttpd: out_http_open never succeeds */

int
out_http_start(struct out_http *h)
{
	(void)h;
	return -1;
}

void
out_http_close(struct out_http *h)
{
	if (h == NULL)
		return;
	close(h->fd);
	free(h);
}

#endif
