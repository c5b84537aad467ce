/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damonctx: the vaddr context the tests write: one stat scheme per target with a target
 * filter (pageoutd's attribution layout), 5 ms / 100 ms / 1 s intervals, 10..1000 regions. */
#ifndef PAGEOUTD_TEST_DAMONCTX_H
#define PAGEOUTD_TEST_DAMONCTX_H

#include <string.h>

#include "pageoutd/damon.h"
#include "pageoutd/util.h"

static inline void test_vaddr_ctx(struct damon_ctx *c, struct damon_target *t,
				  struct damon_scheme *s, const pid_t *pids, unsigned n)
{
	memset(c, 0, sizeof(*c));
	str_copy(c->ops, sizeof(c->ops), "vaddr");
	c->sample_us = 5000;
	c->aggr_us = 100000;
	c->update_us = 1000000;
	c->min_regions = 10;
	c->max_regions = 1000;
	for (unsigned i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		memset(&s[i], 0, sizeof(s[i]));
		t[i].pid = pids[i];
		str_copy(s[i].action, sizeof(s[i].action), "stat");
		damon_pattern_all(&s[i].pattern);
		s[i].nr_filters = 1;
		s[i].filters[0].type = DAMON_FILTER_TARGET;
		s[i].filters[0].target_idx = i;
		s[i].filters[0].matching = false;
		s[i].filters[0].allow = false;
	}
	c->nr_targets = c->nr_schemes = n;
	c->targets = t;
	c->schemes = s;
}

#endif
