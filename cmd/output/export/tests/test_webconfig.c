/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * webconfig.c: the exporter toolkit's web configuration read from real
 * files, its refusals (each naming the file, the line and the reason),
 * and bcrypt passwords checked with libcrypt.
 */
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "webconfig.h"

static char dir[] = "/tmp/test_webconfig.XXXXXX";
static char hash[128];

static const char *
write_file(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 ||
	    fclose(f) != 0 || chmod(path, mode) != 0) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return path;
}

static void
check_refused(
    const char *name, const char *text, mode_t mode, const char *reason)
{
	char why[1024] = "";
	struct web_config *wc;

	wc = web_config_load(write_file(name, text, mode), why, sizeof(why));
	check_count++;
	if (wc != NULL || strstr(why, name) == NULL ||
	    strstr(why, reason) == NULL) {
		check_failures++;
		fprintf(stderr, "%s: '%s', expected it refused: %s\n", name,
		    why, reason);
	}
	web_config_free(wc);
}

static void
test_good(void)
{
	char text[512], why[1024] = "";
	struct web_config *wc;

	write_file("server.crt", "CERT\n", 0644);
	write_file("server.key", "KEY\n", 0600);
	snprintf(text, sizeof(text),
	    "# as the exporter toolkit writes it\n"
	    "tls_server_config:\n"
	    "  cert_file: server.crt\n"
	    "  key_file: %s/server.key\n"
	    "basic_auth_users:\n"
	    "  prometheus: %s\n"
	    "  'other': \"%s\"\n",
	    dir, hash, hash);
	wc = web_config_load(
	    write_file("web.yml", text, 0644), why, sizeof(why));
	CHECK(wc != NULL);
	if (wc == NULL) {
		fprintf(stderr, "%s\n", why);
		return;
	}
	CHECK(strcmp(wc->cert_pem, "CERT\n") == 0);
	CHECK(strcmp(wc->key_pem, "KEY\n") == 0);
	/* A key its group may read, as Debian's ssl-cert keys: taken. */
	web_config_free(wc);
	write_file("server.key", "KEY\n", 0640);
	wc = web_config_load(
	    write_file("web.yml", text, 0644), why, sizeof(why));
	CHECK(wc != NULL);
	if (wc == NULL) {
		fprintf(stderr, "%s\n", why);
		return;
	}
	/* The toolkit's default versions, in GnuTLS's words. */
	CHECK(strcmp(wc->tls_priorities,
		  "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2") == 0);
	CHECK(wc->nusers == 2);
	CHECK(web_config_allows(wc, "prometheus", "s3cret"));
	CHECK(web_config_allows(wc, "other", "s3cret"));
	CHECK(!web_config_allows(wc, "prometheus", "s3cre"));
	CHECK(!web_config_allows(wc, "prometheus", ""));
	CHECK(!web_config_allows(wc, "nobody", "s3cret"));
	/* An unknown user's check costs what the users' costs. */
	CHECK(wc->decoy_cost == 4 && strncmp(wc->decoy, "$2b$04$", 7) == 0 &&
	    strlen(wc->decoy) == 60);
	web_config_free(wc);
	/*
	 * Costs that differ: the median, what most users take, not the
	 * highest, which would set every unknown name apart.
	 */
	snprintf(text, sizeof(text),
	    "basic_auth_users:\n  a: $2b$12$%s\n  b: %s\n  c: $2b$05$%s\n"
	    "  d: %s\n  e: $2b$14$%s\n",
	    hash + 7, hash, hash + 7, hash, hash + 7);
	wc = web_config_load(
	    write_file("mixed.yml", text, 0644), why, sizeof(why));
	CHECK(wc != NULL && wc->decoy_cost == 5 &&
	    strncmp(wc->decoy, "$2b$05$", 7) == 0);
	web_config_free(wc);
	wc = web_config_load(write_file("old.yml",
				 "tls_server_config:\n  cert_file: server.crt\n"
				 "  key_file: server.key\n"
				 "  min_version: TLS10\n"
				 "  max_version: TLS11\n",
				 0644),
	    why, sizeof(why));
	CHECK(wc != NULL &&
	    strcmp(wc->tls_priorities,
		"NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0") == 0);
	web_config_free(wc);
	/* An empty file: no TLS, no users. */
	wc = web_config_load(
	    write_file("empty.yml", "", 0644), why, sizeof(why));
	CHECK(wc != NULL && wc->cert_pem == NULL && wc->nusers == 0);
	web_config_free(wc);
}

static void
test_refused(void)
{
	char text[512];

	check_refused("unknown.yml", "foo: 1\n", 0644,
	    "line 1: an unknown key (tls_server_config, basic_auth_users "
	    "and bearer_token_file are known)");
	check_refused("ca.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: server.key\n  client_ca_file: ca.crt\n",
	    0644,
	    "line 4: tls_server_config: 'client_ca_file' is not supported");
	check_refused("min.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: server.key\n  min_version: TLS14\n",
	    0644, "line 4: min_version must be TLS10, TLS11, TLS12 or TLS13");
	check_refused("minmax.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: server.key\n  min_version: TLS13\n"
	    "  max_version: TLS12\n",
	    0644, "min_version TLS13 is above max_version TLS12");
	check_refused("half.yml",
	    "tls_server_config:\n  cert_file: server.crt\n", 0644,
	    "needs both cert_file and key_file");
	check_refused("nokey.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: missing.key\n",
	    0644, "cannot open key_file");
	check_refused("plain.yml", "basic_auth_users:\n  u: secret\n", 0644,
	    "line 2: a user's password is not a bcrypt hash");
	/* bcrypt's costs are 4 to 31; a larger one would never end. */
	snprintf(text, sizeof(text), "basic_auth_users:\n  u: $2b$32$%s\n",
	    hash + 7);
	check_refused("cost.yml", text, 0644,
	    "line 2: a user's password has a bcrypt cost outside the 4 to "
	    "31 bcrypt takes");
	snprintf(text, sizeof(text), "basic_auth_users:\n  u: $2b$03$%s\n",
	    hash + 7);
	check_refused("cheap.yml", text, 0644, "cost outside the 4 to 31");
	/* Above 14 a check takes seconds: every scrape would time out. */
	snprintf(text, sizeof(text), "basic_auth_users:\n  u: $2b$15$%s\n",
	    hash + 7);
	check_refused("slow.yml", text, 0644,
	    "line 2: a user's password has bcrypt cost 15: above 14 one "
	    "check takes seconds, longer than a scrape waits");
	/* A second section would drop the first's users. */
	snprintf(text, sizeof(text),
	    "basic_auth_users:\n  u: %s\nbasic_auth_users:\n  v: %s\n", hash,
	    hash);
	check_refused("users_twice.yml", text, 0644,
	    "line 4: basic_auth_users is given twice");
	check_refused("http.yml", "http_server_config:\n  http2: false\n", 0644,
	    "'http_server_config' is not supported");
	check_refused("list.yml", "- a\n- b\n", 0644, "must be a mapping");
	check_refused("broken.yml", "a: [\n", 0644, "line 2:");
	snprintf(text, sizeof(text), "basic_auth_users:\n  u: %s\n", hash);
	check_refused(
	    "shared.yml", text, 0664, "may be written by other users");
	write_file("open.key", "KEY\n", 0666);
	check_refused("openkey.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: open.key\n",
	    0644, "open.key' may be written by other users");
	/* A private key any user may read, as OpenSSH refuses one. */
	write_file("read.key", "KEY\n", 0644);
	check_refused("readkey.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: read.key\n",
	    0644, "read.key' may be read by every user: chmod o-r it");
}

/*
 * A FIFO as the file, or as the key: refused at once as not a regular
 * file, whether or not anything writes it (no writer here: an open that
 * waited would wait for ever).
 */
static void
test_not_regular(void)
{
	char path[256], why[1024] = "";
	struct web_config *wc;

	snprintf(path, sizeof(path), "%s/fifo.yml", dir);
	CHECK(mkfifo(path, 0600) == 0);
	wc = web_config_load(path, why, sizeof(why));
	CHECK(wc == NULL);
	CHECK(strstr(why, "fifo.yml' is not a regular file") != NULL);
	web_config_free(wc);
	snprintf(path, sizeof(path), "%s/fifo.key", dir);
	CHECK(mkfifo(path, 0600) == 0);
	check_refused("fifokey.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: fifo.key\n",
	    0644, "fifo.key' is not a regular file");
}

/* Whether why quotes none of the words of a file that is not the config. */
static void
check_unquoted(const char *name, const char *why, const char *secret)
{
	check_count++;
	if (strstr(why, name) == NULL || strstr(why, "line 1") == NULL ||
	    strstr(why, secret) != NULL) {
		check_failures++;
		fprintf(stderr, "%s: '%s' quotes '%s' or names no line\n", name,
		    why, secret);
	}
}

/*
 * Symbolic links: one the caller made, as a Kubernetes Secret's (the
 * file a link to ..data/web.yml, ..data a link to a directory), is
 * followed; one that another user made is refused. A file that is not a
 * web configuration (a password file behind a link) is never quoted.
 */
static void
test_links(void)
{
	char path[256], link[256], why[1024] = "";
	struct web_config *wc;

	snprintf(path, sizeof(path), "%s/..2026_11_29", dir);
	CHECK(mkdir(path, 0755) == 0);
	write_file("..2026_11_29/web.yml", "basic_auth_users: {}\n", 0644);
	snprintf(link, sizeof(link), "%s/..data", dir);
	CHECK(symlink("..2026_11_29", link) == 0);
	snprintf(link, sizeof(link), "%s/secret.yml", dir);
	CHECK(symlink("..data/web.yml", link) == 0);
	wc = web_config_load(link, why, sizeof(why));
	CHECK(wc != NULL);
	if (wc == NULL)
		fprintf(stderr, "%s\n", why);
	web_config_free(wc);

	write_file("shadow",
	    "root:$y$j9T$saltsalt$digestdigest:20000:0:99999:7:::\n"
	    "daemon:*:20000:0:99999:7:::\n",
	    0640);
	snprintf(link, sizeof(link), "%s/shadow.yml", dir);
	CHECK(symlink("shadow", link) == 0);
	CHECK(web_config_load(link, why, sizeof(why)) == NULL);
	check_unquoted("shadow.yml", why, "root");
	write_file("passwd.yml", "root: x:0:0:root:/root:/bin/bash\n", 0640);
	snprintf(path, sizeof(path), "%s/passwd.yml", dir);
	CHECK(web_config_load(path, why, sizeof(why)) == NULL);
	check_unquoted("passwd.yml", why, "root");
	write_file(
	    "version.yml", "tls_server_config:\n  min_version: hush\n", 0644);
	snprintf(path, sizeof(path), "%s/version.yml", dir);
	CHECK(web_config_load(path, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "hush") == NULL &&
	    strstr(why, "line 2: min_version must be TLS10") != NULL);

	/* Only root can make a link that is another user's. */
	if (geteuid() != 0) {
		fprintf(stderr, "not root: another user's link not tried\n");
		return;
	}
	snprintf(link, sizeof(link), "%s/theirs.yml", dir);
	CHECK(symlink("..data/web.yml", link) == 0);
	CHECK(lchown(link, 65534, 65534) == 0);
	CHECK(web_config_load(link, why, sizeof(why)) == NULL);
	CHECK(strstr(why,
		  "theirs.yml' is a symbolic link of another user "
		  "(uid 65534): it must be yours or root's") != NULL);
	write_file("theirs_key.yml",
	    "tls_server_config:\n  cert_file: server.crt\n"
	    "  key_file: theirs.yml\n",
	    0644);
	snprintf(path, sizeof(path), "%s/theirs_key.yml", dir);
	CHECK(web_config_load(path, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "line 3: key_file '") != NULL &&
	    strstr(why, "theirs.yml' is a symbolic link of another user") !=
		NULL);
}

#define TOKEN "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2Fs="

/*
 * bearer_token_file: the token (a final newline allowed) is kept by its
 * SHA-256 and matched against Authorization headers; a file that holds
 * anything else, a short token, or that every user may read is refused,
 * never quoted.
 */
static void
test_tokens(void)
{
	char why[1024] = "";
	struct web_config *wc;

	write_file("token", TOKEN "\n", 0600);
	wc = web_config_load(
	    write_file("token.yml", "bearer_token_file: token\n", 0644), why,
	    sizeof(why));
	CHECK(wc != NULL && wc->token && wc->nusers == 0);
	CHECK(web_config_guarded(wc));
	if (wc == NULL) {
		fprintf(stderr, "%s\n", why);
		return;
	}
	CHECK(web_token_match(wc->token_sha256, "Bearer " TOKEN) ==
	    WEB_TOKEN_RIGHT);
	CHECK(web_token_match(wc->token_sha256, "bearer  " TOKEN) ==
	    WEB_TOKEN_RIGHT);
	CHECK(web_token_match(wc->token_sha256, "Bearer " TOKEN "=") ==
	    WEB_TOKEN_WRONG);
	CHECK(web_token_match(wc->token_sha256, "Bearer Zm9v") ==
	    WEB_TOKEN_WRONG);
	CHECK(web_token_match(wc->token_sha256, "Bearer " TOKEN " x") ==
	    WEB_TOKEN_WRONG);
	CHECK(web_token_match(wc->token_sha256, "Bearer ") == WEB_TOKEN_WRONG);
	CHECK(web_token_match(wc->token_sha256, "Basic cHJvbTpzM2NyZXQ=") ==
	    WEB_TOKEN_NONE);
	CHECK(web_token_match(wc->token_sha256, "Bearer" TOKEN) ==
	    WEB_TOKEN_NONE);
	CHECK(web_token_match(wc->token_sha256, NULL) == WEB_TOKEN_NONE);
	web_config_free(wc);

	write_file("short", "s3cret\n", 0600);
	check_refused("short.yml", "\nbearer_token_file: short\n", 0644,
	    "line 2: bearer_token_file holds a token of 6 characters: one "
	    "of 32 or more is needed");
	/* A password file named by mistake: refused, and never quoted. */
	write_file("lines", "root:x:0:0:root:/root:/bin/bash\n", 0600);
	CHECK(web_config_load(
		  write_file("lines.yml", "bearer_token_file: lines\n", 0644),
		  why, sizeof(why)) == NULL);
	CHECK(
	    strstr(why, "bearer_token_file must hold one token alone") != NULL);
	check_unquoted("lines.yml", why, "root");
	write_file("open", TOKEN "\n", 0644);
	check_refused("open.yml", "bearer_token_file: open\n", 0644,
	    "bearer_token_file '");
	check_refused("open.yml", "bearer_token_file: open\n", 0644,
	    "open' may be read by every user: chmod o-r it");
	check_refused("twice.yml",
	    "bearer_token_file: token\nbearer_token_file: token\n", 0644,
	    "line 2: bearer_token_file is given twice");
}

int
main(void)
{
	struct crypt_data cd = { 0 };
	char salt[128];
	const char *h;

	if (mkdtemp(dir) == NULL)
		SKIP("mkdtemp: %s", strerror(errno));
	/* A real bcrypt hash, of the lowest cost, made here. */
	if (crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)) == NULL ||
	    (h = crypt_r("s3cret", salt, &cd)) == NULL || h[0] == '*')
		SKIP("this libcrypt makes no bcrypt hash");
	snprintf(hash, sizeof(hash), "%s", h);
	test_good();
	test_refused();
	test_not_regular();
	test_links();
	test_tokens();
	snprintf(salt, sizeof(salt), "rm -rf %s", dir);
	if (system(salt) != 0)
		check_failures++;
	return check_report("test_webconfig");
}
