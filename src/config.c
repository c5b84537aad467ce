// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config: inih parsing of pageoutd.conf and conf.d/\*.conf against one key table per section.
 *
 * inih (Debian's libinih, built without INI_HANDLER_LINENO) does not tell the handler the line
 * number, so parsing goes through ini_parse_stream() with our own reader: inih calls the reader
 * once per line and the handler before reading the next line, so the reader's count is the
 * handler's line. The reader also normalises each line before inih sees it: leading blanks are
 * removed (inih would take an indented "key = value" as a continuation of the previous key),
 * inline " #" / " ;" comments are cut, section headers and lines without '=' are checked here
 * so that every error, not only inih's first, gets its own message. A UTF-8 byte order mark at
 * the start of a file is dropped here too, since inih only sees what the reader hands it.
 */
#include <config.h>

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>

#include "pageoutd/config.h"
#include "pageoutd/log.h"
#include "pageoutd/sampling.h"
#include "pageoutd/util.h"

enum ktype {
	K_DURATION,
	K_RATE,
	K_BOOL,
	K_UINT,
	K_PATH,
	K_NAME,
	K_LOGLEVEL,
	K_REFSEM,
	K_ENGINE,
	K_MEMORY,
	K_QUOTA,
	K_CGROUP,
};

/* the engines a [policy] key applies to: a key of the other engine is an error */
#define ANY 0u
#define VADDR_ONLY (1u << ENGINE_VADDR)
#define PADDR_ONLY (1u << ENGINE_PADDR)

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	size_t size; /* for strings */
	uint64_t min, max;
	unsigned engines; /* ANY, VADDR_ONLY or PADDR_ONLY */
};

enum section { SEC_NONE, SEC_DAEMON, SEC_DAMON, SEC_POLICY, SEC_UNKNOWN };

#define D(f) offsetof(struct cfg_daemon, f), sizeof(((struct cfg_daemon *)0)->f)
#define M(f) offsetof(struct cfg_damon, f), sizeof(((struct cfg_damon *)0)->f)
#define P(f) offsetof(struct cfg_policy, f), sizeof(((struct cfg_policy *)0)->f)
#define MS USEC_PER_MSEC
#define SEC USEC_PER_SEC

static const struct key daemon_keys[] = {
	{ "interval", K_DURATION, D(interval_us), 100 * MS, 3600 * SEC, ANY },
	{ "socket", K_PATH, D(socket), 0, 107, ANY },
	{ "socket_group", K_NAME, D(socket_group), 0, 0, ANY },
	{ "state_dir", K_PATH, D(state_dir), 0, PATH_MAX - 64, ANY },
	{ "proc_root", K_PATH, D(proc_root), 0, PATH_MAX - 64, ANY },
	{ "log_level", K_LOGLEVEL, D(log_level), 0, 0, ANY },
	{ "dry_run", K_BOOL, D(dry_run), 0, 0, ANY },
	{ "reference_semantics", K_REFSEM, D(reference_semantics), 0, 0, ANY },
	{ "confirm_snapshots", K_UINT, D(confirm_snapshots), 1, 2, ANY },
	{ "watch_config", K_BOOL, D(watch_config), 0, 0, ANY },
	{ NULL },
};

static const struct key damon_keys[] = {
	{ "sysfs_root", K_PATH, M(sysfs_root), 0, PATH_MAX - 256, ANY },
	{ "sample_interval", K_DURATION, M(sample_us), 100, 10 * SEC, ANY },
	{ "aggr_interval", K_DURATION, M(aggr_us), 1 * MS, 60 * SEC, ANY },
	{ "update_interval", K_DURATION, M(update_us), 1 * MS, 3600 * SEC, ANY },
	{ "min_regions", K_UINT, M(min_regions), 3, 1000000, ANY },
	{ "max_regions", K_UINT, M(max_regions), 3, 1000000, ANY },
	{ "release_modules", K_BOOL, M(release_modules), 0, 0, ANY },
	{ NULL },
};

static const struct key policy_keys[] = {
	{ "cgroup", K_CGROUP, P(cgroup), 0, 0, ANY },
	{ "engine", K_ENGINE, P(engine), 0, 0, ANY },
	{ "min_age", K_DURATION, P(min_age_us), 0, 24 * 3600 * SEC, ANY },
	{ "max_access_rate", K_RATE, P(max_access_rate), 0, PPM_ONE, ANY },
	{ "memory", K_MEMORY, P(memory), 0, 0, ANY },
	{ "quota", K_QUOTA, P(quota_bytes), 0, 0, ANY },
	{ "quota_time", K_DURATION, P(quota_time_us), 0, 10 * SEC, PADDR_ONLY },
	{ "pressure_limit", K_RATE, P(pressure_limit), 1, PPM_ONE, ANY },
	{ "min_free", K_RATE, P(min_free), 0, PPM_ONE, ANY },
	{ "swap_reserve", K_RATE, P(swap_reserve), 0, PPM_ONE, ANY },
	{ "max_refault_rate", K_RATE, P(max_refault_rate), 0, PPM_ONE, ANY },
	{ "frozen_only", K_BOOL, P(frozen_only), 0, 0, ANY },
	{ "learn", K_BOOL, P(learn), 0, 0, VADDR_ONLY },
	{ "max_usage", K_RATE, P(max_usage), 0, PPM_ONE - 100, PADDR_ONLY },
	{ NULL },
};

#define MAX_KEYS 16

struct pstate {
	struct cfg *cfg;
	struct cfg_errors *errs;
	const char *file;
	FILE *f;
	unsigned line;
	bool is_dropin;
	enum section sec;
	unsigned sec_line;
	unsigned nr_policy_sections;
	struct cfg_policy *pol;
	unsigned seen[SEC_UNKNOWN][MAX_KEYS]; /* line where each key was set, 0 = not set */
	bool invalid[SEC_UNKNOWN][MAX_KEYS];  /* set, but to a value that was refused */
	int nerr;
};

static const char *const section_names[] = { "", "daemon", "damon", "policy", "" };

static const struct key *section_table(enum section s)
{
	switch (s) {
	case SEC_DAEMON:
		return daemon_keys;
	case SEC_DAMON:
		return damon_keys;
	case SEC_POLICY:
		return policy_keys;
	default:
		return NULL;
	}
}

const char *const *cfg_section_keys(const char *section)
{
	static const char *names[3][MAX_KEYS + 1];

	for (enum section s = SEC_DAEMON; s <= SEC_POLICY; s++) {
		const struct key *k = section_table(s);

		if (strcmp(section, section_names[s]))
			continue;
		for (unsigned i = 0; k[i].name; i++)
			names[s - 1][i] = k[i].name;
		return names[s - 1];
	}
	return NULL;
}

__attribute__((format(printf, 2, 3))) static void err_add(struct cfg_errors *errs, const char *fmt,
							  ...)
{
	char **n, *msg;
	va_list ap;
	int r;

	if (errs->nr >= 1000)
		return;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	n = realloc(errs->msgs, (errs->nr + 1) * sizeof(*n));
	if (!n) {
		free(msg);
		return;
	}
	errs->msgs = n;
	errs->msgs[errs->nr++] = msg;
}

#define perr(ps, line, key, ...)                                                                   \
	do {                                                                                       \
		char _m[512];                                                                      \
		snprintf(_m, sizeof(_m), __VA_ARGS__);                                             \
		err_add((ps)->errs, "%s:%u: %s: %s", (ps)->file, (line), (key), _m);               \
		(ps)->nerr++;                                                                      \
	} while (0)

void cfg_errors_fini(struct cfg_errors *errs)
{
	for (unsigned i = 0; i < errs->nr; i++)
		free(errs->msgs[i]);
	free(errs->msgs);
	errs->msgs = NULL;
	errs->nr = 0;
}

void cfg_defaults(struct cfg *cfg)
{
	struct cfg_daemon *d = &cfg->daemon;
	struct cfg_damon *m = &cfg->damon;

	memset(d, 0, sizeof(*d));
	d->interval_us = 5 * SEC;
	str_copy(d->socket, sizeof(d->socket), CFG_DEFAULT_SOCKET);
	str_copy(d->state_dir, sizeof(d->state_dir), CFG_RUN_DIR);
	str_copy(d->proc_root, sizeof(d->proc_root), "/proc");
	d->log_level = LOG_INFO;
	d->reference_semantics = REFSEM_AUTO;
	d->confirm_snapshots = 2;
	d->watch_config = true;
	memset(m, 0, sizeof(*m));
	str_copy(m->sysfs_root, sizeof(m->sysfs_root), "/sys/kernel/mm/damon/admin");
	m->sample_us = 5 * MS;
	m->aggr_us = 100 * MS;
	m->update_us = 1 * SEC;
	m->min_regions = 10;
	m->max_regions = 1000;
}

static void policy_defaults(struct cfg_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->engine = ENGINE_VADDR;
	p->min_age_us = 30 * SEC;
	p->max_access_rate = 0;
	p->memory = MEMORY_ANON | MEMORY_FILE;
	p->quota_bytes = 256ull << 20;
	p->quota_interval_us = 1 * SEC;
	p->quota_time_us = 0;	    /* none: the byte quota bounds the work */
	p->pressure_limit = 100000; /* 10% */
	p->min_free = 0;
	p->swap_reserve = 200000;   /* 20% */
	p->max_refault_rate = 2000; /* 0.2% */
	p->frozen_only = false;
	p->learn = true;
	p->max_usage = 0; /* no ceiling */
}

/* --- value parsers: return NULL or a description of what was expected --- */

static const char *parse_cgroup(const char *v, struct cfg_policy *p)
{
	if (v[0] != '/')
		return "must be an absolute path under the cgroup root, like /system.slice";
	if (strstr(v, "//"))
		return "empty path component";
	if (strlen(v) > 1 && v[strlen(v) - 1] == '/')
		return "trailing '/'";
	for (const char *c = v; *c; c++)
		if (*c == '\n' || *c == '\\')
			return "invalid character";
	if (strstr(v, "/../") || str_has_suffix(v, "/..") || strstr(v, "/./") ||
	    str_has_suffix(v, "/."))
		return "'.' and '..' components are not allowed";
	if (str_copy(p->cgroup, sizeof(p->cgroup), v) < 0)
		return "path too long";
	p->cgroup_is_glob = strpbrk(v, "*?[") != NULL;
	return NULL;
}

static const char *parse_memory(const char *v, unsigned *ret)
{
	char buf[64], *save, *tok;
	unsigned m = 0;

	if (str_copy(buf, sizeof(buf), v) < 0)
		return "expected anon, file or anon,file";
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = str_strip(tok);
		if (!strcmp(tok, "anon"))
			m |= MEMORY_ANON;
		else if (!strcmp(tok, "file"))
			m |= MEMORY_FILE;
		else
			return "expected anon, file or anon,file";
	}
	if (!m)
		return "expected anon, file or anon,file";
	*ret = m;
	return NULL;
}

/*
 * The value grammar (util.h, pageoutd.conf(5) VALUES): what a refused value is told, with the
 * accepted forms.
 */
#define DURATION_FORMS "a number and a unit us, ms, s, m or h: 500ms, 1.5s, 2m, 1h"
#define SIZE_FORMS                                                                                 \
	"a number and a unit B, K, M, G or T, powers of 1024 also written KiB, MiB, GiB, TiB: "    \
	"4096B, 64M, 1.5G"
#define RATE_FORMS "a number and %: 0%, 0.5%, 10%"
#define COUNT_FORMS "decimal digits: 10, 1000"

/*
 * number_error: msg for `what` (the value in quotes, or a part of it named), which a parse_* of
 * util.h refused with r. A value too large for its type (-ERANGE) is told the key's range when
 * it has one (range != NULL).
 */
static void number_error(char *msg, size_t len, const char *what, int r, const char *kind,
			 const char *forms, const char *unit, const char *range)
{
	if (r == -EDOM)
		snprintf(msg, len, "%s is not a whole number of %s", what, unit);
	else if (r == -ERANGE && range)
		snprintf(msg, len, "%s is out of range (%s)", what, range);
	else if (r == -ERANGE)
		snprintf(msg, len, "%s is too large", what);
	else
		snprintf(msg, len, "%s is not %s (%s)", what, kind, forms);
}

static int parse_quota(const char *v, struct cfg_policy *p, char *msg, size_t len)
{
	char buf[64], what[96], *slash, *size, *ival;
	uint64_t sz, dur;
	int r;

	if (!strcmp(v, "none")) {
		p->quota_bytes = 0;
		p->quota_interval_us = 0;
		return 0;
	}
	if (str_copy(buf, sizeof(buf), v) < 0 || !(slash = strchr(buf, '/'))) {
		snprintf(msg, len, "'%s' is not SIZE/DURATION (like 256M/1s) or none", v);
		return -EINVAL;
	}
	*slash = '\0';
	size = str_strip(buf);
	ival = str_strip(slash + 1);
	r = parse_size(size, &sz);
	snprintf(what, sizeof(what), "'%s'", size);
	if (r < 0) {
		number_error(msg, len, what, r, "a size", SIZE_FORMS, "bytes", NULL);
		return -EINVAL;
	}
	if (sz < 4096) {
		snprintf(msg, len, "the size '%s' is below the smallest quota, 4K", size);
		return -EINVAL;
	}
	r = parse_duration(ival, &dur);
	snprintf(what, sizeof(what), r == 0 ? "the interval '%s'" : "'%s'", ival);
	if (r == 0 && (dur < 10 * MS || dur > 3600 * SEC))
		r = -ERANGE;
	if (r < 0) {
		number_error(msg, len, what, r, "a duration", DURATION_FORMS, "microseconds",
			     "10ms to 1h");
		return -EINVAL;
	}
	p->quota_bytes = sz;
	p->quota_interval_us = dur;
	return 0;
}

static const char *range_text(const struct key *k, char *buf, size_t len)
{
	char a[32], b[32];

	if (k->type == K_DURATION)
		snprintf(buf, len, "%s to %s", fmt_duration(a, sizeof(a), k->min),
			 fmt_duration(b, sizeof(b), k->max));
	else if (k->type == K_RATE)
		snprintf(buf, len, "%s to %s", fmt_rate(a, sizeof(a), (uint32_t)k->min),
			 fmt_rate(b, sizeof(b), (uint32_t)k->max));
	else
		snprintf(buf, len, "%llu to %llu", (unsigned long long)k->min,
			 (unsigned long long)k->max);
	return buf;
}

/* K_DURATION, K_RATE, K_UINT: the grammar of util.h, then the key's range */
static int parse_number(const struct key *k, const char *v, void *dst, char *msg, size_t len)
{
	char range[96], what[72];
	uint32_t rate = 0;
	uint64_t u = 0;
	int r;

	if (k->type == K_DURATION) {
		r = parse_duration(v, &u);
	} else if (k->type == K_RATE) {
		r = parse_rate(v, &rate);
		u = rate;
	} else {
		r = parse_count(v, &u);
	}
	if (r == 0 && (u < k->min || u > k->max))
		r = -ERANGE;
	if (r < 0) {
		range_text(k, range, sizeof(range));
		snprintf(what, sizeof(what), "'%.64s%s'", v, strlen(v) > 64 ? "..." : "");
		if (k->type == K_DURATION)
			number_error(msg, len, what, r, "a duration", DURATION_FORMS,
				     "microseconds", range);
		else if (k->type == K_RATE)
			number_error(msg, len, what, r, "a rate", RATE_FORMS,
				     "parts per million (0.0001%)", range);
		else
			number_error(msg, len, what, r, "a whole number", COUNT_FORMS, "", range);
		return -EINVAL;
	}
	if (k->type == K_RATE)
		*(uint32_t *)dst = (uint32_t)u;
	else
		*(uint64_t *)dst = u;
	return 0;
}

/* the words and paths: NULL, or what was expected */
static const char *parse_word(const struct key *k, const char *v, void *base)
{
	void *dst = (char *)base + k->off;
	bool b;
	int r;

	switch (k->type) {
	case K_PATH:
		if (v[0] != '/')
			return "expected an absolute path";
		if (k->max && strlen(v) > k->max)
			return "path too long";
		if (!path_is_beneath(v + 1))
			return "'..' components are not allowed";
		str_copy(dst, k->size, v);
		return NULL;
	case K_NAME:
		if (strlen(v) >= k->size || strpbrk(v, " \t/:"))
			return "expected a group name";
		str_copy(dst, k->size, v);
		return NULL;
	case K_BOOL:
		if (parse_bool(v, &b) < 0)
			return "expected yes or no";
		*(bool *)dst = b;
		return NULL;
	case K_LOGLEVEL:
		r = log_level_parse(v);
		if (r < 0)
			return "expected err, warning, notice, info or debug";
		*(int *)dst = r;
		return NULL;
	case K_REFSEM:
		if (!strcmp(v, "auto"))
			*(enum cfg_refsem *)dst = REFSEM_AUTO;
		else if (!strcmp(v, "ignore"))
			*(enum cfg_refsem *)dst = REFSEM_IGNORE;
		else if (!strcmp(v, "recheck"))
			*(enum cfg_refsem *)dst = REFSEM_RECHECK;
		else
			return "expected auto, ignore or recheck";
		return NULL;
	case K_ENGINE:
		if (!strcmp(v, "vaddr"))
			*(enum cfg_engine *)dst = ENGINE_VADDR;
		else if (!strcmp(v, "paddr"))
			*(enum cfg_engine *)dst = ENGINE_PADDR;
		else if (!strcmp(v, "both"))
			*(enum cfg_engine *)dst = ENGINE_BOTH;
		else
			return "expected vaddr, paddr or both";
		return NULL;
	case K_MEMORY:
		return parse_memory(v, dst);
	case K_CGROUP:
		return parse_cgroup(v, base);
	default:
		return "internal: unknown key type";
	}
}

/* parse_value: v into base; 0, or -EINVAL with the reason in msg */
static int parse_value(const struct key *k, const char *v, void *base, char *msg, size_t len)
{
	const char *why;

	if (!*v) {
		snprintf(msg, len, "empty value");
		return -EINVAL;
	}
	switch (k->type) {
	case K_DURATION:
		/* quota_time = none: no time quota, as 0s */
		if (!strcmp(k->name, "quota_time") && !strcmp(v, "none")) {
			*(uint64_t *)((char *)base + k->off) = 0;
			return 0;
		}
		return parse_number(k, v, (char *)base + k->off, msg, len);
	case K_RATE:
		/* max_usage = none: no ceiling, as 0% */
		if (!strcmp(k->name, "max_usage") && !strcmp(v, "none")) {
			*(uint32_t *)((char *)base + k->off) = 0;
			return 0;
		}
		return parse_number(k, v, (char *)base + k->off, msg, len);
	case K_UINT:
		return parse_number(k, v, (char *)base + k->off, msg, len);
	case K_QUOTA:
		return parse_quota(v, base, msg, len);
	default:
		why = parse_word(k, v, base);
		if (why)
			snprintf(msg, len, "invalid value '%s': %s", v, why);
		return why ? -EINVAL : 0;
	}
}

/* --- the reader: line counting and normalisation --- */

/* U+FEFF in UTF-8: skipped at the start of a file, as editors may write it, an error elsewhere */
#define UTF8_BOM "\xef\xbb\xbf"

static void cut_inline_comment(char *s)
{
	for (char *p = s; *p; p++) {
		if ((*p == '#' || *p == ';') && p > s && (p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
	}
}

static enum section section_lookup(const char *name)
{
	for (enum section s = SEC_DAEMON; s <= SEC_POLICY; s++)
		if (!strcmp(name, section_names[s]))
			return s;
	return SEC_UNKNOWN;
}

static void enter_section(struct pstate *ps, const char *name)
{
	enum section s = section_lookup(name);

	ps->sec = s;
	ps->sec_line = ps->line;
	if (s == SEC_UNKNOWN) {
		perr(ps, ps->line, name[0] ? name : "[]", "unknown section [%s]", name);
		return;
	}
	if (ps->is_dropin && s != SEC_POLICY) {
		perr(ps, ps->line, name, "[%s] belongs in the main file, a drop-in holds [policy]",
		     name);
		ps->sec = SEC_UNKNOWN;
		return;
	}
	if (!ps->is_dropin && s == SEC_POLICY) {
		perr(ps, ps->line, name,
		     "[policy] belongs in a drop-in file of the conf.d directory");
		ps->sec = SEC_UNKNOWN;
		return;
	}
	if (s == SEC_POLICY && ps->nr_policy_sections++) {
		perr(ps, ps->line, name, "only one [policy] per drop-in (first on line %u)",
		     ps->pol->line);
		ps->sec = SEC_UNKNOWN;
		return;
	}
	if (s == SEC_POLICY)
		ps->pol->line = ps->line;
}

/* Normalise one line in place; returns the text to hand to inih (may be empty). */
static char *normalise_line(struct pstate *ps, char *line)
{
	char *s = str_strip(line), *end, *eq;

	if (!*s || *s == '#' || *s == ';')
		return s + strlen(s);
	cut_inline_comment(s);
	s = str_strip(s);
	if (*s == '[') {
		end = strchr(s, ']');
		if (!end || *str_strip(end + 1)) {
			perr(ps, ps->line, s, "malformed section header");
			ps->sec = SEC_UNKNOWN;
			return s + strlen(s);
		}
		*end = '\0';
		enter_section(ps, str_strip(s + 1));
		*end = ']';
		return s;
	}
	eq = strchr(s, '=');
	end = strchr(s, ':');
	if (!eq || (end && end < eq) || eq == s) {
		perr(ps, ps->line, s, "expected 'key = value'");
		return s + strlen(s);
	}
	return s;
}

static char *ini_line_reader(char *str, int num, void *stream)
{
	struct pstate *ps = stream;
	char buf[CFG_LINE_MAX + 2];
	char *out;
	size_t n;

	if (!fgets(buf, sizeof(buf), ps->f))
		return NULL;
	ps->line++;
	/* inih's own INI_ALLOW_BOM never sees the file's first bytes: this reader does */
	if (ps->line == 1 && !strncmp(buf, UTF8_BOM, 3))
		memmove(buf, buf + 3, strlen(buf + 3) + 1);
	n = strlen(buf);
	if (n && buf[n - 1] != '\n' && !feof(ps->f)) {
		int c;

		perr(ps, ps->line, "line", "longer than %d characters", CFG_LINE_MAX);
		while ((c = fgetc(ps->f)) != EOF && c != '\n')
			;
		buf[0] = '\0';
	} else if (memchr(buf, '\0', n) != NULL && strlen(buf) != n) {
		buf[0] = '\0';
	} else if (strstr(buf, UTF8_BOM)) {
		perr(ps, ps->line, "line",
		     "a UTF-8 byte order mark belongs only at the start of a file");
		buf[0] = '\0';
	}
	out = normalise_line(ps, buf);
	if ((int)strlen(out) + 2 > num)
		out[num - 2] = '\0';
	snprintf(str, (size_t)num, "%s\n", out);
	return str;
}

static int ini_key_handler(void *user, const char *section, const char *name, const char *value)
{
	struct pstate *ps = user;
	const struct key *tab = section_table(ps->sec);
	_cleanup_free_ char *v = NULL;
	char why[384];
	void *base;
	unsigned i;

	(void)section;
	if (ps->sec == SEC_UNKNOWN)
		return 1; /* reported at the header */
	if (ps->sec == SEC_NONE) {
		perr(ps, ps->line, name, "key outside of a section");
		return 1;
	}
	for (i = 0; tab[i].name && strcmp(tab[i].name, name); i++)
		;
	if (!tab[i].name) {
		perr(ps, ps->line, name, "unknown key in [%s]", section_names[ps->sec]);
		return 1;
	}
	if (ps->seen[ps->sec][i]) {
		perr(ps, ps->line, name, "duplicate key (first set on line %u)",
		     ps->seen[ps->sec][i]);
		return 1;
	}
	ps->seen[ps->sec][i] = ps->line;
	v = strdup(value);
	if (!v)
		return 0;
	base = ps->sec == SEC_DAEMON  ? (void *)&ps->cfg->daemon
	       : ps->sec == SEC_DAMON ? (void *)&ps->cfg->damon
				      : (void *)ps->pol;
	if (parse_value(&tab[i], str_strip(v), base, why, sizeof(why)) < 0) {
		perr(ps, ps->line, name, "%s", why);
		ps->invalid[ps->sec][i] = true;
	}
	if (ps->sec == SEC_POLICY && !strcmp(name, "cgroup"))
		ps->pol->cgroup_line = ps->line;
	return 1;
}

static unsigned key_index(enum section s, const char *name)
{
	const struct key *tab = section_table(s);
	unsigned i;

	for (i = 0; tab[i].name && strcmp(tab[i].name, name); i++)
		;
	assert(tab[i].name);
	return i;
}

/* the line where key `name` of section s was set, 0 if it was not */
static unsigned key_line(const struct pstate *ps, enum section s, const char *name)
{
	return ps->seen[s][key_index(s, name)];
}

static void check_damon(struct pstate *ps)
{
	struct cfg_damon *m = &ps->cfg->damon;
	unsigned l;

	m->sample_set = key_line(ps, SEC_DAMON, "sample_interval") != 0;
	m->aggr_set = key_line(ps, SEC_DAMON, "aggr_interval") != 0;
	if (m->aggr_us < m->sample_us) {
		l = key_line(ps, SEC_DAMON, "aggr_interval")
			    ?: key_line(ps, SEC_DAMON, "sample_interval");
		perr(ps, l ?: 1, "aggr_interval", "must not be shorter than sample_interval");
	}
	if (m->update_us < m->aggr_us) {
		l = key_line(ps, SEC_DAMON, "update_interval")
			    ?: key_line(ps, SEC_DAMON, "aggr_interval");
		perr(ps, l ?: 1, "update_interval", "must not be shorter than aggr_interval");
	}
	if (m->max_regions < m->min_regions) {
		l = key_line(ps, SEC_DAMON, "max_regions")
			    ?: key_line(ps, SEC_DAMON, "min_regions");
		perr(ps, l ?: 1, "max_regions", "must not be less than min_regions");
	}
}

/*
 * A key of one engine in a policy of the other is an error at the key's line. Checked once the
 * whole section is read, since engine may come after the key; an engine value that was refused
 * has been reported already and decides nothing here.
 */
static void check_engine_keys(struct pstate *ps)
{
	const struct cfg_policy *p = ps->pol;
	unsigned el = key_line(ps, SEC_POLICY, "engine");
	char where[32] = "the default";

	if (el && ps->invalid[SEC_POLICY][key_index(SEC_POLICY, "engine")])
		return;
	if (el)
		snprintf(where, sizeof(where), "line %u", el);
	for (unsigned i = 0; policy_keys[i].name; i++) {
		const struct key *k = &policy_keys[i];
		unsigned l = ps->seen[SEC_POLICY][i];

		if (!l || !k->engines || k->engines & (1u << p->engine) || p->engine == ENGINE_BOTH)
			continue;
		perr(ps, l, k->name,
		     "applies to engine = %s policies only (this policy: engine = %s, %s)",
		     cfg_engine_name(k->engines & PADDR_ONLY ? ENGINE_PADDR : ENGINE_VADDR),
		     cfg_engine_name(p->engine), where);
	}
}

/*
 * split_both: the engine = both policy at ps->pol becomes its two parts, ps->pol[0] and
 * ps->pol[1] (the loader keeps room for two per file): the vaddr part takes the private
 * anonymous memory of the cgroups' processes, sure before it asks; the paddr part the rest,
 * which MADV_PAGEOUT cannot reach (memory another process maps, unmapped page cache), through
 * the kernel's scheme and its page-level re-check. Each part has the policy's quota; the paddr
 * part's max_access_rate defaults to paddr's.
 */
static void split_both(struct pstate *ps)
{
	struct cfg_policy *p = ps->pol;
	unsigned l = key_line(ps, SEC_POLICY, "memory");

	if (p->memory != (MEMORY_ANON | MEMORY_FILE)) {
		perr(ps, l ? l : key_line(ps, SEC_POLICY, "engine"), l ? "memory" : "engine",
		     "engine = both takes anon through vaddr and file through paddr: it needs "
		     "memory = anon,file (use engine = %s for %s alone)",
		     p->memory == MEMORY_ANON ? "vaddr" : "paddr",
		     p->memory == MEMORY_ANON ? "anon" : "file");
		return;
	}
	p[1] = p[0];
	p[0].engine = ENGINE_VADDR;
	p[0].memory = MEMORY_ANON;
	p[1].engine = ENGINE_PADDR;
	p[1].memory = MEMORY_FILE;
	if (!key_line(ps, SEC_POLICY, "max_access_rate"))
		p[1].max_access_rate = CFG_PADDR_MAX_ACCESS_RATE;
	p[0].both = p[1].both = true;
}

static void check_policy(struct pstate *ps)
{
	struct cfg_policy *p = ps->pol;
	unsigned l;

	if (!ps->nr_policy_sections) {
		perr(ps, 1, "[policy]", "missing: a drop-in file holds one [policy] section");
		return;
	}
	check_engine_keys(ps);
	if (!p->cgroup[0] && !key_line(ps, SEC_POLICY, "cgroup")) {
		perr(ps, p->line, "cgroup", "missing, required in [policy]");
		return;
	}
	/*
	 * paddr: a physical region mixes pages of many cgroups and of the kernel, so cold memory
	 * seldom sits in a region no sample ever finds accessed; the kernel re-checks each page
	 * before reclaiming it, so a region sampled as half used (CFG_PADDR_MAX_ACCESS_RATE) is
	 * safe to try
	 */
	if (p->engine == ENGINE_PADDR && !key_line(ps, SEC_POLICY, "max_access_rate"))
		p->max_access_rate = CFG_PADDR_MAX_ACCESS_RATE;
	l = key_line(ps, SEC_POLICY, "min_age");
	if (l && p->min_age_us && p->min_age_us < ps->cfg->damon.aggr_us)
		perr(ps, l, "min_age", "shorter than [damon] aggr_interval");
	if (p->engine == ENGINE_BOTH)
		split_both(ps);
}

static bool valid_policy_name(const char *n)
{
	if (!*n || *n == '.')
		return false;
	for (; *n; n++)
		if (!(*n == '-' || *n == '_' || *n == '.' || (*n >= '0' && *n <= '9') ||
		      (*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z')))
			return false;
	return true;
}

static int parse_file(struct cfg *cfg, struct cfg_errors *errs, const char *file, bool dropin,
		      struct cfg_policy *pol)
{
	struct pstate ps = {
		.cfg = cfg, .errs = errs, .file = file, .is_dropin = dropin, .pol = pol
	};
	struct stat st;
	int r;

	ps.f = fopen(file, "re");
	if (!ps.f) {
		err_add(errs, "%s:0: file: cannot open: %s", file, strerror(errno));
		return -EINVAL;
	}
	if (fstat(fileno(ps.f), &st) < 0 || !S_ISREG(st.st_mode)) {
		err_add(errs, "%s:0: file: not a regular file", file);
		fclose(ps.f);
		return -EINVAL;
	}
	r = ini_parse_stream(ini_line_reader, &ps, ini_key_handler, &ps);
	if (ferror(ps.f)) {
		err_add(errs, "%s:%u: file: read error: %s", file, ps.line, strerror(errno));
		ps.nerr++;
	}
	fclose(ps.f);
	if (r > 0 && !ps.nerr)
		perr(&ps, (unsigned)r, "line", "syntax error");
	if (r == -2)
		return -ENOMEM;
	if (dropin)
		check_policy(&ps);
	else
		check_damon(&ps);
	return ps.nerr ? -EINVAL : 0;
}

/* --- overlap between policies --- */

/* true if cgroup path a equals b or is an ancestor of b (component-wise) */
static bool is_ancestor_or_self(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (!strcmp(a, "/"))
		return true;
	return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/');
}

/* true if glob g matches literal l or one of l's ancestors */
static bool glob_covers(const char *g, const char *l)
{
	char buf[PATH_MAX];
	char *p;

	str_copy(buf, sizeof(buf), l);
	for (;;) {
		if (!fnmatch(g, buf, FNM_PATHNAME))
			return true;
		p = strrchr(buf, '/');
		if (!p || p == buf)
			return false;
		*p = '\0';
	}
}

static bool policies_overlap(const struct cfg_policy *a, const struct cfg_policy *b)
{
	if (!a->cgroup_is_glob && !b->cgroup_is_glob)
		return is_ancestor_or_self(a->cgroup, b->cgroup) ||
		       is_ancestor_or_self(b->cgroup, a->cgroup);
	if (a->cgroup_is_glob && !b->cgroup_is_glob)
		return glob_covers(a->cgroup, b->cgroup);
	if (!a->cgroup_is_glob && b->cgroup_is_glob)
		return glob_covers(b->cgroup, a->cgroup);
	/* two globs: decided per cgroup at run time, the first policy in lexical order wins */
	return !strcmp(a->cgroup, b->cgroup);
}

static int check_overlaps(struct cfg *cfg, struct cfg_errors *errs)
{
	int n = 0;

	for (unsigned j = 1; j < cfg->nr_policies; j++) {
		const struct cfg_policy *b = &cfg->policies[j];

		for (unsigned i = 0; i < j; i++) {
			const struct cfg_policy *a = &cfg->policies[i];

			/* the two parts of one engine = both policy share its cgroups */
			if ((a->both && !strcmp(a->name, b->name)) || !policies_overlap(a, b))
				continue;
			err_add(errs,
				"%s:%u: cgroup: '%s' overlaps policy '%s' (%s:%u, cgroup '%s'); a "
				"cgroup "
				"and its descendants belong to one policy",
				b->file, b->cgroup_line, b->cgroup, a->name, a->file,
				a->cgroup_line, a->cgroup);
			n++;
			break;
		}
	}
	return n ? -EINVAL : 0;
}

/* --- loading --- */

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int select_conf(const struct dirent *d)
{
	return d->d_name[0] != '.' && str_has_suffix(d->d_name, ".conf");
}

static int load_dropin(struct cfg *cfg, struct cfg_errors *errs, const char *dir, const char *fn)
{
	struct cfg_policy *pol = &cfg->policies[cfg->nr_policies];
	char path[PATH_MAX];
	size_t n = strlen(fn) - strlen(".conf");
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, fn) >= sizeof(path)) {
		err_add(errs, "%s/%s:0: file: path too long", dir, fn);
		return -EINVAL;
	}
	policy_defaults(pol);
	str_copy(pol->file, sizeof(pol->file), path);
	if (n >= sizeof(pol->name) || (memcpy(pol->name, fn, n), pol->name[n] = '\0', 0) ||
	    !valid_policy_name(pol->name)) {
		err_add(errs,
			"%s:0: file: policy name '%.*s' (from the file name) must be 1-63 "
			"characters of A-Z a-z 0-9 . _ -",
			path, (int)n, fn);
		return -EINVAL;
	}
	r = parse_file(cfg, errs, path, true, pol);
	if (r == 0)
		cfg->nr_policies += pol->both ? 2 : 1;
	return r;
}

static int load_dir(struct cfg *cfg, struct cfg_errors *errs, const char *dir, bool required)
{
	struct dirent **names = NULL;
	int n, r = 0;

	n = scandir(dir, &names, select_conf, cmp_names);
	if (n < 0) {
		if (errno == ENOENT && !required)
			return 0;
		err_add(errs, "%s:0: directory: cannot read: %s", dir, strerror(errno));
		return -EINVAL;
	}
	if (n > CFG_MAX_POLICIES) {
		err_add(errs, "%s:0: directory: %d policies, at most %d are supported", dir, n,
			CFG_MAX_POLICIES);
		r = -EINVAL;
	}
	/* two per file: an engine = both policy is two (split_both) */
	cfg->policies = calloc((size_t)(n ? n : 1) * 2, sizeof(*cfg->policies));
	if (!cfg->policies)
		r = -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (r != -ENOMEM && i < CFG_MAX_POLICIES) {
			int k = load_dropin(cfg, errs, dir, names[i]->d_name);

			if (k < 0 && r == 0)
				r = k;
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int cfg_load(const char *file, const char *dir, bool dir_required, struct cfg **ret,
	     struct cfg_errors *errs)
{
	struct cfg *cfg = calloc(1, sizeof(*cfg));
	int r, k;

	if (!cfg)
		return -ENOMEM;
	cfg_defaults(cfg);
	str_copy(cfg->file, sizeof(cfg->file), file);
	if (dir)
		str_copy(cfg->dir, sizeof(cfg->dir), dir);
	r = parse_file(cfg, errs, file, false, NULL);
	if (dir) {
		k = load_dir(cfg, errs, dir, dir_required);
		if (k < 0 && r >= 0)
			r = k;
	}
	if (r >= 0)
		r = check_overlaps(cfg, errs);
	if (r < 0) {
		cfg_free(cfg);
		return r;
	}
	sampling_derive(cfg);
	*ret = cfg;
	return 0;
}

struct cfg *cfg_free(struct cfg *cfg)
{
	if (cfg) {
		free(cfg->policies);
		free(cfg);
	}
	return NULL;
}

const struct cfg_policy *cfg_find_policy(const struct cfg *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->nr_policies; i++)
		if (!strcmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	return NULL;
}

const char *cfg_engine_name(enum cfg_engine e)
{
	return e == ENGINE_PADDR ? "paddr" : e == ENGINE_BOTH ? "both" : "vaddr";
}

const char *cfg_refsem_name(enum cfg_refsem r)
{
	return r == REFSEM_IGNORE ? "ignore" : r == REFSEM_RECHECK ? "recheck" : "auto";
}

/* size_text: bytes in the largest unit of parse_size that divides them (4000B, 64M, 2048T) */
static const char *size_text(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "K", "M", "G", "T" };
	unsigned i = 0;

	while (bytes && !(bytes & 1023) && i + 1 < ARRAY_SIZE(units)) {
		bytes >>= 10;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)bytes, units[i]);
	return buf;
}

/* true if [policy] key `name` applies to policies of engine e */
static bool key_applies(const char *name, enum cfg_engine e)
{
	unsigned engines = policy_keys[key_index(SEC_POLICY, name)].engines;

	return !engines || engines & (1u << e);
}

const char *cfg_policy_describe(const struct cfg_policy *p, char *buf, size_t len)
{
	char age[32], rate[32], qs[32], qi[32], qt[32], pl[32], mf[32], sr[32], rr[32];
	char quota[72] = "none", qtime[48] = "", frozen[24] = "", mu[32], usage[48] = "";
	char learn[16] = "";

	if (p->quota_interval_us)
		snprintf(quota, sizeof(quota), "%s/%s", size_text(qs, sizeof(qs), p->quota_bytes),
			 fmt_duration(qi, sizeof(qi), p->quota_interval_us));
	if (key_applies("quota_time", p->engine))
		snprintf(qtime, sizeof(qtime), " quota_time=%s",
			 p->quota_time_us ? fmt_duration(qt, sizeof(qt), p->quota_time_us)
					  : "none");
	if (key_applies("frozen_only", p->engine))
		snprintf(frozen, sizeof(frozen), " frozen_only=%s", p->frozen_only ? "yes" : "no");
	if (key_applies("learn", p->engine))
		snprintf(learn, sizeof(learn), " learn=%s", p->learn ? "yes" : "no");
	if (key_applies("max_usage", p->engine))
		snprintf(usage, sizeof(usage), " max_usage=%s",
			 p->max_usage ? fmt_rate(mu, sizeof(mu), p->max_usage) : "none");
	snprintf(buf, len,
		 "cgroup=%s engine=%s%s min_age=%s max_access_rate=%s memory=%s%s%s quota=%s%s "
		 "pressure_limit=%s min_free=%s swap_reserve=%s max_refault_rate=%s%s%s%s",
		 p->cgroup, cfg_engine_name(p->engine), p->both ? " (part of both)" : "",
		 fmt_duration(age, sizeof(age), p->min_age_us),
		 fmt_rate(rate, sizeof(rate), p->max_access_rate),
		 p->memory & MEMORY_ANON ? "anon" : "",
		 p->memory == (MEMORY_ANON | MEMORY_FILE) ? "," : "",
		 p->memory & MEMORY_FILE ? "file" : "", quota, qtime,
		 fmt_rate(pl, sizeof(pl), p->pressure_limit), fmt_rate(mf, sizeof(mf), p->min_free),
		 fmt_rate(sr, sizeof(sr), p->swap_reserve),
		 fmt_rate(rr, sizeof(rr), p->max_refault_rate), frozen, learn, usage);
	return buf;
}

void cfg_print(const struct cfg *cfg, FILE *f)
{
	const struct cfg_daemon *d = &cfg->daemon;
	const struct cfg_damon *m = &cfg->damon;
	char a[32], b[32], c[32], e[32], line[2048];

	fprintf(f,
		"daemon: interval=%s socket=%s socket_group=%s state_dir=%s proc_root=%s "
		"log_level=%s dry_run=%s reference_semantics=%s confirm_snapshots=%llu "
		"watch_config=%s\n",
		fmt_duration(a, sizeof(a), d->interval_us), d->socket,
		d->socket_group[0] ? d->socket_group : "-", d->state_dir, d->proc_root,
		log_level_name(d->log_level), d->dry_run ? "yes" : "no",
		cfg_refsem_name(d->reference_semantics), (unsigned long long)d->confirm_snapshots,
		d->watch_config ? "yes" : "no");
	fprintf(f,
		"damon: sysfs_root=%s sample_interval=%s aggr_interval=%s update_interval=%s "
		"min_regions=%llu max_regions=%llu release_modules=%s\n",
		m->sysfs_root, m->sample_set ? fmt_duration(b, sizeof(b), m->sample_us) : "derived",
		m->aggr_set ? fmt_duration(c, sizeof(c), m->aggr_us) : "derived",
		fmt_duration(e, sizeof(e), m->update_us), (unsigned long long)m->min_regions,
		(unsigned long long)m->max_regions, m->release_modules ? "yes" : "no");
	for (int g = ENGINE_VADDR; g <= ENGINE_PADDR; g++)
		if (cfg->sampling[g].min_age_us || cfg->sampling[g].configured)
			fprintf(f, "damon %s: %s\n", cfg_engine_name((enum cfg_engine)g),
				sampling_describe(&cfg->sampling[g], line, sizeof(line)));
	for (unsigned i = 0; i < cfg->nr_policies; i++)
		fprintf(f, "policy %s: %s\n", cfg->policies[i].name,
			cfg_policy_describe(&cfg->policies[i], line, sizeof(line)));
	if (!cfg->nr_policies)
		fprintf(f, "no policies: nothing will be reclaimed\n");
}
