/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * web_auth.c: passwords checked with real bcrypt on the checker's
 * thread, the ones that passed remembered, and those refused refused
 * again without a check, apart; a source's places and the bound on all,
 * a newcomer taking a place drawn among those that stand last when all
 * are taken, a source that never failed checked before those that did, a
 * rotation's new password checked next while old ones flood, a check let
 * go by its connection still made and remembered, and every check
 * answered once, whenever the end comes.
 */
#include <crypt.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "wait.h"
#include "web_auth.h"

static struct web_user user;
static struct web_config wc = { .users = &user, .nusers = 1 };

/* What one check said, and when. */
struct answer {
	sem_t done;
	bool allowed;
	bool busy;	/* its place went to a check that stood before it */
	int order;	/* how many were answered before it */
	sem_t *entered; /* posted as done() begins, or NULL */
	sem_t *hold;	/* the checker waits on it in done(), or NULL */
};

static int answers; /* answered so far, on the checker's thread */

/* A source's address: n in its first byte. */
static const unsigned char *
source(unsigned n)
{
	static unsigned char s[512][WEB_AUTH_SOURCE];

	s[n][0] = (unsigned char)n;
	s[n][1] = (unsigned char)(n >> 8);
	s[n][2] = 1;
	return s[n];
}

/* Source n's network, by default its own: n in its first byte. */
static const unsigned char *
net(unsigned n)
{
	static unsigned char s[512][WEB_AUTH_SOURCE];

	s[n][0] = (unsigned char)n;
	s[n][1] = (unsigned char)(n >> 8);
	s[n][2] = 24;
	return s[n];
}

static void
answered(void *arg, enum web_auth_verdict verdict)
{
	struct answer *a = arg;

	a->allowed = verdict == WEB_AUTH_ALLOWED;
	a->busy = verdict == WEB_AUTH_BUSY;
	a->order = answers++;
	if (a->entered != NULL)
		sem_post(a->entered);
	if (a->hold != NULL)
		sem_wait(a->hold);
	sem_post(&a->done);
}

/* The verdict of one check made on the checker's thread. */
static bool
check_once(struct web_auth *wa, const char *name, const char *password)
{
	struct answer a = { .entered = NULL };

	sem_init(&a.done, 0, 0);
	if (web_auth_check(wa, source(0), net(0), name, password, answered,
		&a) != WEB_AUTH_PENDING)
		return false;
	sem_wait(&a.done);
	sem_destroy(&a.done);
	return a.allowed;
}

static void
test_remembered(void)
{
	struct web_auth *wa = web_auth_new(&wc);
	struct web_auth_stats st;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	CHECK(!web_auth_known(wa, "prom", "s3cret"));
	CHECK(!check_once(wa, "prom", "wrong"));
	CHECK(!check_once(wa, "nobody", "s3cret"));
	/* Refusals are not remembered. */
	CHECK(!web_auth_known(wa, "prom", "wrong"));
	CHECK(check_once(wa, "prom", "s3cret"));
	CHECK(web_auth_known(wa, "prom", "s3cret"));
	CHECK(!web_auth_known(wa, "prom", "s3cre"));
	CHECK(!web_auth_known(wa, "other", "s3cret"));
	web_auth_stats(wa, &st);
	CHECK_EQ_U64(st.checked, 3);
	CHECK_EQ_U64(st.remembered, 1);
	CHECK_EQ_U64(st.busy, 0);
	web_auth_free(wa);
}

static void *
free_it(void *arg)
{
	web_auth_free(arg);
	return NULL;
}

/*
 * The checker held in the first check's done(): the others wait, one
 * from each source, up to the bound of all; one let go by its
 * connection gives its place to a newcomer first; then a newcomer that
 * stands as all do takes the place of one drawn among them, which is
 * told "busy"; those still waiting at the end refused.
 */
static void
test_queue(void)
{
	static struct answer a[WEB_AUTH_QUEUE + 1], extra, drawn;
	struct web_auth *wa = web_auth_new(&wc);
	struct web_auth_stats st;
	pthread_t freer;
	sem_t entered, hold;
	int i, pending = 0, told = 0, gave = 0;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	sem_init(&entered, 0, 0);
	sem_init(&hold, 0, 0);
	for (i = 0; i <= WEB_AUTH_QUEUE; i++) {
		sem_init(&a[i].done, 0, 0);
		a[i].allowed = true;
	}
	a[0].entered = &entered;
	a[0].hold = &hold;
	CHECK(web_auth_check(wa, source(0), net(0), "prom", "s3cret", answered,
		  &a[0]) == WEB_AUTH_PENDING);
	/* The checker holds in its done(): a check made cannot be let go. */
	sem_wait(&entered);
	CHECK(!web_auth_cancel(wa, &a[0]));
	for (i = 1; i <= WEB_AUTH_QUEUE; i++)
		pending +=
		    web_auth_check(wa, source((unsigned)i), net((unsigned)i),
			"prom", "s3cret", answered, &a[i]) == WEB_AUTH_PENDING;
	CHECK(pending == WEB_AUTH_QUEUE);
	/* All places taken: the one let go gives its place, untold. */
	CHECK(web_auth_cancel(wa, &a[5]));
	CHECK(!web_auth_cancel(wa, &a[5]));
	sem_init(&extra.done, 0, 0);
	CHECK(web_auth_check(wa, source(WEB_AUTH_QUEUE + 1),
		  net(WEB_AUTH_QUEUE + 1), "prom", "s3cret", answered,
		  &extra) == WEB_AUTH_PENDING);
	web_auth_stats(wa, &st);
	CHECK_EQ_U64(st.busy, 0);
	/* Then one drawn among equals gives its place, and is told. */
	sem_init(&drawn.done, 0, 0);
	CHECK(web_auth_check(wa, source(WEB_AUTH_QUEUE + 2),
		  net(WEB_AUTH_QUEUE + 2), "prom", "s3cret", answered,
		  &drawn) == WEB_AUTH_PENDING);
	for (i = 1; i <= WEB_AUTH_QUEUE; i++)
		if (sem_trywait(&a[i].done) == 0) {
			told++;
			gave = i;
			CHECK(a[i].busy);
		}
	told += sem_trywait(&extra.done) == 0;
	CHECK(told == 1);
	web_auth_stats(wa, &st);
	CHECK_EQ_U64(st.busy, 1);
	/*
	 * The end comes while the checker is held. Each check is answered
	 * once: allowed if the checker took it before it saw the end,
	 * refused if it still waited; the one let go never.
	 */
	CHECK(pthread_create(&freer, NULL, free_it, wa) == 0);
	sem_post(&hold);
	pthread_join(freer, NULL);
	sem_wait(&a[0].done);
	CHECK(a[0].allowed);
	for (i = 1; i <= WEB_AUTH_QUEUE; i++)
		if (i != 5 && i != gave) {
			CHECK(sem_trywait(&a[i].done) == 0);
			CHECK(sem_trywait(&a[i].done) != 0);
		}
	CHECK(sem_trywait(&a[5].done) != 0);
	CHECK(sem_trywait(&drawn.done) == 0);
	if (gave != 0)
		CHECK(sem_trywait(&extra.done) == 0);
	sem_destroy(&entered);
	sem_destroy(&hold);
}

/*
 * A source's places: while the checker is held, one source asks
 * WEB_AUTH_PER_SOURCE times, each a password of its own; one more is
 * busy, unless it is the user and password of a check its client left,
 * which it takes over; another source still gets a place.
 */
static void
test_per_source(void)
{
	static struct answer a[WEB_AUTH_PER_SOURCE + 2], held, other;
	struct web_auth *wa = web_auth_new(&wc);
	char password[32];
	sem_t entered, hold;
	int i;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	sem_init(&entered, 0, 0);
	sem_init(&hold, 0, 0);
	sem_init(&held.done, 0, 0);
	held.entered = &entered;
	held.hold = &hold;
	CHECK(web_auth_check(wa, source(99), net(99), "prom", "held", answered,
		  &held) == WEB_AUTH_PENDING);
	sem_wait(&entered);
	for (i = 0; i < WEB_AUTH_PER_SOURCE + 2; i++)
		sem_init(&a[i].done, 0, 0);
	for (i = 0; i < WEB_AUTH_PER_SOURCE; i++) {
		snprintf(password, sizeof(password), "p%d", i);
		CHECK(web_auth_check(wa, source(3), net(3), "prom", password,
			  answered, &a[i]) == WEB_AUTH_PENDING);
	}
	CHECK(web_auth_check(wa, source(3), net(3), "prom", "more", answered,
		  &a[WEB_AUTH_PER_SOURCE]) == WEB_AUTH_BUSY);
	CHECK(web_auth_cancel(wa, &a[2]));
	CHECK(web_auth_check(wa, source(3), net(3), "prom", "p2", answered,
		  &a[WEB_AUTH_PER_SOURCE + 1]) == WEB_AUTH_PENDING);
	CHECK(web_auth_check(wa, source(3), net(3), "prom", "more", answered,
		  &a[WEB_AUTH_PER_SOURCE]) == WEB_AUTH_BUSY);
	sem_init(&other.done, 0, 0);
	CHECK(web_auth_check(wa, source(4), net(4), "prom", "s3cret", answered,
		  &other) == WEB_AUTH_PENDING);
	sem_post(&hold);
	sem_wait(&held.done);
	for (i = 0; i < WEB_AUTH_PER_SOURCE; i++)
		if (i != 2)
			sem_wait(&a[i].done);
	sem_wait(&a[WEB_AUTH_PER_SOURCE + 1].done);
	sem_wait(&other.done);
	CHECK(other.allowed);
	CHECK(sem_trywait(&a[2].done) != 0);
	CHECK(sem_trywait(&a[WEB_AUTH_PER_SOURCE].done) != 0);
	web_auth_free(wa);
	sem_destroy(&entered);
	sem_destroy(&hold);
}

/* Whether the checker has remembered s3cret. */
static bool
s3cret_known(void *arg)
{
	return web_auth_known(arg, "prom", "s3cret");
}

/*
 * A flood: sources 1 to 3 have failed; while the checker is held they,
 * then two sources never seen, ask again, each with a password not yet
 * tried. The new source's check is made first, whatever the order they
 * came in. A right password let go by its connection while it waited is
 * still checked, after every check whose client waits, and remembered.
 */
static void
test_fair(void)
{
	static struct answer a[4], held, newcomer, last;
	struct web_auth *wa = web_auth_new(&wc);
	char wrong[32];
	sem_t entered, hold;
	int i;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	sem_init(&entered, 0, 0);
	sem_init(&hold, 0, 0);
	for (i = 1; i <= 3; i++) {
		sem_init(&a[i].done, 0, 0);
		CHECK(!web_auth_doubtful(wa, source((unsigned)i)));
		snprintf(wrong, sizeof(wrong), "wrong%d", i);
		CHECK(web_auth_check(wa, source((unsigned)i), net((unsigned)i),
			  "prom", wrong, answered, &a[i]) == WEB_AUTH_PENDING);
		sem_wait(&a[i].done);
		CHECK(!a[i].allowed);
		CHECK(web_auth_doubtful(wa, source((unsigned)i)));
	}
	sem_init(&held.done, 0, 0);
	held.entered = &entered;
	held.hold = &hold;
	CHECK(web_auth_check(wa, source(1), net(1), "prom", "again1", answered,
		  &held) == WEB_AUTH_PENDING);
	sem_wait(&entered);
	/* Source 1's check is being made: it may ask again. */
	for (i = 1; i <= 3; i++) {
		snprintf(wrong, sizeof(wrong), "later%d", i);
		CHECK(web_auth_check(wa, source((unsigned)i), net((unsigned)i),
			  "prom", wrong, answered, &a[i]) == WEB_AUTH_PENDING);
	}
	sem_init(&newcomer.done, 0, 0);
	CHECK(web_auth_check(wa, source(9), net(9), "prom", "s3cret", answered,
		  &newcomer) == WEB_AUTH_PENDING);
	/* Its connection goes; its next try takes the same check over. */
	CHECK(web_auth_cancel(wa, &newcomer));
	CHECK(web_auth_check(wa, source(9), net(9), "prom", "s3cret", answered,
		  &newcomer) == WEB_AUTH_PENDING);
	CHECK(web_auth_cancel(wa, &newcomer));
	sem_init(&last.done, 0, 0);
	CHECK(web_auth_check(wa, source(10), net(10), "prom", "wrong10",
		  answered, &last) == WEB_AUTH_PENDING);
	sem_post(&hold);
	sem_wait(&held.done);
	for (i = 1; i <= 3; i++)
		sem_wait(&a[i].done);
	sem_wait(&last.done);
	/* Source 10, new, before 1 to 3; 9's left check after them. */
	CHECK(sem_trywait(&newcomer.done) != 0);
	CHECK(wait_for("the left check remembered", s3cret_known, wa));
	for (i = 1; i <= 3; i++)
		CHECK(a[i].order > last.order);
	/* A pass forgets the source's failures. */
	CHECK(!web_auth_doubtful(wa, source(9)));
	web_auth_free(wa);
	sem_destroy(&entered);
	sem_destroy(&hold);
}

/*
 * A rotation: while the checker is held, twenty sources come with the
 * old password, then a new source with the new one. The old password is
 * checked once: its other checks are refused without bcrypt, as is any
 * later try of it, from any source, which then counts as a failure of
 * that source; the new one is checked, and passes.
 */
static void
test_rotation(void)
{
	static struct answer old[20], held, fresh;
	struct web_auth *wa = web_auth_new(&wc);
	struct web_auth_stats st;
	sem_t entered, hold;
	int i;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	sem_init(&entered, 0, 0);
	sem_init(&hold, 0, 0);
	sem_init(&held.done, 0, 0);
	held.entered = &entered;
	held.hold = &hold;
	CHECK(web_auth_check(wa, source(99), net(99), "prom", "held", answered,
		  &held) == WEB_AUTH_PENDING);
	sem_wait(&entered);
	for (i = 0; i < 20; i++) {
		sem_init(&old[i].done, 0, 0);
		CHECK(web_auth_check(wa, source(100 + (unsigned)i),
			  net(100 + (unsigned)i), "prom", "old", answered,
			  &old[i]) == WEB_AUTH_PENDING);
	}
	sem_init(&fresh.done, 0, 0);
	CHECK(web_auth_check(wa, source(200), net(200), "prom", "s3cret",
		  answered, &fresh) == WEB_AUTH_PENDING);
	sem_post(&hold);
	sem_wait(&held.done);
	for (i = 0; i < 20; i++) {
		sem_wait(&old[i].done);
		CHECK(!old[i].allowed);
	}
	sem_wait(&fresh.done);
	CHECK(fresh.allowed);
	web_auth_stats(wa, &st);
	CHECK_EQ_U64(st.checked, 3);
	/* Tried again: refused at once, no done(), a failure more. */
	CHECK(!web_auth_doubtful(wa, source(300)));
	CHECK(web_auth_check(wa, source(300), net(300), "prom", "old", answered,
		  &fresh) == WEB_AUTH_REFUSED);
	CHECK(web_auth_doubtful(wa, source(300)));
	web_auth_stats(wa, &st);
	CHECK_EQ_U64(st.checked, 3);
	CHECK_EQ_U64(st.refused, 1);
	/* The right one is not refused for it. */
	CHECK(web_auth_known(wa, "prom", "s3cret"));
	web_auth_free(wa);
	sem_destroy(&entered);
	sem_destroy(&hold);
}

/*
 * Where a check stands: behind one from a network whose sources failed
 * (501, where source 40 failed), behind one from a source that asked
 * fewer times; and when every place is taken by checks from a network
 * that failed, a newcomer from there, and then one from another, each
 * take the place of one of them drawn at random, which is told "busy".
 */
static void
test_standing(void)
{
	static struct answer a[WEB_AUTH_QUEUE + 8], held;
	struct web_auth *wa = web_auth_new(&wc);
	sem_t entered, hold;
	int i, busy = 0;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	for (i = 0; i < WEB_AUTH_QUEUE + 8; i++)
		sem_init(&a[i].done, 0, 0);
	CHECK(web_auth_check(wa, source(40), net(501), "prom", "no40", answered,
		  &a[0]) == WEB_AUTH_PENDING);
	sem_wait(&a[0].done);
	sem_init(&entered, 0, 0);
	sem_init(&hold, 0, 0);
	sem_init(&held.done, 0, 0);
	held.entered = &entered;
	held.hold = &hold;
	CHECK(web_auth_check(wa, source(99), net(99), "prom", "held", answered,
		  &held) == WEB_AUTH_PENDING);
	sem_wait(&entered);
	/* 41 on the network that failed, then 42 on another. */
	CHECK(web_auth_check(wa, source(41), net(501), "prom", "s41", answered,
		  &a[1]) == WEB_AUTH_PENDING);
	CHECK(web_auth_check(wa, source(42), net(42), "prom", "s42", answered,
		  &a[2]) == WEB_AUTH_PENDING);
	/* 43 asks, goes, and asks again; then 44 asks once. */
	CHECK(web_auth_check(wa, source(43), net(43), "prom", "s43", answered,
		  &a[3]) == WEB_AUTH_PENDING);
	CHECK(web_auth_cancel(wa, &a[3]));
	CHECK(web_auth_check(wa, source(43), net(43), "prom", "s43", answered,
		  &a[3]) == WEB_AUTH_PENDING);
	CHECK(web_auth_check(wa, source(44), net(44), "prom", "s44", answered,
		  &a[4]) == WEB_AUTH_PENDING);
	/* The other places, all from the network that failed. */
	for (i = 5; i <= WEB_AUTH_QUEUE; i++)
		CHECK(web_auth_check(wa, source(100 + (unsigned)i), net(501),
			  "prom", "s", answered, &a[i]) == WEB_AUTH_PENDING);
	/* Full: a newcomer from there, then one from elsewhere, get in. */
	CHECK(web_auth_check(wa, source(400), net(501), "prom", "s400",
		  answered, &a[WEB_AUTH_QUEUE + 1]) == WEB_AUTH_PENDING);
	CHECK(web_auth_check(wa, source(401), net(401), "prom", "s401",
		  answered, &a[WEB_AUTH_QUEUE + 2]) == WEB_AUTH_PENDING);
	sem_post(&hold);
	sem_wait(&held.done);
	for (i = 1; i <= WEB_AUTH_QUEUE + 2; i++) {
		sem_wait(&a[i].done);
		busy += a[i].busy;
		/* Those that gave their places: of the network that failed. */
		CHECK(!a[i].busy || i == 1 ||
		    (i >= 5 && i <= WEB_AUTH_QUEUE + 1));
	}
	CHECK(busy == 2);
	/* 42 before 41; 44 before 43; 401 before 41. */
	CHECK(a[1].busy || a[2].order < a[1].order);
	CHECK(a[4].order < a[3].order);
	CHECK(a[1].busy || a[WEB_AUTH_QUEUE + 2].order < a[1].order);
	web_auth_free(wa);
	sem_destroy(&entered);
	sem_destroy(&hold);
}

/*
 * More sources than the table of their past holds: those that did the
 * least give their places; the newest is still known to have failed,
 * and a check from a source never seen is made.
 */
static void
test_many_sources(void)
{
	struct web_auth *wa = web_auth_new(&wc);
	unsigned char key[WEB_AUTH_SOURCE] = { 0 }, nk[WEB_AUTH_SOURCE] = { 0 };
	struct answer a = { .entered = NULL };
	unsigned i;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	CHECK(!check_once(wa, "prom", "bad"));
	for (i = 0; i < 3 * WEB_AUTH_SEEN; i++) {
		key[0] = (unsigned char)i;
		key[1] = (unsigned char)(i >> 8);
		key[2] = 7;
		nk[0] = key[0];
		nk[1] = key[1];
		nk[2] = 8;
		CHECK(web_auth_check(wa, key, nk, "prom", "bad", answered,
			  &a) == WEB_AUTH_REFUSED);
	}
	CHECK(web_auth_doubtful(wa, key));
	CHECK(check_once(wa, "prom", "s3cret"));
	web_auth_free(wa);
}

int
main(void)
{
	struct crypt_data cd = { 0 };
	char salt[128], hash[128];
	const char *h;

	/* A real bcrypt hash, of the lowest cost, made here. */
	if (crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)) == NULL ||
	    (h = crypt_r("s3cret", salt, &cd)) == NULL || h[0] == '*')
		SKIP("this libcrypt makes no bcrypt hash");
	snprintf(hash, sizeof(hash), "%s", h);
	user.name = "prom";
	user.hash = hash;
	snprintf(wc.decoy, sizeof(wc.decoy), "$2b$04$%s",
	    "abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234");
	test_remembered();
	test_queue();
	test_per_source();
	test_fair();
	test_rotation();
	test_standing();
	test_many_sources();
	return check_report("test_web_auth");
}
