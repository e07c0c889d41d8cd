/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pods and containers from cgroup paths (see k8s_labels.h). The path is
 * read a component at a time. Only names that root alone can make count:
 * a user given a subtree (systemd's Delegate=, a container's own
 * hierarchy, a kind node's) can make any name in it, so a pod is one only
 * at the kubelet's root, and a container only right below its pod or, for
 * containers outside Kubernetes, right below a top-level cgroup. A
 * container's own children, such as systemd's in it, stay its.
 */
#include <string.h>

#include "k8s_labels.h"

#define COMPONENT_MAX 256

struct runtime_form {
	const char *prefix;
	const char *suffix; /* or "" */
	const char *runtime;
};

/* The forms of a container's cgroup, each with and without ".scope". */
static const struct runtime_form runtime_forms[] = {
	{ "cri-containerd-", ".scope", "containerd" },
	{ "crio-", ".scope", "cri-o" },
	{ "crio-", "", "cri-o" },
	{ "docker-", ".scope", "docker" },
	{ "libpod-", ".scope", "podman" },
	{ "libpod-", "", "podman" },
};

static const struct {
	const char *name; /* the kubelet's, in cgroup names */
	const char *qos;  /* the API's, as kube-state-metrics writes it */
} qos_classes[] = {
	{ "burstable", "Burstable" },
	{ "besteffort", "BestEffort" },
};

static bool
is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
			(s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A container id: exactly 64 lowercase hex digits. */
static bool
is_container_id(const char *s, size_t n)
{
	return n == K8S_CONTAINER_LEN && is_hex(s, n);
}

/*
 * A pod uid, 8-4-4-4-12 hex digits, its separators sep ('-', or '_' in
 * systemd's unit names); copied to uid with '-'.
 */
static bool
pod_uid(const char *s, size_t n, char sep, char uid[K8S_UID_LEN + 1])
{
	size_t i;

	if (n != K8S_UID_LEN)
		return false;
	for (i = 0; i < n; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != sep)
				return false;
			uid[i] = '-';
		} else if (is_hex(s + i, 1))
			uid[i] = s[i];
		else
			return false;
	}
	uid[n] = '\0';
	return true;
}

static bool
ends_with(const char *s, size_t n, const char *suffix, size_t *stem)
{
	size_t k = strlen(suffix);

	if (n < k || memcmp(s + n - k, suffix, k) != 0)
		return false;
	*stem = n - k;
	return true;
}

/* The QoS class of the kubelet's name for it; NULL: none. */
static const char *
qos_of(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(qos_classes) / sizeof(qos_classes[0]); i++)
		if (strlen(qos_classes[i].name) == n &&
		    memcmp(name, qos_classes[i].name, n) == 0)
			return qos_classes[i].qos;
	return NULL;
}

/*
 * systemd's driver: [PREFIX-]kubepods[-QOS]-pod<uid>.slice, the uid's
 * dashes written as underscores.
 */
static bool
systemd_pod(const char *c, size_t n, struct k8s_ids *ids)
{
	static const char kubepods[] = "kubepods";
	const size_t klen = sizeof(kubepods) - 1;
	const char *qos;
	size_t stem, at, k;

	if (!ends_with(c, n, ".slice", &stem) || stem < K8S_UID_LEN + 4 + klen)
		return false;
	at = stem - K8S_UID_LEN - 4; /* "-pod" */
	if (memcmp(c + at, "-pod", 4) != 0)
		return false;
	/* kubepods begins the name or follows a '-', the last one. */
	for (k = at - klen + 1; k-- > 0;)
		if (memcmp(c + k, kubepods, klen) == 0 &&
		    (k == 0 || c[k - 1] == '-'))
			break;
	if (k == (size_t)-1)
		return false;
	if (k + klen == at)
		qos = "Guaranteed";
	else if (c[k + klen] == '-')
		qos = qos_of(c + k + klen + 1, at - (k + klen + 1));
	else
		return false;
	if (qos == NULL || !pod_uid(c + at + 4, K8S_UID_LEN, '_', ids->pod_uid))
		return false;
	ids->qos_class = qos;
	return true;
}

/* cgroupfs's pod<uid>, of the QoS class qos (NULL: none): its ids in ids. */
static bool
cgroupfs_pod_of(const char *c, size_t n, const char *qos, struct k8s_ids *ids)
{
	if (qos == NULL || n < 3 || memcmp(c, "pod", 3) != 0 ||
	    !pod_uid(c + 3, n - 3, '-', ids->pod_uid))
		return false;
	ids->qos_class = qos;
	return true;
}

/*
 * cgroupfs's driver: pod<uid> under /kubepods, or under /kubepods/QOS,
 * kubepods a top-level cgroup (depth is c's, 1 for those).
 */
static bool
cgroupfs_pod(const char *c, size_t n, const char *parent, const char *grand,
    size_t depth, struct k8s_ids *ids)
{
	const char *qos = NULL;

	if (depth == 2 && strcmp(parent, "kubepods") == 0)
		qos = "Guaranteed";
	else if (depth == 3 && strcmp(grand, "kubepods") == 0)
		qos = qos_of(parent, strlen(parent));
	return cgroupfs_pod_of(c, n, qos, ids);
}

/*
 * A container: a runtime's form, or its id alone (cgroupfs) where the
 * parent is a pod's (the runtime not said) or Docker's own cgroup.
 */
static bool
container(const char *c, size_t n, const char *parent, bool below_pod,
    struct k8s_ids *ids)
{
	const struct runtime_form *f;
	size_t i, p, stem;

	for (i = 0; i < sizeof(runtime_forms) / sizeof(runtime_forms[0]); i++) {
		f = &runtime_forms[i];
		p = strlen(f->prefix);
		if (n > p && memcmp(c, f->prefix, p) == 0 &&
		    ends_with(c, n, f->suffix, &stem) &&
		    is_container_id(c + p, stem - p)) {
			memcpy(ids->container_id, c + p, K8S_CONTAINER_LEN);
			ids->runtime = f->runtime;
			return true;
		}
	}
	if (!is_container_id(c, n) ||
	    !(below_pod || (parent != NULL && strcmp(parent, "docker") == 0)))
		return false;
	memcpy(ids->container_id, c, K8S_CONTAINER_LEN);
	ids->runtime = below_pod ? NULL : "docker";
	return true;
}

/*
 * Whether c (n bytes) goes on with systemd's chain of slices from the
 * root, whose names each begin with their parent's stem and a '-'
 * ("a.slice", "a-b.slice", "a-b-c.slice"): chain holds the stem so far,
 * "" at the root, and c's once it goes on. Only root makes a slice
 * (systemd delegates scopes and services, never slices), so the kubelet's
 * root, "/kubepods.slice" or a kind node's
 * "/kubelet.slice/kubelet-kubepods.slice", is such a chain.
 */
static bool
slice_chain(char chain[COMPONENT_MAX], const char *c, size_t n)
{
	size_t stem, k = strlen(chain);

	if (!ends_with(c, n, ".slice", &stem) || stem == 0)
		return false;
	if (k == 0 ? memchr(c, '-', stem) != NULL :
		     stem <= k + 1 || memcmp(c, chain, k) != 0 || c[k] != '-')
		return false;
	memcpy(chain, c, stem);
	chain[stem] = '\0';
	return true;
}

/* Whether c, at depth, is a pod at the kubelet's root: its ids in pod. */
static bool
kubelet_pod(const char *c, size_t n, char names[3][COMPONENT_MAX], size_t depth,
    bool in_chain, struct k8s_ids *pod)
{
	memset(pod, 0, sizeof(*pod));
	return (in_chain && systemd_pod(c, n, pod)) ||
	    cgroupfs_pod(c, n, depth > 1 ? names[1] : NULL,
		depth > 2 ? names[2] : NULL, depth, pod);
}

/* The next name of the path at *p, its length in n; NULL: no more. */
static const char *
next_component(const char **p, size_t *n)
{
	const char *c = *p, *end;

	while (*c == '/')
		c++;
	if (*c == '\0')
		return NULL;
	if ((end = strchr(c, '/')) == NULL)
		end = c + strlen(c);
	*n = (size_t)(end - c);
	*p = end;
	return c;
}

/*
 * The ids of a path by the rules that find the kubelet's root (pods: a
 * root is found; else only containers outside Kubernetes count).
 */
static bool
parse_found(const char *cgroup, bool pods, struct k8s_ids *ids)
{
	char names[3][COMPONENT_MAX]; /* this one, its parent, theirs */
	char chain[COMPONENT_MAX] = "";
	const char *p = cgroup, *c;
	size_t n, depth = 0, pod_depth = 0;
	bool in_chain = true;
	struct k8s_ids pod;

	while ((c = next_component(&p, &n)) != NULL && n < COMPONENT_MAX) {
		memmove(names[2], names[1], sizeof(names[2]));
		memmove(names[1], names[0], sizeof(names[1]));
		memcpy(names[0], c, n);
		names[0][n] = '\0';
		depth++;
		/* A container's cgroup is its pod's child, or a top one's. */
		if (pod_depth != 0) {
			(void)container(c, n, names[1], true, ids);
			return true;
		}
		in_chain = in_chain && slice_chain(chain, c, n);
		if (pods && kubelet_pod(c, n, names, depth, in_chain, &pod)) {
			*ids = pod;
			pod_depth = depth;
			continue;
		}
		if (depth == 2 && container(c, n, names[1], false, ids))
			return true;
	}
	return pod_depth != 0;
}

/*
 * A pod of the kubelet's layout right below a configured root, depth 1
 * for its own children: systemd's slices named on from the root's stem
 * (in chain) where the root is a slice, cgroupfs's names where not; a
 * Guaranteed pod at depth 1, another below its QoS class's cgroup
 * (parent) at depth 2.
 */
static bool
rooted_pod(const char *c, size_t n, char chain[COMPONENT_MAX],
    const char *parent, size_t depth, struct k8s_ids *pod)
{
	memset(pod, 0, sizeof(*pod));
	if (chain[0] == '\0')
		return cgroupfs_pod_of(c, n,
		    depth == 1 ? "Guaranteed" : qos_of(parent, strlen(parent)),
		    pod);
	return slice_chain(chain, c, n) && systemd_pod(c, n, pod) &&
	    (strcmp(pod->qos_class, "Guaranteed") == 0) == (depth == 1);
}

/* The ids of rest, a path below the configured root (see rooted_pod). */
static bool
parse_rooted(const char *rest, const char *root, struct k8s_ids *ids)
{
	char chain[COMPONENT_MAX] = "", parent[COMPONENT_MAX] = "";
	const char *p = rest, *c, *last = strrchr(root, '/') + 1;
	size_t n, stem, depth = 0;
	struct k8s_ids pod;

	if (ends_with(last, strlen(last), ".slice", &stem)) {
		memcpy(chain, last, stem);
		chain[stem] = '\0';
	}
	while ((c = next_component(&p, &n)) != NULL && n < COMPONENT_MAX &&
	    ++depth <= 2) {
		if (rooted_pod(c, n, chain, parent, depth, &pod)) {
			*ids = pod;
			if ((c = next_component(&p, &n)) != NULL)
				(void)container(c, n, NULL, true, ids);
			return true;
		}
		memcpy(parent, c, n);
		parent[n] = '\0';
	}
	return false;
}

bool
k8s_ids_parse(const char *cgroup, const char *root, struct k8s_ids *ids)
{
	size_t k = root != NULL ? strlen(root) : 0;

	memset(ids, 0, sizeof(*ids));
	if (root != NULL && strncmp(cgroup, root, k) == 0 && cgroup[k] == '/' &&
	    parse_rooted(cgroup + k, root, ids))
		return true;
	memset(ids, 0, sizeof(*ids));
	return parse_found(cgroup, root == NULL, ids);
}

/* Whether a cgroup's name is the kubelet's own: kubepods, or its slice. */
static bool
is_kubepods(const char *c)
{
	size_t n = strlen(c), stem;

	if (strcmp(c, "kubepods") == 0)
		return true;
	if (!ends_with(c, n, ".slice", &stem) || stem < 8 ||
	    memcmp(c + stem - 8, "kubepods", 8) != 0)
		return false;
	return stem == 8 || (stem > 9 && c[stem - 9] == '-');
}

const char *
k8s_root_invalid(const char *root)
{
	const char *p = root, *c;
	size_t n;

	if (root[0] != '/')
		return "is not a path from the hierarchy's root (/...)";
	if (strlen(root) >= K8S_ROOT_MAX)
		return "is too long";
	if (root[1] != '\0' &&
	    (strstr(root, "//") != NULL || root[strlen(root) - 1] == '/'))
		return "has an empty name in it ('//' or a '/' at its end)";
	while ((c = next_component(&p, &n)) != NULL)
		if ((n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return "has '.' or '..' in it";
		else if (n >= COMPONENT_MAX)
			return "has a name too long for a cgroup";
	if (!is_kubepods(strrchr(root, '/') + 1))
		return "does not end in the kubelet's own cgroup (kubepods, "
		       "kubepods.slice or PREFIX-kubepods.slice)";
	return NULL;
}

size_t
k8s_ids_labels(const struct k8s_ids *ids, const char *keys[K8S_LABELS_MAX],
    const char *values[K8S_LABELS_MAX])
{
	size_t n = 0;

	if (ids->pod_uid[0] != '\0') {
		keys[n] = "pod_uid";
		values[n++] = ids->pod_uid;
	}
	if (ids->container_id[0] != '\0') {
		keys[n] = "container_id";
		values[n++] = ids->container_id;
	}
	if (ids->qos_class != NULL) {
		keys[n] = "qos_class";
		values[n++] = ids->qos_class;
	}
	if (ids->runtime != NULL) {
		keys[n] = "runtime";
		values[n++] = ids->runtime;
	}
	return n;
}
