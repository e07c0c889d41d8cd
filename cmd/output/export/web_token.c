/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bearer tokens (see web_token.h): RFC 6750's "Bearer" scheme, its token
 * the b64token of RFC 6750, section 2.1.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <sha2.h>

#include "web_token.h"

/* A character of a b64token, but the '=' that may end it. */
static bool
token_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || strchr("-._~+/", ch) != NULL;
}

/* The length of the b64token that s starts with (0: none). */
static size_t
token_span(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0' && token_char(s[n]))
		n++;
	if (n == 0)
		return 0;
	while (s[n] == '=')
		n++;
	return n;
}

/* Whether s, from here on, is white space alone. */
static bool
blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

static void
digest_of(const char *token, size_t len, unsigned char digest[WEB_TOKEN_DIGEST])
{
	SHA2_CTX ctx;

	SHA256Init(&ctx);
	SHA256Update(&ctx, (const void *)token, len);
	SHA256Final(digest, &ctx);
	explicit_bzero(&ctx, sizeof(ctx));
}

int
web_token_take(const char *text, unsigned char digest[WEB_TOKEN_DIGEST],
    char *why, size_t whylen)
{
	size_t len = token_span(text);

	if (len == 0 || !blank(text + len)) {
		snprintf(why, whylen,
		    "must hold one token alone: letters, digits and -._~+/, "
		    "then '=' if any");
		return -1;
	}
	if (len < WEB_TOKEN_MIN) {
		snprintf(why, whylen,
		    "holds a token of %zu characters: one of %d or more is "
		    "needed, random (head -c 32 /dev/urandom | base64)",
		    len, WEB_TOKEN_MIN);
		return -1;
	}
	digest_of(text, len, digest);
	return 0;
}

/* Whether a and b are the same, in a time that does not say where not. */
static bool
same_digest(const unsigned char *a, const unsigned char *b)
{
	unsigned char diff = 0;
	size_t i;

	for (i = 0; i < WEB_TOKEN_DIGEST; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

enum web_token_verdict
web_token_match(
    const unsigned char digest[WEB_TOKEN_DIGEST], const char *authorization)
{
	unsigned char sent[WEB_TOKEN_DIGEST];
	const char *token;
	size_t len;
	bool right;

	/* The scheme's name is case-insensitive (RFC 9110, 11.1). */
	if (authorization == NULL ||
	    strncasecmp(authorization, "Bearer", 6) != 0 ||
	    (authorization[6] != ' ' && authorization[6] != '\t'))
		return WEB_TOKEN_NONE;
	token = authorization + 6 + strspn(authorization + 6, " \t");
	len = token_span(token);
	if (len == 0 || !blank(token + len))
		return WEB_TOKEN_WRONG;
	digest_of(token, len, sent);
	right = same_digest(sent, digest);
	explicit_bzero(sent, sizeof(sent));
	return right ? WEB_TOKEN_RIGHT : WEB_TOKEN_WRONG;
}
