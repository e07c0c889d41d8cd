/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Basic authentication for --listen, kept off the thread that serves
 * scrapes. A bcrypt check takes a quarter of a second at cost 12; done
 * where the scrapes are served, a few clients sending wrong passwords
 * would hold every scrape back. So:
 *
 * - a user and password that passed once are remembered (a SHA-256 of
 *   user, hash and password, never the password), and pass again at
 *   once (web_auth_known), as the exporter toolkit does; one refused
 *   once is refused again at once, in a table of its own: old scrapers
 *   that keep an old password after a rotation cost one check, not one
 *   each;
 * - any other is checked on a thread of its own, one at a time, while
 *   its connection waits; the answer comes back through done();
 * - a source (a client's address) has WEB_AUTH_PER_SOURCE places among
 *   the checks waiting, more than the connections the server leaves it,
 *   so that a scraper whose address others share (and send wrong
 *   passwords from) waits its turn among theirs rather than being told
 *   "busy"; past them a source's next check is. There are places for as
 *   many sources as the server takes connections; when all are taken, a
 *   newcomer takes the place of one drawn at random among those that
 *   stand last, if it stands no further back, so that a flood of
 *   sources new to the server can delay a scraper new to it too, but
 *   not keep it out;
 * - the next check made is that of a client that still waits for it
 *   (one whose connection went is made after every other), then of a
 *   source whose passwords failed the
 *   fewest times lately: a source that failed waits behind every source
 *   that never did, and further back the more it fails; then of a
 *   network (an IPv4 /24, an IPv6 /48) whose sources failed the fewest
 *   times; then of a source that asked the fewest times since it last
 *   passed (a crowd told "busy" asks again and again, a scraper once).
 *   Among equals the newest come and the first come take turns, so that
 *   a new right password (a rotation's, on a fresh server that a crowd
 *   of sources new to it floods) waits for one check besides the one
 *   being made, and none waits for more than twice its turn;
 * - a check whose connection went is still made, and its user and
 *   password remembered if they pass: the client's next try passes at
 *   once, however long the first waited.
 *
 * Refusals are kept apart from passes: wrong passwords, however many,
 * cannot push a right one out.
 */
#ifndef WEB_AUTH_H
#define WEB_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "webconfig.h"

#define WEB_AUTH_CACHE	    64	/* users and passwords that passed */
#define WEB_AUTH_REFUSALS   256 /* and that were refused */
#define WEB_AUTH_QUEUE	    256 /* checks waiting: the server's connections */
#define WEB_AUTH_PER_SOURCE 8	/* of them, a source's */
#define WEB_AUTH_SEEN	    512 /* sources whose past is kept */
#define WEB_AUTH_LATELY_S   10	/* the past weighs half as much each */
#define WEB_AUTH_SOURCE	    16	/* bytes of a source's address */

enum web_auth_verdict {
	WEB_AUTH_NONE, /* no verdict yet */
	WEB_AUTH_ALLOWED,
	WEB_AUTH_REFUSED,
	WEB_AUTH_PENDING, /* done() will say */
	WEB_AUTH_BUSY,	  /* the source's check, or all, waiting */
};

/*
 * Called with the check's verdict: ALLOWED, REFUSED, or BUSY when its
 * place went to a check that stands before it.
 */
typedef void web_auth_done_fn(void *arg, enum web_auth_verdict verdict);

struct web_auth;

/* Counts for the exporter's own metrics. */
struct web_auth_stats {
	uint64_t remembered; /* passed from memory, no bcrypt */
	uint64_t checked;    /* bcrypt checks made */
	uint64_t busy;	     /* answered busy */
	uint64_t refused;    /* refused from memory, no bcrypt */
};

/* The checker for wc's users (wc outlives it); NULL with errno. */
struct web_auth *web_auth_new(const struct web_config *wc);

/* Whether user and password passed before: no check needed. */
bool web_auth_known(struct web_auth *a, const char *user, const char *password);

/*
 * Check user and password, from source on network net (distinct keys:
 * an IPv4 /24, an IPv6 /48), on the checker's thread:
 * PENDING, and done(arg, verdict) there later (it may come before this
 * returns), or BUSY when WEB_AUTH_PER_SOURCE checks of source's wait
 * (unless one is the same user and password, left by a connection that
 * went: this one takes it over) or all places are taken by checks that
 * stand before it (one drawn among those that stand last, after it or
 * as it does, gives its place, and its done() says BUSY, on this
 * thread), or REFUSED when there is no
 * memory or when user and password were refused before (at once, no
 * check, done() not called).
 */
enum web_auth_verdict web_auth_check(struct web_auth *a,
    const unsigned char source[WEB_AUTH_SOURCE],
    const unsigned char net[WEB_AUTH_SOURCE], const char *user,
    const char *password, web_auth_done_fn *done, void *arg);

/* Whether source's passwords failed lately. */
bool web_auth_doubtful(
    struct web_auth *a, const unsigned char source[WEB_AUTH_SOURCE]);

/*
 * Let go of arg's connection, which has gone: true when its check was
 * waiting (it is still made, and remembered if it passes, but done()
 * will not come), false when it is being made or is done (done()
 * comes, or came).
 */
bool web_auth_cancel(struct web_auth *a, const void *arg);

void web_auth_stats(struct web_auth *a, struct web_auth_stats *st);

/* Ends the thread; checks still waiting get done(arg, REFUSED). */
void web_auth_free(struct web_auth *a);

#endif /* WEB_AUTH_H */
