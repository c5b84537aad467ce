// SPDX-License-Identifier: GPL-2.0-or-later
/* Which names of the watched directories count as a change of the configuration. */
#include <config.h>

#include <string.h>

#include "pageoutd/cfgwatch.h"
#include "../lib/tap.h"

static void nop(void *data)
{
	(void)data;
}

static void etc_layout(struct loop *l)
{
	struct cfgwatch w;

	ok(cfgwatch_start(&w, l, "/nonexistent/pageoutd/pageoutd.conf",
			  "/nonexistent/pageoutd/conf.d/", nop, NULL) == 0,
	   "start: missing directories are not an error");
	ok(cfgwatch_active(&w) && w.wd_file_dir < 0 && w.wd_dir < 0,
	   "start: active, nothing watched yet");
	ok(!strcmp(w.file_dir, "/nonexistent/pageoutd") && !strcmp(w.file_name, "pageoutd.conf") &&
		   !strcmp(w.dir_name, "conf.d"),
	   "paths: the main file's directory and name; conf.d lies in that directory");
	ok(cfgwatch_relevant(&w, true, "pageoutd.conf"), "main dir: the main file");
	ok(cfgwatch_relevant(&w, true, "conf.d"), "main dir: the drop-in directory");
	ok(cfgwatch_relevant(&w, true, "..data") && cfgwatch_relevant(&w, true, "..2026_12_06"),
	   "main dir: a ConfigMap's ..data and ..<timestamp>");
	ok(!cfgwatch_relevant(&w, true, "other.conf") && !cfgwatch_relevant(&w, true, "passwd"),
	   "main dir: other files are not looked at");
	ok(cfgwatch_relevant(&w, false, "batch.conf") && cfgwatch_relevant(&w, false, "..data"),
	   "drop-in dir: *.conf and ..names");
	ok(!cfgwatch_relevant(&w, false, ".batch.conf.swp") &&
		   !cfgwatch_relevant(&w, false, ".hidden.conf") &&
		   !cfgwatch_relevant(&w, false, "README") &&
		   !cfgwatch_relevant(&w, false, "batch.conf~"),
	   "drop-in dir: hidden files, editors' copies and other names are not");
	cfgwatch_stop(&w);
	ok(!cfgwatch_active(&w), "stop");
	cfgwatch_stop(&w);
	ok(!cfgwatch_active(&w), "stop twice is harmless");
}

static void apart(struct loop *l)
{
	struct cfgwatch w;

	cfgwatch_start(&w, l, "pageoutd.conf", "/srv/policies", nop, NULL);
	ok(!strcmp(w.file_dir, ".") && !w.dir_name[0],
	   "a bare file name is in '.', a drop-in directory elsewhere has no name there");
	ok(!cfgwatch_relevant(&w, true, "policies"), "so its name beside the main file is not one");
	cfgwatch_stop(&w);
	cfgwatch_start(&w, l, "/pageoutd.conf", NULL, nop, NULL);
	ok(!strcmp(w.file_dir, "/") && !strcmp(w.file_name, "pageoutd.conf") && !w.dir[0],
	   "a file in / and no drop-in directory");
	cfgwatch_stop(&w);
}

static int on_signal(struct loop *l, int signo, void *data)
{
	(void)l;
	(void)signo;
	(void)data;
	return 0;
}

int main(void)
{
	struct loop *l = NULL;

	ok(loop_new(&l, on_signal, NULL) == 0, "a loop");
	etc_layout(l);
	apart(l);
	loop_free(l);
	return tap_exit();
}
