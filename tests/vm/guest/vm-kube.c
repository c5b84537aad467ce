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
 */
#include <config.h>

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
 * Publish files into the volume as the kubelet's atomic writer does: a new timestamped
 * directory, ..data_tmp renamed over ..data, the visible symlinks (pageoutd.conf, conf.d) made
 * once, the old directory removed.
 */
static int cm_update(const struct cm_file *f, unsigned n)
{
	char dir[256], p[512], old[256] = "", cmd[600];
	ssize_t len;

	cm_gen++;
	snprintf(dir, sizeof(dir), "..2026_12_06_10_00_%02u.%u", cm_gen, (unsigned)getpid());
	snprintf(p, sizeof(p), CM "/%s/conf.d", dir);
	if (mkdir(CM, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(cmd, sizeof(cmd), "mkdir -p " CM "/%s/conf.d", dir);
	if (system(cmd) != 0)
		return -EIO;
	for (unsigned i = 0; i < n; i++) {
		snprintf(p, sizeof(p), CM "/%s/%s", dir, f[i].key);
		vm_put(p, f[i].text);
	}
	len = readlink(CM "/..data", old, sizeof(old) - 1);
	old[len > 0 ? len : 0] = '\0';
	unlink(CM "/..data_tmp");
	if (symlink(dir, CM "/..data_tmp") < 0 || rename(CM "/..data_tmp", CM "/..data") < 0)
		return -errno;
	/* the visible names exist from the first update on */
	if ((symlink("..data/pageoutd.conf", CM "/pageoutd.conf") < 0 && errno != EEXIST) ||
	    (symlink("..data/conf.d", CM "/conf.d") < 0 && errno != EEXIST))
		return -errno;
	if (old[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '" CM "/%s'", old);
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

int main(void)
{
	struct cm_file files[4] = { { "pageoutd.conf", main_conf },
				    { "conf.d/burstable.conf", burstable_conf },
				    { "conf.d/besteffort.conf", besteffort_conf },
				    { "conf.d/guaranteed.conf", guaranteed_conf } };
	long swapped_b = 0, swapped_e, swapped_g;
	pid_t b, e, g, d;
	double v;
	unsigned t;

	vm_require_guest();
	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir("/run/pageoutd-kube", 0700);
	/* 7.x boots with damon_stat holding DAMON; an operator turns it off (vm-damon) */
	write_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", "N");
	for (size_t i = 0; i < ARRAY_SIZE(parents); i++) {
		vm_cg_make(parents[i]);
		vm_cg_put(parents[i], "cgroup.subtree_control", "+memory");
	}
	b = pod(CT_B);
	e = pod(CT_E);
	g = pod(CT_G);
	ok(b > 0 && e > 0 && g > 0 && vm_cg_put(CT_E, "memory.swap.max", "0") == 0 &&
		   vm_cg_put(CT_G, "memory.swap.max", "0") == 0,
	   "a Burstable, a BestEffort and a Guaranteed pod; swap only for the Burstable one");
	ok(cm_update(files, 3) == 0, "a ConfigMap volume: pageoutd.conf, burstable and besteffort");
	d = vm_daemon_start(CM, LOG, ~0ULL);

	for (t = 0; t <= 90; t++) {
		swapped_b = vm_area_swap_kb(b, COLD_A);
		if (swapped_b >= 32 * 1024 * 9 / 10)
			break;
		vm_sleep_ms(1000);
	}
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

	ok(cm_update(files, 4) == 0, "ConfigMap update: the Guaranteed pods' policy added");
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
	ok(cm_update(files, 4) == 0, "ConfigMap update: a broken guaranteed.conf");
	for (t = 0; t < 15 && !logged("reload failed: keeping the current configuration"); t++)
		vm_sleep_ms(1000);
	ok(logged("reload failed: keeping the current configuration (3 policies)") &&
		   logged("conf.d/guaranteed.conf:3: min_age"),
	   "the broken update is refused with its file:line, the 3 policies stay");
	ok(policy_listed("guaranteed") && policy_listed("burstable"), "and are still in force");
	ok(vm_daemon_stop(d) == 0, "pageoutd exits 0");
	if (tap_failed)
		vm_show_log(LOG, 20);
	vm_reap(b);
	vm_reap(e);
	vm_reap(g);
	vm_cg_remove(CT_B);
	vm_cg_remove(CT_E);
	vm_cg_remove(CT_G);
	for (size_t i = ARRAY_SIZE(parents); i-- > 0;)
		vm_cg_remove(parents[i]);
	return tap_exit();
}
