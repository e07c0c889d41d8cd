/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A bearer token for --listen (web-config's bearer_token_file): a
 * scraper that sends "Authorization: Bearer TOKEN" is let in, or
 * refused, at once, on the thread that serves, with no bcrypt and no
 * place among the password checks (web_auth.h), as kube-rbac-proxy
 * answers by a token from a Secret. A token is long and random, not a
 * password a person chose, so it needs no slow hash to resist guessing:
 * no flood of wrong passwords, however many its sources, delays it, a
 * scraper's very first try included.
 *
 * Only the token's SHA-256 is kept, and a token sent is compared by its
 * own, in constant time: neither the time nor a length tells how much
 * of a wrong token was right.
 */
#ifndef WEB_TOKEN_H
#define WEB_TOKEN_H

#include <stddef.h>

#define WEB_TOKEN_DIGEST 32 /* bytes of a SHA-256 */
#define WEB_TOKEN_MIN	 32 /* characters: at least 192 random bits */

enum web_token_verdict {
	WEB_TOKEN_NONE,	 /* not a bearer token: for basic auth to say */
	WEB_TOKEN_RIGHT, /* the token */
	WEB_TOKEN_WRONG, /* a bearer token, not the one */
};

/*
 * The token that text (a file's contents, a final newline allowed)
 * holds, into digest: 0, or -1 with why, which never quotes the text
 * (the file may be one the daemon was pointed at by mistake).
 */
int web_token_take(const char *text, unsigned char digest[WEB_TOKEN_DIGEST],
    char *why, size_t whylen);

/* What an Authorization header's value (or NULL) says of digest's token. */
enum web_token_verdict web_token_match(
    const unsigned char digest[WEB_TOKEN_DIGEST], const char *authorization);

#endif /* WEB_TOKEN_H */
