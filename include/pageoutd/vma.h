/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vma: the mappings of a process as /proc/PID/smaps (or maps) lists them, their classes, and
 * what the vaddr engine does with them: first monitoring regions for DAMON, and range lists
 * clipped to the mappings that may be advised. Pure: text in, lists out. A list is owned by
 * whoever declared it ({ 0 } is empty) and freed with vma_list_fini; a function that grows a
 * list may fail only with -ENOMEM.
 */
#ifndef PAGEOUTD_VMA_H
#define PAGEOUTD_VMA_H

#include <stddef.h>
#include <stdint.h>

#include "pageoutd/damon.h"
#include "pageoutd/vrange.h"

enum vma_class {
	VMA_ANON,
	VMA_FILE,
	/*
	 * shared memory, swap-backed like anon: a shared anonymous mapping ("/dev/zero
	 * (deleted)"), SysV ("/SYSV...") and memfd ("/memfd:...") segments, POSIX shared memory
	 * ("/dev/shm/...")
	 */
	VMA_SHMEM,
	VMA_LOCKED,  /* VmFlags lo, ht, pf or io */
	VMA_SPECIAL, /* [vdso], [vvar], [vsyscall], [uprobes], ..., and any VMA without access */
};

struct vma {
	uint64_t start, end;
	enum vma_class cls;
};

/* sorted by address, as the kernel lists them */
struct vma_list {
	size_t nr, cap;
	struct vma *v;
};

/*
 * vma_parse_smaps: the VMAs of /proc/PID/smaps text into ret (emptied first). maps text (no
 * VmFlags) parses too; its VMAs are then never VMA_LOCKED. Lines that are neither a mapping
 * nor VmFlags are ignored. Returns 0 or -ENOMEM.
 */
int vma_parse_smaps(const char *buf, struct vma_list *ret);
/* vma_list_fini: free l's entries; l is an empty list after it. */
void vma_list_fini(struct vma_list *l);
/*
 * vma_kind: MEMORY_ANON for private anonymous memory, MEMORY_SHMEM for shared memory (both
 * swap-backed), MEMORY_FILE for page cache of files; 0 for a locked or special VMA.
 */
unsigned vma_kind(const struct vma *v);
/*
 * vma_pieces: append the VMAs whose kind is in `kinds` (every VMA for 0) to out as ranges,
 * one entry each, never merged with the next: each VMA's part of a DAMON region is a piece of
 * its own. Returns 0 or -ENOMEM.
 */
int vma_pieces(const struct vma_list *vmas, unsigned kinds, struct vrange_list *out);
/*
 * vma_seed_regions: the first monitoring regions of a new DAMON target from its VMAs: the max
 * largest VMAs of the user half, each a region of its own, in address order, into ret (room
 * for max). Returns the count (0 with max 0). DAMON starts a vaddr target with three regions
 * around the two largest gaps of the address space and needs many aggregation intervals of
 * random splits before a cold mapping next to a hot one (or a hole) stands alone; a region per
 * VMA starts it there, and DAMON fills the gaps at its next update.
 */
unsigned vma_seed_regions(const struct vma_list *vmas, struct damon_range *ret, unsigned max);

/* What vma_clip left out, in bytes, by reason. */
struct vma_skipped {
	uint64_t vma;	  /* a hole, a special VMA, or a VMA of a kind not in `kinds` */
	uint64_t locked;  /* a VMA_LOCKED VMA */
	uint64_t blocked; /* a VMA of a kind in `blocked` */
};

/*
 * vma_clip: the parts of `in` that lie inside VMAs whose kind is in `kinds` and not in
 * `blocked` (MEMORY_ANON/MEMORY_FILE bits), page aligned, into out (emptied first): an entry
 * per VMA piece, never merged with the next VMA's (the kernel refuses a locked VMA as a whole
 * and must not take a neighbour's range down with it), each with its VMA's kind. The bytes
 * left out are added to *skipped. Returns 0 or -ENOMEM.
 */
int vma_clip(const struct vrange_list *in, const struct vma_list *vmas, unsigned kinds,
	     unsigned blocked, uint64_t page_size, struct vrange_list *out,
	     struct vma_skipped *skipped);

#endif
