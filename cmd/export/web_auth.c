/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Basic authentication off the serving thread, with the users and
 * passwords that passed remembered (see web_auth.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <sha2.h>

#include "web_auth.h"

struct check {
	char *user, *password;
	unsigned char key[SHA256_DIGEST_LENGTH];
	web_auth_done_fn *done;
	void *arg;
};

struct web_auth {
	const struct web_config *wc;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stopping;
	struct check queue[WEB_AUTH_QUEUE]; /* a ring */
	unsigned head, waiting;
	unsigned char passed[WEB_AUTH_CACHE][SHA256_DIGEST_LENGTH];
	unsigned npassed, oldest;
	struct web_auth_stats stats;
};

/* What a check is remembered by: user, the user's hash and password. */
static void
key_of(const struct web_config *wc, const char *user, const char *password,
    unsigned char key[SHA256_DIGEST_LENGTH])
{
	const char *hash = web_config_hash(wc, user);
	SHA2_CTX ctx;

	if (hash == NULL)
		hash = "";
	SHA256Init(&ctx);
	SHA256Update(&ctx, (const void *)user, strlen(user) + 1);
	SHA256Update(&ctx, (const void *)hash, strlen(hash) + 1);
	SHA256Update(&ctx, (const void *)password, strlen(password));
	SHA256Final(key, &ctx);
}

/* Under the lock. */
static bool
remembered(const struct web_auth *a, const unsigned char *key)
{
	unsigned i;

	for (i = 0; i < a->npassed; i++)
		if (memcmp(a->passed[i], key, SHA256_DIGEST_LENGTH) == 0)
			return true;
	return false;
}

/* Under the lock: the oldest goes when all places are taken. */
static void
remember(struct web_auth *a, const unsigned char *key)
{
	if (remembered(a, key))
		return;
	if (a->npassed < WEB_AUTH_CACHE) {
		memcpy(a->passed[a->npassed++], key, SHA256_DIGEST_LENGTH);
		return;
	}
	memcpy(a->passed[a->oldest], key, SHA256_DIGEST_LENGTH);
	a->oldest = (a->oldest + 1) % WEB_AUTH_CACHE;
}

static void
check_free(struct check *c)
{
	if (c->password != NULL)
		explicit_bzero(c->password, strlen(c->password));
	free(c->password);
	free(c->user);
	memset(c, 0, sizeof(*c));
}

/* The checker's thread: one bcrypt at a time, the first come first. */
static void *
checker(void *arg)
{
	struct web_auth *a = arg;
	struct check c;
	bool ok;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (a->waiting == 0 && !a->stopping)
			pthread_cond_wait(&a->wake, &a->lock);
		if (a->stopping)
			break;
		c = a->queue[a->head];
		a->head = (a->head + 1) % WEB_AUTH_QUEUE;
		a->waiting--;
		pthread_mutex_unlock(&a->lock);
		ok = web_config_allows(a->wc, c.user, c.password);
		pthread_mutex_lock(&a->lock);
		a->stats.checked++;
		if (ok)
			remember(a, c.key);
		pthread_mutex_unlock(&a->lock);
		c.done(c.arg, ok);
		check_free(&c);
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct web_auth *
web_auth_new(const struct web_config *wc)
{
	struct web_auth *a;
	sigset_t all, old;
	int err;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->wc = wc;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->wake, NULL);
	/* Its thread takes none of the commands' signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&a->thread, NULL, checker, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		pthread_cond_destroy(&a->wake);
		pthread_mutex_destroy(&a->lock);
		free(a);
		errno = err;
		return NULL;
	}
	return a;
}

bool
web_auth_known(struct web_auth *a, const char *user, const char *password)
{
	unsigned char key[SHA256_DIGEST_LENGTH];
	bool known;

	key_of(a->wc, user, password, key);
	pthread_mutex_lock(&a->lock);
	if ((known = remembered(a, key)))
		a->stats.remembered++;
	pthread_mutex_unlock(&a->lock);
	return known;
}

enum web_auth_verdict
web_auth_check(struct web_auth *a, const char *user, const char *password,
    web_auth_done_fn *done, void *arg)
{
	struct check c = { .done = done, .arg = arg };
	enum web_auth_verdict v = WEB_AUTH_PENDING;

	key_of(a->wc, user, password, c.key);
	if ((c.user = strdup(user)) == NULL ||
	    (c.password = strdup(password)) == NULL) {
		check_free(&c);
		return WEB_AUTH_REFUSED;
	}
	pthread_mutex_lock(&a->lock);
	if (a->waiting == WEB_AUTH_QUEUE) {
		a->stats.busy++;
		v = WEB_AUTH_BUSY;
	} else {
		a->queue[(a->head + a->waiting++) % WEB_AUTH_QUEUE] = c;
		pthread_cond_signal(&a->wake);
	}
	pthread_mutex_unlock(&a->lock);
	if (v != WEB_AUTH_PENDING)
		check_free(&c);
	return v;
}

bool
web_auth_cancel(struct web_auth *a, const void *arg)
{
	unsigned i, at, last;
	bool found = false;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->waiting && !found; i++) {
		at = (a->head + i) % WEB_AUTH_QUEUE;
		if (a->queue[at].arg != arg)
			continue;
		check_free(&a->queue[at]);
		/* The last waiting takes its place: the order matters little.
		 */
		last = (a->head + a->waiting - 1) % WEB_AUTH_QUEUE;
		a->queue[at] = a->queue[last];
		memset(&a->queue[last], 0, sizeof(a->queue[last]));
		a->waiting--;
		found = true;
	}
	pthread_mutex_unlock(&a->lock);
	return found;
}

void
web_auth_stats(struct web_auth *a, struct web_auth_stats *st)
{
	pthread_mutex_lock(&a->lock);
	*st = a->stats;
	pthread_mutex_unlock(&a->lock);
}

void
web_auth_free(struct web_auth *a)
{
	struct check *c;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	/* Nobody else holds the lock now. */
	for (; a->waiting > 0; a->waiting--) {
		c = &a->queue[a->head];
		a->head = (a->head + 1) % WEB_AUTH_QUEUE;
		c->done(c->arg, false);
		check_free(c);
	}
	explicit_bzero(a->passed, sizeof(a->passed));
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
