// SPDX-License-Identifier: GPL-2.0
/*
 * placement.c - where the slab puts objects under the reproducer.
 *
 * A replay must meet the same steps as the run it replays, in another
 * process, whose malloc hands out other addresses.  The trace never shows
 * an address (trace.c names them), but code may compute with one: lab 4's
 * refcount_t takes the lock (addr >> 8) & (N - 1), so whether two counts
 * share a lock -- and so which threads can run -- would change from one
 * execution to the next.  A race binary whose code does that says so with
 * RACE_HASHED_ADDRESSES() (scenario.h): every object then starts on a
 * boundary of RACE_HASHED_ALIGN bytes, and the bits of a field's address
 * below it are the field's offset.  Other binaries keep malloc's placement,
 * which costs less (bigger, fresh allocations cost a search about a sixth
 * of its time on these VMs).
 */
#include "race/runtime/sched.h"
#include "race_hooks.h"

static size_t obj_align = 1;

/* RACE_HASHED_ADDRESSES(): from now on, objects start on @align bytes. */
void race_align_objects(size_t align)
{
	obj_align = align;
}

/* The slab's alignment, or more: see above. */
size_t race_obj_align(size_t align)
{
	return align > obj_align ? align : obj_align;
}
