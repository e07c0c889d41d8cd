/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * k8s_labels.c: the pod and container ids in the cgroup paths that the
 * kubelet's two drivers and the runtimes make, as they make them
 * (systemd's unit names write a uid's dashes as underscores); the
 * pod's own cgroup apart from its containers, the sandbox's included; a
 * kind node's kubelet root; the runtimes' monitors and names that only
 * look alike are no container; and no labels from a name a user could
 * make: in a delegated subtree, inside a container (a kind node seen from
 * its host is a container), or anywhere off the kubelet's root; with a
 * root given, pods only right below it, and which roots cannot be given.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "k8s_labels.h"

#define UID  "0f2c6a1e-9b3d-4c5e-8f70-1a2b3c4d5e6f"
#define UIDS "0f2c6a1e_9b3d_4c5e_8f70_1a2b3c4d5e6f"
#define CID  "4b825dc642cb6eb9a060e54bf8d69288fbee4904aa1b2c3d4e5f60718293a4b5"
#define CID2 "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3b9e9c8a7f6e5d4c3b2a19087"

struct want {
	const char *path;
	bool found;
	const char *pod_uid, *container_id, *qos, *runtime;
};

static const struct want cases[] = {
	/* kubelet, systemd driver, containerd */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	  ".slice/cri-containerd-" CID ".scope",
	    true, UID, CID, "Burstable", "containerd" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDS
	  ".slice",
	    true, UID, "", "BestEffort", NULL },
	{ "/kubepods.slice/kubepods-pod" UIDS ".slice", true, UID, "",
	    "Guaranteed", NULL },
	{ "/kubepods.slice/kubepods-pod" UIDS ".slice/crio-" CID ".scope", true,
	    UID, CID, "Guaranteed", "cri-o" },
	/* CRI-O's monitor of a container is the pod's, not a container. */
	{ "/kubepods.slice/kubepods-pod" UIDS ".slice/crio-conmon-" CID
	  ".scope",
	    true, UID, "", "Guaranteed", NULL },
	/* Docker's shim under the kubelet's systemd driver */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	  ".slice/docker-" CID ".scope",
	    true, UID, CID, "Burstable", "docker" },
	/* kubelet, cgroupfs driver: the runtime is not in the path */
	{ "/kubepods/burstable/pod" UID "/" CID, true, UID, CID, "Burstable",
	    NULL },
	{ "/kubepods/besteffort/pod" UID, true, UID, "", "BestEffort", NULL },
	{ "/kubepods/pod" UID "/" CID, true, UID, CID, "Guaranteed", NULL },
	{ "/kubepods/burstable/pod" UID "/crio-" CID, true, UID, CID,
	    "Burstable", "cri-o" },
	/* A kind node's kubelet root, as the node sees its hierarchy */
	{ "/kubelet.slice/kubelet-kubepods.slice/"
	  "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UIDS
	  ".slice/cri-containerd-" CID ".scope",
	    true, UID, CID, "BestEffort", "containerd" },
	{ "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UIDS
	  ".slice",
	    true, UID, "", "Guaranteed", NULL },
	/* The same seen from the host: inside a container, the container's */
	{ "/system.slice/docker-" CID2
	  ".scope/kubelet.slice/kubelet-kubepods.slice/"
	  "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UIDS
	  ".slice/cri-containerd-" CID ".scope",
	    true, "", CID2, NULL, "docker" },
	/* A user's delegated subtree: whatever its names, no pod, no container
	 */
	{ "/user.slice/user-1000.slice/user@1000.service/kubepods.slice/"
	  "kubepods-pod" UIDS ".slice/cri-containerd-" CID ".scope",
	    false, "", "", NULL, NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/"
	  "kubepods-burstable-pod" UIDS ".slice",
	    false, "", "", NULL, NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/kubepods/pod" UID
	  "/" CID,
	    false, "", "", NULL, NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/docker/" CID, false,
	    "", "", NULL, NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID
	  ".scope",
	    false, "", "", NULL, NULL },
	/* A slice off the chain from the root is no kubelet root */
	{ "/system.slice/kubepods-pod" UIDS ".slice", false, "", "", NULL,
	    NULL },
	{ "/kubepods.slice/other-kubepods.slice/other-kubepods-pod" UIDS
	  ".slice",
	    false, "", "", NULL, NULL },
	/* A container's own hierarchy: the container's, not a pod's */
	{ "/machine.slice/libpod-" CID ".scope/kubepods.slice/kubepods-pod" UIDS
	  ".slice",
	    true, "", CID, NULL, "podman" },
	/* Below a pod, only its child is its container */
	{ "/kubepods.slice/kubepods-pod" UIDS ".slice/cri-containerd-" CID
	  ".scope/cri-containerd-" CID2 ".scope",
	    true, UID, CID, "Guaranteed", "containerd" },
	{ "/kubepods.slice/kubepods-pod" UIDS ".slice/sub/cri-containerd-" CID
	  ".scope",
	    true, UID, "", "Guaranteed", NULL },
	/* cgroupfs's kubepods is a top-level cgroup */
	{ "/other/kubepods/pod" UID, false, "", "", NULL, NULL },
	/* Without Kubernetes */
	{ "/machine.slice/libpod-" CID ".scope", true, "", CID, NULL,
	    "podman" },
	{ "/machine.slice/libpod-" CID ".scope/container", true, "", CID, NULL,
	    "podman" },
	{ "/libpod_parent/libpod-" CID, true, "", CID, NULL, "podman" },
	{ "/machine.slice/libpod-conmon-" CID ".scope", false, "", "", NULL,
	    NULL },
	{ "/system.slice/docker-" CID ".scope", true, "", CID, NULL, "docker" },
	{ "/docker/" CID, true, "", CID, NULL, "docker" },
	/* A container's children stay its own: the first container wins. */
	{ "/system.slice/docker-" CID ".scope/libpod-" CID2 ".scope", true, "",
	    CID, NULL, "docker" },
	/* Not a pod, not a container */
	{ "/", false, "", "", NULL, NULL },
	{ "/system.slice/nginx.service", false, "", "", NULL, NULL },
	{ "/kubepods.slice", false, "", "", NULL, NULL },
	{ "/kubepods.slice/kubepods-burstable.slice", false, "", "", NULL,
	    NULL },
	{ "/kubepods/burstable", false, "", "", NULL, NULL },
	/* A bare id only under a pod or Docker's cgroup */
	{ "/user.slice/" CID, false, "", "", NULL, NULL },
	/* Ids of the wrong length or case, a QoS class that is none */
	{ "/kubepods.slice/kubepods-pod0f2c6a1e_9b3d_4c5e_8f70_1a2b3c4d5e6.slice",
	    false, "", "", NULL, NULL },
	{ "/kubepods.slice/kubepods-pod" UID ".slice", false, "", "", NULL,
	    NULL },
	{ "/kubepods.slice/kubepods-gold.slice/kubepods-gold-pod" UIDS ".slice",
	    false, "", "", NULL, NULL },
	{ "/kubepods/gold/pod" UID, false, "", "", NULL, NULL },
	{ "/notkubepods-pod" UIDS ".slice", false, "", "", NULL, NULL },
	{ "/system.slice/docker-4B825DC642CB6EB9A060E54BF8D69288FBEE4904AA1B2C3D"
	  "4E5F60718293A4B5.scope",
	    false, "", "", NULL, NULL },
	{ "/system.slice/docker-" CID "0.scope", false, "", "", NULL, NULL },
	{ "/machine.slice/libpod-.scope", false, "", "", NULL, NULL },
	/* A shortened name (cpctools-output(5)) keeps what it still holds */
	{ "/kubepods/pod" UID "/" CID "...0123456789abcdef", true, UID, "",
	    "Guaranteed", NULL },
};

static bool
same(const char *got, const char *want)
{
	if (got == NULL || want == NULL)
		return got == want;
	return strcmp(got, want) == 0;
}

/* Each case of a table, under the kubelet root root (NULL: found). */
static void
check_cases(const struct want *table, size_t n, const char *root)
{
	struct k8s_ids ids;
	size_t i;
	bool found;

	for (i = 0; i < n; i++) {
		const struct want *w = &table[i];

		found = k8s_ids_parse(w->path, root, &ids);
		if (found != w->found || strcmp(ids.pod_uid, w->pod_uid) != 0 ||
		    strcmp(ids.container_id, w->container_id) != 0 ||
		    !same(ids.qos_class, w->qos) ||
		    !same(ids.runtime, w->runtime)) {
			fprintf(stderr,
			    "%s (root %s):\n  got %d pod_uid=%s container_id=%s "
			    "qos_class=%s runtime=%s\n",
			    w->path, root ? root : "found", found, ids.pod_uid,
			    ids.container_id,
			    ids.qos_class ? ids.qos_class : "-",
			    ids.runtime ? ids.runtime : "-");
			CHECK(false);
		}
	}
}

static void
test_layouts(void)
{
	check_cases(cases, sizeof(cases) / sizeof(cases[0]), NULL);
}

/*
 * A root given (kind's cgroupfs driver, /kubelet/kubepods, which is not
 * found: cgroupfs's found root is top-level): pods right below it, in
 * cgroupfs's layout; none outside it, the found roots included; none of
 * the same names made under another cgroup, or right beside it.
 */
#define CGFS_ROOT "/kubelet/kubepods"
static const struct want cgroupfs_rooted[] = {
	{ CGFS_ROOT "/besteffort/pod" UID "/" CID, true, UID, CID, "BestEffort",
	    NULL },
	{ CGFS_ROOT "/burstable/pod" UID, true, UID, "", "Burstable", NULL },
	{ CGFS_ROOT "/pod" UID "/crio-" CID, true, UID, CID, "Guaranteed",
	    "cri-o" },
	/* Found without a root, not with one elsewhere */
	{ "/kubepods/burstable/pod" UID "/" CID, false, "", "", NULL, NULL },
	{ "/kubepods.slice/kubepods-pod" UIDS ".slice/cri-containerd-" CID
	  ".scope",
	    false, "", "", NULL, NULL },
	/* Forged: the same names under a user's cgroup, or a like name */
	{ "/user.slice/user-1000.slice/user@1000.service" CGFS_ROOT
	  "/burstable/pod" UID "/" CID,
	    false, "", "", NULL, NULL },
	{ "/kubelet/kubepods2/pod" UID "/" CID, false, "", "", NULL, NULL },
	/* Below the root, only the kubelet's layout */
	{ CGFS_ROOT, false, "", "", NULL, NULL },
	{ CGFS_ROOT "/burstable", false, "", "", NULL, NULL },
	{ CGFS_ROOT "/gold/pod" UID, false, "", "", NULL, NULL },
	{ CGFS_ROOT "/burstable/x/pod" UID, false, "", "", NULL, NULL },
	{ CGFS_ROOT "/burstable/pod" UIDS, false, "", "", NULL, NULL },
	/* Containers outside Kubernetes keep theirs */
	{ "/system.slice/docker-" CID ".scope", true, "", CID, NULL, "docker" },
};

/*
 * A slice root given: systemd's layout named on from its stem. Here a
 * kind node's, seen from its host inside the node's container, where the
 * found rules give the container's labels alone.
 */
#define NODE	     "/system.slice/docker-" CID2 ".scope"
#define SYSTEMD_ROOT NODE "/kubelet.slice/kubelet-kubepods.slice"
#define NODE_IDS     true, "", CID2, NULL, "docker"
static const struct want systemd_rooted[] = {
	{ SYSTEMD_ROOT "/kubelet-kubepods-besteffort.slice/"
		       "kubelet-kubepods-besteffort-pod" UIDS
		       ".slice/cri-containerd-" CID ".scope",
	    true, UID, CID, "BestEffort", "containerd" },
	{ SYSTEMD_ROOT "/kubelet-kubepods-pod" UIDS ".slice", true, UID, "",
	    "Guaranteed", NULL },
	/* The node's own cgroups stay its container's */
	{ NODE "/kubelet.slice", true, "", CID2, NULL, "docker" },
	/* The found root is not the given one */
	{ "/kubepods.slice/kubepods-pod" UIDS ".slice", false, "", "", NULL,
	    NULL },
	/*
	 * Forged under another slice: none; off the root's chain of names:
	 * the node's container's alone
	 */
	{ "/user.slice/kubelet.slice/kubelet-kubepods.slice/"
	  "kubelet-kubepods-pod" UIDS ".slice",
	    false, "", "", NULL, NULL },
	{ SYSTEMD_ROOT "/other-kubepods-pod" UIDS ".slice", NODE_IDS },
	/*
	 * Not the kubelet's layout: a QoS class's pod right below the root,
	 * a Guaranteed one below a class; only the node's container's ids
	 */
	{ SYSTEMD_ROOT "/kubelet-kubepods-burstable-pod" UIDS ".slice",
	    NODE_IDS },
	{ SYSTEMD_ROOT "/kubelet-kubepods-burstable.slice/"
		       "kubelet-kubepods-burstable-kubepods-pod" UIDS ".slice",
	    NODE_IDS },
};

static void
test_rooted(void)
{
	check_cases(cgroupfs_rooted,
	    sizeof(cgroupfs_rooted) / sizeof(cgroupfs_rooted[0]), CGFS_ROOT);
	check_cases(systemd_rooted,
	    sizeof(systemd_rooted) / sizeof(systemd_rooted[0]), SYSTEMD_ROOT);
}

/* Roots that cannot be the kubelet's, each with its reason. */
static void
test_root_invalid(void)
{
	static const struct {
		const char *root, *why;
	} bad[] = {
		{ "", "is not a path from the hierarchy's root (/...)" },
		{ "kubepods",
		    "is not a path from the hierarchy's root (/...)" },
		{ "/", "does not end in the kubelet's own cgroup" },
		{ "/kubelet.slice",
		    "does not end in the kubelet's own cgroup" },
		{ "/kubelet/notkubepods", "does not end in the kubelet's own" },
		{ "/kubelet/kubepods/", "has an empty name in it" },
		{ "/kubelet//kubepods", "has an empty name in it" },
		{ "/kubelet/../kubepods", "has '.' or '..' in it" },
		{ "/./kubepods", "has '.' or '..' in it" },
	};
	char longer[K8S_ROOT_MAX + 16];
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = k8s_root_invalid(bad[i].root);
		if (why == NULL ||
		    strncmp(why, bad[i].why, strlen(bad[i].why)) != 0) {
			fprintf(stderr, "'%s': %s\n", bad[i].root,
			    why ? why : "taken");
			CHECK(false);
		}
	}
	memset(longer, 'a', sizeof(longer));
	longer[0] = '/';
	memcpy(longer + sizeof(longer) - 10, "/kubepods", 10);
	CHECK(k8s_root_invalid(longer) != NULL);
	CHECK(k8s_root_invalid("/kubepods") == NULL);
	CHECK(k8s_root_invalid("/kubepods.slice") == NULL);
	CHECK(k8s_root_invalid(SYSTEMD_ROOT) == NULL);
	CHECK(k8s_root_invalid(CGFS_ROOT) == NULL);
}

/* The labels in their order, only those known. */
static void
test_labels(void)
{
	const char *keys[K8S_LABELS_MAX], *values[K8S_LABELS_MAX];
	struct k8s_ids ids;

	CHECK(k8s_ids_parse("/kubepods.slice/kubepods-burstable.slice/"
			    "kubepods-burstable-pod" UIDS
			    ".slice/cri-containerd-" CID ".scope",
	    NULL, &ids));
	CHECK_EQ_U64(k8s_ids_labels(&ids, keys, values), 4);
	CHECK(strcmp(keys[0], "pod_uid") == 0 && strcmp(values[0], UID) == 0);
	CHECK(strcmp(keys[1], "container_id") == 0 &&
	    strcmp(values[1], CID) == 0);
	CHECK(strcmp(keys[2], "qos_class") == 0 &&
	    strcmp(values[2], "Burstable") == 0);
	CHECK(strcmp(keys[3], "runtime") == 0 &&
	    strcmp(values[3], "containerd") == 0);

	CHECK(k8s_ids_parse("/kubepods/pod" UID, NULL, &ids));
	CHECK_EQ_U64(k8s_ids_labels(&ids, keys, values), 2);
	CHECK(strcmp(keys[0], "pod_uid") == 0 &&
	    strcmp(keys[1], "qos_class") == 0);

	CHECK(k8s_ids_parse("/libpod_parent/libpod-" CID, NULL, &ids));
	CHECK_EQ_U64(k8s_ids_labels(&ids, keys, values), 2);
	CHECK(strcmp(keys[0], "container_id") == 0 &&
	    strcmp(keys[1], "runtime") == 0 &&
	    strcmp(values[1], "podman") == 0);

	CHECK(!k8s_ids_parse("/system.slice/cron.service", NULL, &ids));
	CHECK_EQ_U64(k8s_ids_labels(&ids, keys, values), 0);
}

int
main(void)
{
	test_layouts();
	test_rooted();
	test_root_invalid();
	test_labels();
	return check_report("test_k8s_labels");
}
