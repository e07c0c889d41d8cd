/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --listen's ADDR:PORT, [ADDR6]:PORT or :PORT (PORT 1 to 65535), and the
 * listening socket it names, made close-on-exec before anything starts,
 * so that a taken port ends the run before a command is started.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diag.h"
#include "listen_addr.h"

/*
 * Connections the kernel holds until they are taken: a crowd that
 * connects at once must not make it drop a scraper's (it would try again
 * only a second later); the kernel caps it (net.core.somaxconn).
 */
#define LISTEN_BACKLOG 4096

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
listen_addr_parse(const char *arg)
{
	char host[256], port[8];

	return split(arg, host, sizeof(host), port, sizeof(port));
}

static int
bind_one(const struct addrinfo *ai, bool dual)
{
	int fd, on = 1, off = 0, err;

	fd = socket(
	    ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (dual && ai->ai_family == AF_INET6)
		(void)setsockopt(
		    fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
	    listen(fd, LISTEN_BACKLOG) != 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int
listen_addr_bind(const char *arg)
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
	if ((rc = getaddrinfo(
		 host[0] != '\0' ? host : NULL, port, &hints, &res)) != 0) {
		diag(
		    NULL, "cannot listen on '%s': %s\n", arg, gai_strerror(rc));
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
