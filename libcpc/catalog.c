/*
 * The catalog: every event name this kernel can open, built on first use
 * by asking the kernel about each name libpfm4 knows.
 */
#include <ctype.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

static int
list_add(char ***list, int *n, const char *name)
{
	char **grown;

	if ((grown = reallocarray(*list, (size_t)*n + 1, sizeof(char *))) ==
	    NULL)
		return -1;
	*list = grown;
	if ((grown[*n] = strdup(name)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

static bool
listed(char **list, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* perf's own spelling: lower case, except the cache level prefixes. */
static void
perf_spelling(const char *pfm_name, char *out, size_t len)
{
	static const char *const upper_prefixes[] = { "L1-", "LLC-" };
	size_t i;

	for (i = 0; i + 1 < len && pfm_name[i] != '\0'; i++)
		out[i] = (char)tolower((unsigned char)pfm_name[i]);
	out[i] = '\0';
	for (i = 0; i < sizeof(upper_prefixes) / sizeof(char *); i++) {
		size_t n = strlen(upper_prefixes[i]);

		if (strncasecmp(out, upper_prefixes[i], n) == 0)
			memcpy(out, upper_prefixes[i], n);
	}
	if (strncmp(out, "dtlb-", 5) == 0)
		out[1] = 'T', out[2] = 'L', out[3] = 'B';
	if (strncmp(out, "itlb-", 5) == 0)
		out[1] = 'T', out[2] = 'L', out[3] = 'B';
}

/* Another name already listed counts exactly this (an alias). */
static bool
same_as_listed(cpc_t *cpc, const struct cpc_event_enc *enc)
{
	struct cpc_catalog *cat = &cpc->catalog;
	struct cpc_event_enc other;
	int i;

	for (i = 0; i < cat->nplatform; i++) {
		if (cpc_event_encode(cpc, cat->platform[i], &other, NULL,
		    0) != 0)
			continue;
		if (other.type == enc->type && other.config == enc->config &&
		    other.config1 == enc->config1 &&
		    other.config2 == enc->config2)
			return true;
	}
	return false;
}

static int
add_countable(cpc_t *cpc, const char *name)
{
	struct cpc_catalog *cat = &cpc->catalog;
	struct cpc_event_enc enc;

	if (listed(cat->platform, cat->nplatform, name))
		return 0;
	if (cpc_event_status(cpc, name, NULL, 0) != CPC_EVENT_COUNTABLE ||
	    cpc_event_encode(cpc, name, &enc, NULL, 0) != 0 ||
	    same_as_listed(cpc, &enc))
		return 0;
	return list_add(&cat->platform, &cat->nplatform, name);
}

/*
 * Events of one libpfm4 PMU. For the perf generic PMU only the short
 * aliases are listed (cycles, task-clock), not PERF_COUNT_* spellings.
 */
static int
add_pmu_events(cpc_t *cpc, int pmu, bool perf_aliases)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	char name[CPC_MAX_EVENT_LEN];
	int idx;

	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_pmu_info((pfm_pmu_t)pmu, &pinfo) != PFM_SUCCESS)
		return 0;
	for (idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		memset(&einfo, 0, sizeof(einfo));
		einfo.size = sizeof(einfo);
		if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) !=
		    PFM_SUCCESS)
			continue;
		if (perf_aliases) {
			if (strncmp(einfo.name, "PERF_COUNT_", 11) == 0)
				continue;
			perf_spelling(einfo.name, name, sizeof(name));
		} else {
			strlcpy(name, einfo.name, sizeof(name));
		}
		if (add_countable(cpc, name) != 0)
			return -1;
	}
	return 0;
}

int
cpc_catalog_build(cpc_t *cpc)
{
	struct cpc_catalog *cat = &cpc->catalog;
	size_t i;

	if (cpc->catalog_ready)
		return 0;
	for (i = 0; i < cpc_papi_count(); i++) {
		const char *name = cpc_papi_name(i);

		if (cpc_event_status(cpc, name, NULL, 0) ==
		    CPC_EVENT_COUNTABLE &&
		    list_add(&cat->generic, &cat->ngeneric, name) != 0)
			return -1;
	}
	if (add_pmu_events(cpc, PFM_PMU_PERF_EVENT, true) != 0)
		return -1;
	if (cpc->pfm_pmu >= 0 && cpc->pmu_name[0] != '\0' &&
	    add_pmu_events(cpc, cpc->pfm_pmu, false) != 0)
		return -1;
	cpc->catalog_ready = true;
	return 0;
}

void
cpc_catalog_free(cpc_t *cpc)
{
	struct cpc_catalog *cat = &cpc->catalog;
	int i;

	for (i = 0; i < cat->ngeneric; i++)
		free(cat->generic[i]);
	for (i = 0; i < cat->nplatform; i++)
		free(cat->platform[i]);
	free(cat->generic);
	free(cat->platform);
	memset(cat, 0, sizeof(*cat));
	cpc->catalog_ready = false;
}
