// SPDX-License-Identifier: GPL-2.0-or-later
/* VMAs: smaps and maps parsing, classes, pieces, seed regions and clipping ranges to VMAs. */
#include <config.h>

#include <string.h>

#include "pageoutd/config.h"
#include "pageoutd/vma.h"
#include "../lib/tap.h"

#define K 4096ull

static const char smaps[] = "00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/app\n"
			    "Rss:                   4 kB\n"
			    "VmFlags: rd ex mr mw me\n"
			    "01000000-01100000 rw-p 00000000 00:00 0 [heap]\n"
			    "VmFlags: rd wr mr mw me ac\n"
			    "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
			    "VmFlags: rd wr mr mw me ac\n"
			    "7f0000100000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "VmFlags: rd wr mr mw me lo ac\n"
			    "7f0000300000-7f0000400000 rw-s 00000000 08:01 99 /data/shared.db\n"
			    "VmFlags: rd wr sh mr mw me ms\n"
			    "7ffff7fc1000-7ffff7fc5000 r--p 00000000 00:00 0 [vvar]\n"
			    "VmFlags: rd mr pf io de dd\n"
			    "7ffff7fc5000-7ffff7fc7000 r-xp 00000000 00:00 0 [vdso]\n"
			    "VmFlags: rd ex mr mw me de\n";

/* shared memory is swap-backed, a kind of its own, whatever its path says */
static void shmem(void)
{
	static const char maps[] =
		"7f0000000000-7f0008000000 rw-s 00000000 00:01 1024 /dev/zero (deleted)\n"
		"7f0008000000-7f0008100000 rw-s 00000000 00:01 65537 /SYSV0052e2c1 (deleted)\n"
		"7f0008100000-7f0008200000 rw-s 00000000 00:01 3072 /memfd:pool (deleted)\n"
		"7f0008200000-7f0008300000 rw-s 00000000 00:19 12 /dev/shm/PostgreSQL.123\n"
		"7f0008300000-7f0008400000 rw-s 00000000 08:01 99 /dev/zero\n"
		"7f0008400000-7f0008500000 r--s 00000000 08:01 98 /data/base/16384/1259\n";
	struct vma_list v = { 0 };

	is_int(vma_parse_smaps(maps, &v), 0, "maps with shared memory parses");
	ok(v.nr == 6 && v.v[0].cls == VMA_SHMEM && v.v[1].cls == VMA_SHMEM &&
		   v.v[2].cls == VMA_SHMEM && v.v[3].cls == VMA_SHMEM && v.v[4].cls == VMA_FILE &&
		   v.v[5].cls == VMA_FILE,
	   "shared anonymous, SysV, memfd and /dev/shm are shared memory; files are files");
	ok(v.nr == 6 && vma_kind(&v.v[0]) == MEMORY_SHMEM && vma_kind(&v.v[3]) == MEMORY_SHMEM &&
		   (vma_kind(&v.v[0]) & MEMORY_SWAP_BACKED) && vma_kind(&v.v[5]) == MEMORY_FILE,
	   "shared memory is a kind of its own, swap-backed: held to the swap limits with anon");
	{
		struct vrange_list in = { 0 }, out = { 0 };
		struct vma_skipped sk = { 0 };

		vrange_append(&in, 0x7f0000000000, 0x7f0008500000, 0, 0);
		vma_clip(&in, &v, MEMORY_ANON, 0, 4096, &out, &sk);
		ok(out.nr == 0 && sk.vma == 0x8500000,
		   "the vaddr part of engine = both (anon alone): no shared memory, no file");
		sk = (struct vma_skipped){ 0 };
		vma_clip(&in, &v, MEMORY_ANON | MEMORY_SHMEM, 0, 4096, &out, &sk);
		ok(out.nr == 4 && out.r[3].end == 0x7f0008300000 && out.r[0].kind == MEMORY_SHMEM,
		   "memory = anon elsewhere: the four shared memory VMAs");
		sk = (struct vma_skipped){ 0 };
		vma_clip(&in, &v, MEMORY_ANON | MEMORY_SHMEM, MEMORY_SWAP_BACKED, 4096, &out, &sk);
		ok(out.nr == 0 && sk.blocked == 0x8300000,
		   "at the swap reserve, shared memory stops with anon");
		vrange_list_fini(&in);
		vrange_list_fini(&out);
	}
	vma_list_fini(&v);
}

static void vmas(void)
{
	struct vma_list v = { 0 };
	struct vrange_list in = { 0 }, out = { 0 };
	struct vma_skipped sk = { 0 };

	is_int(vma_parse_smaps(smaps, &v), 0, "smaps parses");
	is_int(v.nr, 7, "7 VMAs");
	ok(v.v[0].cls == VMA_FILE && v.v[1].cls == VMA_ANON && v.v[2].cls == VMA_ANON &&
		   v.v[3].cls == VMA_LOCKED && v.v[4].cls == VMA_FILE && v.v[5].cls == VMA_LOCKED &&
		   v.v[6].cls == VMA_SPECIAL,
	   "classes: file, [heap] anon, anon, locked (lo), shared file, [vvar] pf, [vdso] special");
	shmem();
	/* one DAMON region over anon, locked, a hole and the shared file */
	vrange_push(&in, 0x7f0000000000, 0x7f0000400000, 0, 60000000);
	is_int(vma_clip(&in, &v, MEMORY_ANON | MEMORY_FILE, 0, K, &out, &sk), 0, "clip");
	ok(out.nr == 2 && out.r[0].start == 0x7f0000000000 && out.r[0].end == 0x7f0000100000 &&
		   out.r[1].start == 0x7f0000300000 && out.r[1].end == 0x7f0000400000,
	   "split at VMA boundaries: the anon and the file VMA, not the locked one nor the hole");
	is_u64(sk.locked, 0x100000, "the locked VMA's bytes are counted as locked");
	is_u64(sk.vma, 0x100000, "the hole is counted as not a VMA of a selected kind");
	sk = (struct vma_skipped){ 0 };
	vma_clip(&in, &v, MEMORY_ANON, 0, K, &out, &sk);
	ok(out.nr == 1 && out.r[0].end == 0x7f0000100000, "memory = anon: only the anon VMA");
	is_u64(sk.vma, 0x200000, "file VMA and hole not taken");
	sk = (struct vma_skipped){ 0 };
	vma_clip(&in, &v, MEMORY_ANON | MEMORY_FILE, MEMORY_ANON, K, &out, &sk);
	ok(out.nr == 1 && out.r[0].start == 0x7f0000300000,
	   "swap reserve hit: anon stops, file goes on");
	is_u64(sk.blocked, 0x100000, "the anon bytes are counted under swap_reserve");
	vrange_list_fini(&in);
	vrange_list_fini(&out);
	vma_list_fini(&v);
}

/*
 * A VMA without access (PROT_NONE: a reservation, a guard) is special: never advised, its bytes
 * skipped as vma. MariaDB's server reserves 8 TiB this way; as an anonymous VMA it took the
 * whole quota of every cycle, advising empty address space.
 */
static void no_access(void)
{
	static const char maps[] =
		"00401000-00402000 rw-p 00000000 00:00 0 \n"
		"7705bc000000-7f05a8000000 ---p 00000000 00:00 0 \n"
		"7f05a8000000-7f05a8001000 ---s 00000000 00:01 7 /dev/zero (deleted)\n"
		"7f05a8001000-7f05a8002000 r--p 00000000 00:00 0 \n";
	struct vma_list v = { 0 };
	struct vrange_list in = { 0 }, out = { 0 };
	struct vma_skipped sk = { 0 };

	is_int(vma_parse_smaps(maps, &v), 0, "maps with PROT_NONE VMAs parses");
	ok(v.nr == 4 && v.v[0].cls == VMA_ANON && v.v[1].cls == VMA_SPECIAL &&
		   v.v[2].cls == VMA_SPECIAL && v.v[3].cls == VMA_ANON,
	   "---p and ---s are special, rw-p and r--p anon");
	vrange_append(&in, 0x401000, 0x7f05a8002000ULL, 0, 0);
	is_int(vma_clip(&in, &v, MEMORY_ANON | MEMORY_FILE, 0, 4096, &out, &sk), 0, "clip");
	ok(out.nr == 2 && out.r[0].start == 0x401000 && out.r[0].end == 0x402000 &&
		   out.r[1].start == 0x7f05a8001000ULL,
	   "only the accessible VMAs are kept");
	ok(sk.vma == 0x7f05a8001000ULL - 0x402000,
	   "the reservation, the guard and the hole are skipped as vma");
	vrange_list_fini(&in);
	vrange_list_fini(&out);
	vma_list_fini(&v);
}

/* maps has no VmFlags: nothing is locked; pieces are one per VMA of the kinds asked */
static void maps_and_pieces(void)
{
	static const char maps[] = "00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/app\n"
				   "00401000-00402000 rw-p 00000000 00:00 0 \n"
				   "00402000-00403000 rw-p 00000000 00:00 0 [anon:arena]\n"
				   "7ffd00000000-7ffd00011000 rw-p 00000000 00:00 0 [stack]\n"
				   "7ffff7fc5000-7ffff7fc7000 r-xp 00000000 00:00 0 [vdso]\n"
				   "not a mapping\n";
	struct vma_list v = { 0 };
	struct vrange_list p = { 0 };

	is_int(vma_parse_smaps(maps, &v), 0, "maps parses");
	ok(v.nr == 5 && v.v[0].cls == VMA_FILE && v.v[1].cls == VMA_ANON &&
		   v.v[2].cls == VMA_ANON && v.v[3].cls == VMA_ANON && v.v[4].cls == VMA_SPECIAL,
	   "maps: file, anon, [anon:] anon, [stack] anon, [vdso] special; other lines ignored");
	is_int(vma_kind(&v.v[0]), MEMORY_FILE, "kind of a file VMA");
	is_int(vma_kind(&v.v[4]), 0, "a special VMA is of no kind");
	is_int(vma_pieces(&v, MEMORY_ANON, &p), 0, "pieces");
	ok(p.nr == 3 && p.r[0].start == 0x401000 && p.r[1].start == 0x402000,
	   "anon pieces: adjacent VMAs stay apart");
	p.nr = 0;
	vma_pieces(&v, 0, &p);
	is_int(p.nr, 5, "kinds 0: every VMA");
	is_int(vma_parse_smaps("", &v), 0, "empty text parses ...");
	is_int(v.nr, 0, "... to no VMA");
	vrange_list_fini(&p);
	vma_list_fini(&v);
}

/* a range that starts and ends inside pages keeps only the whole pages */
static void clip_pages(void)
{
	struct vma vv[] = { { 0, 16 * K, VMA_ANON } };
	struct vma_list v = { 1, 1, vv };
	struct vrange_list in = { 0 }, out = { 0 };
	struct vma_skipped sk = { 0 };

	vrange_push(&in, K / 2, 3 * K + 100, 0, 0);
	vma_clip(&in, &v, MEMORY_ANON, 0, K, &out, &sk);
	ok(out.nr == 1 && out.r[0].start == K && out.r[0].end == 3 * K &&
		   out.r[0].kind == MEMORY_ANON,
	   "clip: whole pages only, with the VMA's kind");
	is_u64(sk.vma, K / 2 + 100, "the partial pages are counted as not advisable");
	vrange_list_fini(&in);
	vrange_list_fini(&out);
}

/* The first regions of a new target: the largest VMAs, each its own region, in address order. */
static void seeds(void)
{
	struct vma v[] = { { 0x1000, 0x3000, VMA_ANON },
			   { 0x3000, 0x103000, VMA_ANON },   /* 1 MiB, cold, beside ... */
			   { 0x103000, 0x123000, VMA_ANON }, /* ... 128 KiB hot */
			   { 0x200000, 0x201000, VMA_FILE },
			   { 0x7e0000000000ULL, 0x7e0002000000ULL, VMA_ANON }, /* 32 MiB */
			   { 0x7ffd00000000ULL, 0x7ffd00011000ULL, VMA_ANON }, /* 68 KiB stack */
			   { 0xffffffffff600000ULL, 0xffffffffff601000ULL, VMA_FILE } };
	struct vma_list l = { sizeof(v) / sizeof(v[0]), sizeof(v) / sizeof(v[0]), v };
	struct damon_range r[DAMON_TARGET_REGIONS_MAX];
	unsigned n = vma_seed_regions(&l, r, 3);

	is_int(n, 3, "seeds: three of seven VMAs");
	ok(n == 3 && r[0].start == 0x3000 && r[0].end == 0x103000 && r[1].start == 0x103000 &&
		   r[1].end == 0x123000 && r[2].start == 0x7e0000000000ULL,
	   "seeds: the three largest (1 MiB, 128 KiB, 32 MiB) in address order, the two "
	   "adjacent ones apart");
	n = vma_seed_regions(&l, r, DAMON_TARGET_REGIONS_MAX);
	is_int(n, 6, "seeds: every VMA of the user half when they fit ([vsyscall] never)");
	for (unsigned i = 1; i < n; i++)
		if (r[i - 1].end > r[i].start)
			ok(false, "seeds: sorted and apart at %u", i);
	is_int(vma_seed_regions(&l, r, 0), 0, "seeds: none asked, none given");
}

int main(void)
{
	vmas();
	maps_and_pieces();
	no_access();
	clip_pages();
	seeds();
	return tap_exit();
}
