// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the config parser (inih + pageoutd's keys and checks). The input is a main
 * file and, after a line "%%", one drop-in policy file; both are written to a private directory
 * and loaded with cfg_load() as the daemon does. Every outcome is fine but a crash, a leak or
 * an error message without "file:line".
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pageoutd/config.h"
#include "pageoutd/log.h"

static char top[64] = "/tmp/pageoutd-fuzz-config-XXXXXX", main_file[128], dropin_dir[128],
	    dropin[160];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_setup(LOG_TARGET_STDERR, LOG_EMERG);
	if (!mkdtemp(top))
		abort();
	snprintf(main_file, sizeof(main_file), "%s/pageoutd.conf", top);
	snprintf(dropin_dir, sizeof(dropin_dir), "%s/conf.d", top);
	snprintf(dropin, sizeof(dropin), "%s/fuzz.conf", dropin_dir);
	if (mkdir(dropin_dir, 0700) < 0)
		abort();
	return 0;
}

static void put(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = size >= 4 ? memmem(data, size, "\n%%\n", 4) : NULL;
	size_t main_len = sep ? (size_t)(sep - data) + 1 : size;
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	int r;

	put(main_file, data, main_len);
	put(dropin, sep ? sep + 4 : data, sep ? size - main_len - 3 : 0);
	r = cfg_load(main_file, dropin_dir, false, &cfg, &errs);
	if (r == 0) {
		char buf[1024];
		FILE *null = fopen("/dev/null", "w");

		for (unsigned i = 0; i < cfg->nr_policies; i++)
			cfg_policy_describe(&cfg->policies[i], buf, sizeof(buf));
		if (null) {
			cfg_print(cfg, null);
			fclose(null);
		}
	} else if (r == -EINVAL) {
		/* every error names its file (and line, when it has one) */
		for (unsigned i = 0; i < errs.nr; i++)
			if (strncmp(errs.msgs[i], top, strlen(top)))
				abort();
	}
	cfg_free(cfg);
	cfg_errors_fini(&errs);
	return 0;
}
