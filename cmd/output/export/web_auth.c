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
#include <time.h>

#include <sha2.h>

#include "web_auth.h"

struct check {
	char *user, *password; /* NULL: a free place */
	unsigned char key[SHA256_DIGEST_LENGTH];
	unsigned char source[WEB_AUTH_SOURCE];
	unsigned char net[WEB_AUTH_SOURCE]; /* the source's network */
	uint64_t seq;			    /* the order they came in */
	web_auth_done_fn *done;		    /* NULL: its connection went */
	void *arg;
};

/*
 * What a source (or a network) did lately: its passwords that failed,
 * its tries since its last pass.
 */
struct seen {
	unsigned char source[WEB_AUTH_SOURCE];
	unsigned failures;
	unsigned asks;
	uint64_t last; /* when it last did something, in a->events */
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
	bool newest_next; /* next_check's turn: the newest, or the first */
	/* Halved each WEB_AUTH_LATELY_S: "lately". */
	struct seen seen[WEB_AUTH_SEEN];
	unsigned nseen;
	uint64_t events; /* what the sources did, counted */
	/* Each seen's place, by its key's hash (open addressing), or -1. */
	short slot[2 * WEB_AUTH_SEEN];
	time_t halved;
	unsigned char passed[WEB_AUTH_CACHE][SHA256_DIGEST_LENGTH];
	unsigned npassed, oldest;
	unsigned char refused[WEB_AUTH_REFUSALS][SHA256_DIGEST_LENGTH];
	unsigned nrefused, oldest_refused;
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

/* Under the lock: whether key is among the n of table. */
static bool
in_table(const unsigned char (*table)[SHA256_DIGEST_LENGTH], unsigned n,
    const unsigned char *key)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (memcmp(table[i], key, SHA256_DIGEST_LENGTH) == 0)
			return true;
	return false;
}

/*
 * Under the lock: key into table (places of them, n used), the oldest
 * going when all are taken.
 */
static void
table_add(unsigned char (*table)[SHA256_DIGEST_LENGTH], unsigned places,
    unsigned *n, unsigned *oldest, const unsigned char *key)
{
	if (in_table(table, *n, key))
		return;
	if (*n < places) {
		memcpy(table[(*n)++], key, SHA256_DIGEST_LENGTH);
		return;
	}
	memcpy(table[*oldest], key, SHA256_DIGEST_LENGTH);
	*oldest = (*oldest + 1) % places;
}

static bool
remembered(const struct web_auth *a, const unsigned char *key)
{
	return in_table(a->passed, a->npassed, key);
}

static bool
refused_before(const struct web_auth *a, const unsigned char *key)
{
	return in_table(a->refused, a->nrefused, key);
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

/*
 * Under the lock: every WEB_AUTH_LATELY_S the counts are halved, rounded
 * up, so that a source's past weighs less and less, but one that failed
 * at all still goes behind one that never did.
 */
static void
lately(struct web_auth *a)
{
	struct timespec now;
	unsigned i;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - a->halved < WEB_AUTH_LATELY_S)
		return;
	a->halved = now.tv_sec;
	for (i = 0; i < a->nseen; i++) {
		a->seen[i].failures = (a->seen[i].failures + 1) / 2;
		a->seen[i].asks = (a->seen[i].asks + 1) / 2;
	}
}

/* Whether x did less than y lately: failed fewer times, or asked fewer. */
static bool
did_less(const struct seen *x, const struct seen *y)
{
	unsigned fx = x != NULL ? x->failures : 0, ax = x != NULL ? x->asks : 0;
	unsigned fy = y != NULL ? y->failures : 0, ay = y != NULL ? y->asks : 0;

	return fx < fy || (fx == fy && ax < ay);
}

/* Where key's search starts in slot (FNV-1a). */
static unsigned
slot_start(const unsigned char *key)
{
	uint32_t h = 2166136261u;
	unsigned i;

	for (i = 0; i < WEB_AUTH_SOURCE; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % (2 * WEB_AUTH_SEEN);
}

/* Under the lock: the slot that holds key, or the free one it would take. */
static unsigned
slot_of(const struct web_auth *a, const unsigned char *key)
{
	unsigned i = slot_start(key);

	while (a->slot[i] >= 0 &&
	    memcmp(a->seen[a->slot[i]].source, key, WEB_AUTH_SOURCE) != 0)
		i = (i + 1) % (2 * WEB_AUTH_SEEN);
	return i;
}

/* Under the lock: the slots made again, once a seen changed its key. */
static void
slots_remake(struct web_auth *a)
{
	unsigned i;

	memset(a->slot, 0xff, sizeof(a->slot));
	for (i = 0; i < a->nseen; i++)
		a->slot[slot_of(a, a->seen[i].source)] = (short)i;
}

/*
 * Under the lock: the counts of source lately, or NULL; made where new
 * (make: it does something now), taking the place of the source that
 * did the least when the table is full, the one that did it longest ago
 * among equals.
 */
static struct seen *
seen_of(struct web_auth *a, const unsigned char *source, bool make)
{
	unsigned i, at = slot_of(a, source), least = 0;
	struct seen *f;

	if (a->slot[at] >= 0) {
		f = &a->seen[a->slot[at]];
		if (make)
			f->last = ++a->events;
		return f;
	}
	if (!make)
		return NULL;
	if (a->nseen < WEB_AUTH_SEEN) {
		a->slot[at] = (short)a->nseen;
		f = &a->seen[a->nseen++];
		memcpy(f->source, source, WEB_AUTH_SOURCE);
	} else {
		for (i = 1; i < a->nseen; i++)
			if (did_less(&a->seen[i], &a->seen[least]) ||
			    (!did_less(&a->seen[least], &a->seen[i]) &&
				a->seen[i].last < a->seen[least].last))
				least = i;
		f = &a->seen[least];
		memcpy(f->source, source, WEB_AUTH_SOURCE);
		slots_remake(a);
	}
	f->failures = f->asks = 0;
	f->last = ++a->events;
	return f;
}

/*
 * Where a check stands: whether its client went, what its source and its
 * network did lately.
 */
struct standing {
	bool gone;
	unsigned failures, net_failures, asks;
};

static struct standing
standing_of(struct web_auth *a, const struct check *c)
{
	const struct seen *s = seen_of(a, c->source, false);
	const struct seen *n = seen_of(a, c->net, false);
	struct standing st = { c->done == NULL, 0, 0, 0 };

	if (s != NULL) {
		st.failures = s->failures;
		st.asks = s->asks;
	}
	if (n != NULL)
		st.net_failures = n->failures;
	return st;
}

/* Whether x goes before y, and whether they are equals (0). */
static int
standing_order(const struct standing *x, const struct standing *y)
{
	if (x->gone != y->gone)
		return x->gone ? 1 : -1;
	if (x->failures != y->failures)
		return x->failures < y->failures ? -1 : 1;
	if (x->net_failures != y->net_failures)
		return x->net_failures < y->net_failures ? -1 : 1;
	return x->asks < y->asks ? -1 : x->asks > y->asks;
}

/*
 * Under the lock: the place of the next check to make: one whose client
 * still waits for it before one whose client went, then that of a
 * source that failed the least lately, then of a network that failed the
 * least, then of a source that asked the least since it last passed (a
 * crowd told "busy", or cut, asks again and again, a scraper once). A
 * source that never failed, on a network that never failed, goes
 * first. Among equals, the newest come and the first come take turns: a
 * newcomer (a rotation's new password, in a flood of sources new to a
 * fresh server) waits for one check besides the one being made, and the
 * first come for twice its turn at most.
 */
static struct check *
next_check(struct web_auth *a)
{
	struct check *c, *next = NULL;
	struct standing sc, snext = { false, 0, 0, 0 };
	bool newer;
	int d;

	for (c = a->queue; c < a->queue + WEB_AUTH_QUEUE; c++) {
		if (c->user == NULL)
			continue;
		sc = standing_of(a, c);
		d = next != NULL ? standing_order(&sc, &snext) : -1;
		newer = next != NULL &&
		    (a->newest_next ? c->seq > next->seq : c->seq < next->seq);
		if (d < 0 || (d == 0 && newer)) {
			next = c;
			snext = sc;
		}
	}
	if (next != NULL)
		a->newest_next = !a->newest_next;
	return next;
}

/*
 * Under the lock: how many checks of source's wait, and in *left the one
 * its client left with key, or NULL.
 */
static unsigned
waiting_from(struct web_auth *a, const unsigned char *source,
    const unsigned char *key, struct check **left)
{
	struct check *c;
	unsigned n = 0;

	*left = NULL;
	for (c = a->queue; c < a->queue + WEB_AUTH_QUEUE; c++) {
		if (c->user == NULL ||
		    memcmp(c->source, source, WEB_AUTH_SOURCE) != 0)
			continue;
		n++;
		if (c->done == NULL &&
		    memcmp(c->key, key, SHA256_DIGEST_LENGTH) == 0)
			*left = c;
	}
	return n;
}

/*
 * The checker's thread: one bcrypt at a time, in next_check's order. A
 * password refused while its check waited (the same one, from another
 * source) is refused without one.
 */
static void *
checker(void *arg)
{
	struct web_auth *a = arg;
	struct check *next, c;
	struct seen *seen;
	bool ok, known;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while ((next = next_check(a)) == NULL && !a->stopping)
			pthread_cond_wait(&a->wake, &a->lock);
		if (a->stopping || next == NULL)
			break;
		c = *next;
		memset(next, 0, sizeof(*next));
		a->waiting--;
		known = refused_before(a, c.key);
		pthread_mutex_unlock(&a->lock);
		ok = !known && web_config_allows(a->wc, c.user, c.password);
		pthread_mutex_lock(&a->lock);
		if (!known)
			a->stats.checked++;
		if (ok) {
			table_add(a->passed, WEB_AUTH_CACHE, &a->npassed,
			    &a->oldest, c.key);
			/* A source's pass forgets its failures and tries. */
			if ((seen = seen_of(a, c.source, false)) != NULL)
				seen->failures = seen->asks = 0;
		} else {
			table_add(a->refused, WEB_AUTH_REFUSALS, &a->nrefused,
			    &a->oldest_refused, c.key);
			seen_of(a, c.source, true)->failures++;
			seen_of(a, c.net, true)->failures++;
		}
		pthread_mutex_unlock(&a->lock);
		if (c.done != NULL)
			c.done(c.arg, ok ? WEB_AUTH_ALLOWED : WEB_AUTH_REFUSED);
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
	memset(a->slot, 0xff, sizeof(a->slot));
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
 * Under the lock: the place to give c when all are taken: that of a
 * check that stands last, one drawn at random among equals, if c stands
 * before it or as it does (*out gets it, to be told "busy"); else NULL.
 * At random: were it the newest that gave its place, a flood of
 * newcomers that stand as a new scraper does would push its check out
 * at once; were it the newcomer that got none, the scraper would never
 * get one. Drawn, every check of a flood keeps its place about as long
 * as the others, a scraper's too.
 */
static struct check *
place_taken(struct web_auth *a, const struct check *c, struct check *out)
{
	struct standing sc = standing_of(a, c), sat;
	struct standing slast = { false, 0, 0, 0 };
	struct check *at, *last = NULL;
	unsigned equals = 0;
	int d;

	for (at = a->queue; at < a->queue + WEB_AUTH_QUEUE; at++) {
		sat = standing_of(a, at);
		d = last != NULL ? standing_order(&sat, &slast) : 1;
		/* Reservoir sampling: each of n equals kept with 1/n. */
		if (d > 0)
			equals = 0;
		if (d > 0 || (d == 0 && arc4random_uniform(equals + 1) == 0)) {
			last = at;
			slast = sat;
		}
		if (d >= 0)
			equals++;
	}
	if (last == NULL || standing_order(&sc, &slast) > 0)
		return NULL;
	*out = *last;
	memset(last, 0, sizeof(*last));
	a->waiting--;
	return last;
}

/*
 * Under the lock: c taking over the check its source left with the same
 * user and password, or in a place of its own while its source has
 * fewer than WEB_AUTH_PER_SOURCE, or, all being taken, in that of a
 * check that stands after it or as it does, which goes to *out; BUSY
 * when none.
 */
static enum web_auth_verdict
enqueue(struct web_auth *a, struct check *c, struct check *out)
{
	struct check *at;

	if (waiting_from(a, c->source, c->key, &at) >= WEB_AUTH_PER_SOURCE &&
	    at == NULL)
		return WEB_AUTH_BUSY;
	if (at != NULL) {
		at->done = c->done;
		at->arg = c->arg;
		check_free(c);
		return WEB_AUTH_PENDING;
	}
	if (a->waiting < WEB_AUTH_QUEUE) {
		for (at = a->queue; at->user != NULL; at++)
			;
	} else if ((at = place_taken(a, c, out)) == NULL)
		return WEB_AUTH_BUSY;
	c->seq = a->seq++;
	*at = *c;
	memset(c, 0, sizeof(*c));
	a->waiting++;
	pthread_cond_signal(&a->wake);
	return WEB_AUTH_PENDING;
}

enum web_auth_verdict
web_auth_check(struct web_auth *a, const unsigned char source[WEB_AUTH_SOURCE],
    const unsigned char net[WEB_AUTH_SOURCE], const char *user,
    const char *password, web_auth_done_fn *done, void *arg)
{
	struct check c = { .done = done, .arg = arg }, out = { 0 };
	enum web_auth_verdict v;
	struct seen *seen;

	key_of(a->wc, user, password, c.key);
	memcpy(c.source, source, WEB_AUTH_SOURCE);
	memcpy(c.net, net, WEB_AUTH_SOURCE);
	if ((c.user = strdup(user)) == NULL ||
	    (c.password = strdup(password)) == NULL) {
		check_free(&c);
		return WEB_AUTH_REFUSED;
	}
	pthread_mutex_lock(&a->lock);
	lately(a);
	seen = seen_of(a, source, true);
	seen->asks++;
	if (refused_before(a, c.key)) {
		/* Refused once, refused again: no check, a failure more. */
		seen->failures++;
		seen_of(a, net, true)->failures++;
		a->stats.refused++;
		v = WEB_AUTH_REFUSED;
	} else if ((v = enqueue(a, &c, &out)) == WEB_AUTH_BUSY)
		a->stats.busy++;
	/* A check whose client went gives its place untold. */
	if (out.done != NULL)
		a->stats.busy++;
	pthread_mutex_unlock(&a->lock);
	check_free(&c);
	/* The check that gave its place is told, off the lock. */
	if (out.done != NULL)
		out.done(out.arg, WEB_AUTH_BUSY);
	check_free(&out);
	return v;
}

bool
web_auth_doubtful(
    struct web_auth *a, const unsigned char source[WEB_AUTH_SOURCE])
{
	bool doubtful;

	const struct seen *seen;

	pthread_mutex_lock(&a->lock);
	seen = seen_of(a, source, false);
	doubtful = seen != NULL && seen->failures > 0;
	pthread_mutex_unlock(&a->lock);
	return doubtful;
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
			c->done(c->arg, WEB_AUTH_REFUSED);
		check_free(c);
	}
	explicit_bzero(a->passed, sizeof(a->passed));
	explicit_bzero(a->refused, sizeof(a->refused));
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
