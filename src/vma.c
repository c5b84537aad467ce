// SPDX-License-Identifier: GPL-2.0-or-later
/* vma: smaps/maps parsing, VMA classes, seed regions and clipping to VMAs (vma.h). */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/vma.h"
#include "pageoutd/vrange.h"

void vma_list_fini(struct vma_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

unsigned vma_seed_regions(const struct vma_list *vmas, struct damon_range *ret, unsigned max)
{
	unsigned n = 0;

	/* insertion by size into ret[0..n), the largest first; then back to address order */
	for (size_t i = 0; i < vmas->nr && max; i++) {
		uint64_t sz = vmas->v[i].end - vmas->v[i].start;
		unsigned k;

		/* [vsyscall] and anything else in the kernel half is not DAMON's to watch */
		if (!sz || vmas->v[i].start >= 0xffff800000000000ULL)
			continue;
		if (n == max && sz <= ret[n - 1].end - ret[n - 1].start)
			continue;
		k = n < max ? n++ : n - 1;
		while (k > 0 && ret[k - 1].end - ret[k - 1].start < sz) {
			ret[k] = ret[k - 1];
			k--;
		}
		ret[k] = (struct damon_range){ vmas->v[i].start, vmas->v[i].end };
	}
	for (unsigned i = 1; i < n; i++)
		for (unsigned k = i; k > 0 && ret[k - 1].start > ret[k].start; k--) {
			struct damon_range x = ret[k];

			ret[k] = ret[k - 1];
			ret[k - 1] = x;
		}
	return n;
}

static bool flags_locked(const char *flags)
{
	/* VmFlags: two-letter words; lo locked, ht hugetlb, pf PFN map, io I/O mapping */
	for (const char *p = flags; *p;) {
		while (*p == ' ')
			p++;
		if (!p[0] || !p[1])
			break;
		if ((p[0] == 'l' && p[1] == 'o') || (p[0] == 'h' && p[1] == 't') ||
		    (p[0] == 'p' && p[1] == 'f') || (p[0] == 'i' && p[1] == 'o'))
			return true;
		p += 2;
	}
	return false;
}

/* whether a mapping's path names shared memory (VMA_SHMEM) */
static bool is_shmem(const char *path)
{
	return !strcmp(path, "/dev/zero (deleted)") || !strncmp(path, "/SYSV", 5) ||
	       !strncmp(path, "/memfd:", 7) || !strncmp(path, "/dev/shm/", 9);
}

int vma_parse_smaps(const char *buf, struct vma_list *ret)
{
	ret->nr = 0;
	for (const char *l = buf; l && *l;) {
		const char *nl = strchr(l, '\n');
		unsigned long long s, e, ino;
		char perms[8], path[256] = "";
		int n = 0;

		if (sscanf(l, "%llx-%llx %7s %*s %*s %llu %n", &s, &e, perms, &ino, &n) == 4) {
			struct vma *v;

			if (ret->nr == ret->cap) {
				size_t cap = ret->cap ? ret->cap * 2 : 64;
				struct vma *nv = reallocarray(ret->v, cap, sizeof(*nv));

				if (!nv)
					return -ENOMEM;
				ret->v = nv;
				ret->cap = cap;
			}
			sscanf(l + n, "%255[^\n]", path);
			v = &ret->v[ret->nr++];
			v->start = s;
			v->end = e;
			/*
			 * no access at all (PROT_NONE): a reservation or a guard, whose pages
			 * cannot be in use; a database may reserve terabytes this way
			 */
			if (!strncmp(perms, "---", 3))
				v->cls = VMA_SPECIAL;
			else if (is_shmem(path))
				v->cls = VMA_SHMEM;
			else if (path[0] == '/')
				v->cls = VMA_FILE;
			else if (path[0] == '[' && strncmp(path, "[heap]", 6) &&
				 strncmp(path, "[stack", 6) && strncmp(path, "[anon:", 6))
				v->cls = VMA_SPECIAL;
			else
				v->cls = VMA_ANON;
		} else if (!strncmp(l, "VmFlags:", 8) && ret->nr) {
			char flags[256] = "";

			sscanf(l + 8, "%255[^\n]", flags);
			if (flags_locked(flags))
				ret->v[ret->nr - 1].cls = VMA_LOCKED;
		}
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}

unsigned vma_kind(const struct vma *v)
{
	switch (v->cls) {
	case VMA_ANON:
		return MEMORY_ANON;
	case VMA_SHMEM:
		return MEMORY_SHMEM;
	case VMA_FILE:
		return MEMORY_FILE;
	default:
		return 0;
	}
}

int vma_pieces(const struct vma_list *vmas, unsigned kinds, struct vrange_list *out)
{
	for (size_t k = 0; k < vmas->nr; k++)
		if ((!kinds || (vma_kind(&vmas->v[k]) & kinds)) &&
		    vrange_append(out, vmas->v[k].start, vmas->v[k].end, 0, k) < 0)
			return -ENOMEM;
	return 0;
}

int vma_clip(const struct vrange_list *in, const struct vma_list *vmas, unsigned kinds,
	     unsigned blocked, uint64_t page_size, struct vrange_list *out,
	     struct vma_skipped *skipped)
{
	size_t j = 0;

	out->nr = 0;
	for (size_t i = 0; i < in->nr; i++) {
		const struct vrange *r = &in->r[i];
		uint64_t covered = 0;

		while (j < vmas->nr && vmas->v[j].end <= r->start)
			j++;
		for (size_t k = j; k < vmas->nr && vmas->v[k].start < r->end; k++) {
			const struct vma *v = &vmas->v[k];
			uint64_t s = v->start > r->start ? v->start : r->start;
			uint64_t e = v->end < r->end ? v->end : r->end;
			unsigned kind = vma_kind(v);

			s = (s + page_size - 1) & ~(page_size - 1);
			e &= ~(page_size - 1);
			if (s >= e)
				continue;
			covered += e - s;
			if (v->cls == VMA_LOCKED)
				skipped->locked += e - s;
			else if (!kind || !(kinds & kind))
				skipped->vma += e - s;
			else if (blocked & kind)
				skipped->blocked += e - s;
			/*
			 * a range per VMA: the kernel refuses a locked, hugetlb or PFN VMA as a
			 * whole (EINVAL) and must not take a neighbour's range down with it
			 */
			else if (vrange_append(out, s, e, r->nr_accesses, r->age_us) < 0)
				return -ENOMEM;
			else
				out->r[out->nr - 1].kind = kind;
		}
		/* holes and unmapped parts: the kernel would stop the batch there */
		skipped->vma += (r->end - r->start) - covered;
	}
	return 0;
}
