/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pod's and a container's ids, read from a cgroup's path as the kubelet
 * and the container runtimes write it:
 *
 *   kubelet, systemd driver   /kubepods.slice/kubepods-<qos>.slice/
 *                             kubepods-<qos>-pod<uid_with_underscores>.slice/
 *                             (Guaranteed pods: kubepods-pod<uid>.slice,
 *                             right under kubepods.slice)
 *   kubelet, cgroupfs driver  /kubepods/<qos>/pod<uid>/ (Guaranteed:
 *                             /kubepods/pod<uid>/)
 *   containerd                cri-containerd-<id>.scope, or <id> alone
 *                             under a cgroupfs pod
 *   CRI-O                     crio-<id>.scope (crio-<id> with cgroupfs)
 *   Docker                    docker-<id>.scope, /docker/<id>
 *   podman                    libpod-<id>.scope, libpod-<id>
 *
 * where <id> is the runtime's 64 hex digits. The pod's own cgroup has a
 * pod uid and no container id; each container of the pod, the sandbox
 * ("pause") container included, has both. Which container id is the
 * sandbox's is not in the path: kube-state-metrics' kube_pod_container_info
 * lists the others, and the recording rules name it by that absence.
 * The runtimes' monitors (crio-conmon-<id>.scope, libpod-conmon-<id>.scope)
 * are no container: only the pod's ids, if any.
 *
 * Only where root alone makes those names: a pod at the kubelet's root
 * (systemd's chain of slices from the hierarchy's root, as
 * /kubepods.slice or a kind node's /kubelet.slice/kubelet-kubepods.slice,
 * or cgroupfs's top-level /kubepods), a container right below its pod or,
 * outside Kubernetes, right below a top-level cgroup; never in a subtree
 * a user may be given.
 *
 * Where the kubelet's root is elsewhere (a cgroupfs root below the top,
 * as kind's /kubelet/kubepods), it is given instead (kubelet-root=): then
 * a pod is one only right below it, in the layout of the driver its name
 * says (a slice: systemd's), and nowhere else.
 *
 * The runtime's name is the scheme Kubernetes gives its container ids
 * (containerd://, cri-o://, docker://), so that a series and
 * kube_pod_container_info join on "runtime://container_id".
 */
#ifndef K8S_LABELS_H
#define K8S_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#define K8S_UID_LEN	  36 /* 8-4-4-4-12 */
#define K8S_CONTAINER_LEN 64 /* hex digits */
#define K8S_LABELS_MAX	  4
#define K8S_ROOT_MAX	  256 /* bytes of a configured root, its '\0' too */

struct k8s_ids {
	char pod_uid[K8S_UID_LEN + 1];		  /* "": not in a pod */
	char container_id[K8S_CONTAINER_LEN + 1]; /* "": not a container */
	const char *qos_class; /* "Guaranteed", "Burstable", "BestEffort" */
	const char *runtime;   /* "containerd", "cri-o", "docker", "podman" */
};

/*
 * The ids in cgroup, a path in the hierarchy ("/kubepods.slice/...");
 * true when it names a pod or a container, false (ids cleared) otherwise.
 * root: the kubelet's cgroup root as configured, or NULL: found.
 */
bool k8s_ids_parse(const char *cgroup, const char *root, struct k8s_ids *ids);

/*
 * Why root cannot be a configured kubelet root: the kubelet's own cgroup
 * (kubepods, kubepods.slice, PREFIX-kubepods.slice) by its path in the
 * hierarchy, "/" and plain names between; NULL: it can be.
 */
const char *k8s_root_invalid(const char *root);

/*
 * The ids as labels, in a fixed order (pod_uid, container_id, qos_class,
 * runtime), those that are known: their number, at most K8S_LABELS_MAX.
 */
size_t k8s_ids_labels(const struct k8s_ids *ids,
    const char *keys[K8S_LABELS_MAX], const char *values[K8S_LABELS_MAX]);

#endif /* K8S_LABELS_H */
