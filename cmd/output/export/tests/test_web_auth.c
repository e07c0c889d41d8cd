/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * web_auth.c: passwords checked with real bcrypt on the checker's
 * thread, the ones that passed remembered and no others, one place for
 * each source and the bound on all, a source that comes for the first
 * time checked before those that came again and again, a check let go
 * by its connection still made and remembered, and every check
 * answered once, whenever the end comes.
 */
#include <crypt.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "web_auth.h"

static struct web_user user;
static struct web_config wc = { .users = &user, .nusers = 1 };

/* What one check said, and when. */
struct answer {
	sem_t done;
	bool allowed;
	int order;	/* how many were answered before it */
	sem_t *entered; /* posted as done() begins, or NULL */
	sem_t *hold;	/* the checker waits on it in done(), or NULL */
};

static int answers; /* answered so far, on the checker's thread */

/* A source's address: n in its first byte. */
static const unsigned char *
source(unsigned n)
{
	static unsigned char s[WEB_AUTH_QUEUE + 8][WEB_AUTH_SOURCE];

	s[n][0] = (unsigned char)n;
	s[n][1] = (unsigned char)(n >> 8);
	s[n][2] = 1;
	return s[n];
}

static void
answered(void *arg, bool allowed)
{
	struct answer *a = arg;

	a->allowed = allowed;
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
	if (web_auth_check(wa, source(0), name, password, answered, &a) !=
	    WEB_AUTH_PENDING)
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
 * connection; those still waiting at the end refused.
 */
static void
test_queue(void)
{
	static struct answer a[WEB_AUTH_QUEUE + 1], extra;
	struct web_auth *wa = web_auth_new(&wc);
	struct web_auth_stats st;
	pthread_t freer;
	sem_t entered, hold;
	int i, pending = 0;

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
	CHECK(web_auth_check(wa, source(0), "prom", "s3cret", answered,
		  &a[0]) == WEB_AUTH_PENDING);
	/* The checker holds in its done(): a check made cannot be let go. */
	sem_wait(&entered);
	CHECK(!web_auth_cancel(wa, &a[0]));
	for (i = 1; i <= WEB_AUTH_QUEUE; i++)
		pending += web_auth_check(wa, source((unsigned)i), "prom",
			       "s3cret", answered, &a[i]) == WEB_AUTH_PENDING;
	sem_init(&extra.done, 0, 0);
	/* All places taken; and a source whose check waits has no other. */
	CHECK(web_auth_check(wa, source(WEB_AUTH_QUEUE + 1), "prom", "s3cret",
		  answered, &extra) == WEB_AUTH_BUSY);
	CHECK(web_auth_cancel(wa, &a[5]));
	CHECK(!web_auth_cancel(wa, &a[5]));
	CHECK(web_auth_check(wa, source(7), "prom", "other", answered,
		  &extra) == WEB_AUTH_BUSY);
	CHECK(pending == WEB_AUTH_QUEUE);
	web_auth_stats(wa, &st);
	CHECK_EQ_U64(st.busy, 2);
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
		if (i != 5) {
			CHECK(sem_trywait(&a[i].done) == 0);
			CHECK(sem_trywait(&a[i].done) != 0);
		}
	CHECK(sem_trywait(&a[5].done) != 0);
	CHECK(sem_trywait(&extra.done) != 0);
	sem_destroy(&entered);
	sem_destroy(&hold);
}

/*
 * A flood: sources 1 to 3 have had checks made; while the checker is
 * held they, then a source never seen, ask again. The new source's
 * check is made first, whatever the order they came in. A right
 * password let go by its connection while it waited is still checked,
 * and remembered.
 */
static void
test_fair(void)
{
	static struct answer a[4], held, newcomer, last;
	struct web_auth *wa = web_auth_new(&wc);
	sem_t entered, hold;
	int i;

	CHECK(wa != NULL);
	if (wa == NULL)
		return;
	sem_init(&entered, 0, 0);
	sem_init(&hold, 0, 0);
	for (i = 1; i <= 3; i++) {
		sem_init(&a[i].done, 0, 0);
		CHECK(web_auth_check(wa, source((unsigned)i), "prom", "wrong",
			  answered, &a[i]) == WEB_AUTH_PENDING);
		sem_wait(&a[i].done);
		CHECK(!a[i].allowed);
	}
	sem_init(&held.done, 0, 0);
	held.entered = &entered;
	held.hold = &hold;
	CHECK(web_auth_check(wa, source(1), "prom", "wrong", answered, &held) ==
	    WEB_AUTH_PENDING);
	sem_wait(&entered);
	/* Source 1's check is being made: it may ask again. */
	for (i = 1; i <= 3; i++)
		CHECK(web_auth_check(wa, source((unsigned)i), "prom", "wrong",
			  answered, &a[i]) == WEB_AUTH_PENDING);
	sem_init(&newcomer.done, 0, 0);
	CHECK(web_auth_check(wa, source(9), "prom", "s3cret", answered,
		  &newcomer) == WEB_AUTH_PENDING);
	/* Its connection goes; its next try takes the same check over. */
	CHECK(web_auth_cancel(wa, &newcomer));
	CHECK(web_auth_check(wa, source(9), "prom", "s3cret", answered,
		  &newcomer) == WEB_AUTH_PENDING);
	CHECK(web_auth_cancel(wa, &newcomer));
	sem_init(&last.done, 0, 0);
	CHECK(web_auth_check(wa, source(10), "prom", "wrong", answered,
		  &last) == WEB_AUTH_PENDING);
	sem_post(&hold);
	sem_wait(&held.done);
	for (i = 1; i <= 3; i++)
		sem_wait(&a[i].done);
	sem_wait(&last.done);
	/* Sources 9 and 10, new, before 1 to 3, in the order they came. */
	CHECK(sem_trywait(&newcomer.done) != 0);
	CHECK(web_auth_known(wa, "prom", "s3cret"));
	for (i = 1; i <= 3; i++)
		CHECK(a[i].order > last.order);
	web_auth_free(wa);
	sem_destroy(&entered);
	sem_destroy(&hold);
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
	test_fair();
	return check_report("test_web_auth");
}
