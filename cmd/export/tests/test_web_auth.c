/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * web_auth.c: passwords checked with real bcrypt on the checker's
 * thread, the ones that passed remembered and no others, the bound on
 * checks waiting, a check forgotten for a connection that went, and
 * every check answered once, whenever the end comes.
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
	sem_t *entered; /* posted as done() begins, or NULL */
	sem_t *hold;	/* the checker waits on it in done(), or NULL */
};

static void
answered(void *arg, bool allowed)
{
	struct answer *a = arg;

	a->allowed = allowed;
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
	if (web_auth_check(wa, name, password, answered, &a) !=
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
 * The checker held in the first check's done(): the others wait, up to
 * the bound; one forgotten; those still waiting at the end refused.
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
	CHECK(web_auth_check(wa, "prom", "s3cret", answered, &a[0]) ==
	    WEB_AUTH_PENDING);
	/* The checker holds in its done(): a check made cannot be forgotten. */
	sem_wait(&entered);
	CHECK(!web_auth_cancel(wa, &a[0]));
	for (i = 1; i <= WEB_AUTH_QUEUE; i++)
		pending += web_auth_check(wa, "prom", "s3cret", answered,
			       &a[i]) == WEB_AUTH_PENDING;
	sem_init(&extra.done, 0, 0);
	CHECK(web_auth_check(wa, "prom", "s3cret", answered, &extra) ==
	    WEB_AUTH_BUSY);
	CHECK(web_auth_cancel(wa, &a[5]));
	CHECK(!web_auth_cancel(wa, &a[5]));
	CHECK(pending == WEB_AUTH_QUEUE);
	web_auth_stats(wa, &st);
	CHECK_EQ_U64(st.busy, 1);
	/*
	 * The end comes while the checker is held. Each check is answered
	 * once: allowed if the checker took it before it saw the end,
	 * refused if it still waited; the one forgotten never.
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
	return check_report("test_web_auth");
}
