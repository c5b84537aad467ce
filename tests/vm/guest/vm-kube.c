// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pageoutd on a Kubernetes node's cgroup tree, configured from a ConfigMap volume, on the real
 * kernel (DAMON, cgroup v2, zram swap).
 *
 * The tree is the kubelet's systemd driver's: /kubepods.slice with a Burstable pod, a
 * BestEffort pod and a Guaranteed pod, each with one container scope holding a process with
 * 32 MiB of cold and 4 MiB of hot anonymous memory. As Kubernetes' LimitedSwap does, only the
 * Burstable pod may swap: memory.swap.max is 0 for the others' containers.
 *
 * The configuration is a ConfigMap volume as the kubelet writes one with items
 * (pageoutd.conf, conf.d/NAME.conf): visible symlinks through `..data` into a timestamped
 * directory, conf.d itself a symlink into it; an update writes a new directory and renames
 * `..data_tmp` over `..data`.
 *
 * Checked: the Burstable pod's cold memory goes (at least 90%), its figures carry its pod UID,
 * QoS class and container ID; the BestEffort pod's anon stays and is counted as skipped
 * swap_limit; a ConfigMap update adding the Guaranteed pods' policy is in force without a
 * signal; a broken update is refused and the policies in force stay. Guest only.
 *
 * `vm-kube image`: the same checks on what the DaemonSet runs, as it runs it (see image()).
 */
#include <config.h>

#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>

#include "pageoutd/util.h"
#include "vmtest.h"
#include "../../lib/tap.h"

#define COLD_A 0x7e0000000000ULL
#define HOT_A (COLD_A + 64 * MIB)
#define CM "/tmp/pageoutd-kube"
#define LOG "/tmp/pageoutd-kube.log"
#define SOCK "/run/pageoutd-kube/pageoutd.sock"

#define QOS "/kubepods.slice"
#define BURST QOS "/kubepods-burstable.slice"
#define BEST QOS "/kubepods-besteffort.slice"
#define UID_B "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"
#define UID_E "7a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d"
#define UID_G "8b3c4d5e-6f7a-4b2c-8d3e-4f5a6b7c8d9e"
#define CID_B "b1b2b3b4b5b6b7b8b9b0b1b2b3b4b5b6b7b8b9b0b1b2b3b4b5b6b7b8b9b0b1b2"
#define CID_E "e1e2e3e4e5e6e7e8e9e0e1e2e3e4e5e6e7e8e9e0e1e2e3e4e5e6e7e8e9e0e1e2"
#define CID_G "a1a2a3a4a5a6a7a8a9a0a1a2a3a4a5a6a7a8a9a0a1a2a3a4a5a6a7a8a9a0a1a2"

/* the pods' cgroups: the kubelet writes a UID's dashes as underscores in slice names */
#define POD_B BURST "/kubepods-burstable-pod6f1e2d3c_4b5a_4978_8a6b_5c4d3e2f1a0b.slice"
#define POD_E BEST "/kubepods-besteffort-pod7a2b3c4d_5e6f_4a1b_9c2d_3e4f5a6b7c8d.slice"
#define POD_G QOS "/kubepods-pod8b3c4d5e_6f7a_4b2c_8d3e_4f5a6b7c8d9e.slice"
#define CT_B POD_B "/cri-containerd-" CID_B ".scope"
#define CT_E POD_E "/cri-containerd-" CID_E ".scope"
#define CT_G POD_G "/cri-containerd-" CID_G ".scope"

static const char *const parents[] = { QOS, BURST, BEST, POD_B, POD_E, POD_G };

static const char main_conf[] = "[daemon]\ninterval = 2s\nstate_dir = /run/pageoutd-kube\n"
				"socket = " SOCK "\nlog_level = info\n";
/* one policy per QoS class, as an operator writes them */
static const char burstable_conf[] = "[policy]\ncgroup = " BURST "/*/*\nengine = vaddr\n"
				     "min_age = 3s\nmemory = anon\nquota = none\n"
				     "pressure_limit = 100%\nswap_reserve = 0%\n";
static const char besteffort_conf[] = "[policy]\ncgroup = " BEST "/*/*\nengine = vaddr\n"
				      "min_age = 3s\nmemory = anon\nquota = none\n"
				      "pressure_limit = 100%\nswap_reserve = 0%\n";
static const char guaranteed_conf[] = "[policy]\ncgroup = " QOS "/kubepods-pod*/*\n"
				      "engine = vaddr\nmin_age = 3s\nmemory = anon\nquota = none\n"
				      "pressure_limit = 100%\nswap_reserve = 0%\n";

struct cm_file {
	const char *key; /* its path in the volume: pageoutd.conf or conf.d/NAME.conf */
	const char *text;
};

static unsigned cm_gen;

/*
 * Publish files into the volume at dir as the kubelet's atomic writer does: a new timestamped
 * directory, ..data_tmp renamed over ..data, the visible symlinks (each key's first component:
 * pageoutd.conf, conf.d, or NAME.conf) made once, the old directory removed.
 */
static int cm_update(const char *vol, const struct cm_file *f, unsigned n)
{
	char dir[256], p[512], old[256] = "", cmd[800];
	ssize_t len;

	cm_gen++;
	snprintf(dir, sizeof(dir), "..2026_12_06_10_00_%02u.%u", cm_gen, (unsigned)getpid());
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", vol, dir);
	if (system(cmd) != 0)
		return -EIO;
	for (unsigned i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s/%s')\"", vol, dir,
			 f[i].key);
		if (system(cmd) != 0)
			return -EIO;
		snprintf(p, sizeof(p), "%s/%s/%s", vol, dir, f[i].key);
		vm_put(p, f[i].text);
	}
	snprintf(p, sizeof(p), "%s/..data", vol);
	len = readlink(p, old, sizeof(old) - 1);
	old[len > 0 ? len : 0] = '\0';
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && rm -f ..data_tmp && ln -s '%s' ..data_tmp && "
		 "mv -T ..data_tmp ..data",
		 vol, dir);
	if (system(cmd) != 0)
		return -EIO;
	/* the visible names exist from the update that brings their key on */
	for (unsigned i = 0; i < n; i++) {
		char top[128], link[640], to[256];

		snprintf(top, sizeof(top), "%.*s", (int)strcspn(f[i].key, "/"), f[i].key);
		snprintf(link, sizeof(link), "%s/%s", vol, top);
		snprintf(to, sizeof(to), "..data/%s", top);
		if (symlink(to, link) < 0 && errno != EEXIST)
			return -errno;
	}
	if (old[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", vol, old);
		if (system(cmd) != 0)
			return -EIO;
	}
	return 0;
}

static bool policy_listed(const char *name)
{
	char *buf = vm_ask(SOCK, "policies\n");
	bool r = buf && strstr(buf, name);

	free(buf);
	return r;
}

/* seconds (up to max) until cond(arg) holds; max + 1 if never */
static unsigned wait_until(bool (*cond)(const char *), const char *arg, unsigned max)
{
	unsigned t;

	for (t = 0; t <= max && !cond(arg); t++)
		vm_sleep_ms(1000);
	return t;
}

static bool logged(const char *text)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "grep -q -- '%s' " LOG, text);
	return system(cmd) == 0;
}

static pid_t pod(const char *container)
{
	struct vm_area lay[2] = { { COLD_A, 32 * MIB, false }, { HOT_A, 4 * MIB, true } };

	vm_cg_make(container);
	return vm_spawn(lay, 2, container);
}

/* the node's QoS slices and the three pods in *b, *e, *g; swap.max 0 but for Burstable */
static void pods_up(pid_t *b, pid_t *e, pid_t *g)
{
	/* 7.x boots with damon_stat holding DAMON; an operator turns it off (vm-damon) */
	write_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", "N");
	for (size_t i = 0; i < ARRAY_SIZE(parents); i++) {
		vm_cg_make(parents[i]);
		vm_cg_put(parents[i], "cgroup.subtree_control", "+memory");
	}
	*b = pod(CT_B);
	*e = pod(CT_E);
	*g = pod(CT_G);
	ok(*b > 0 && *e > 0 && *g > 0 && vm_cg_put(CT_E, "memory.swap.max", "0") == 0 &&
		   vm_cg_put(CT_G, "memory.swap.max", "0") == 0,
	   "a Burstable, a BestEffort and a Guaranteed pod; swap only for the Burstable one");
}

static void pods_down(pid_t b, pid_t e, pid_t g)
{
	vm_reap(b);
	vm_reap(e);
	vm_reap(g);
	vm_cg_remove(CT_B);
	vm_cg_remove(CT_E);
	vm_cg_remove(CT_G);
	for (size_t i = ARRAY_SIZE(parents); i-- > 0;)
		vm_cg_remove(parents[i]);
}

/* seconds (up to max) until the Burstable pod's cold area is 90% out; its kB in *kb */
static unsigned wait_burstable(pid_t b, unsigned max, long *kb)
{
	unsigned t;

	for (t = 0; t <= max; t++) {
		*kb = vm_area_swap_kb(b, COLD_A);
		if (*kb >= 32 * 1024 * 9 / 10)
			break;
		vm_sleep_ms(1000);
	}
	return t;
}

/* pageoutd built in this tree, on the node's tree, configured from one ConfigMap volume */
static int node(void)
{
	struct cm_file files[4] = { { "pageoutd.conf", main_conf },
				    { "conf.d/burstable.conf", burstable_conf },
				    { "conf.d/besteffort.conf", besteffort_conf },
				    { "conf.d/guaranteed.conf", guaranteed_conf } };
	long swapped_b = 0, swapped_e, swapped_g;
	pid_t b, e, g, d;
	double v;
	unsigned t;

	mkdir("/run/pageoutd-kube", 0700);
	pods_up(&b, &e, &g);
	ok(cm_update(CM, files, 3) == 0,
	   "a ConfigMap volume: pageoutd.conf, burstable and besteffort");
	d = vm_daemon_start(CM, LOG, ~0ULL);

	t = wait_burstable(b, 90, &swapped_b);
	vm_sleep_ms(4000); /* two more cycles for the others */
	swapped_e = vm_area_swap_kb(e, COLD_A);
	printf("# Burstable pod: %ld of 32768 kB cold swapped in %u s; BestEffort pod: %ld kB\n",
	       swapped_b, t, swapped_e);
	ok(swapped_b >= 32 * 1024 * 9 / 10, "the Burstable pod's cold memory is reclaimed");
	ok(swapped_e == 0, "the BestEffort pod (memory.swap.max = 0) keeps its anon memory");
	v = vm_metric(SOCK,
		      "pageoutd_skipped_bytes_total{policy=\"besteffort\",reason=\"swap_limit\"} ");
	ok(v >= 16.0 * MIB, "its cold bytes are counted as skipped: swap_limit (%.0f)", v);
	v = vm_metric(SOCK,
		      "pageoutd_cgroup_reclaimed_bytes_total{policy=\"burstable\",cgroup=\"" CT_B
		      "\",qos=\"burstable\",pod_uid=\"" UID_B "\",container_id=\"" CID_B "\"} ");
	ok(v >= 16.0 * MIB,
	   "metrics: the Burstable container's reclaimed bytes, labelled with its pod UID, QoS "
	   "class and container ID (%.0f)",
	   v);

	ok(cm_update(CM, files, 4) == 0, "ConfigMap update: the Guaranteed pods' policy added");
	t = wait_until(policy_listed, "guaranteed", 15);
	ok(t <= 15 && logged("the configuration changed on disk: reloading"),
	   "in force after %u s without a signal; the log says why it reloaded", t);
	/* its process is a new DAMON target: its memory must first grow old (min_age 3 s) */
	for (t = 0; t < 60; t++) {
		v = vm_metric(SOCK, "pageoutd_skipped_bytes_total{policy=\"guaranteed\","
				    "reason=\"swap_limit\"} ");
		if (v >= 16.0 * MIB)
			break;
		vm_sleep_ms(1000);
	}
	swapped_g = vm_area_swap_kb(g, COLD_A);
	ok(swapped_g == 0 && v >= 16.0 * MIB,
	   "the Guaranteed pod keeps its anon memory, skipped swap_limit after %u s (%ld kB out, "
	   "%.0f)",
	   t, swapped_g, v);

	files[3].text = "[policy]\ncgroup = " QOS "/kubepods-pod*/*\nmin_age = soon\n";
	ok(cm_update(CM, files, 4) == 0, "ConfigMap update: a broken guaranteed.conf");
	for (t = 0; t < 15 && !logged("reload failed: keeping the current configuration"); t++)
		vm_sleep_ms(1000);
	ok(logged("reload failed: keeping the current configuration (3 policies)") &&
		   logged("conf.d/guaranteed.conf:3: min_age"),
	   "the broken update is refused with its file:line, the 3 policies stay");
	ok(policy_listed("guaranteed") && policy_listed("burstable"), "and are still in force");
	ok(vm_daemon_stop(d) == 0, "pageoutd exits 0");
	if (tap_failed)
		vm_show_log(LOG, 20);
	pods_down(b, e, g);
	return tap_exit();
}

/*
 * The image: what the DaemonSet (deploy/kubernetes/pageoutd.yaml) runs, as a container runtime
 * would run it, without one. The root the OCI image unpacks to (umoci, on the host) comes in
 * as a tarball: config.json (the runtime config: the entry point) and rootfs/. Reproduced here
 * with unshare(CLONE_NEWNS) and chroot() rather than podman or runc: the guest is a busybox
 * initramfs without a container runtime, and what matters to pageoutd is what a runtime hands
 * it, which these calls give exactly: the same mounts (the root read-only, DAMON's tree
 * read-write, the node's cgroup tree read-only, two ConfigMap volumes, /run/pageoutd), the node's
 * PID namespace and /proc (hostPID), exactly the DaemonSet's capabilities in the bounding,
 * permitted and effective sets, and its args after the image's entry point. Not reproduced:
 * the seccomp and AppArmor profiles (Unconfined in the DaemonSet), the pod's network, UTS and
 * IPC namespaces, its memory limit, and the kubelet itself.
 */
#define IMG_TAR "/payload/pageoutd-image.tar.gz"
#define IMG "/tmp/pageoutd-image"
#define ROOTFS IMG "/rootfs"
#define VOL_CONFIG "/tmp/pageoutd-vol/config"
#define VOL_POLICIES "/tmp/pageoutd-vol/policies"
#define IMG_LOG "/tmp/pageoutd-image.log"
#define IMG_SOCK "/run/pageoutd/pageoutd.sock"

/* the container's capabilities.add; everything else is dropped */
static const int ds_caps[] = { CAP_SYS_ADMIN, CAP_SYS_NICE, CAP_SYS_PTRACE, CAP_IPC_LOCK };
/* the container's args, after the image's entry point */
static const char *const ds_args[] = { "--config=/etc/pageoutd/config/pageoutd.conf",
				       "--config-dir=/etc/pageoutd/conf.d" };

/* the DaemonSet's pageoutd.conf, but a 2 s cycle */
static const char img_conf[] = "[daemon]\ninterval = 2s\nsocket = " IMG_SOCK "\n"
			       "state_dir = /run/pageoutd\nproc_root = /proc\nlog_level = info\n"
			       "watch_config = yes\ndry_run = no\n\n[damon]\n"
			       "sysfs_root = /sys/kernel/mm/damon/admin\nrelease_modules = no\n";

struct vol {
	const char *src, *dst; /* dst inside the root; src NULL: a new file system of type fs */
	const char *fs;
	bool ro;
};

/* the container's mounts, in order: runtime defaults, then the DaemonSet's volumeMounts */
static const struct vol ds_vols[] = {
	{ NULL, "/proc", "proc", false }, /* hostPID: a proc of the node's PID namespace */
	{ NULL, "/sys", "sysfs", true },  /* a runtime's /sys of an unprivileged container */
	{ NULL, "/dev", "tmpfs", false }, /* with null, zero, urandom below */
	{ "/dev/null", "/dev/null", NULL, false },
	{ "/dev/zero", "/dev/zero", NULL, false },
	{ "/dev/urandom", "/dev/urandom", NULL, false },
	{ "/sys/kernel/mm/damon", "/sys/kernel/mm/damon", NULL, false }, /* damon */
	{ "/sys/fs/cgroup", "/sys/fs/cgroup", NULL, true },		 /* cgroup */
	{ "/run/pageoutd", "/run/pageoutd", NULL, false },		 /* run */
	{ VOL_CONFIG, "/etc/pageoutd/config", NULL, true },		 /* config */
	{ VOL_POLICIES, "/etc/pageoutd/conf.d", NULL, true },		 /* policies */
};

static uint64_t ds_capmask(void)
{
	uint64_t m = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ds_caps); i++)
		m |= 1ULL << ds_caps[i];
	return m;
}

/* Mount v under ROOTFS. Returns 0 or -errno. */
static int mount_vol(const struct vol *v)
{
	char dst[512];
	unsigned long ro = v->ro ? MS_RDONLY : 0;

	snprintf(dst, sizeof(dst), ROOTFS "%s", v->dst);
	if (!v->src) {
		unsigned long fl = MS_NOSUID | (strcmp(v->fs, "tmpfs") ? MS_NODEV | MS_NOEXEC : 0);

		return mount(v->fs, dst, v->fs, fl | ro, NULL) < 0 ? -errno : 0;
	}
	if (access(dst, F_OK) < 0) /* a device's, in the new /dev; the directories are made */
		close(open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	if (mount(v->src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	/* a bind mount takes read-only only from a remount, as the kubelet's readOnly does */
	if (ro && mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)
		return -errno;
	return 0;
}

/* Cut the capabilities to the DaemonSet's: bounding set, then permitted and effective. */
static int ds_capset(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	uint64_t keep = ds_capmask();

	for (int cap = 0; cap < 64; cap++)
		if (!(keep >> cap & 1) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 &&
		    errno != EINVAL)
			return -errno;
	d[0].effective = d[0].permitted = (uint32_t)keep;
	d[1].effective = d[1].permitted = (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ? -errno : 0;
}

/* Enter the pod's root as a container process does: chroot, the capabilities. */
static void enter_root(const char *why)
{
	if (chroot(ROOTFS) < 0 || chdir("/") < 0 || ds_capset() < 0) {
		fprintf(stderr, "vm-kube image: %s: %s\n", why, strerror(errno));
		_exit(126);
	}
}

/*
 * The image's entry point: process.args of the runtime config umoci wrote, then the
 * DaemonSet's args, into argv (at most max - 1, NULL-terminated). Returns the count, 0 if none.
 */
static int entry_point(char **argv, int max)
{
	static char buf[16384];
	char *p, *end;
	int n = 0;

	if (read_file_at(AT_FDCWD, IMG "/config.json", buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "\"args\"")) || !(p = strchr(p, '[')) || !(end = strchr(p, ']')))
		return 0;
	*end = '\0';
	while (n < max - 1 - (int)ARRAY_SIZE(ds_args) && (p = strchr(p, '"'))) {
		char *q = strchr(++p, '"');

		if (!q)
			break;
		*q = '\0';
		argv[n++] = p;
		p = q + 1;
	}
	for (size_t i = 0; n && i < ARRAY_SIZE(ds_args); i++)
		argv[n++] = (char *)ds_args[i];
	argv[n] = NULL;
	return n;
}

/*
 * The pageoutd container: a mount namespace of its own with the DaemonSet's mounts over the
 * image's root, which is then made read-only (readOnlyRootFilesystem); chroot into it, the
 * capabilities cut, and the entry point run, its stderr to IMG_LOG. Its pid, or -1.
 */
static pid_t ds_start(char **argv)
{
	pid_t p = fork();

	if (p == 0) {
		int fd = open(IMG_LOG, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		static char path[] =
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
		char *const env[] = { path, NULL };

		dup2(fd, 2);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount(ROOTFS, ROOTFS, NULL, MS_BIND | MS_REC, NULL) < 0) {
			perror("vm-kube image: mount namespace");
			_exit(126);
		}
		for (size_t i = 0; i < ARRAY_SIZE(ds_vols); i++)
			if (mount_vol(&ds_vols[i]) < 0) {
				fprintf(stderr, "vm-kube image: mount %s: %s\n", ds_vols[i].dst,
					strerror(errno));
				_exit(126);
			}
		if (mount(NULL, ROOTFS, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0) {
			perror("vm-kube image: read-only root");
			_exit(126);
		}
		enter_root("the image's root");
		execve(argv[0], argv, env);
		perror(argv[0]);
		_exit(127);
	}
	return p;
}

/*
 * `kubectl exec` (and the probes): /usr/bin/pageoutctl of the image with args, in the pod's
 * mount namespace and root, with its capabilities; its output in a new buffer (caller frees).
 */
static char *ds_exec(pid_t d, const char *arg)
{
	char ns[64], out[] = "/tmp/pageoutd-image.out";
	pid_t p;
	int st;

	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)d);
	p = fork();
	if (p == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int nfd = open(ns, O_RDONLY | O_CLOEXEC);

		dup2(fd, 1);
		dup2(fd, 2);
		if (nfd < 0 || setns(nfd, CLONE_NEWNS) < 0) {
			perror("vm-kube image: setns");
			_exit(126);
		}
		enter_root("exec in the pod");
		execl("/usr/bin/pageoutctl", "pageoutctl", arg, (char *)NULL);
		_exit(127);
	}
	waitpid(p, &st, 0);
	{
		char *buf = NULL;

		read_file_alloc_at(AT_FDCWD, out, &buf);
		return buf ? buf : strdup("");
	}
}

/* the value of the sample of `pageoutctl metrics` in the pod that starts with key, -1 if none */
static double ds_metric(pid_t d, const char *key)
{
	return vm_sample(ds_exec(d, "metrics"), key);
}

/*
 * Whether process d sees, in its own /proc/PID/mountinfo (relative to its root), the image's root
 * read-only and each volume read-only or read-write as ds_vols says; the last mount on a path
 * counts. Prints what differs.
 */
static bool ds_mounts(pid_t d)
{
	static char buf[65536];
	char path[64];
	bool good = true;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)d);
	if (read_file_at(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return false;
	for (size_t i = 0; i <= ARRAY_SIZE(ds_vols); i++) {
		const char *mp = i < ARRAY_SIZE(ds_vols) ? ds_vols[i].dst : "/";
		bool ro = i < ARRAY_SIZE(ds_vols) ? ds_vols[i].ro : true;
		char m[256], o[256], seen[4] = "";

		for (const char *l = buf; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
			if (sscanf(l, "%*d %*d %*s %*s %255s %255s", m, o) == 2 && !strcmp(m, mp))
				snprintf(seen, sizeof(seen), "%.2s", o);
		if (strcmp(seen, ro ? "ro" : "rw")) {
			printf("# %s: %s, not %s\n", mp, seen[0] ? seen : "not mounted",
			       ro ? "ro" : "rw");
			good = false;
		}
	}
	return good;
}

static bool ds_lists(pid_t d, const char *name)
{
	char *buf = ds_exec(d, "status"), line[64];
	bool r;

	snprintf(line, sizeof(line), "\n%s ", name);
	r = buf && (strstr(buf, line) || !strncmp(buf, line + 1, strlen(line + 1)));
	free(buf);
	return r;
}

static bool img_logged(const char *text)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "grep -q -- '%s' " IMG_LOG, text);
	return system(cmd) == 0;
}

/* The policies ConfigMap; BestEffort's takes anon too (the shipped one: file only). */
static const char img_burstable[] = "[policy]\ncgroup = " BURST "/*/*\nengine = vaddr\n"
				    "min_age = 3s\nmemory = anon,file\nquota = none\n"
				    "pressure_limit = 100%\nswap_reserve = 0%\n";
static const char img_besteffort[] = "[policy]\ncgroup = " BEST "/*/*\nengine = vaddr\n"
				     "min_age = 3s\nmemory = anon,file\nquota = none\n"
				     "pressure_limit = 100%\nswap_reserve = 0%\n";

static int image(void)
{
	struct cm_file conf = { "pageoutd.conf", img_conf };
	struct cm_file pol[3] = { { "burstable.conf", img_burstable },
				  { "besteffort.conf", img_besteffort },
				  { "guaranteed.conf", guaranteed_conf } };
	char *argv[16] = { NULL }, st[4096] = "", want[64];
	long swapped_b = 0, swapped_e;
	pid_t b, e, g, d;
	unsigned t;
	double v;
	int r;

	if (access(IMG_TAR, R_OK) < 0) {
		ok(0, "the image's root is in the guest (%s): make check-vm builds it", IMG_TAR);
		return tap_exit();
	}
	t = (unsigned)time(NULL);
	r = system("mkdir -p " IMG " && tar -xzf " IMG_TAR " -C " IMG);
	t = (unsigned)time(NULL) - t;
	if (!ok(r == 0 && entry_point(argv, ARRAY_SIZE(argv)) > 2,
		"the image's root unpacked in %u s", t))
		return tap_exit();
	printf("# entry point %s %s, then the DaemonSet's args\n", argv[0], argv[1]);
	mkdir("/run/pageoutd", 0755); /* the hostPath, DirectoryOrCreate */
	/* the mount points, as a runtime makes them before the root becomes read-only */
	ok(system("cd " ROOTFS " && mkdir -p proc sys dev etc/pageoutd/config etc/pageoutd/conf.d "
		  "run/pageoutd") == 0,
	   "mount points in the image's root");
	pods_up(&b, &e, &g);
	ok(cm_update(VOL_CONFIG, &conf, 1) == 0 && cm_update(VOL_POLICIES, pol, 2) == 0,
	   "the two ConfigMap volumes: pageoutd.conf; burstable and besteffort");
	d = ds_start(argv);
	for (t = 0; t < 30 && access(IMG_SOCK, F_OK) < 0; t++)
		vm_sleep_ms(500);
	snprintf(want, sizeof(want), "/proc/%d/status", (int)d);
	read_file_at(AT_FDCWD, want, st, sizeof(st));
	{
		char eff[64], prm[64], bnd[64];
		unsigned long long m = (unsigned long long)ds_capmask();

		snprintf(eff, sizeof(eff), "CapEff:\t%016llx", m);
		snprintf(prm, sizeof(prm), "CapPrm:\t%016llx", m);
		snprintf(bnd, sizeof(bnd), "CapBnd:\t%016llx", m);
		ok(strstr(st, eff) && strstr(st, prm) && strstr(st, bnd) &&
			   strstr(st, "CapInh:\t0000000000000000") &&
			   strstr(st, "CapAmb:\t0000000000000000"),
		   "pageoutd runs with the DaemonSet's 4 capabilities, no other (%016llx)", m);
	}
	ok(ds_mounts(d), "its mounts as the pod has them: the root and the volumes, each ro or rw");

	t = wait_burstable(b, 40, &swapped_b);
	vm_sleep_ms(4000); /* two more cycles for the BestEffort pod */
	swapped_e = vm_area_swap_kb(e, COLD_A);
	printf("# image: Burstable pod: %ld of 32768 kB cold swapped in %u s; BestEffort pod: %ld "
	       "kB\n",
	       swapped_b, t, swapped_e);
	ok(swapped_b >= 32 * 1024 * 9 / 10, "the Burstable pod's cold memory is reclaimed");
	ok(swapped_e == 0, "the BestEffort pod (memory.swap.max = 0) keeps its anon memory");
	v = ds_metric(d,
		      "pageoutd_skipped_bytes_total{policy=\"besteffort\",reason=\"swap_limit\"} ");
	ok(v >= 16.0 * MIB, "the image's pageoutctl: skipped swap_limit for it (%.0f bytes)", v);
	v = ds_metric(d, "pageoutd_cgroup_reclaimed_bytes_total{policy=\"burstable\",cgroup=\"" CT_B
			 "\",qos=\"burstable\",pod_uid=\"" UID_B "\",container_id=\"" CID_B "\"} ");
	ok(v >= 16.0 * MIB,
	   "and the Burstable pod's reclaimed bytes, labelled with its QoS class, "
	   "pod UID and container ID (%.0f)",
	   v);

	ok(cm_update(VOL_POLICIES, pol, 3) == 0, "policies ConfigMap update: guaranteed.conf");
	for (t = 0; t < 15 && !ds_lists(d, "guaranteed"); t++)
		vm_sleep_ms(1000);
	ok(t < 15 && img_logged("the configuration changed on disk: reloading"),
	   "in force after %u s through the read-only volume, without a signal", t);
	pol[2].text = "[policy]\ncgroup = " QOS "/kubepods-pod*/*\nmin_age = soon\n";
	ok(cm_update(VOL_POLICIES, pol, 3) == 0, "policies ConfigMap update: a broken one");
	for (t = 0; t < 15 && !img_logged("reload failed: keeping the current configuration"); t++)
		vm_sleep_ms(1000);
	ok(img_logged("reload failed: keeping the current configuration (3 policies)") &&
		   img_logged("guaranteed.conf:3: min_age") && ds_lists(d, "guaranteed") &&
		   ds_lists(d, "burstable"),
	   "refused with its file:line; the 3 policies stay in force");
	ok(vm_daemon_stop(d) == 0, "SIGTERM: pageoutd exits 0");
	if (tap_failed)
		vm_show_log(IMG_LOG, 30);
	pods_down(b, e, g);
	return tap_exit();
}

/* the checks of each run, on every kernel */
#define VM_KUBE_CHECKS 13
#define VM_KUBE_IMAGE_CHECKS 15

int main(int argc, char **argv)
{
	vm_require_guest();
	vm_release_damon_stat();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "image")) {
		tap_plan(VM_KUBE_IMAGE_CHECKS);
		return image();
	}
	tap_plan(VM_KUBE_CHECKS);
	return node();
}
