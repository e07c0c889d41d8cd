/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exporter toolkit's web configuration, parsed with libyaml, its
 * passwords checked with libcrypt's bcrypt.
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "webconfig.h"

/* Larger files than this are not configuration or certificates. */
#define WEB_FILE_MAX (1024 * 1024)

/* Symbolic links followed to a file at most, as a Secret's one. */
#define WEB_LINK_HOPS 8

/* The toolkit's keys that this exporter does not implement. */
static const char *const tls_unsupported[] = { "cert", "key",
	"client_auth_type", "client_ca_file", "client_allowed_sans",
	"cipher_suites", "curve_preferences", "prefer_server_cipher_suites",
	NULL };

/* The toolkit's names of TLS versions, 1.0 to 1.3. */
static const char *const tls_versions[] = { "TLS10", "TLS11", "TLS12",
	"TLS13" };
#define NTLS_VERSIONS (int)(sizeof(tls_versions) / sizeof(tls_versions[0]))

struct loader {
	struct web_config *wc;
	yaml_document_t doc;
	char *dir; /* the file's directory, for relative paths */
	char *why;
	size_t whylen;
};

static int fail(struct loader *l, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct loader *l, const yaml_node_t *at, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (at != NULL)
		snprintf(l->why, l->whylen, "--web-config '%s': line %lu: %s",
		    l->wc->path, (unsigned long)at->start_mark.line + 1,
		    reason);
	else
		snprintf(l->why, l->whylen, "--web-config '%s': %s",
		    l->wc->path, reason);
	return -1;
}

/*
 * The descriptor of path, opened without waiting (a FIFO is refused at
 * once, not waited on), or -1 with why. A symbolic link is followed only
 * where the caller or root made it, as a Kubernetes Secret's files are
 * made: a link another user made would have the daemon read, and say
 * something of, a file it was never meant to read.
 */
static int
open_trusted(const char *path, const char *what, char *why, size_t whylen)
{
	char at[4096], target[4096], *slash;
	struct stat st;
	int fd, link, hops;
	ssize_t n;

	snprintf(at, sizeof(at), "%s", path);
	for (hops = 0; hops < WEB_LINK_HOPS; hops++) {
		fd = open(at, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
		if (fd >= 0 || errno != ELOOP)
			break;
		/* The link itself, so that what is read is what was checked. */
		if ((link = open(at, O_PATH | O_CLOEXEC | O_NOFOLLOW)) < 0)
			break;
		if (fstat(link, &st) != 0 ||
		    (st.st_uid != 0 && st.st_uid != getuid())) {
			snprintf(why, whylen,
			    "%s '%s' is a symbolic link of another user (uid "
			    "%u): it must be yours or root's",
			    what, path, (unsigned)st.st_uid);
			close(link);
			return -1;
		}
		n = readlinkat(link, "", target, sizeof(target) - 1);
		close(link);
		if (n < 0)
			break;
		target[n] = '\0';
		/* A relative link is relative to the link's directory. */
		if (target[0] != '/' && (slash = strrchr(at, '/')) != NULL)
			slash[1] = '\0';
		else
			at[0] = '\0';
		if (strlen(at) + strlen(target) >= sizeof(at)) {
			errno = ENAMETOOLONG;
			break;
		}
		strcat(at, target);
	}
	if (hops == WEB_LINK_HOPS) {
		fd = -1;
		errno = ELOOP;
	}
	if (fd < 0)
		snprintf(why, whylen, "cannot open %s '%s': %s", what, path,
		    strerror(errno));
	return fd;
}

/*
 * A file the configuration relies on: a regular file, the caller's or
 * root's, and writable by nobody else, or another user could change what
 * is served or who may read it; a secret one (a private key) readable by
 * no other user but a group's (as ssl-cert's keys are), as OpenSSH
 * refuses a key that others may read. Its text, NUL-terminated, or NULL
 * with why.
 */
static char *
read_trusted(
    const char *path, const char *what, bool secret, char *why, size_t whylen)
{
	struct stat st;
	char *text = NULL;
	ssize_t n;
	int fd;

	if ((fd = open_trusted(path, what, why, whylen)) < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		snprintf(
		    why, whylen, "%s '%s' is not a regular file", what, path);
	else if (st.st_uid != 0 && st.st_uid != getuid())
		snprintf(why, whylen,
		    "%s '%s' belongs to another user (uid %u): it must be "
		    "yours or root's",
		    what, path, (unsigned)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, whylen,
		    "%s '%s' may be written by other users: chmod go-w it",
		    what, path);
	else if (secret && (st.st_mode & S_IROTH))
		snprintf(why, whylen,
		    "%s '%s' may be read by every user: chmod o-r it", what,
		    path);
	else if (st.st_size > WEB_FILE_MAX)
		snprintf(why, whylen, "%s '%s' is too large", what, path);
	else if ((text = malloc((size_t)st.st_size + 1)) == NULL)
		snprintf(why, whylen, "no memory available");
	else if ((n = read(fd, text, (size_t)st.st_size)) != st.st_size) {
		snprintf(why, whylen, "cannot read %s '%s': %s", what, path,
		    n < 0 ? strerror(errno) : "it changed");
		free(text);
		text = NULL;
	} else
		text[n] = '\0';
	close(fd);
	return text;
}

static const char *
scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ?
	    (const char *)n->data.scalar.value :
	    NULL;
}

static bool
listed(const char *key, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(key, *list) == 0)
			return true;
	return false;
}

/*
 * A file named in the configuration, relative to its directory; a secret
 * one (a key, a token) readable by no other user.
 */
static int
named_file(struct loader *l, const yaml_node_t *v, const char *what,
    bool secret, char **text)
{
	const char *name = scalar(v);
	char path[4096], reason[512];

	if (name == NULL || name[0] == '\0')
		return fail(l, v, "%s must be a file name", what);
	if (snprintf(path, sizeof(path), "%s%s%s", name[0] == '/' ? "" : l->dir,
		name[0] == '/' ? "" : "/", name) >= (int)sizeof(path))
		return fail(l, v, "%s: the path is too long", what);
	if ((*text = read_trusted(
		 path, what, secret, reason, sizeof(reason))) == NULL)
		return fail(l, v, "%s", reason);
	return 0;
}

/* min_version or max_version: *minor of TLS 1.minor. */
static int
tls_version(struct loader *l, const yaml_node_t *v, const char *key, int *minor)
{
	const char *name = scalar(v);
	int i;

	for (i = 0; name != NULL && i < NTLS_VERSIONS; i++)
		if (strcmp(name, tls_versions[i]) == 0) {
			*minor = i;
			return 0;
		}
	return fail(l, v, "%s must be TLS10, TLS11, TLS12 or TLS13", key);
}

/* GnuTLS's words for the versions from 1.min to 1.max. */
static void
tls_priorities(struct web_config *wc)
{
	size_t at;
	int i;

	at = (size_t)snprintf(
	    wc->tls_priorities, sizeof(wc->tls_priorities), "NORMAL:-VERS-ALL");
	for (i = wc->tls_max; i >= wc->tls_min; i--)
		at += (size_t)snprintf(wc->tls_priorities + at,
		    sizeof(wc->tls_priorities) - at, ":+VERS-TLS1.%d", i);
}

static int
tls_section(struct loader *l, const yaml_node_t *map)
{
	yaml_node_pair_t *p;
	const char *key;
	yaml_node_t *v;

	if (map->type != YAML_MAPPING_NODE)
		return fail(l, map, "tls_server_config must be a mapping");
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		key = scalar(yaml_document_get_node(&l->doc, p->key));
		v = yaml_document_get_node(&l->doc, p->value);
		if (key == NULL)
			return fail(l, v, "a key must be a name");
		if (strcmp(key, "cert_file") == 0 && l->wc->cert_pem == NULL) {
			if (named_file(l, v, "cert_file", false,
				&l->wc->cert_pem) != 0)
				return -1;
		} else if (strcmp(key, "key_file") == 0 &&
		    l->wc->key_pem == NULL) {
			if (named_file(
				l, v, "key_file", true, &l->wc->key_pem) != 0)
				return -1;
		} else if (strcmp(key, "min_version") == 0) {
			if (tls_version(l, v, key, &l->wc->tls_min) != 0)
				return -1;
		} else if (strcmp(key, "max_version") == 0) {
			if (tls_version(l, v, key, &l->wc->tls_max) != 0)
				return -1;
		} else if (listed(key, tls_unsupported))
			return fail(l, v,
			    "tls_server_config: '%s' is not supported here "
			    "(cert_file, key_file, min_version and "
			    "max_version are)",
			    key);
		else
			return fail(l, v,
			    "tls_server_config: an unknown key (cert_file, "
			    "key_file, min_version and max_version are "
			    "known)");
	}
	if ((l->wc->cert_pem == NULL) != (l->wc->key_pem == NULL))
		return fail(l, map,
		    "tls_server_config needs both cert_file and key_file");
	if (l->wc->tls_min > l->wc->tls_max)
		return fail(l, map,
		    "tls_server_config: min_version %s is above max_version "
		    "%s",
		    tls_versions[l->wc->tls_min], tls_versions[l->wc->tls_max]);
	tls_priorities(l->wc);
	return 0;
}

/* The cost of a bcrypt hash ($2b$CC$...), or -1 when CC is not a number. */
static int
bcrypt_cost(const char *hash)
{
	if (hash[4] < '0' || hash[4] > '9' || hash[5] < '0' || hash[5] > '9' ||
	    hash[6] != '$')
		return -1;
	return (hash[4] - '0') * 10 + (hash[5] - '0');
}

/*
 * The hash an unknown user's password is checked against: of the median
 * of the costs the file's users have, the cost most of them share when
 * they differ, so that the time a refusal takes does not tell an
 * unknown user from a known one (the highest would: one costly user
 * would make every unknown name take longer than the others). Its salt
 * and digest are no password's.
 */
static void
make_decoy(struct web_config *wc)
{
	static const char tail[] =
	    "abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234";
	unsigned count[WEB_MAX_COST + 1] = { 0 };
	size_t i, below = 0;
	int cost = BCRYPT_MIN_COST;

	for (i = 0; i < wc->nusers; i++)
		count[bcrypt_cost(wc->users[i].hash)]++;
	for (cost = BCRYPT_MIN_COST; cost < WEB_MAX_COST; cost++) {
		below += count[cost];
		if (2 * below > wc->nusers)
			break;
	}
	wc->decoy_cost = wc->nusers > 0 ? cost : BCRYPT_MIN_COST;
	snprintf(
	    wc->decoy, sizeof(wc->decoy), "$2b$%02d$%s", wc->decoy_cost, tail);
}

static int
users_section(struct loader *l, const yaml_node_t *map)
{
	const char *name, *hash;
	yaml_node_pair_t *p;
	yaml_node_t *v;
	size_t n;
	int cost;

	if (map->type != YAML_MAPPING_NODE)
		return fail(l, map, "basic_auth_users must be a mapping");
	if (l->wc->users != NULL)
		return fail(l, map, "basic_auth_users is given twice");
	n = (size_t)(map->data.mapping.pairs.top -
	    map->data.mapping.pairs.start);
	if ((l->wc->users = calloc(n + 1, sizeof(*l->wc->users))) == NULL)
		return fail(l, NULL, "no memory available");
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		name = scalar(yaml_document_get_node(&l->doc, p->key));
		v = yaml_document_get_node(&l->doc, p->value);
		hash = scalar(v);
		if (name == NULL || name[0] == '\0' || strchr(name, ':'))
			return fail(l, v,
			    "a user's name must be a name, "
			    "without ':'");
		/* bcrypt, as the toolkit takes: $2a$, $2b$ or $2y$. */
		if (hash == NULL || strncmp(hash, "$2", 2) != 0 ||
		    strchr("aby", hash[2]) == NULL || hash[2] == '\0' ||
		    hash[3] != '$' || strlen(hash) != 60)
			return fail(
			    l, v, "a user's password is not a bcrypt hash");
		cost = bcrypt_cost(hash);
		if (cost < BCRYPT_MIN_COST || cost > BCRYPT_MAX_COST)
			return fail(l, v,
			    "a user's password has a bcrypt cost outside "
			    "the %d to %d bcrypt takes",
			    BCRYPT_MIN_COST, BCRYPT_MAX_COST);
		if (cost > WEB_MAX_COST)
			return fail(l, v,
			    "a user's password has bcrypt cost %d: above %d "
			    "one check takes seconds, longer than a scrape "
			    "waits",
			    cost, WEB_MAX_COST);
		l->wc->users[l->wc->nusers].name = strdup(name);
		l->wc->users[l->wc->nusers].hash = strdup(hash);
		if (l->wc->users[l->wc->nusers].name == NULL ||
		    l->wc->users[l->wc->nusers++].hash == NULL)
			return fail(l, NULL, "no memory available");
	}
	make_decoy(l->wc);
	return 0;
}

/*
 * bearer_token_file: the token is kept as its SHA-256 alone, the file's
 * text wiped; what is wrong with it is said without quoting it.
 */
static int
token_file(struct loader *l, const yaml_node_t *v)
{
	char *text = NULL, reason[256];
	int ret = 0;

	if (l->wc->token)
		return fail(l, v, "bearer_token_file is given twice");
	if (named_file(l, v, "bearer_token_file", true, &text) != 0)
		return -1;
	if (web_token_take(text, l->wc->token_sha256, reason, sizeof(reason)) !=
	    0)
		ret = fail(l, v, "bearer_token_file %s", reason);
	else
		l->wc->token = true;
	explicit_bzero(text, strlen(text));
	free(text);
	return ret;
}

static int
top_level(struct loader *l, const yaml_node_t *root)
{
	yaml_node_pair_t *p;
	const char *key;
	yaml_node_t *v;

	/* An empty file: no TLS, no users, as the toolkit takes it. */
	if (root == NULL)
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return fail(l, root,
		    "the file must be a mapping of tls_server_config, "
		    "basic_auth_users and bearer_token_file");
	for (p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		key = scalar(yaml_document_get_node(&l->doc, p->key));
		v = yaml_document_get_node(&l->doc, p->value);
		if (key != NULL && strcmp(key, "tls_server_config") == 0) {
			if (tls_section(l, v) != 0)
				return -1;
		} else if (key != NULL &&
		    strcmp(key, "basic_auth_users") == 0) {
			if (users_section(l, v) != 0)
				return -1;
		} else if (key != NULL &&
		    strcmp(key, "bearer_token_file") == 0) {
			if (token_file(l, v) != 0)
				return -1;
		} else if (key != NULL &&
		    (strcmp(key, "http_server_config") == 0 ||
			strcmp(key, "rate_limit") == 0))
			return fail(l, v, "'%s' is not supported here", key);
		else
			return fail(l, v,
			    "an unknown key (tls_server_config, "
			    "basic_auth_users and bearer_token_file are "
			    "known)");
	}
	return 0;
}

static int
parse(struct loader *l, const char *text)
{
	yaml_parser_t parser;
	int ret;

	if (!yaml_parser_initialize(&parser))
		return fail(l, NULL, "no memory available");
	yaml_parser_set_input_string(
	    &parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &l->doc)) {
		snprintf(l->why, l->whylen, "--web-config '%s': line %lu: %s",
		    l->wc->path, (unsigned long)parser.problem_mark.line + 1,
		    parser.problem != NULL ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -1;
	}
	ret = top_level(l, yaml_document_get_root_node(&l->doc));
	yaml_document_delete(&l->doc);
	yaml_parser_delete(&parser);
	return ret;
}

struct web_config *
web_config_load(const char *path, char *why, size_t whylen)
{
	struct loader l = { .why = why, .whylen = whylen };
	char reason[512], *text, *slash;

	if ((l.wc = calloc(1, sizeof(*l.wc))) == NULL ||
	    (l.wc->path = strdup(path)) == NULL ||
	    (l.dir = strdup(path)) == NULL) {
		snprintf(why, whylen, "no memory available");
		goto fail;
	}
	/* The toolkit's defaults: TLS 1.2 and 1.3. */
	l.wc->tls_min = 2;
	l.wc->tls_max = 3;
	slash = strrchr(l.dir, '/');
	if (slash == NULL)
		strcpy(l.dir, ".");
	else
		slash[slash == l.dir ? 1 : 0] = '\0';
	if ((text = read_trusted(
		 path, "the file", false, reason, sizeof(reason))) == NULL) {
		snprintf(why, whylen, "--web-config '%s': %s", path, reason);
		goto fail;
	}
	if (parse(&l, text) != 0) {
		free(text);
		goto fail;
	}
	free(text);
	free(l.dir);
	return l.wc;
fail:
	free(l.dir);
	web_config_free(l.wc);
	return NULL;
}

void
web_config_free(struct web_config *wc)
{
	size_t i;

	if (wc == NULL)
		return;
	for (i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	explicit_bzero(wc->token_sha256, sizeof(wc->token_sha256));
	free(wc->cert_pem);
	free(wc->key_pem);
	free(wc->path);
	free(wc);
}

static bool
same(const char *a, const char *b)
{
	size_t n = strlen(a), i;
	unsigned char diff = n != strlen(b);

	for (i = 0; i < n && b[i] != '\0'; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

const char *
web_config_hash(const struct web_config *wc, const char *user)
{
	size_t i;

	/* A name given twice: the last, as YAML readers take it. */
	for (i = wc->nusers; i > 0; i--)
		if (strcmp(wc->users[i - 1].name, user) == 0)
			return wc->users[i - 1].hash;
	return NULL;
}

bool
web_config_allows(
    const struct web_config *wc, const char *user, const char *password)
{
	/* An unknown user costs a bcrypt too: the time tells nothing. */
	const char *hash = web_config_hash(wc, user), *out;
	struct crypt_data *cd;
	bool ok;

	if (hash == NULL)
		hash = wc->decoy;
	if ((cd = calloc(1, sizeof(*cd))) == NULL)
		return false;
	/*
	 * crypt_rn, not crypt_r: the sanitizers intercept crypt_r, and find
	 * what they intercept as they start, before the HTTP module brings
	 * libcrypt; their crypt_r would call nothing.
	 */
	out = crypt_rn(password, hash, cd, (int)sizeof(*cd));
	ok = hash != wc->decoy && out != NULL && same(out, hash);
	free(cd);
	return ok;
}
