// SPDX-License-Identifier: GPL-2.0
/*
 * vmem.c - the reproducer's own large arrays, in memory mapped for them.
 *
 * The search's arrays are sized for the worst case (an event per step of
 * up to --max-steps, a record per choice node) and an execution uses the
 * first few kilobytes.  From malloc, under AddressSanitizer, such an array
 * costs its whole size: the ASan runtime writes the shadow of every byte
 * it hands out, and calloc zeroes them, a page fault per 4 KB on pages the
 * search never reads (a search's first execution faulted about 250 times,
 * 81 without ASan).  Mapped anonymous memory is zero already, untouched
 * pages cost nothing, and ASan takes memory it did not hand out as valid.
 * The reproducer's own code is not instrumented (mk/build.mk), so nothing
 * is lost: the code under test never sees these arrays.
 *
 * Its small arrays that grow an element at a time (race_grow) are mapped
 * too.  From malloc, each size the ASan runtime had not handed out before
 * cost a search's first execution a region mapped for that size, the
 * pages of its shadow and of the allocation's recorded stack: about five
 * page faults, at 13 us or more each on the kit's VMs, against one.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "race/runtime/runtime.h"

/**
 * race_vmem_resize - @p (of @old bytes, NULL if 0) grown or shrunk to
 * @size bytes, zero beyond @old
 *
 * Returns the array, perhaps moved.  Out of memory is a crash verdict
 * (race_fail), as an abort would be.
 */
void *race_vmem_resize(void *p, size_t old, size_t size)
{
	void *q;

	if (p)
		q = mremap(p, old, size, MREMAP_MAYMOVE);
	else
		q = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (q == MAP_FAILED)
		race_fail("crash", "no memory for the search's arrays");
	return q;
}

/** race_vmem_free - unmap @p, of @size bytes from race_vmem_resize() (or NULL) */
void race_vmem_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

/* The bytes mapped for an array of @cap elements of @size bytes. */
static size_t grow_bytes(long cap, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);

	return (cap * size + page - 1) / page * page;
}

/**
 * race_grow - the array @a of @n elements of @size bytes, *@cap of them
 * mapped, with room for one more (doubled when full, from 64)
 *
 * Returns the array, perhaps moved (a pointer into the old one is no
 * longer valid: mremap unmaps it), zero beyond what was written.  It is
 * mapped memory (race_vmem_resize): give it back with race_grow_free(),
 * not free().
 */
void *race_grow(void *a, long n, long *cap, size_t size)
{
	long more;

	if (n < *cap)
		return a;
	more = *cap ? 2 * *cap : 64;
	a = race_vmem_resize(a, *cap ? grow_bytes(*cap, size) : 0,
			     grow_bytes(more, size));
	*cap = more;
	return a;
}

/** race_grow_free - unmap @a, grown by race_grow() to @cap elements of @size */
void race_grow_free(void *a, long cap, size_t size)
{
	race_vmem_free(a, grow_bytes(cap, size));
}
