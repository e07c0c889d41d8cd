/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the HTTP server of --listen (out_http.c over
 * libmicrohttpd), as a client reaches it: the input's bytes after the
 * first are sent on a connection to the server, whole, then the
 * connection's sending half is shut, and the answer read (drain). Bit 0 of the
 * first byte chooses the server: one that answers anybody, or one with
 * --web-config's basic_auth_users (user prometheus, password s3cret, bcrypt of
 * the least cost) that checks passwords. TLS is left out: a client's bytes
 * would be TLS records, read by GnuTLS before any of ours. Each input comes
 * from an address of its own in 127/8, so that the bounds per source (which cut
 * and make wait) keep what one input does from deciding the next. A crash or a
 * sanitizer's report, in either thread, is a finding; so is a server
 * that stops answering (libFuzzer's -timeout).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "out_buf.h"
#include "out_http_module.h"

#define ANSWER_WAIT_MS 100 /* for an answer to begin */
#define GAP_MS	       20  /* for more of it */

extern const struct out_http_module cpctools_http_module;

/* The password of user prometheus, s3cret, in bcrypt of cost 4. */
static const char web_yml[] =
    "basic_auth_users:\n"
    "  prometheus: $2b$04$HFCTZyPPiU476MzcAciY9ulM7uZ6b034KGbqHqwZobC/sBhfZNBC2\n";

static char dir[] = "/tmp/fuzz_http.XXXXXX";
static char web_path[sizeof(dir) + 16];
static struct out_http *servers[2];
static struct sockaddr_in at[2];
static int report_fd = 2; /* stderr as it was before -close_fd_mask */

static void
render(void *arg, struct out_buf *b, bool openmetrics,
    const struct out_http_auth *auth)
{
	(void)arg;
	out_buf_str(b, "# TYPE fuzz_rows counter\nfuzz_rows_total 1\n");
	if (auth != NULL && auth->on)
		out_buf_printf(b, "fuzz_checked_total %llu\n", auth->checked);
	if (openmetrics)
		out_buf_str(b, "# EOF\n");
}

/*
 * The harness's own failure, not a finding of the server's: said on the
 * stderr libFuzzer had before -close_fd_mask=2 closed it, so that the log
 * names it.
 */
static void
die(const char *what)
{
	dprintf(report_fd, "fuzz_http: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A port free now on 127.0.0.1, the kernel's choice. */
static unsigned
free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	unsigned port;
	int fd;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
		die("a free port");
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

static void
server_open(int which, const char *web_config)
{
	char arg[64];

	for (int tries = 0; tries < 20 && servers[which] == NULL; tries++) {
		unsigned port = free_port();

		snprintf(arg, sizeof(arg), "127.0.0.1:%u", port);
		servers[which] =
		    cpctools_http_module.open(arg, web_config, render, NULL);
		at[which].sin_family = AF_INET;
		at[which].sin_port = htons((uint16_t)port);
		at[which].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	if (servers[which] == NULL ||
	    cpctools_http_module.start(servers[which]) != 0)
		die("the server");
}

static void
clean(void)
{
	for (int i = 0; i < 2; i++)
		if (servers[i] != NULL)
			cpctools_http_module.close(servers[i]);
	(void)unlink(web_path);
	(void)rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	diag_init("cputrack");
	/* LLVMFuzzerInitialize runs before libFuzzer applies -close_fd_mask. */
	if ((report_fd = fcntl(2, F_DUPFD_CLOEXEC, 3)) < 0)
		report_fd = 2;
	if (mkdtemp(dir) == NULL)
		die("mkdtemp");
	snprintf(web_path, sizeof(web_path), "%s/web.yml", dir);
	if ((fd = open(web_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		 0600)) < 0 ||
	    write(fd, web_yml, strlen(web_yml)) != (ssize_t)strlen(web_yml) ||
	    close(fd) != 0)
		die(web_path);
	atexit(clean);
	server_open(0, NULL);
	server_open(1, web_path);
	return 0;
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A source of its own for each input: 127.1.0.1 and on. */
static void
bind_source(int fd)
{
	static uint32_t next;
	struct sockaddr_in sa = { .sin_family = AF_INET };

	next = next % 0xfffe + 1;
	sa.sin_addr.s_addr = htonl(0x7f010000u | next);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		die("bind 127.1/16");
}

/*
 * Connect, through libFuzzer's SIGALRM: it comes every few seconds, with
 * no SA_RESTART, and a connect that waits (the server's queue full on a
 * loaded machine: the SYN is sent again after a second) would end in
 * EINTR. The attempt goes on in the kernel; its outcome is read once the
 * socket is writable. A server that never takes it is libFuzzer's
 * -timeout to find.
 */
static void
connect_to(int fd, const struct sockaddr_in *to)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int error = 0;

	if (connect(fd, (const struct sockaddr *)to, sizeof(*to)) == 0)
		return;
	if (errno != EINTR)
		die("connect");
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			die("poll for connect");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0)
		die("getsockopt SO_ERROR");
	if (error != 0) {
		errno = error;
		die("connect");
	}
}

/*
 * Read the answer: to its end, or until ANSWER_WAIT_MS pass with nothing
 * or GAP_MS after its last bytes. libmicrohttpd keeps a connection open
 * though the client has shut its sending half, kept alive after an
 * answer or with a request not yet whole, until the server's deadlines
 * cut it (seconds): waiting for those would make each input cost
 * seconds. The server reads what comes as it comes: leaving early loses
 * no part of the request's parsing, only the reading of a late answer.
 */
static void
drain(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec t0;
	char buf[4096];
	long wait = ANSWER_WAIT_MS, left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((left = wait - ms_since(&t0)) > 0) {
		if (poll(&p, 1, (int)left) <= 0)
			return;
		if (read(fd, buf, sizeof(buf)) <= 0)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		wait = GAP_MS;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sockaddr_in *to;
	size_t sent = 1;
	ssize_t n;
	int fd;

	if (size < 1)
		return 0;
	to = &at[data[0] & 1];
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		die("socket");
	bind_source(fd);
	connect_to(fd, to);
	/* The server may cut a request it will not read: then it ends. */
	while (sent < size) {
		n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	(void)shutdown(fd, SHUT_WR);
	drain(fd);
	close(fd);
	return 0;
}
