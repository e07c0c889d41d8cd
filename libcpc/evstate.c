/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A handle's event state (see evname.h): the name cache of events.c, and
 * what the grammars read once, made on first use. Threads may share a
 * handle: the cache is locked while it is searched or grown (not while a
 * name is classified, which may look up other names), and its entries
 * stay until the handle closes. Every file of the grammars and the cache
 * comes here for it, and this file calls none of them.
 */
#include <stdlib.h>

#include "evname.h"

static pthread_mutex_t tree_create_lock = PTHREAD_MUTEX_INITIALIZER;

struct cpc_event_tree *
cpclib_event_tree(cpc_t *cpc)
{
	struct cpc_event_tree *tree;

	pthread_mutex_lock(&tree_create_lock);
	if ((tree = cpc->events) == NULL &&
	    (tree = calloc(1, sizeof(*tree))) != NULL) {
		pthread_mutex_init(&tree->lock, NULL);
		pthread_mutex_init(&tree->catalog_lock, NULL);
		RB_INIT(&tree->names);
		__atomic_store_n(&cpc->events, tree, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&tree_create_lock);
	return tree;
}

/* The cache emptied and the PMUs freed (events.c): the rest goes. */
void
cpclib_event_tree_free(cpc_t *cpc)
{
	struct cpc_event_tree *tree = cpc->events;

	if (tree == NULL)
		return;
	pthread_mutex_destroy(&tree->lock);
	pthread_mutex_destroy(&tree->catalog_lock);
	free(tree);
	cpc->events = NULL;
}

/* The catalog is built once, by one thread, while others wait. */
void
cpclib_catalog_lock(cpc_t *cpc, bool lock)
{
	struct cpc_event_tree *tree = cpclib_event_tree(cpc);

	if (tree == NULL)
		return;
	if (lock)
		pthread_mutex_lock(&tree->catalog_lock);
	else
		pthread_mutex_unlock(&tree->catalog_lock);
}

/* The sysfs PMUs, read once. */
void
cpclib_ev_state_lock(cpc_t *cpc, bool lock)
{
	struct cpc_event_tree *tree = cpclib_event_tree(cpc);

	if (tree == NULL)
		return;
	if (lock)
		pthread_mutex_lock(&tree->lock);
	else
		pthread_mutex_unlock(&tree->lock);
}

struct ev_state *
cpclib_ev_state(cpc_t *cpc)
{
	struct cpc_event_tree *tree = cpclib_event_tree(cpc);

	return tree != NULL ? &tree->state : NULL;
}
