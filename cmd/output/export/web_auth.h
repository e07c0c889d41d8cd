/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Basic authentication for --listen, kept off the thread that serves
 * scrapes. A bcrypt check takes a quarter of a second at cost 12; done
 * where the scrapes are served, a few clients sending wrong passwords
 * would hold every scrape back. So:
 *
 * - a user and password that passed once are remembered (a SHA-256 of
 *   user, hash and password, never the password), and pass again at
 *   once (web_auth_known), as the exporter toolkit does;
 * - any other is checked on a thread of its own, one at a time, while
 *   its connection waits; the answer comes back through done();
 * - a source (a client's address) has one place among the checks
 *   waiting: a second from it, while its first waits, is answered
 *   "busy" at once. There are places for as many sources as the server
 *   takes connections, so that no flood of sources fills them all;
 * - the next check made is that of the source with the fewest checks
 *   made lately, the first come among equals: a source sending wrong
 *   passwords again and again goes behind one that comes for the first
 *   time, which waits for the check being made and those of other
 *   sources as new as it, and at most one check of each other source;
 * - a check whose connection went is still made, and its user and
 *   password remembered if they pass: the client's next try passes at
 *   once, however long the first waited.
 *
 * Refusals are not remembered: wrong passwords, however many, cannot push
 * a right one out.
 */
#ifndef WEB_AUTH_H
#define WEB_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "webconfig.h"

#define WEB_AUTH_CACHE	64  /* users and passwords that passed */
#define WEB_AUTH_QUEUE	256 /* checks waiting: the server's connections */
#define WEB_AUTH_SOURCE 16  /* bytes of a source's address */

enum web_auth_verdict {
	WEB_AUTH_NONE, /* no verdict yet */
	WEB_AUTH_ALLOWED,
	WEB_AUTH_REFUSED,
	WEB_AUTH_PENDING, /* done() will say */
	WEB_AUTH_BUSY,	  /* the source's check, or all, waiting */
};

/* Called on the checker's thread with the check's verdict. */
typedef void web_auth_done_fn(void *arg, bool allowed);

struct web_auth;

/* Counts for the exporter's own metrics. */
struct web_auth_stats {
	uint64_t remembered; /* passed from memory, no bcrypt */
	uint64_t checked;    /* bcrypt checks made */
	uint64_t busy;	     /* answered busy */
};

/* The checker for wc's users (wc outlives it); NULL with errno. */
struct web_auth *web_auth_new(const struct web_config *wc);

/* Whether user and password passed before: no check needed. */
bool web_auth_known(struct web_auth *a, const char *user, const char *password);

/*
 * Check user and password, from source, on the checker's thread:
 * PENDING, and done(arg, verdict) there later (it may come before this
 * returns), or BUSY when a check of source's waits (unless it is the
 * same user and password, left by a connection that went: this one
 * takes it over) or all places are taken, or REFUSED when there is no
 * memory.
 */
enum web_auth_verdict web_auth_check(struct web_auth *a,
    const unsigned char source[WEB_AUTH_SOURCE], const char *user,
    const char *password, web_auth_done_fn *done, void *arg);

/*
 * Let go of arg's connection, which has gone: true when its check was
 * waiting (it is still made, and remembered if it passes, but done()
 * will not come), false when it is being made or is done (done()
 * comes, or came).
 */
bool web_auth_cancel(struct web_auth *a, const void *arg);

void web_auth_stats(struct web_auth *a, struct web_auth_stats *st);

/* Ends the thread; checks still waiting get done(arg, false). */
void web_auth_free(struct web_auth *a);

#endif /* WEB_AUTH_H */
