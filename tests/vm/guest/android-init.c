// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * android-init FILE.rc: start the service of an init.rc file as Android's init does, for the
 * guest's Android-like test: for each `socket NAME stream PERM USER GROUP` line, a Unix stream
 * socket bound at /dev/socket/NAME with that mode and owner (not listening: the daemon calls
 * listen(), as lmkd and vold do), its descriptor left open across exec and named in
 * ANDROID_SOCKET_NAME; then the `service NAME PATH ARGS...` line's command is executed in place
 * of this process. Other options of the service (class, user, capabilities...) are not applied:
 * the guest runs everything as root. Guest only.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "vmtest.h"

#define MAX_ARGS 32

/* Android's fixed ids (system/core/libcutils/include/private/android_filesystem_config.h) */
static int android_id(const char *name)
{
	if (!strcmp(name, "root"))
		return 0;
	if (!strcmp(name, "system"))
		return 1000;
	return -1;
}

/* Create, bind and publish the socket of a `socket` line's words. Returns 0 or -errno. */
static int make_socket(char **w, int n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char env[64], num[16];
	int fd, uid, gid;
	unsigned long mode;

	if (n != 6 || strcmp(w[2], "stream"))
		return -EINVAL;
	mode = strtoul(w[3], NULL, 8);
	uid = android_id(w[4]);
	gid = android_id(w[5]);
	if (uid < 0 || gid < 0)
		return -EINVAL;
	mkdir("/dev/socket", 0755);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/dev/socket/%s", w[1]);
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0); /* no SOCK_CLOEXEC: the service inherits it */
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    lchown(sa.sun_path, (uid_t)uid, (gid_t)gid) < 0 || chmod(sa.sun_path, (mode_t)mode) < 0)
		return -errno;
	snprintf(env, sizeof(env), "ANDROID_SOCKET_%s", w[1]);
	snprintf(num, sizeof(num), "%d", fd);
	return setenv(env, num, 1) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	char line[1024], *svc[MAX_ARGS + 1] = { NULL };
	FILE *f;
	int r;

	vm_require_guest();
	if (argc != 2 || !(f = fopen(argv[1], "re"))) {
		fprintf(stderr, "usage: android-init FILE.rc\n");
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		char *w[MAX_ARGS + 1], *save = NULL;
		int n = 0;

		for (char *t = strtok_r(line, " \t\n", &save); t && n < MAX_ARGS;
		     t = strtok_r(NULL, " \t\n", &save))
			w[n++] = t;
		if (n == 0 || w[0][0] == '#')
			continue;
		if (!strcmp(w[0], "service") && n >= 3) {
			for (int i = 2; i < n; i++)
				svc[i - 2] = strdup(w[i]);
		} else if (!strcmp(w[0], "socket")) {
			r = make_socket(w, n);
			if (r < 0) {
				fprintf(stderr, "android-init: socket %s: %s\n", n > 1 ? w[1] : "",
					strerror(-r));
				return 1;
			}
		}
	}
	fclose(f);
	if (!svc[0]) {
		fprintf(stderr, "android-init: no service line in %s\n", argv[1]);
		return 2;
	}
	execv(svc[0], svc);
	fprintf(stderr, "android-init: exec %s: %s\n", svc[0], strerror(errno));
	return 127;
}
