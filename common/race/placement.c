// SPDX-License-Identifier: GPL-2.0
/*
 * placement.c - where the slab puts objects under the reproducer.
 *
 * A replay must meet the same steps as the run it replays, in another
 * process, whose malloc hands out other addresses.  The trace never shows
 * an address (trace.c names them), but code may compute with one: lab 4's
 * refcount_t takes the lock (addr >> 8) & (N - 1), so whether two counts
 * share a lock -- and so which threads can run -- would change from one
 * execution to the next.  Every object therefore starts on a page: the
 * bits below 12 of any field's address are its offset in the object.
 */
#include "race/sched.h"
#include "race_hooks.h"

#define RACE_OBJ_ALIGN	4096

/* At least a page: see above. */
size_t race_obj_align(size_t align)
{
	return align > RACE_OBJ_ALIGN ? align : RACE_OBJ_ALIGN;
}
