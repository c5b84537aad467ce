// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The paddr engine on a real kernel: pageoutd's paddr kdamond with one DAMOS pageout scheme
 * per cgroup. Two cgroups each hold cold anonymous memory and cold page cache (a file on
 * ext4 over a zram disk, or a virtio or NVMe disk where the kernel has no zram); /vmt-pa is
 * matched by a paddr policy, /vmt-pb is not; /vmt-pa also holds a hot working set that is
 * touched all the time. A third matched cgroup goes away while its scheme exists. First the
 * quota is small (64K/100ms): the scheme stats show what it bounds. Then a reload raises it:
 * /vmt-pa's cold memory goes, /vmt-pb keeps all of its, and the hot set stays resident
 * because DAMON's paddr pageout re-checks references.
 * Then frozen_only with a frozen and a running app under the real daemon (frozen(); alone with
 * `vm-paddr frozen`), and the shipped conf/conf.d/machines.conf with its defaults: the byte
 * quota bounds the work, and a time quota that binds is named (quota(); `vm-paddr quota`).
 * Then max_usage: a cgroup with cold memory held at a ceiling between its hot set and its
 * total, by the kernel's per-cgroup quota goal (7.1+) or pageoutd pausing the scheme
 * (max_usage(); `vm-paddr max_usage`). Then engine = both with the shipped
 * conf/conf.d/databases.conf over a heap, shared memory and page cache (both_db();
 * `vm-paddr both`).
 * Then (alone with `vm-paddr failcharge`) a cgroup's cold memory beside a large mlocked
 * region under a small quota, with 7.3's charge ratio of failed regions and without it
 * (walk_scale), and (`vm-paddr pause`) the kdamond paused on 7.3 while every policy is paused
 * or no cgroup has a scheme and resumed with its regions, stopped and started on 6.12.
 */
#include <config.h>

#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/paddr.h"
#include "pageoutd/pscheme.h"
#include "vmtest.h"
#include "../../lib/tap.h"

#define VM_PADDR_CHECKS 70
#define WALK 30		  /* quota intervals (100 ms) between two walks of a scheme (min_age 3 s) */
#define QUOTA (64 * 1024) /* the first phase's quota per 100 ms */
#define COLD_A 0x7e0000000000ULL
#define HOT_A 0x7e0100000000ULL
#define COLD_MB 32
#define HOT_MB 8
#define THP_MB 16
#define PC "/mnt/pageoutd-pc"

static const char *conf_dir = "/tmp/pageoutd-vm-paddr";
static const char *state_dir = "/run/pageoutd-vm-paddr";

static struct cfg *config(const char *quota)
{
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	char p[256], buf[1024];

	mkdir(conf_dir, 0755);
	snprintf(p, sizeof(p), "%s/conf.d", conf_dir);
	mkdir(p, 0755);
	snprintf(buf, sizeof(buf),
		 "[daemon]\ninterval = 1s\nstate_dir = %s\nlog_level = info\n"
		 "[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n",
		 state_dir);
	snprintf(p, sizeof(p), "%s/pageoutd.conf", conf_dir);
	vm_put(p, buf);
	snprintf(buf, sizeof(buf),
		 /* max_access_rate: paddr's default, 50% */
		 "[policy]\ncgroup = /vmt-p[ac]\nengine = paddr\nmin_age = 3s\n"
		 "quota = %s\nquota_time = 500ms\nswap_reserve = 5%%\n"
		 /* under TCG the hot set refaults a little (the accessed-bit artifact of
		  * vmtest.h); the refault controller would rightly back off and make the time
		  * to reclaim unpredictable here; it has its own tests */
		 "max_refault_rate = 100%%\n",
		 quota);
	snprintf(p, sizeof(p), "%s/conf.d/pa.conf", conf_dir);
	vm_put(p, buf);
	/* the same policy for THP-backed cold memory, measured and reported on its own */
	snprintf(buf, sizeof(buf),
		 "[policy]\ncgroup = /vmt-pd\nengine = paddr\nmin_age = 3s\n"
		 "quota = %s\nquota_time = 500ms\nswap_reserve = "
		 "5%%\nmax_refault_rate = 100%%\n",
		 quota);
	snprintf(p, sizeof(p), "%s/conf.d/pd.conf", conf_dir);
	vm_put(p, buf);
	snprintf(buf, sizeof(buf), "%s/conf.d", conf_dir);
	snprintf(p, sizeof(p), "%s/pageoutd.conf", conf_dir);
	if (cfg_load(p, buf, true, &cfg, &errs) < 0)
		for (unsigned i = 0; i < errs.nr; i++)
			printf("# %s\n", errs.msgs[i]);
	cfg_errors_fini(&errs);
	return cfg;
}

/*
 * ext4 on a second zram disk: page cache that reclaim can drop. A kernel without zram has a
 * second disk for it instead (tests/vm/boot.sh names it in /run/pageoutd-vm-pcdisk); the page
 * cache is the same, only the device under it differs. Returns the device, or NULL.
 */
static const char *pagecache_fs(void)
{
	static char dev[64];
	char id[16] = "", cmd[256];

	if (read_file_at(AT_FDCWD, "/sys/class/zram-control/hot_add", id, sizeof(id)) > 0) {
		snprintf(dev, sizeof(dev), "/dev/zram%d", atoi(id));
		snprintf(cmd, sizeof(cmd), "echo 160M > /sys/block/zram%d/disksize", atoi(id));
		if (system(cmd) != 0)
			return NULL;
	} else if (read_file_at(AT_FDCWD, "/run/pageoutd-vm-pcdisk", dev, sizeof(dev)) > 0) {
		dev[strcspn(dev, "\n")] = '\0';
	} else {
		return NULL;
	}
	snprintf(cmd, sizeof(cmd),
		 "mke2fs -q -b 4096 %s && mkdir -p " PC " && mount -t ext4 %s " PC, dev, dev);
	return system(cmd) == 0 ? dev : NULL;
}

struct holder_args {
	const char *cg, *file;
	unsigned mb;
	bool thp;
};

static int holder_setup(void *arg)
{
	const struct holder_args *h = arg;
	char p[256], s[32];
	static char buf[4096];
	volatile char *m;
	int fd;

	snprintf(p, sizeof(p), VM_CGROOT "%s/cgroup.procs", h->cg);
	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, p, s) < 0)
		return 2;
	m = mmap((void *)(uintptr_t)COLD_A, h->mb * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return 3;
	madvise((void *)m, h->mb * MIB, h->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	vm_touch(m, h->mb * MIB, true);
	fd = h->file ? open(h->file, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	/* 4 KiB writes: small page cache folios (7.x ext4 makes large ones from large
	 * writes; like THPs, see /vmt-pd, paddr then rarely sees them cold) */
	for (unsigned i = 0; fd >= 0 && i < h->mb * 256; i++) {
		memset(buf, (int)i + 1, 4096);
		if (write(fd, buf, 4096) != 4096)
			return 4;
	}
	if (fd >= 0 && (fsync(fd) < 0 || close(fd) < 0))
		return 5;
	return 0;
}

/* A child in cgroup cg with mb MiB of anonymous memory (THPs if thp, else base pages) and mb
 * MiB of a file it wrote. */
static pid_t holder(const char *cg, const char *file, unsigned mb, bool thp)
{
	struct holder_args h = { cg, file, mb, thp };

	return child_fork(holder_setup, NULL, &h);
}

/* Pages of a file in the page cache, in percent. */
static double cached_pct(const char *file)
{
	int fd = open(file, O_RDONLY);
	unsigned char *vec;
	struct stat st;
	void *m;
	size_t n = 0, pages;

	if (fd < 0 || fstat(fd, &st) < 0 || !st.st_size)
		return -1;
	pages = (size_t)st.st_size / 4096;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (m == MAP_FAILED || !vec || mincore(m, (size_t)st.st_size, vec) < 0)
		n = 0;
	else
		for (size_t i = 0; i < pages; i++)
			n += vec[i] & 1;
	if (m != MAP_FAILED)
		munmap(m, (size_t)st.st_size);
	free(vec);
	close(fd);
	return 100.0 * (double)n / (double)pages;
}

/* PFNs of the resident pages of [addr, addr + size) in pid (pagemap; root sees PFNs). */
static size_t pfns_of(pid_t pid, uint64_t addr, uint64_t size, uint64_t **ret)
{
	char p[64];
	size_t n = size / 4096, k = 0;
	uint64_t *e = calloc(n, sizeof(*e)), *v = calloc(n, sizeof(*v));
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/pagemap", pid);
	fd = open(p, O_RDONLY);
	if (fd >= 0 && e && v &&
	    pread(fd, e, n * sizeof(*e), (off_t)(addr / 4096 * sizeof(*e))) ==
		    (ssize_t)(n * sizeof(*e)))
		for (size_t i = 0; i < n; i++)
			if (e[i] >> 63 && (e[i] & ((1ULL << 55) - 1)))
				v[k++] = e[i] & ((1ULL << 55) - 1);
	if (fd >= 0)
		close(fd);
	free(e);
	*ret = v;
	return k;
}

/*
 * Where the cold pages that stayed are, as DAMON sees physical memory: in regions the
 * scheme's access pattern matched or not, how many 2 MiB physical blocks they share with
 * the hot set, and whether they are THPs.
 */
static void layout(struct damon *d, pid_t cold, pid_t hot)
{
	uint64_t *c = NULL, *h = NULL;
	size_t nc = pfns_of(cold, COLD_A, COLD_MB * MIB, &c),
	       nh = pfns_of(hot, HOT_A, HOT_MB * MIB, &h);
	size_t in_matched = 0, shared = 0, blocks = 0;
	struct damon_snapshot snap = { 0 };
	uint64_t lo = UINT64_MAX, hi = 0;
	int r = damon_snapshot(d, DAMON_SLOT_PADDR, &snap);

	for (size_t i = 0; i < nc; i++) {
		uint64_t a = c[i] * 4096;
		bool seen = false, sh = false;

		lo = c[i] < lo ? c[i] : lo;
		hi = c[i] > hi ? c[i] : hi;
		for (unsigned s = 0; r == 0 && s < snap.nr_schemes && !seen; s++)
			for (unsigned k = 0; k < snap.schemes[s].nr && !seen; k++)
				seen = a >= snap.schemes[s].regions[k].start &&
				       a < snap.schemes[s].regions[k].end;
		in_matched += seen;
		for (size_t j = 0; j < i && !sh; j++)
			sh = c[j] >> 9 == c[i] >> 9;
		if (sh)
			continue;
		blocks++;
		for (size_t j = 0; j < nh; j++)
			if (h[j] >> 9 == c[i] >> 9) {
				shared++;
				break;
			}
	}
	printf("# layout: %zu cold pages resident (PFN %#" PRIx64 "-%#" PRIx64 ", %zu 2 MiB "
	       "blocks, %zu of them shared with the hot set's %zu pages), AnonHugePages %ld kB; "
	       "%zu in regions the scheme's pattern matched (snapshot %d: %u regions, %" PRIu64
	       " kB)\n",
	       nc, nc ? lo : 0, hi, blocks, shared, nh,
	       vm_area_field_kb(cold, COLD_A, "AnonHugePages"), in_matched, r,
	       r == 0 && snap.nr_schemes ? snap.schemes[0].nr : 0,
	       r == 0 && snap.nr_schemes ? snap.schemes[0].total_bytes / 1024 : 0);
	if (r == 0 && snap.nr_schemes)
		for (unsigned k = 0; k < snap.schemes[0].nr && k < 12; k++)
			printf("#   matched %#" PRIx64 "-%#" PRIx64 " nr_accesses %u age %u\n",
			       snap.schemes[0].regions[k].start, snap.schemes[0].regions[k].end,
			       snap.schemes[0].regions[k].nr_accesses,
			       snap.schemes[0].regions[k].age);
	damon_snapshot_fini(&snap);
	free(c);
	free(h);
}

static void cycle_for(struct paddr *p, unsigned secs)
{
	for (unsigned i = 0; i < secs; i++) {
		vm_sleep_ms(1000);
		paddr_cycle(p);
	}
}

/* --- frozen_only: a frozen and a running app under one paddr policy --- */

#define FZ_COLD 0x7e1000000000ULL
#define FZ_HOT 0x7e1100000000ULL
#define FZ_COLD_MB 32
#define FZ_HOT_MB 8
#define FZ_DIR "/run/pageoutd-vm-pfz"

/* the daemon's paddr kdamond (slot 1): every scheme's action and stats, as TAP comments */
static void fz_schemes(unsigned t)
{
	char p[256], v[64], n[16] = "";
	const char *k = VM_ADMIN "/kdamonds/1";
	unsigned ns;

	snprintf(p, sizeof(p), "%s/state", k);
	for (int i = 0; i < 20 && write_file_at(AT_FDCWD, p, "update_schemes_stats") < 0; i++)
		vm_sleep_ms(50);
	snprintf(p, sizeof(p), "%s/contexts/0/schemes/nr_schemes", k);
	read_file_at(AT_FDCWD, p, n, sizeof(n));
	ns = (unsigned)atoi(n);
	for (unsigned s = 0; s < ns; s++) {
		static const char *const st[] = { "nr_tried", "sz_tried", "nr_applied",
						  "sz_applied", "qt_exceeds" };
		char line[512], act[16] = "", mc[128] = "";
		int o;

		snprintf(p, sizeof(p), "%s/contexts/0/schemes/%u/action", k, s);
		read_file_at(AT_FDCWD, p, act, sizeof(act));
		snprintf(p, sizeof(p), "%s/contexts/0/schemes/%u/filters/0/memcg_path", k, s);
		if (read_file_at(AT_FDCWD, p, mc, sizeof(mc)) < 0) {
			snprintf(p, sizeof(p), "%s/contexts/0/schemes/%u/ops_filters/0/memcg_path",
				 k, s);
			read_file_at(AT_FDCWD, p, mc, sizeof(mc));
		}
		o = snprintf(line, sizeof(line), "# t=%us scheme %u %s %s:", t, s, str_strip(mc),
			     str_strip(act));
		for (size_t i = 0; i < ARRAY_SIZE(st) && o > 0 && (size_t)o < sizeof(line); i++) {
			snprintf(p, sizeof(p), "%s/contexts/0/schemes/%u/stats/%s", k, s, st[i]);
			v[0] = '\0';
			read_file_at(AT_FDCWD, p, v, sizeof(v));
			o += snprintf(line + o, sizeof(line) - (size_t)o, " %s=%s", st[i],
				      str_strip(v));
		}
		printf("%s\n", line);
	}
}

/* seconds (up to max) until 90% of pid's cold area is swapped; max + 1 when never */
static unsigned fz_wait(pid_t pid, pid_t other, unsigned max, long *ret, long *ret_other)
{
	unsigned t;

	for (t = 0; t <= max; t++) {
		long o = vm_area_swap_kb(other, FZ_COLD), oh = vm_area_swap_kb(other, FZ_HOT);

		*ret = vm_area_swap_kb(pid, FZ_COLD);
		o = (o > 0 ? o : 0) + (oh > 0 ? oh : 0);
		*ret_other = o > *ret_other ? o : *ret_other;
		if (*ret >= FZ_COLD_MB * 1024 * 9 / 10)
			return t;
		if (t % 10 == 0)
			printf("# t=%us: frozen %ld kB swapped, running %ld kB\n", t, *ret, o);
		vm_sleep_ms(1000);
	}
	return t;
}

/*
 * frozen_only on paddr: two apps under one policy (a glob over /vmt-fz/a and /vmt-fz/b), each
 * with 32 MiB of cold and 8 MiB of hot anonymous memory, one frozen and one running, and the
 * real daemon. Each cgroup has its own scheme: the frozen app's cold memory goes, the running
 * app keeps all of its. Then the first is thawed and reads its cold area back and the second
 * is frozen: the switch follows.
 */
static void frozen(void)
{
	const long kb = FZ_COLD_MB * 1024;
	struct vm_area lay[2][2];
	pid_t app[2], d;
	long a = 0, b = 0, ob = 0, oa = 0, a_back, a_after;
	unsigned ta, tb;
	int rc;

	vm_cg_make("/vmt-fz");
	vm_cg_put("/vmt-fz", "cgroup.subtree_control", "+memory");
	vm_cg_make("/vmt-fz/a");
	vm_cg_make("/vmt-fz/b");
	for (unsigned k = 0; k < 2; k++) {
		lay[k][0] = (struct vm_area){ FZ_COLD, FZ_COLD_MB * MIB, false };
		lay[k][1] = (struct vm_area){ FZ_HOT, FZ_HOT_MB * MIB, true };
	}
	app[0] = vm_spawn(lay[0], 2, "/vmt-fz/a");
	app[1] = vm_spawn(lay[1], 2, "/vmt-fz/b");
	rc = vm_cg_put("/vmt-fz/a", "cgroup.freeze", "1");
	ok(app[0] > 0 && app[1] > 0 && rc == 0,
	   "frozen_only: two apps with %d MiB cold + %d MiB hot in /vmt-fz/a (frozen) and "
	   "/vmt-fz/b (running)",
	   FZ_COLD_MB, FZ_HOT_MB);
	mkdir(FZ_DIR, 0700);
	mkdir(FZ_DIR "/conf.d", 0755);
	vm_put(FZ_DIR "/pageoutd.conf",
	       "[daemon]\ninterval = 2s\nstate_dir = " FZ_DIR "\nsocket = " FZ_DIR "/sock\n"
	       "log_level = info\n[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n");
	/*
	 * as conf/android/cached-apps.conf, with paddr's max_access_rate (its default, 50%: the
	 * kernel's young check decides per page, so cold pages that share a region with pages the
	 * app used before its freeze go too), a shorter min_age and a time quota that TCG can walk
	 * with; the refault back-off is on (1%): the thawed app's read-back refaults drive it, and
	 * its paused scheme must not take the frozen app's walks away
	 */
	vm_put(FZ_DIR "/conf.d/apps.conf",
	       "[policy]\ncgroup = /vmt-fz/*\nengine = paddr\nmin_age = 5s\nmemory = anon\n"
	       "quota = 64M/1s\nquota_time = 500ms\nfrozen_only = yes\npressure_limit = 20%\n"
	       "swap_reserve = 10%\nmax_refault_rate = 1%\n");
	d = vm_daemon_start(FZ_DIR, "/tmp/pageoutd-pfz.log", ~0ULL);
	vm_sleep_ms(500);
	if (!ok(waitpid(d, NULL, WNOHANG) == 0, "pageoutd runs a frozen_only paddr policy")) {
		vm_show_log("/tmp/pageoutd-pfz.log", 20);
		goto out;
	}
	ta = fz_wait(app[0], app[1], 90, &a, &ob);
	printf("# frozen app: %ld of %ld kB cold swapped after %u s; running app: at most %ld kB "
	       "swapped\n",
	       a, kb, ta, ob);
	fz_schemes(ta);
	ok(a >= kb * 9 / 10, "at least 90%% of the frozen app's cold memory is swapped out");
	ok(ob == 0, "the running app under the same policy lost nothing");
	/* the first app thaws and reads its cold area back; the second is frozen */
	vm_cg_put("/vmt-fz/a", "cgroup.freeze", "0");
	vm_read_remote(app[0], FZ_COLD, FZ_COLD_MB * MIB);
	a_back = vm_area_swap_kb(app[0], FZ_COLD);
	vm_cg_put("/vmt-fz/b", "cgroup.freeze", "1");
	tb = fz_wait(app[1], app[0], 90, &b, &oa);
	a_after = vm_area_swap_kb(app[0], FZ_COLD);
	printf("# newly frozen app: %ld of %ld kB cold swapped %u s after its freeze; thawed app: "
	       "%ld kB swapped after reading back, %ld kB at the end\n",
	       b, kb, tb, a_back, a_after);
	fz_schemes(tb);
	ok(b >= kb * 9 / 10, "the switch follows: the newly frozen app's cold memory goes");
	ok(a_after <= a_back, "and the thawed app loses nothing more");
	rc = vm_daemon_stop(d);
	is_int(rc, 0, "pageoutd exits 0 on SIGTERM");
	fflush(stdout);
	if (system("grep -E 'paddr|froze' /tmp/pageoutd-pfz.log | tail -n 8 | sed 's/^/#   /'") !=
	    0)
		vm_show_log("/tmp/pageoutd-pfz.log", 20);
out:
	vm_cg_put("/vmt-fz/a", "cgroup.freeze", "0");
	vm_cg_put("/vmt-fz/b", "cgroup.freeze", "0");
	vm_reap(app[0]);
	vm_reap(app[1]);
	vm_cg_remove("/vmt-fz/a");
	vm_cg_remove("/vmt-fz/b");
	vm_cg_remove("/vmt-fz");
}

#define Q_DIR "/run/pageoutd-vm-pq"
#define Q_LOG "/tmp/pageoutd-pq.log"
#define Q_COLD 0x7e2000000000ULL
#define Q_MB 32
#define Q_APPS 3
#define Q_WAIT 60 /* s: the bound for 95% of the cold memory with the shipped defaults */

/*
 * The shipped conf/conf.d/machines.conf (copied into the guest) as a drop-in, with only its
 * cgroup glob and min_age replaced, and `extra` appended. Returns how many quota_time lines
 * the shipped file has, -1 when it is missing.
 */
static int q_conf(const char *extra)
{
	char *text = NULL, out[8192];
	size_t o = 0;
	int qt = 0;

	if (read_file_alloc_at(AT_FDCWD, "machines.conf", &text) < 0)
		return -1;
	for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		const char *w = l;
		int n;

		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		while (*w == ' ' || *w == '\t')
			w++;
		if (!strncmp(w, "cgroup", 6) && strchr(" \t=", w[6]))
			n = snprintf(out + o, sizeof(out) - o, "cgroup = /vmt-q/*\n");
		else if (!strncmp(w, "min_age", 7) && strchr(" \t=", w[7]))
			n = snprintf(out + o, sizeof(out) - o, "min_age = 5s\n");
		else
			n = snprintf(out + o, sizeof(out) - o, "%s\n", l);
		qt += !strncmp(w, "quota_time", 10);
		if (n < 0 || (size_t)n >= sizeof(out) - o)
			break;
		o += (size_t)n;
	}
	snprintf(out + o, sizeof(out) - o, "%s", extra);
	free(text);
	vm_put(Q_DIR "/conf.d/machines.conf", out);
	return qt;
}

/* the output of a pageoutctl command on the socket in dir, into buf */
static void q_ctl_at(const char *dir, const char *cmd, char *buf, size_t len)
{
	char c[160];
	FILE *f;
	size_t n;

	snprintf(c, sizeof(c), "./pageoutctl -s %s/sock %s 2>&1", dir, cmd);
	f = popen(c, "r");
	n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		pclose(f);
}

/* the output of a pageoutctl command on the quota test's socket, into buf */
static void q_ctl(const char *cmd, char *buf, size_t len)
{
	q_ctl_at(Q_DIR, cmd, buf, len);
}

/* kB of the apps' cold areas swapped out now */
static long q_swapped(const pid_t *app)
{
	long s = 0;

	for (unsigned k = 0; k < Q_APPS; k++) {
		long v = vm_area_swap_kb(app[k], Q_COLD);

		s += v > 0 ? v : 0;
	}
	return s;
}

static void q_spawn(pid_t *app, const struct vm_area *lay)
{
	static const char *const cg[Q_APPS] = { "/vmt-q/a", "/vmt-q/b", "/vmt-q/c" };

	for (unsigned k = 0; k < Q_APPS; k++)
		app[k] = vm_spawn(lay, 1, cg[k]);
}

/* lines of the log that say a limit binds (not that it cleared) */
/* the log lines that name a limit binding policy machines; with limit, only those naming it */
static unsigned q_bind_lines(const char *limit)
{
	char *log = NULL;
	unsigned n = 0;

	if (read_file_alloc_at(AT_FDCWD, Q_LOG, &log) < 0)
		return 0;
	for (char *l = log, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (strstr(l, "paddr policy machines: ") && strstr(l, " the kernel allows ") &&
		    !strstr(l, "cleared after") && (!limit || strstr(l, limit))) {
			printf("#   %s\n", l);
			n++;
		}
	}
	free(log);
	return n;
}

/*
 * The shipped machines.conf, defaults and all (no quota_time line): three VMs' cgroups under
 * one glob with 32 MiB of cold anonymous memory each; at least 95% of it must go within
 * Q_WAIT s, with no limit but the byte quota named. Then the same with quota_time = 10ms
 * added: status, stats and one log line name the time quota that binds.
 */
static void quota(void)
{
	const long kb = Q_APPS * Q_MB * 1024;
	const struct vm_area lay[1] = { { Q_COLD, Q_MB * MIB, false } };
	char st[4096], js[32768];
	pid_t app[Q_APPS], d;
	time_t t0 = time(NULL);
	long sw = 0, sw2 = 0;
	unsigned t, t2;
	int qt;

	mkdir(Q_DIR, 0700);
	mkdir(Q_DIR "/conf.d", 0755);
	vm_put(Q_DIR "/pageoutd.conf",
	       "[daemon]\ninterval = 1s\nstate_dir = " Q_DIR "\nsocket = " Q_DIR "/sock\n"
	       "log_level = info\n[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n");
	qt = q_conf("");
	ok(qt == 0, "the shipped machines.conf sets no quota_time (got %d)", qt);
	vm_cg_make("/vmt-q");
	vm_cg_put("/vmt-q", "cgroup.subtree_control", "+memory");
	vm_cg_make("/vmt-q/a");
	vm_cg_make("/vmt-q/b");
	vm_cg_make("/vmt-q/c");
	q_spawn(app, lay);
	ok(app[0] > 0 && app[1] > 0 && app[2] > 0,
	   "quota: %d cgroups under /vmt-q with %d MiB of cold anonymous memory each", Q_APPS,
	   Q_MB);
	d = vm_daemon_start(Q_DIR, Q_LOG, ~0ULL);
	for (t = 0; t <= Q_WAIT; t++) {
		sw = q_swapped(app);
		if (sw >= kb * 95 / 100)
			break;
		if (t % 5 == 0)
			printf("# t=%us: %ld of %ld kB swapped\n", t, sw, kb);
		vm_sleep_ms(1000);
	}
	q_ctl("status", st, sizeof(st));
	q_ctl("stats --json", js, sizeof(js));
	printf("# shipped defaults: %ld of %ld kB (%.1f%%) swapped after %u s\n", sw, kb,
	       100.0 * (double)sw / (double)kb, t);
	ok(sw >= kb * 95 / 100,
	   "the shipped machines.conf reclaims at least 95%% of the cold memory within %d s",
	   Q_WAIT);
	printf("# %s", strstr(st, "\nmachines") ? strstr(st, "\nmachines") + 1 : st);
	/*
	 * where the kernel tunes the quota toward pressure_limit (7.1+), its effective quota may
	 * sit below the byte quota (half of it on 7.3): that is named, and is no time quota
	 */
	ok(strstr(js, "\"binding_limit_known\":true") &&
		   !strstr(js, "\"binding_limit\":\"quota_time") && !strstr(st, "quota_time"),
	   "and no time quota binds (stats and status name none)");
	if (!ok(q_bind_lines("quota_time") == 0, "nor does the log name one"))
		vm_show_log(Q_LOG, 20);
	is_int(vm_daemon_stop(d), 0, "pageoutd exits 0");
	for (unsigned k = 0; k < Q_APPS; k++)
		vm_reap(app[k]);

	/* quota_time = 10ms, as the shipped file had: named when it binds */
	q_conf("quota_time = 10ms\n");
	q_spawn(app, lay);
	d = vm_daemon_start(Q_DIR, Q_LOG, ~0ULL);
	for (t2 = 0; t2 <= 30; t2++) {
		vm_sleep_ms(1000);
		q_ctl("status", st, sizeof(st));
		if (strstr(st, "quota_time") && strstr(st, " binds)"))
			break;
	}
	/* a few more cycles: the log line must not repeat */
	vm_sleep_ms(5000);
	sw2 = q_swapped(app);
	q_ctl("status", st, sizeof(st));
	q_ctl("stats --json", js, sizeof(js));
	printf("# quota_time = 10ms: named after %u s; %ld of %ld kB (%.1f%%) swapped after %u s "
	       "(%u s with the defaults for %.1f%%)\n",
	       t2, sw2, kb, 100.0 * (double)sw2 / (double)kb, t2 + 5, t,
	       100.0 * (double)sw / (double)kb);
	{
		const char *b = strstr(js, "\"binding_limit\":");
		const char *m = strstr(js, "\"limit_bound_cycles_total\":{\"quota_time\":");

		printf("# %.48s; %.56s\n", b ? b : "(no binding_limit)", m ? m : "(no cycles)");
		ok(b && !strncmp(b, "\"binding_limit\":\"quota_time", 27) && m && atoi(m + 41) > 0,
		   "stats: binding_limit names quota_time, and counts the cycles it bound");
	}
	printf("# %s", strstr(st, "\nmachines") ? strstr(st, "\nmachines") + 1 : st);
	ok(strstr(st, "quota_time") && strstr(st, " binds)"), "status names it");
	is_int(vm_daemon_stop(d), 0, "pageoutd exits 0");
	{
		unsigned n = q_bind_lines(NULL);

		if (!ok(n == 1, "and the log says it once (%u lines)", n))
			vm_show_log(Q_LOG, 20);
	}
	for (unsigned k = 0; k < Q_APPS; k++)
		vm_reap(app[k]);
	vm_cg_remove("/vmt-q/a");
	vm_cg_remove("/vmt-q/b");
	vm_cg_remove("/vmt-q/c");
	vm_cg_remove("/vmt-q");
	printf("# quota: %ld s in the guest\n", (long)(time(NULL) - t0));
}

/* --- max_usage: a cgroup held at a ceiling --- */

#define MU_DIR "/run/pageoutd-vm-pmu"
#define MU_LOG "/tmp/pageoutd-pmu.log"
#define MU_CG "/vmt-mu"
#define MU_COLD 0x7e3000000000ULL
#define MU_HOT 0x7e3100000000ULL
#define MU_COLD_MB 96
#define MU_HOT_MB 16
#define MU_TARGET_MB 64 /* the ceiling: well above the hot set, well below the total */
#define MU_TOL_MB 16	/* about one walk's quota (4M/1s for 3 s, and what it overshoots) */
#define MU_WAIT 240	/* s to reach the ceiling: near it, each walk is charged little */

/* a number of a keyed file (memory.stat, meminfo) after `key`, 0 when absent */
static uint64_t mu_key(const char *path, const char *key)
{
	char *text = NULL;
	uint64_t v = 0;
	size_t n = strlen(key);

	if (read_file_alloc_at(AT_FDCWD, path, &text) < 0)
		return 0;
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, n) && (l[n] == ' ' || l[n] == ':')) {
			v = strtoull(l + n + 1 + strspn(l + n + 1, " :"), NULL, 10);
			break;
		}
	free(text);
	return v;
}

/* the cgroup's anon + file (what max_usage measures), in bytes */
static uint64_t mu_usage(void)
{
	return mu_key(VM_CGROOT MU_CG "/memory.stat", "anon") +
	       mu_key(VM_CGROOT MU_CG "/memory.stat", "file");
}

/* what holds the ceiling, as the daemon's kdamond shows it: the goal files of its scheme */
static bool mu_kernel_goal(void)
{
	const char *g = VM_ADMIN "/kdamonds/1/contexts/0/schemes/0/quotas/goals";
	char p[256], metric[64] = "", path[64] = "", tuner[32] = "";

	snprintf(p, sizeof(p), "%s/1/target_metric", g);
	read_file_at(AT_FDCWD, p, metric, sizeof(metric));
	snprintf(p, sizeof(p), "%s/1/path", g);
	read_file_at(AT_FDCWD, p, path, sizeof(path));
	read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/1/contexts/0/schemes/0/quotas/goal_tuner", tuner,
		     sizeof(tuner));
	printf("# the scheme's second goal: %s %s, tuner %s\n", str_strip(metric), str_strip(path),
	       str_strip(tuner));
	return !strcmp(metric, "node_memcg_free_bp") && !strcmp(path, MU_CG) &&
	       !strcmp(tuner, "temporal");
}

/*
 * A cgroup with 96 MiB of cold anonymous memory and a hot 16 MiB set, under a paddr policy
 * whose max_usage is 64 MiB of MemTotal: reclaim stops near 64 MiB, within about one walk's
 * quota, and never reaches down to the hot set. Where the kernel has per-cgroup goals and the
 * temporal tuner (7.1+) its scheme holds the goal and is never paused; elsewhere pageoutd
 * pauses it (below_max_usage).
 */
static void max_usage(void)
{
	const struct vm_area lay[2] = { { MU_COLD, MU_COLD_MB * MIB, false },
					{ MU_HOT, MU_HOT_MB * MIB, true } };
	const uint64_t target = MU_TARGET_MB * MIB, tol = MU_TOL_MB * MIB;
	uint64_t total = mu_key("/proc/meminfo", "MemTotal") * 1024, u = 0, lo = UINT64_MAX;
	char buf[1024], st[4096], js[32768], by[32] = "";
	unsigned t, reached = 0;
	time_t t0 = time(NULL);
	pid_t app, d;

	mkdir(MU_DIR, 0700);
	mkdir(MU_DIR "/conf.d", 0755);
	vm_put(MU_DIR "/pageoutd.conf",
	       "[daemon]\ninterval = 1s\nstate_dir = " MU_DIR "\nsocket = " MU_DIR "/sock\n"
	       "log_level = info\n[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n");
	/* the ceiling as a share of MemTotal, to the ppm the key takes */
	snprintf(buf, sizeof(buf),
		 "[policy]\ncgroup = " MU_CG "\nengine = paddr\nmin_age = 3s\nquota = 4M/1s\n"
		 "swap_reserve = 5%%\nmax_refault_rate = 100%%\nmax_usage = %.4f%%\n",
		 100.0 * (double)target / (double)total);
	vm_put(MU_DIR "/conf.d/mu.conf", buf);
	printf("# MemTotal %" PRIu64 " MiB: %s", (uint64_t)(total / MIB), strstr(buf, "max_usage"));
	vm_cg_make(MU_CG);
	app = vm_spawn(lay, 2, MU_CG);
	for (t = 0; t < 30 && mu_usage() < (MU_COLD_MB + MU_HOT_MB) * MIB; t++)
		vm_sleep_ms(1000);
	u = mu_usage();
	ok(app > 0 && u >= (MU_COLD_MB + MU_HOT_MB) * MIB,
	   "max_usage: " MU_CG " holds %d MiB cold + %d MiB hot (anon + file %" PRIu64 " MiB)",
	   MU_COLD_MB, MU_HOT_MB, (uint64_t)(u / MIB));
	d = vm_daemon_start(MU_DIR, MU_LOG, ~0ULL);
	for (t = 0; t <= MU_WAIT + 20; t++) {
		vm_sleep_ms(1000);
		u = mu_usage();
		if (reached)
			lo = u < lo ? u : lo;
		if (!reached && u <= target + tol / 4)
			reached = t;
		if (t % 5 == 0)
			printf("# t=%us: anon + file %.1f MiB, memory.current %.1f MiB, %ld kB "
			       "swapped\n",
			       t, (double)u / MIB, (double)vm_cg_u64(MU_CG, "memory.current") / MIB,
			       vm_area_swap_kb(app, MU_COLD));
		if ((reached && t >= reached + 20) || (!reached && t >= MU_WAIT))
			break;
	}
	q_ctl_at(MU_DIR, "status", st, sizeof(st));
	q_ctl_at(MU_DIR, "stats --json", js, sizeof(js));
	{
		const char *b = strstr(js, "\"max_usage_by\":\"");

		if (b)
			sscanf(b + strlen("\"max_usage_by\":\""), "%31[a-z]", by);
	}
	printf("# ceiling %" PRIu64 " MiB held by %s; reached after %u s; then %.1f to %.1f MiB "
	       "(lowest, last) for %u s\n",
	       (uint64_t)(target / MIB), by[0] ? by : "?", reached, (double)lo / MIB,
	       (double)u / MIB, reached ? t - reached : 0);
	ok(reached > 0, "the cgroup came down to its ceiling within %d s", MU_WAIT);
	ok(lo != UINT64_MAX && lo + tol >= target,
	   "reclaim stopped near it: never more than %d MiB below (lowest %.1f MiB), far above "
	   "the %d MiB hot set",
	   MU_TOL_MB, lo == UINT64_MAX ? 0.0 : (double)lo / MIB, MU_HOT_MB);
	ok(u + tol >= target && u <= target + tol,
	   "and it ends within %d MiB of the %d MiB ceiling (%.1f MiB)", MU_TOL_MB, MU_TARGET_MB,
	   (double)u / MIB);
	ok(strstr(js, "\"max_usage_bytes\":") && by[0],
	   "stats: the ceiling in bytes and what holds it (%s)", by);
	{
		/* one memory node here: the kernel where it has the goal tuner (7.1+) */
		bool tuner = access(VM_ADMIN "/kdamonds/1/contexts/0/schemes/0/quotas/goal_tuner",
				    F_OK) == 0;

		is_str(by, tuner ? "kernel" : "pageoutd",
		       "held by the kernel where it has the temporal tuner, else by pageoutd");
	}
	if (!strcmp(by, "kernel")) {
		/* one check in either branch, so that every kernel runs as many */
		ok(mu_kernel_goal() && !strstr(js, "\"paused\":true"),
		   "the kernel holds it: node_memcg_free_bp goal for " MU_CG " with the temporal "
		   "tuner, and the scheme is never paused for it");
	} else {
		unsigned n = 0;
		char *log = NULL;

		if (read_file_alloc_at(AT_FDCWD, MU_LOG, &log) >= 0)
			for (char *l = strstr(log, "paused: below_max_usage"); l;
			     l = strstr(l + 1, "paused: below_max_usage"))
				n++;
		free(log);
		/*
		 * Each walk takes at most what lies above the ceiling, so the cgroup may close in
		 * on it from above without crossing it; once it is at or below, the scheme must
		 * have been paused.
		 */
		ok(!strcmp(by, "pageoutd") && (n > 0 || (lo != UINT64_MAX && lo > target)),
		   "pageoutd holds it: paused whenever at or below the ceiling (%u times; lowest "
		   "%.1f MiB)",
		   n, lo == UINT64_MAX ? 0.0 : (double)lo / MIB);
	}
	printf("# %s", strstr(st, "\nmu") ? strstr(st, "\nmu") + 1 : st);
	/* held there: paused below it (pageoutd) or bound by it (the kernel's goal) */
	ok(strstr(st, "below_max_usage") || strstr(st, "(max_usage binds)"),
	   "status says max_usage holds the cgroup");
	if (!ok(vm_daemon_stop(d) == 0, "pageoutd exits 0"))
		vm_show_log(MU_LOG, 20);
	vm_reap(app);
	vm_cg_remove(MU_CG);
	printf("# max_usage: %ld s in the guest\n", (long)(time(NULL) - t0));
}

/* --- engine = both: the shipped databases.conf over a database's three kinds of memory --- */

#define DB_DIR "/run/pageoutd-vm-db"
#define DB_LOG "/tmp/pageoutd-db.log"
#define DB_CG "/vmt-db"
#define DB_SHARED 0x7e0200000000ULL
#define DB_FILE PC "/db.dat"
#define DB_MB 24
#define DB_WAIT 60 /* s: min_age 5 s, both parts' walks, with room for a loaded host */

/*
 * A database's memory in cgroup DB_CG: DB_MB of private anonymous memory (its heap), DB_MB of
 * shared anonymous memory that a second process (a backend, which dies with it) maps too (its
 * shared buffers), and DB_MB of a file it wrote and closed (table data in the page cache,
 * mapped by no process).
 */
static int db_setup(void *arg)
{
	static char buf[4096];
	volatile char *heap, *shared;
	char p[256], s[32], c = 0;
	int fds[2], fd;
	pid_t b;

	(void)arg;
	snprintf(p, sizeof(p), VM_CGROOT DB_CG "/cgroup.procs");
	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, p, s) < 0)
		return 2;
	shared = mmap((void *)(uintptr_t)DB_SHARED, DB_MB * MIB, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (shared == MAP_FAILED || pipe(fds) < 0)
		return 3;
	vm_touch(shared, DB_MB * MIB, true);
	/* the backend first: the heap made after it is this process's alone (not copy-on-write) */
	b = fork();
	if (b == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		vm_touch(shared, DB_MB * MIB, false); /* its own mappings of every shared page */
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (b < 0 || read(fds[0], &c, 1) != 1)
		return 6;
	heap = mmap((void *)(uintptr_t)COLD_A, DB_MB * MIB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (heap == MAP_FAILED)
		return 7;
	madvise((void *)heap, DB_MB * MIB, MADV_NOHUGEPAGE);
	vm_touch(heap, DB_MB * MIB, true);
	fd = open(DB_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (unsigned i = 0; fd >= 0 && i < DB_MB * 256; i++) {
		memset(buf, (int)i + 1, sizeof(buf));
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 4;
	}
	return fd < 0 || fsync(fd) < 0 || close(fd) < 0 ? 5 : 0;
}

/*
 * The shipped conf/conf.d/databases.conf (copied into the guest), its cgroup pointed at DB_CG
 * and min_age at 5 s: its vaddr part pages out the heap and leaves the shared memory to the
 * paddr part, which takes it to swap and drops the page cache. Status shows a row per part.
 */
static void both_db(void)
{
	const long kb = DB_MB * 1024;
	char *text = NULL, out[8192], st[4096], js[32768];
	long heap = 0, shared = 0;
	double cached = 100;
	size_t o = 0;
	pid_t app, d;
	unsigned t;

	if (access(PC, W_OK) != 0)
		pagecache_fs();
	mkdir(DB_DIR, 0700);
	mkdir(DB_DIR "/conf.d", 0755);
	vm_put(DB_DIR "/pageoutd.conf",
	       "[daemon]\ninterval = 1s\nstate_dir = " DB_DIR "\nsocket = " DB_DIR "/sock\n"
	       "log_level = info\n[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n");
	ok(read_file_alloc_at(AT_FDCWD, "databases.conf", &text) >= 0 &&
		   strstr(text, "\nengine = both"),
	   "the shipped databases.conf has engine = both");
	if (text)
		for (char *l = text, *nl; l && *l && o < sizeof(out) - 1; l = nl ? nl + 1 : NULL) {
			int n;

			nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			if (!strncmp(l, "cgroup", 6) && strchr(" \t=", l[6]))
				n = snprintf(out + o, sizeof(out) - o, "cgroup = " DB_CG "\n");
			else if (!strncmp(l, "min_age", 7) && strchr(" \t=", l[7]))
				n = snprintf(out + o, sizeof(out) - o, "min_age = 5s\n");
			else
				n = snprintf(out + o, sizeof(out) - o, "%s\n", l);
			if (n < 0 || (size_t)n >= sizeof(out) - o)
				break;
			o += (size_t)n;
		}
	free(text);
	vm_put(DB_DIR "/conf.d/databases.conf", out);
	vm_cg_make(DB_CG);
	app = child_fork(db_setup, NULL, NULL);
	ok(app > 0,
	   "engine = both: " DB_CG " holds %d MiB of heap, %d MiB of memory shared with "
	   "a second process, %d MiB of page cache",
	   DB_MB, DB_MB, DB_MB);
	d = vm_daemon_start(DB_DIR, DB_LOG, ~0ULL);
	for (t = 0; t <= DB_WAIT; t++) {
		heap = vm_area_swap_kb(app, COLD_A);
		shared = vm_area_swap_kb(app, DB_SHARED);
		cached = cached_pct(DB_FILE);
		if (heap >= kb * 9 / 10 && shared >= kb * 9 / 10 && cached <= 20)
			break;
		if (t % 5 == 0)
			printf("# t=%us: heap %ld kB swapped, shared %ld kB swapped, page cache "
			       "%.0f%% "
			       "cached\n",
			       t, heap, shared, cached);
		vm_sleep_ms(1000);
	}
	printf("# after %u s: heap %ld of %ld kB swapped, shared %ld of %ld kB, page cache %.0f%% "
	       "cached\n",
	       t, heap, kb, shared, kb, cached);
	q_ctl_at(DB_DIR, "status", st, sizeof(st));
	q_ctl_at(DB_DIR, "stats --json", js, sizeof(js));
	printf("# %s", st);
	ok(heap >= kb * 9 / 10, "the vaddr part pages out 90%% of the cold heap within %d s",
	   DB_WAIT);
	ok(shared >= kb * 9 / 10,
	   "the paddr part pages out 90%% of the cold shared memory, which two processes map");
	ok(cached >= 0 && cached <= 20, "and drops 80%% of the cold page cache no process maps");
	{
		/* the vaddr part's object first (the parts are in that order), then the paddr one */
		const char *v = strstr(js, "{\"name\":\"databases\",\"engine\":\"vaddr\"");
		const char *pp = strstr(js, "{\"name\":\"databases\",\"engine\":\"paddr\"");
		const char *sh = v ? strstr(v, "\"shared\":") : NULL;
		const char *ad = v ? strstr(v, "\"advised_bytes_total\":") : NULL;
		unsigned long long shb = sh ? strtoull(sh + 9, NULL, 10) : ~0ULL;
		unsigned long long adb = ad ? strtoull(ad + 22, NULL, 10) : ~0ULL;

		/*
		 * the vaddr part never advises the shared area (its paddr part reaches it): what it
		 * advised is the heap and the little its fork left copy-on-write, which is what
		 * comes back as "shared" (the backend maps it too); with the shared area it would
		 * have asked for heap + shared at least
		 */
		ok(v && pp > v && sh && sh < pp && ad && ad < pp && adb < 2ULL * kb * 1024 &&
			   shb < (unsigned long long)kb * 1024,
		   "stats: a part each; the vaddr part left the shared memory to the paddr part "
		   "(advised %llu bytes, %llu of them shared copy-on-write)",
		   adb, shb);
	}
	ok(strstr(st, "\ndatabases        vaddr") && strstr(st, "\ndatabases        paddr"),
	   "status: a row for each part");
	if (!ok(vm_daemon_stop(d) == 0, "pageoutd exits 0"))
		vm_show_log(DB_LOG, 20);
	vm_reap(app);
	vm_sleep_ms(300);
	vm_cg_remove(DB_CG);
	unlink(DB_FILE);
}

/* --- 7.3: the charge ratio of failed regions, and the paused kdamond --- */

#define SUB_DIR "/tmp/pageoutd-vm-psub"
#define FC_COLD 0x7e2000000000ULL
#define FC_LOCK 0x7e2100000000ULL
#define FC_COLD_MB 64
#define FC_LOCK_MB 256
#define FC_SECS 24
#define FC_QUOTA_MB 2 /* per second; min_age 3 s: 6 MiB per walk */

/* one paddr policy over cgroup, quota as given, min_age 3 s; NULL when it does not load */
static struct cfg *sub_config(const char *cgroup, const char *quota)
{
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	char buf[1024];

	mkdir(SUB_DIR, 0755);
	mkdir(SUB_DIR "/conf.d", 0755);
	snprintf(buf, sizeof(buf),
		 "[daemon]\ninterval = 1s\nstate_dir = %s\nlog_level = info\n"
		 "[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n",
		 state_dir);
	vm_put(SUB_DIR "/pageoutd.conf", buf);
	snprintf(buf, sizeof(buf),
		 "[policy]\ncgroup = %s\nengine = paddr\nmin_age = 3s\nquota = %s\n"
		 "swap_reserve = 5%%\nmax_refault_rate = 100%%\n",
		 cgroup, quota);
	vm_put(SUB_DIR "/conf.d/sub.conf", buf);
	if (cfg_load(SUB_DIR "/pageoutd.conf", SUB_DIR "/conf.d", true, &cfg, &errs) < 0)
		for (unsigned i = 0; i < errs.nr; i++)
			printf("# %s\n", errs.msgs[i]);
	cfg_errors_fini(&errs);
	return cfg;
}

/* the child of fc_phase: FC_COLD_MB of cold anonymous memory and FC_LOCK_MB mlocked */
static int fc_setup(void *arg)
{
	char p[256], s[32];
	void *m;

	snprintf(p, sizeof(p), VM_CGROOT "%s/cgroup.procs", (const char *)arg);
	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, p, s) < 0)
		return 2;
	m = mmap((void *)(uintptr_t)FC_COLD, FC_COLD_MB * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return 3;
	madvise(m, FC_COLD_MB * MIB, MADV_NOHUGEPAGE);
	vm_touch(m, FC_COLD_MB * MIB, true);
	m = mmap((void *)(uintptr_t)FC_LOCK, FC_LOCK_MB * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return 4;
	madvise(m, FC_LOCK_MB * MIB, MADV_NOHUGEPAGE);
	vm_touch(m, FC_LOCK_MB * MIB, true);
	return mlock(m, FC_LOCK_MB * MIB) < 0 ? 5 : 0;
}

/*
 * One run of the engine over cgroup cg (cold and mlocked memory, fc_setup) for FC_SECS
 * cycles, with the kernel's charge ratio (ratio, where the kernel has it) or without (the
 * quota scaled by walk_scale, as before 7.3). Returns the kB of the cold area swapped out;
 * *applied is what the scheme reclaimed, *tried what it walked, *ws its walk_scale.
 */
static long fc_phase(struct cgrp_root *cg, const char *cgname, bool ratio, uint64_t *applied,
		     uint64_t *tried, uint64_t *ws)
{
	struct cfg *cfg = sub_config(cgname, "2M/1s");
	const struct paddr_cgroup_stats *cs;
	struct paddr *p = NULL;
	struct damon d;
	long sw = -1, lck;
	pid_t h;

	*applied = *tried = *ws = 0;
	vm_cg_make(cgname);
	h = child_fork(fc_setup, NULL, (void *)cgname);
	lck = h > 0 ? vm_status_kb(h, "VmLck") : -1;
	if (!ok(h > 0 && lck >= FC_LOCK_MB * 1024 && cfg &&
			damon_open(&d, VM_ADMIN, state_dir, NULL) == 0,
		"failcharge: %s holds %d MiB cold and %ld kB mlocked (unevictable)", cgname,
		FC_COLD_MB, lck))
		goto out;
	if (damon_acquire(&d) == 0) {
		d.feat.fail_charge = d.feat.fail_charge && ratio;
		if (paddr_new(&p, cfg, &d, cg) == 0) {
			for (unsigned t = 1; t <= FC_SECS; t++) {
				vm_sleep_ms(1000);
				paddr_cycle(p);
				if (t % 6 == 0)
					printf("#   t=%us: %ld kB swapped\n", t,
					       vm_area_swap_kb(h, FC_COLD));
			}
			sw = vm_area_swap_kb(h, FC_COLD);
			cs = paddr_cgroup_stats(p, cgname);
			if (cs) {
				*applied = cs->sz_applied;
				*tried = cs->sz_tried;
				*ws = cs->walk_scale;
			}
			paddr_free(p);
		}
		damon_release(&d);
	}
	damon_close(&d);
out:
	vm_reap(h);
	vm_cg_remove(cgname);
	cfg_free(cfg);
	return sw;
}

/*
 * A cgroup whose cold memory shares the walk with a large mlocked region (pageout fails on
 * it), and a byte quota of 2 MiB/s. With the kernel's charge ratio (7.3) the failed bytes
 * cost 1/1024: the cold anon goes at about the quota rate, and no faster. Without it (before
 * 7.3, or forced here) every byte walked is charged and walk_scale scales the quota by RAM
 * over the cgroup's memory, which counts the mlocked bytes: much slower.
 */
static void failcharge(struct cgrp_root *cg)
{
	const long want = (long)FC_QUOTA_MB * 1024 * (FC_SECS - 3);
	uint64_t app_a, app_b, ws_a, ws_b, tr_a, tr_b;
	long sw_a, sw_b;
	struct damon d;
	bool has = false;

	if (damon_open(&d, VM_ADMIN, state_dir, NULL) == 0 && damon_acquire(&d) == 0) {
		has = d.feat.fail_charge;
		damon_release(&d);
	}
	damon_close(&d);
	sw_a = fc_phase(cg, "/vmt-pfa", false, &app_a, &tr_a, &ws_a);
	printf("# without the charge ratio: %ld of %d kB swapped in %d s, scheme applied %" PRIu64
	       " kB of %" PRIu64 " kB tried, walk_scale %" PRIu64 "\n",
	       sw_a, FC_COLD_MB * 1024, FC_SECS, app_a / 1024, tr_a / 1024, ws_a);
	/*
	 * every byte walked is charged, the mlocked ones too: what goes depends on where the
	 * cold pages sit in the physical walk (nothing for 18 s in a 7.3 run), so what is
	 * promised is a scheme that walks, charged no more than walk_scale x the quota
	 */
	ok(tr_a > 0, "failcharge: without the ratio the scheme walked (%" PRIu64 " kB tried)",
	   tr_a / 1024);
	ok(ws_a >= 1 && app_a <= ws_a * FC_QUOTA_MB * MIB * (FC_SECS + 3),
	   "failcharge: without the ratio (as before 7.3) the scheme applied at most walk_scale "
	   "x the quota");
	if (!has) {
		static const char *const names[] = {
			"failcharge: /vmt-pfb holds cold and mlocked memory",
			"failcharge: with the ratio the quota is not scaled (walk_scale 1)",
			"failcharge: the cold anon goes at the quota rate despite the mlocked "
			"region",
			"failcharge: and no faster: the scheme applied at most the quota",
			"failcharge: at least twice what goes without the ratio",
		};

		skip_each(names, ARRAY_SIZE(names),
			  "this kernel has no fail_charge_num/denom (7.3+)");
		return;
	}
	sw_b = fc_phase(cg, "/vmt-pfb", true, &app_b, &tr_b, &ws_b);
	printf("# with the charge ratio 1/%d: %ld of %d kB swapped in %d s (%.1fx), scheme "
	       "applied %" PRIu64 " kB, walk_scale %" PRIu64 "; the quota allows about %ld kB\n",
	       PSCHEME_FAIL_CHARGE_DENOM, sw_b, FC_COLD_MB * 1024, FC_SECS,
	       sw_a > 0 ? (double)sw_b / (double)sw_a : 0.0, app_b / 1024, ws_b, want);
	ok(ws_b == 1, "failcharge: with the ratio the quota is not scaled (walk_scale 1)");
	ok(sw_b >= want * 40 / 100,
	   "failcharge: the cold anon goes at the quota rate despite the mlocked region (at least "
	   "40%% of %ld kB)",
	   want);
	ok(app_b <= (uint64_t)FC_QUOTA_MB * MIB * (FC_SECS + 3),
	   "failcharge: and no faster: the scheme applied at most the quota");
	ok(sw_b >= 2 * sw_a, "failcharge: at least twice what goes without the ratio");
}

/* tracefs on, damon_aggregated enabled; returns 0 or -1 */
static int trace_on(void)
{
	if (access("/sys/kernel/tracing/trace", F_OK) < 0 &&
	    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0)
		return -1;
	return write_file_at(AT_FDCWD, "/sys/kernel/tracing/events/damon/damon_aggregated/enable",
			     "1") < 0
		       ? -1
		       : 0;
}

/*
 * The first aggregation in the trace buffer (then cleared): its number of regions and the
 * largest age among them. Returns 0 or -1 when the buffer holds none.
 */
static int trace_first(unsigned *nr, unsigned *max_age)
{
	char *buf = NULL;
	unsigned seen = 0;
	int r = -1;

	*nr = *max_age = 0;
	if (read_file_alloc_at(AT_FDCWD, "/sys/kernel/tracing/trace", &buf) < 0)
		return -1;
	for (char *l = buf, *nl; l && *l && (!seen || seen < *nr); l = nl ? nl + 1 : NULL) {
		const char *n = strstr(l, "nr_regions=");
		unsigned nrr, acc, age;

		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (!n || !strstr(l, "damon_aggregated") ||
		    sscanf(n, "nr_regions=%u %*[^:]: %u %u", &nrr, &acc, &age) != 3)
			continue;
		if (!seen)
			*nr = nrr;
		*max_age = age > *max_age ? age : *max_age;
		seen++;
		r = 0;
	}
	free(buf);
	write_file_at(AT_FDCWD, "/sys/kernel/tracing/trace", "");
	return r;
}

static const char *kd_get(const char *file, char *buf, size_t len)
{
	char p[128];

	snprintf(p, sizeof(p), VM_ADMIN "/kdamonds/1/%s", file);
	buf[0] = '\0';
	if (read_file_at(AT_FDCWD, p, buf, len) < 0)
		return "";
	return str_strip(buf);
}

/*
 * 7.3: the engine pauses its kdamond, rather than stopping it or letting stat schemes walk,
 * while an operator pauses every policy and while no cgroup has a scheme (a reload to a
 * policy that matches none), and resumes it with a commit: the same kernel thread, its
 * regions and their ages kept. Before 7.3 (6.12) the paused policy's stat scheme walks, and
 * the kdamond is stopped and started again with fresh regions.
 */
static void pause_sub(struct cgrp_root *cg)
{
	const struct vm_area lay[2] = { { COLD_A, 32 * MIB, false },
					{ HOT_A, HOT_MB * MIB, true } };
	struct cfg *cfg = sub_config("/vmt-pp", "64M/1s"),
		   *none = sub_config("/vmt-none", "64M/1s");
	char pid0[32] = "", b[64];
	unsigned nr0 = 0, age0 = 0, nr1 = 0, age1 = 0;
	uint64_t tried0, tried1;
	struct paddr *p = NULL;
	struct damon d;
	bool has;
	pid_t h;

	vm_cg_make("/vmt-pp");
	h = vm_spawn(lay, 2, "/vmt-pp");
	if (!ok(h > 0 && cfg && none && damon_open(&d, VM_ADMIN, state_dir, NULL) == 0 &&
			damon_acquire(&d) == 0 && paddr_new(&p, cfg, &d, cg) == 0,
		"pause: /vmt-pp with 32 MiB cold and %d MiB hot; the engine over it", HOT_MB))
		goto out;
	has = d.feat.pause;
	ok(trace_on() == 0, "pause: tracing damon_aggregated (regions and their ages)");
	cycle_for(p, 8);
	str_copy(pid0, sizeof(pid0), kd_get("pid", b, sizeof(b)));
	write_file_at(AT_FDCWD, "/sys/kernel/tracing/trace", "");
	vm_sleep_ms(600);
	trace_first(&nr0, &age0);
	printf("# pause: kdamond pid %s, %u regions, oldest %u aggregations, after 8 cycles\n",
	       pid0, nr0, age0);

	/*
	 * The operator pauses the only policy. The engine reads the scheme counters around the
	 * commit as the kdamond has them when it takes the commit (not as of the kernel's last
	 * refresh_ms refresh): from there on a paused kdamond walks nothing, and its stat
	 * scheme's counters stand still (5 s watched). Unpaused, the stat scheme walks once per
	 * apply interval (min_age, 3 s); a commit restarts that interval before 6.18 and TCG
	 * stretches it, so where there is no pause the check waits up to 15 s for one walk.
	 */
	paddr_pause(p, cfg->policies[0].name, true);
	paddr_cycle(p);
	tried0 = paddr_policy_stats(p, cfg->policies[0].name)->tried_bytes_total;
	printf("# pause: paused by a commit: %" PRIu64 " kB tried, %" PRIu64 " kB applied so far\n",
	       tried0 / 1024,
	       paddr_policy_stats(p, cfg->policies[0].name)->applied_bytes_total / 1024);
	tried1 = tried0;
	for (unsigned i = 1; i <= 5 || (!has && tried1 == tried0 && i <= 15); i++) {
		uint64_t t = tried1;

		cycle_for(p, 1);
		tried1 = paddr_policy_stats(p, cfg->policies[0].name)->tried_bytes_total;
		printf("# pause: cycle %u: the stat scheme tried %" PRIu64 " kB more (pause %s)\n",
		       i, (tried1 - t) / 1024,
		       has ? kd_get("contexts/0/pause", b, sizeof(b)) : "not here");
	}
	printf("# pause: operator pause: %s; the stat scheme tried %" PRIu64 " kB\n",
	       has ? "kdamond paused" : "no kdamond pause here", (tried1 - tried0) / 1024);
	if (has)
		ok(!strcmp(kd_get("contexts/0/pause", b, sizeof(b)), "Y") &&
			   paddr_stats(p)->kdamond_paused && tried1 == tried0,
		   "pause: every policy paused: the kdamond is paused and walks nothing");
	else
		ok(tried1 > tried0,
		   "pause: every policy paused: the stat scheme still walks (6.12)");
	paddr_pause(p, cfg->policies[0].name, false);
	paddr_cycle(p);

	/* a reload to a policy that matches no cgroup, then back */
	paddr_set_config(p, none);
	paddr_cycle(p);
	if (has)
		ok(!strcmp(kd_get("state", b, sizeof(b)), "on") &&
			   !strcmp(kd_get("contexts/0/pause", b, sizeof(b)), "Y") &&
			   !strcmp(kd_get("pid", b, sizeof(b)), pid0),
		   "pause: reload, no cgroup matched: the kdamond is paused (pid %s), not stopped",
		   pid0);
	else
		is_str(kd_get("state", b, sizeof(b)), "off",
		       "pause: reload, no cgroup matched: the kdamond is stopped (6.12)");
	vm_sleep_ms(2000);
	write_file_at(AT_FDCWD, "/sys/kernel/tracing/trace", "");
	paddr_set_config(p, cfg);
	paddr_cycle(p);
	vm_sleep_ms(600);
	trace_first(&nr1, &age1);
	printf("# pause: reloaded back: kdamond pid %s (was %s), %" PRIu64 " starts; first "
	       "aggregation: %u regions (%u before), oldest %u aggregations (%u before)\n",
	       kd_get("pid", b, sizeof(b)), pid0, paddr_stats(p)->restarts, nr1, nr0, age1, age0);
	if (has) {
		ok(!strcmp(kd_get("pid", b, sizeof(b)), pid0) && paddr_stats(p)->restarts == 1 &&
			   !strcmp(kd_get("contexts/0/pause", b, sizeof(b)), "N"),
		   "pause: resumed by a commit: the same kdamond, started once");
		ok(age1 + 2 >= age0 && age1 > 4,
		   "pause: its regions kept their ages (oldest %u aggregations, %u before)", age1,
		   age0);
	} else {
		ok(strcmp(kd_get("pid", b, sizeof(b)), pid0) && paddr_stats(p)->restarts == 2,
		   "pause: started again (6.12): a new kdamond");
		ok(age1 <= 4, "pause: with fresh regions (oldest %u aggregations, %u before)", age1,
		   age0);
	}
	write_file_at(AT_FDCWD, "/sys/kernel/tracing/events/damon/damon_aggregated/enable", "0");
	paddr_free(p);
	p = NULL;
	damon_release(&d);
out:
	paddr_free(p);
	damon_close(&d);
	vm_reap(h);
	vm_cg_remove("/vmt-pp");
	cfg_free(cfg);
	cfg_free(none);
}

int main(int argc, char **argv)
{
	const struct vm_area hot[1] = { { HOT_A, HOT_MB * MIB, true } };
	struct cgrp_root cg;
	struct damon d;
	struct paddr *p = NULL;
	struct cfg *cfg, *cfg2 = NULL;
	const struct paddr_cgroup_stats *cs;
	pid_t ha, hb, hh, hc, hd;
	char en[8] = "";
	uint64_t tried0, exc0, t0, tried1, exc1, t1, app0, app1;
	long fh0, fh1, sa, sb, sh, sh_max = 0;
	double ca, cb;
	unsigned i;

	vm_require_guest();
	vm_release_damon_stat();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a whole run: the same checks on every kernel (SKIPs where one cannot run) */
	if (argc < 2)
		tap_plan(VM_PADDR_CHECKS);
	log_setup(LOG_TARGET_STDERR, LOG_NOTICE);
	/* 7.2 enables damon_stat by default; an operator releases it (vm-damon shows the error) */
	if (read_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", en, sizeof(en)) >
		    0 &&
	    en[0] == 'Y')
		write_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", "N");
	if (argc > 1 && !strcmp(argv[1], "frozen")) {
		frozen();
		return tap_exit();
	}
	if (argc > 1 && !strcmp(argv[1], "quota")) {
		quota();
		return tap_exit();
	}
	if (argc > 1 && !strcmp(argv[1], "max_usage")) {
		max_usage();
		return tap_exit();
	}
	if (argc > 1 && !strcmp(argv[1], "both")) {
		both_db();
		return tap_exit();
	}
	if (argc > 1 && (!strcmp(argv[1], "failcharge") || !strcmp(argv[1], "pause"))) {
		mkdir(state_dir, 0700);
		if (!ok(cgrp_init(&cg) == 0 && cg.version == 2, "cgroup v2"))
			return tap_exit();
		if (!strcmp(argv[1], "failcharge"))
			failcharge(&cg);
		else
			pause_sub(&cg);
		return tap_exit();
	}
	mkdir(state_dir, 0700);
	{
		const char *dev = pagecache_fs();

		ok(dev != NULL, "ext4 on %s%s for page cache at " PC, dev ? dev : "no disk",
		   dev && strncmp(dev, "/dev/zram", 9) ? " (this kernel has no zram)" : "");
	}
	ok(cgrp_init(&cg) == 0 && cg.version == 2, "cgroup v2");
	vm_cg_make("/vmt-pa");
	vm_cg_make("/vmt-pb");
	vm_cg_make("/vmt-pc");
	vm_cg_make("/vmt-pd");
	ha = holder("/vmt-pa", PC "/a.dat", COLD_MB, false);
	hb = holder("/vmt-pb", PC "/b.dat", COLD_MB, false);
	hc = holder("/vmt-pc", NULL, 4, false);
	hd = holder("/vmt-pd", NULL, THP_MB, true);
	hh = vm_spawn(hot, 1, "/vmt-pa");
	ok(ha > 0 && hb > 0 && hc > 0 && hd > 0 && hh > 0,
	   "vmt-pa and vmt-pb: %d MiB cold anon + %d MiB cold page cache each; vmt-pa: a hot "
	   "%d MiB set; vmt-pc: 4 MiB; vmt-pd: %d MiB of cold anon in THPs (%ld kB)",
	   COLD_MB, COLD_MB, HOT_MB, THP_MB, vm_area_field_kb(hd, COLD_A, "AnonHugePages"));
	cfg = config("64K/100ms");
	ok(cfg && damon_open(&d, VM_ADMIN, state_dir, NULL) == 0 && damon_acquire(&d) == 0 &&
		   paddr_new(&p, cfg, &d, &cg) == 0,
	   "the paddr engine owns its kdamond; policies /vmt-p[ac] and /vmt-pd, quota 64K/100ms");
	if (!p)
		return tap_exit();
	paddr_cycle(p);
	ok(paddr_scheme_of(p, "/vmt-pa") >= 0 && paddr_scheme_of(p, "/vmt-pc") >= 0 &&
		   paddr_scheme_of(p, "/vmt-pb") < 0,
	   "schemes for vmt-pa and vmt-pc, none for vmt-pb");
	printf("# %" PRIu64 " schemes over %" PRIu64 " MiB of System RAM; quota goals: %s\n",
	       paddr_stats(p)->schemes, (uint64_t)(paddr_stats(p)->ram_bytes / MIB),
	       paddr_stats(p)->goals ? "yes" : "no");
	cycle_for(p, 2);

	/* vmt-pc goes away while its scheme exists */
	vm_reap(hc);
	vm_cg_remove("/vmt-pc");
	i = (unsigned)paddr_stats(p)->errors;
	cycle_for(p, 1);
	ok(paddr_scheme_of(p, "/vmt-pc") < 0 && paddr_scheme_of(p, "/vmt-pa") == 0 &&
		   paddr_stats(p)->errors == i && paddr_stats(p)->schemes == 2,
	   "vmt-pc removed: its scheme is dropped online, vmt-pa's goes on, no error");

	/*
	 * the quota: wait until the kernel's effective quota is the configured 64 KiB per 100 ms
	 * for the 3 s between two walks (min_age), times the cgroup's walk_scale (RAM over its
	 * memory: DAMON charges every byte it walks)
	 */
	cs = paddr_cgroup_stats(p, "/vmt-pa");
	for (i = 0; i < 60 && cs->effective_quota != WALK * cs->walk_scale * QUOTA; i++) {
		cycle_for(p, 1);
		cs = paddr_cgroup_stats(p, "/vmt-pa");
	}
	printf("# effective quota %" PRIu64 " bytes (walk_scale %" PRIu64
	       ") after %u more cycles\n",
	       cs->effective_quota, cs->walk_scale, i);
	tried0 = cs->sz_tried;
	app0 = cs->sz_applied;
	exc0 = cs->qt_exceeds;
	t0 = now_usec();
	/*
	 * the window: two walks of the scheme (cycles in which its tried bytes grew), at most
	 * 40 s. The kernel counts a walk's countdown (min_age) in samples, which take longer
	 * than sample_interval when the host is busy, so a walk is not every 3 s of wall time.
	 */
	{
		uint64_t prev = tried0, c0 = paddr_stats(p)->commits,
			 h0 = paddr_stats(p)->commits_held;
		unsigned walks = 0, secs = 0;

		while (walks < 2 && secs < 40) {
			cycle_for(p, 1);
			secs++;
			cs = paddr_cgroup_stats(p, "/vmt-pa");
			walks += cs->sz_tried > prev;
			prev = cs->sz_tried;
		}
		printf("# window: %u walks seen in %u cycles; %" PRIu64 " commits, %" PRIu64
		       " held (the kernel %s the walk's countdown on a commit)\n",
		       walks, secs, paddr_stats(p)->commits - c0, paddr_stats(p)->commits_held - h0,
		       d.feat.commit_keeps_clock ? "keeps" : "restarts");
		ok(walks >= 1, "the scheme walked within 40 s of a 3 s min_age (%u walks seen)",
		   walks);
	}
	cs = paddr_cgroup_stats(p, "/vmt-pa");
	tried1 = cs->sz_tried;
	app1 = cs->sz_applied;
	exc1 = cs->qt_exceeds;
	t1 = now_usec();
	{
		double intervals = (double)(t1 - t0) / 100000.0;
		double per = (double)(tried1 - tried0) / intervals;

		printf("# quota 64K/100ms: %" PRIu64 " kB tried in %.0f intervals (%.0f kB per "
		       "interval), quota exceeded %" PRIu64 " times\n",
		       (tried1 - tried0) / 1024, intervals, per / 1024, exc1 - exc0);
		ok(cs->walk_scale >= 1 &&
			   cs->walk_scale ==
				   (d.feat.fail_charge
					    ? 1
					    : pscheme_walk_scale(paddr_stats(p)->ram_bytes,
								 cs->resident)),
		   "walk_scale %" PRIu64 ": RAM over the cgroup's %" PRIu64
		   " kB (1 where the kernel charges what it reclaims, 7.3)",
		   cs->walk_scale, cs->resident / 1024);
		ok(cs->effective_quota > 0 && cs->effective_quota <= WALK * cs->walk_scale * QUOTA,
		   "the kernel's effective quota is at most 64 KiB x 30 intervals x walk_scale per "
		   "walk (the time quota may bind first)");
		/*
		 * a walk every 3 s: the window holds one walk more than its share at most; before
		 * 7.3 the quota is charged with every byte tried, on 7.3 with what was reclaimed
		 * (a failed byte 1/1024)
		 */
		if (d.feat.fail_charge)
			ok(app1 - app0 <= (uint64_t)((intervals + WALK) * (double)QUOTA),
			   "at most that quota per interval was reclaimed (%" PRIu64 " kB; %" PRIu64
			   " kB tried)",
			   (app1 - app0) / 1024, (tried1 - tried0) / 1024);
		else
			ok(tried1 - tried0 <= (uint64_t)((intervals + WALK) *
							 (double)(cs->walk_scale * QUOTA)),
			   "at most that quota per interval was tried (scheme stats)");
		ok(tried1 > tried0 && exc1 > exc0,
		   "and the quota was reached: it is what bounded the scheme");
		ok(cs->sz_applied <= cs->sz_tried, "applied <= tried");
	}

	/* reload: a large quota; the matched cgroup's cold memory goes */
	cfg2 = config("256M/1s");
	ok(cfg2 && paddr_set_config(p, cfg2) == 0, "reload: quota 256M/1s (the default)");
	fh0 = vm_majflt(hh);
	for (i = 0; i < 150; i++) {
		cycle_for(p, 1);
		sh = vm_area_swap_kb(hh, HOT_A);
		if (sh > sh_max)
			sh_max = sh;
		sa = vm_area_swap_kb(ha, COLD_A);
		ca = cached_pct(PC "/a.dat");
		if (sa >= COLD_MB * 1024 * 95 / 100 && ca >= 0 && ca <= 8 &&
		    vm_area_swap_kb(hd, COLD_A) >= THP_MB * 1024 * 95 / 100)
			break;
		if (i % 10 == 9) {
			char psi[128] = "";

			read_file_at(AT_FDCWD, "/proc/pressure/memory", psi, sizeof(psi));
			if (strchr(psi, '\n'))
				*strchr(psi, '\n') = '\0';
			cs = paddr_cgroup_stats(p, "/vmt-pa");
			printf("# cycle %u: effective quota %" PRIu64 " kB, applied %" PRIu64
			       " kB, tried %" PRIu64 " kB; %s\n",
			       i + 1, cs->effective_quota / 1024, cs->sz_applied / 1024,
			       cs->sz_tried / 1024, psi);
		}
	}
	if (sa < COLD_MB * 1024 * 95 / 100)
		layout(&d, ha, hh);
	{
		/*
		 * vmt-pd's scheme comes after vmt-pa's in the kdamond. DAMON resets the age of
		 * each region a pageout scheme walks, so with an age gate vmt-pa's scheme hid
		 * every idle region from it: none of its 16 MiB went in four of ten earlier runs
		 * (after 10 to 150 cycles). Without the gate (each scheme walks once per
		 * min_age) it goes.
		 */
		long thp = vm_area_field_kb(hd, COLD_A, "AnonHugePages"),
		     sw = vm_area_swap_kb(hd, COLD_A);

		printf("# vmt-pd, cold anon in THPs: %ld of %d kB swapped after %u cycles, %ld kB "
		       "still in THPs\n",
		       sw, THP_MB * 1024, i, thp);
		ok(sw >= THP_MB * 1024 / 2, "vmt-pd, the second policy's cgroup, is not starved by "
					    "vmt-pa's scheme: at least "
					    "half of its cold memory (THPs) was reclaimed");
	}
	sb = vm_area_swap_kb(hb, COLD_A);
	cb = cached_pct(PC "/b.dat");
	sh = vm_area_swap_kb(hh, HOT_A);
	fh1 = vm_majflt(hh);
	/* where the kernel refreshes the stats itself (6.17+) they lag up to a second: let it */
	vm_sleep_ms(1100);
	paddr_cycle(p);
	cs = paddr_cgroup_stats(p, "/vmt-pa");
	printf("# after %u cycles: vmt-pa cold anon %ld/%d kB swapped, its file %.1f%% cached; "
	       "vmt-pb %ld kB swapped, %.1f%% cached; hot set %ld kB swapped, %ld major faults\n",
	       i, sa, COLD_MB * 1024, ca, sb, cb, sh, fh1 - fh0);
	printf("# vmt-pa scheme: applied %" PRIu64 " kB, tried %" PRIu64 " kB, memcg drop %" PRIu64
	       " kB, refaults %" PRIu64 ", ops-filter-passed %" PRId64 " kB\n",
	       cs->sz_applied / 1024, cs->sz_tried / 1024, cs->memcg_drop_bytes_total / 1024,
	       cs->refaults_total,
	       cs->sz_ops_filter_passed == UINT64_MAX ? -1
						      : (int64_t)cs->sz_ops_filter_passed / 1024);
	/*
	 * What the engine promises: each scheme walks every region once per min_age without an
	 * age gate and the kernel's young check decides per page, so every cold page is taken
	 * within a few walks wherever it sits in physical memory. The bounds leave room for
	 * pages the kernel cannot take at that moment (isolated, under writeback), not for a
	 * layout; the layout diagnostic above says where cold pages were left when one fails.
	 */
	ok(sa >= COLD_MB * 1024 * 90 / 100,
	   "vmt-pa's cold anonymous memory was reclaimed (at least 90%%)");
	ok(ca >= 0 && ca <= 20, "vmt-pa's cold page cache was reclaimed (at least 80%%)");
	ok(sb == 0 && cb >= 98, "vmt-pb, not matched, kept all of its memory");
	{
		long pages = HOT_MB * MIB / 4096, out = sh_max / 4, faults = fh1 - fh0;

		/* resident: sampled every cycle (what was out of memory at once); the pages that
		 * went and came back are the kernel's mistakes, counted as well */
		printf("# hot set: at least %.1f%% of its pages resident at every cycle (at most "
		       "%ld "
		       "kB out at once); %ld pages went and came back (%.1f%%): the kernel "
		       "re-checked "
		       "references before reclaiming\n",
		       100.0 - 100.0 * (double)out / (double)pages, sh_max, faults,
		       100.0 * (double)faults / (double)pages);
		ok(sh_max >= 0 && out <= pages * 5 / 100,
		   "the hot working set kept at least 95%% of its pages resident (kernel "
		   "re-check)");
		ok(faults <= pages * 10 / 100, "and at most 10%% of them were reclaimed at all");
	}
	ok(cs->sz_applied >= 48 * MIB && cs->memcg_drop_bytes_total >= 48 * MIB,
	   "scheme stats and the memcg agree that vmt-pa shrank");
	paddr_free(p);
	{
		char st[16] = "";

		read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/1/state", st, sizeof(st));
		is_str(str_strip(st), "off", "the engine's end turns its kdamond off");
	}
	is_int(damon_release(&d), 0, "DAMON given back");
	damon_close(&d);
	vm_reap(ha);
	vm_reap(hb);
	vm_reap(hh);
	vm_reap(hd);
	vm_cg_remove("/vmt-pd");
	vm_cg_remove("/vmt-pa");
	vm_cg_remove("/vmt-pb");
	cfg_free(cfg);
	cfg_free(cfg2);
	frozen();
	quota();
	max_usage();
	both_db();
	failcharge(&cg);
	pause_sub(&cg);
	return tap_exit();
}
