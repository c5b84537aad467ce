/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kpod: the Kubernetes pod and container a cgroup path belongs to, as the kubelet names them,
 * so that per-cgroup figures can be joined with kube-state-metrics. Pure.
 *
 * The systemd cgroup driver:  /kubepods.slice/kubepods-burstable.slice/
 *     kubepods-burstable-pod<uid, '-' written '_'>.slice/cri-containerd-<id>.scope
 * (Guaranteed pods sit directly in kubepods.slice as kubepods-pod<uid>.slice; the container
 * scope is cri-containerd-, crio- or docker-<id>.scope). The cgroupfs driver:
 *     /kubepods/burstable/pod<uid>/<id>
 * The kubepods component may be nested (kubelet.slice/kubelet-kubepods.slice for a rootless
 * kubelet, a node's own slice): the first component that starts with "kubepods" or
 * "kubelet-kubepods" is taken.
 */
#ifndef PAGEOUTD_KPOD_H
#define PAGEOUTD_KPOD_H

#include <stdbool.h>

#define KPOD_UID_LEN 36
#define KPOD_CONTAINER_MAX 64

struct kpod {
	const char *qos;			   /* "guaranteed", "burstable", "besteffort" */
	char pod_uid[KPOD_UID_LEN + 1];		   /* with dashes, as the API shows it */
	char container_id[KPOD_CONTAINER_MAX + 1]; /* "" for the pod's own cgroup */
};

/*
 * kpod_parse: the pod (and container) of cgroup path `path` into ret. Returns true when path
 * is a pod's cgroup or lies beneath one; false (ret zeroed) for anything else, a QoS slice
 * included.
 */
bool kpod_parse(const char *path, struct kpod *ret);

#endif
