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
	char *user, *password; /* NULL: a free place */
	unsigned char key[SHA256_DIGEST_LENGTH];
	unsigned char source[WEB_AUTH_SOURCE];
	uint64_t seq;		/* the order they came in */
	web_auth_done_fn *done; /* NULL: its connection went */
	void *arg;
};

/* How many checks a source had made lately. */
struct made {
	unsigned char source[WEB_AUTH_SOURCE];
	unsigned count;
};

struct web_auth {
	const struct web_config *wc;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stopping;
	struct check queue[WEB_AUTH_QUEUE]; /* places, in no order */
	unsigned waiting;
	uint64_t seq;
	/* Halved each WEB_AUTH_QUEUE checks: "lately". */
	struct made made[WEB_AUTH_QUEUE];
	unsigned nmade, since_halved;
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

/* Under the lock: the checks source made lately. */
static struct made *
made_by(struct web_auth *a, const unsigned char *source)
{
	unsigned i;

	for (i = 0; i < a->nmade; i++)
		if (memcmp(a->made[i].source, source, WEB_AUTH_SOURCE) == 0)
			return &a->made[i];
	return NULL;
}

static unsigned
made_count(struct web_auth *a, const unsigned char *source)
{
	const struct made *m = made_by(a, source);

	return m != NULL ? m->count : 0;
}

/*
 * Under the lock: one more check made by source. When the table is
 * full, the source that made the fewest gives its place: it was among
 * the newest anyway. Every WEB_AUTH_QUEUE checks the counts are halved,
 * rounded up, so that a source's past weighs less and less, but one
 * that made any still goes behind one that made none.
 */
static void
made_one(struct web_auth *a, const unsigned char *source)
{
	struct made *m = made_by(a, source);
	unsigned i, least = 0;

	if (m == NULL && a->nmade < WEB_AUTH_QUEUE)
		m = &a->made[a->nmade++];
	else if (m == NULL) {
		for (i = 1; i < a->nmade; i++)
			if (a->made[i].count < a->made[least].count)
				least = i;
		m = &a->made[least];
	}
	if (memcmp(m->source, source, WEB_AUTH_SOURCE) != 0) {
		memcpy(m->source, source, WEB_AUTH_SOURCE);
		m->count = 0;
	}
	m->count++;
	if (++a->since_halved < WEB_AUTH_QUEUE)
		return;
	a->since_halved = 0;
	for (i = 0; i < a->nmade; i++)
		a->made[i].count = (a->made[i].count + 1) / 2;
}

/*
 * Under the lock: the place of the next check to make, that of the
 * source with the fewest made lately, the first come among equals.
 */
static struct check *
next_check(struct web_auth *a)
{
	struct check *c, *next = NULL;
	unsigned count, least = 0;

	for (c = a->queue; c < a->queue + WEB_AUTH_QUEUE; c++) {
		if (c->user == NULL)
			continue;
		count = made_count(a, c->source);
		if (next == NULL || count < least ||
		    (count == least && c->seq < next->seq)) {
			next = c;
			least = count;
		}
	}
	return next;
}

/* Under the lock: the check of source's waiting, or NULL. */
static struct check *
waiting_from(struct web_auth *a, const unsigned char *source)
{
	struct check *c;

	for (c = a->queue; c < a->queue + WEB_AUTH_QUEUE; c++)
		if (c->user != NULL &&
		    memcmp(c->source, source, WEB_AUTH_SOURCE) == 0)
			return c;
	return NULL;
}

/* The checker's thread: one bcrypt at a time, in next_check's order. */
static void *
checker(void *arg)
{
	struct web_auth *a = arg;
	struct check *next, c;
	bool ok;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while ((next = next_check(a)) == NULL && !a->stopping)
			pthread_cond_wait(&a->wake, &a->lock);
		if (a->stopping || next == NULL)
			break;
		c = *next;
		memset(next, 0, sizeof(*next));
		a->waiting--;
		made_one(a, c.source);
		pthread_mutex_unlock(&a->lock);
		ok = web_config_allows(a->wc, c.user, c.password);
		pthread_mutex_lock(&a->lock);
		a->stats.checked++;
		if (ok)
			remember(a, c.key);
		pthread_mutex_unlock(&a->lock);
		if (c.done != NULL)
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

/*
 * Under the lock: c in a place of its own, or taking over the one its
 * source left with the same user and password; BUSY when neither.
 */
static enum web_auth_verdict
enqueue(struct web_auth *a, struct check *c)
{
	struct check *at = waiting_from(a, c->source);

	if (at != NULL) {
		if (at->done != NULL ||
		    memcmp(at->key, c->key, SHA256_DIGEST_LENGTH) != 0)
			return WEB_AUTH_BUSY;
		at->done = c->done;
		at->arg = c->arg;
		check_free(c);
		return WEB_AUTH_PENDING;
	}
	if (a->waiting == WEB_AUTH_QUEUE)
		return WEB_AUTH_BUSY;
	for (at = a->queue; at->user != NULL; at++)
		;
	c->seq = a->seq++;
	*at = *c;
	memset(c, 0, sizeof(*c));
	a->waiting++;
	pthread_cond_signal(&a->wake);
	return WEB_AUTH_PENDING;
}

enum web_auth_verdict
web_auth_check(struct web_auth *a, const unsigned char source[WEB_AUTH_SOURCE],
    const char *user, const char *password, web_auth_done_fn *done, void *arg)
{
	struct check c = { .done = done, .arg = arg };
	enum web_auth_verdict v;

	key_of(a->wc, user, password, c.key);
	memcpy(c.source, source, WEB_AUTH_SOURCE);
	if ((c.user = strdup(user)) == NULL ||
	    (c.password = strdup(password)) == NULL) {
		check_free(&c);
		return WEB_AUTH_REFUSED;
	}
	pthread_mutex_lock(&a->lock);
	if ((v = enqueue(a, &c)) == WEB_AUTH_BUSY)
		a->stats.busy++;
	pthread_mutex_unlock(&a->lock);
	check_free(&c);
	return v;
}

bool
web_auth_cancel(struct web_auth *a, const void *arg)
{
	struct check *c;
	bool found = false;

	pthread_mutex_lock(&a->lock);
	for (c = a->queue; c < a->queue + WEB_AUTH_QUEUE && !found; c++)
		if (c->user != NULL && c->done != NULL && c->arg == arg) {
			c->done = NULL;
			c->arg = NULL;
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
	for (c = a->queue; c < a->queue + WEB_AUTH_QUEUE; c++) {
		if (c->user != NULL && c->done != NULL)
			c->done(c->arg, false);
		check_free(c);
	}
	explicit_bzero(a->passed, sizeof(a->passed));
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
