// SPDX-License-Identifier: GPL-2.0-or-later
/* Kubernetes pods and containers from cgroup paths, for both kubelet cgroup drivers. */
#include <config.h>

#include <string.h>

#include "pageoutd/kpod.h"
#include "../lib/tap.h"

#define UID "0c9ad4a8-3f5e-4b8e-9d5c-2a1f6e7b8c90"
#define UID_ "0c9ad4a8_3f5e_4b8e_9d5c_2a1f6e7b8c90"
#define CID "4f1c2b9e8a7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b"

static void is(const char *path, const char *qos, const char *uid, const char *cid)
{
	struct kpod k;
	bool r = kpod_parse(path, &k);

	if (!qos) {
		ok(!r && !k.qos && !k.pod_uid[0], "not a pod: %s", path);
		return;
	}
	ok(r && !strcmp(k.qos, qos) && !strcmp(k.pod_uid, uid) && !strcmp(k.container_id, cid),
	   "%s -> %s %s %s (got %s %s %s)", path, qos, uid, cid[0] ? cid : "-", k.qos, k.pod_uid,
	   k.container_id);
}

int main(void)
{
	is("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	   ".slice/cri-containerd-" CID ".scope",
	   "burstable", UID, CID);
	is("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice",
	   "besteffort", UID, "");
	is("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" CID ".scope", "guaranteed", UID, CID);
	is("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" CID ".scope", "guaranteed", UID,
	   CID);
	is("/kubepods/burstable/pod" UID "/" CID, "burstable", UID, CID);
	is("/kubepods/pod" UID "/" CID, "guaranteed", UID, CID);
	is("/kubepods/besteffort/pod" UID, "besteffort", UID, "");
	is("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
	   "kubelet-kubepods-burstable-pod" UID_ ".slice",
	   "burstable", UID, "");
	is("/system.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	   ".slice/cri-containerd-" CID ".scope",
	   "burstable", UID, CID);
	is("/kubepods.slice/kubepods-burstable.slice", NULL, NULL, NULL);
	is("/kubepods.slice", NULL, NULL, NULL);
	is("/system.slice/batch.slice", NULL, NULL, NULL);
	is("/kubepods/burstable/podnot-a-uid", NULL, NULL, NULL);
	is("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	   ".slice/crio-conmon-" CID ".scope",
	   "burstable", UID, CID);
	is("/kubepods/burstable/pod" UID "/not-hex", "burstable", UID, "");
	is("/tenant-a/kubepods-burstable-pod" UID_ ".slice", "burstable", UID, "");
	is("", NULL, NULL, NULL);
	is("/", NULL, NULL, NULL);
	return tap_exit();
}
