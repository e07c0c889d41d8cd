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
 * - the checks waiting are bounded: beyond WEB_AUTH_QUEUE, a request is
 *   answered "busy" at once.
 *
 * Refusals are not remembered: wrong passwords, however many, cannot push
 * a right one out.
 */
#ifndef WEB_AUTH_H
#define WEB_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "webconfig.h"

#define WEB_AUTH_CACHE 64 /* users and passwords that passed */
#define WEB_AUTH_QUEUE 64 /* checks waiting */

enum web_auth_verdict {
	WEB_AUTH_NONE, /* no verdict yet */
	WEB_AUTH_ALLOWED,
	WEB_AUTH_REFUSED,
	WEB_AUTH_PENDING, /* done() will say */
	WEB_AUTH_BUSY,	  /* too many checks waiting */
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
 * Check user and password on the checker's thread: PENDING, and
 * done(arg, verdict) there later (it may come before this returns), or
 * BUSY when too many wait, or REFUSED when there is no memory.
 */
enum web_auth_verdict web_auth_check(struct web_auth *a, const char *user,
    const char *password, web_auth_done_fn *done, void *arg);

/*
 * Forget the check waiting for arg's connection, which has gone: true
 * when one was waiting (done() will not come), false when it is being
 * made or is done (done() comes, or came).
 */
bool web_auth_cancel(struct web_auth *a, const void *arg);

void web_auth_stats(struct web_auth *a, struct web_auth_stats *st);

/* Ends the thread; checks still waiting get done(arg, false). */
void web_auth_free(struct web_auth *a);

#endif /* WEB_AUTH_H */
