// SPDX-License-Identifier: GPL-2.0-or-later
/* kpod: Kubernetes pod UID, QoS class and container ID from a cgroup path (kpod.h). */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "pageoutd/kpod.h"
#include "pageoutd/util.h"

/* The component of path starting at p: its length. */
static size_t comp_len(const char *p)
{
	const char *e = strchr(p, '/');

	return e ? (size_t)(e - p) : strlen(p);
}

static bool comp_starts(const char *c, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !strncmp(c, prefix, k);
}

static bool comp_is(const char *c, size_t n, const char *s)
{
	return n == strlen(s) && !strncmp(c, s, n);
}

/* A pod UID of n characters at s ('_' for '-' in systemd slice names) into uid. */
static bool take_uid(const char *s, size_t n, char uid[KPOD_UID_LEN + 1])
{
	char t[KPOD_UID_LEN + 1];

	if (n != KPOD_UID_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i] == '_' ? '-' : s[i];

		if (!isxdigit((unsigned char)ch) && ch != '-')
			return false;
		t[i] = (char)tolower((unsigned char)ch);
	}
	t[n] = '\0';
	memcpy(uid, t, sizeof(t));
	return true;
}

/* The QoS class a component names, NULL if none: kubepods-burstable.slice or burstable. */
static const char *comp_qos(const char *c, size_t n)
{
	static const char *const qos[] = { "burstable", "besteffort" };

	for (size_t i = 0; i < ARRAY_SIZE(qos); i++) {
		char slice[48], nested[64];

		snprintf(slice, sizeof(slice), "kubepods-%s.slice", qos[i]);
		snprintf(nested, sizeof(nested), "kubelet-kubepods-%s.slice", qos[i]);
		if (comp_is(c, n, qos[i]) || comp_is(c, n, slice) || comp_is(c, n, nested))
			return qos[i];
	}
	return NULL;
}

/* A pod component: [kubelet-]kubepods[-QOS]-pod<uid>.slice or pod<uid>. */
static bool comp_pod(const char *c, size_t n, char uid[KPOD_UID_LEN + 1], const char **qos)
{
	const char *end = c + n - 6; /* before ".slice" */

	if (comp_starts(c, n, "pod"))
		return take_uid(c + 3, n - 3, uid);
	if ((!comp_starts(c, n, "kubepods-") && !comp_starts(c, n, "kubelet-kubepods-")) || n < 6 ||
	    strncmp(end, ".slice", 6))
		return false;
	/* the UID is what follows the last "-pod" */
	for (const char *p = end - 4; p >= c; p--)
		if (!strncmp(p, "-pod", 4)) {
			if (!take_uid(p + 4, (size_t)(end - (p + 4)), uid))
				return false;
			/* kubepods-burstable-pod<uid>.slice names its QoS class too */
			*qos = memmem(c, (size_t)(p - c), "burstable", 9)     ? "burstable"
			       : memmem(c, (size_t)(p - c), "besteffort", 10) ? "besteffort"
									      : *qos;
			return true;
		}
	return false;
}

/* A container component: <runtime>-<id>.scope or a bare <id> of hex digits. */
static bool comp_container(const char *c, size_t n, char id[KPOD_CONTAINER_MAX + 1])
{
	const char *s = c;
	size_t k = n;

	if (k > 6 && !strncmp(c + k - 6, ".scope", 6)) {
		const char *dash = memrchr(c, '-', k - 6);

		if (!dash)
			return false;
		s = dash + 1;
		k = (size_t)(c + n - 6 - s);
	}
	if (k < 12 || k > KPOD_CONTAINER_MAX)
		return false;
	for (size_t i = 0; i < k; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	memcpy(id, s, k);
	id[k] = '\0';
	return true;
}

bool kpod_parse(const char *path, struct kpod *ret)
{
	const char *c = path;
	const char *qos = "guaranteed";
	bool in_kubepods = false;

	memset(ret, 0, sizeof(*ret));
	for (; *c; c += comp_len(c)) {
		size_t n;

		while (*c == '/')
			c++;
		n = comp_len(c);
		if (!n)
			break;
		if (!in_kubepods) {
			/* the first kubepods component may already be a QoS slice or a pod */
			in_kubepods = comp_starts(c, n, "kubepods") ||
				      comp_starts(c, n, "kubelet-kubepods");
			if (in_kubepods && comp_qos(c, n))
				qos = comp_qos(c, n);
			else if (in_kubepods)
				comp_pod(c, n, ret->pod_uid, &qos);
			continue;
		}
		if (!ret->pod_uid[0]) {
			const char *q = comp_qos(c, n);

			if (q)
				qos = q;
			else if (!comp_pod(c, n, ret->pod_uid, &qos))
				break;
			continue;
		}
		comp_container(c, n, ret->container_id);
		break;
	}
	if (!ret->pod_uid[0]) {
		memset(ret, 0, sizeof(*ret));
		return false;
	}
	ret->qos = qos;
	return true;
}
