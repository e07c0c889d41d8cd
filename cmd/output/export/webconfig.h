/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --web-config=FILE: TLS and basic authentication for --listen, from the
 * YAML file that Prometheus's exporters share (the exporter toolkit's
 * web configuration):
 *
 *	tls_server_config:
 *	  cert_file: server.crt	(relative to the file's directory)
 *	  key_file: server.key
 *	  min_version: TLS12	(the default; TLS10, TLS11, TLS13)
 *	  max_version: TLS13	(the default)
 *	basic_auth_users:
 *	  prometheus: $2y$10$...	(bcrypt hashes)
 *	bearer_token_file: token	(this exporter's own, web_token.h)
 *
 * A key the toolkit has and this does not is refused by name, as a key
 * nobody has is: a setting is never silently ignored.
 */
#ifndef WEBCONFIG_H
#define WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "web_token.h"

struct web_user {
	char *name;
	char *hash; /* bcrypt */
};

struct web_config {
	char *path;	/* the file, for messages */
	char *cert_pem; /* NULL: plain HTTP */
	char *key_pem;
	/* The TLS versions served, 1.min to 1.max: 0 is 1.0, 3 is 1.3. */
	int tls_min, tls_max;
	/* GnuTLS's priority string for them: libmicrohttpd takes it. */
	char tls_priorities[96];
	struct web_user *users; /* none: no authentication */
	size_t nusers;
	int decoy_cost; /* the median of the users' bcrypt costs */
	char decoy[61]; /* a bcrypt hash of that cost, for unknown users */
	bool token;	/* bearer_token_file was given: */
	unsigned char token_sha256[WEB_TOKEN_DIGEST]; /* its token's */
};

/* Whether a request must say who sends it: users or a token are named. */
static inline bool
web_config_guarded(const struct web_config *wc)
{
	return wc != NULL && (wc->nusers > 0 || wc->token);
}

/*
 * What bcrypt takes is 2^4 to 2^31 rounds; above 2^14 one check takes
 * seconds, longer than a scrape waits, so such a hash is refused.
 */
#define BCRYPT_MIN_COST 4
#define BCRYPT_MAX_COST 31
#define WEB_MAX_COST	14

/*
 * Read and check path and the files it names: each must be owned by the
 * caller or root and writable by nobody else. NULL with why, one line
 * that names the file (and the line in it) and the reason.
 */
struct web_config *web_config_load(const char *path, char *why, size_t whylen);
void web_config_free(struct web_config *wc);

/* The bcrypt hash of user's password, or NULL for no such user. */
const char *web_config_hash(const struct web_config *wc, const char *user);

/* Whether user and password are one of the file's users (constant time). */
bool web_config_allows(
    const struct web_config *wc, const char *user, const char *password);

#endif /* WEBCONFIG_H */
