/* SPDX-License-Identifier: GPL-2.0 */
/*
 * poison.h - the byte patterns the slab writes, as in the kernel's
 * include/linux/poison.h, and the check an access makes against them.
 */
#ifndef KIT_POISON_H
#define KIT_POISON_H

#include "compiler.h"

/* Every byte of a freed object. */
#define POISON_FREE	0x6b
/* A freed int-sized counter reads as this. */
#define POISON_FREE_INT	0x6b6b6b6bu
/* Every byte of a fresh object before its constructor runs. */
#define POISON_INUSE	0x5a

/**
 * poison_report - an access found POISON_FREE_INT where a value lives
 * @addr: where
 * @fn:   the function that made the access
 * @what: the operation ("inc", "read", ...)
 *
 * Implemented by whoever poisons (the slab, which remembers who freed
 * what): a use-after-free BUG naming who freed the object if @addr lies in
 * a freed one; nothing if it is a live value that happens to be the poison.
 */
void poison_report(const volatile void *addr, const char *fn,
		   const char *what);

/**
 * poison_check - report @val, just read at @addr, if it is the free poison
 */
static inline void poison_check(const volatile void *addr, int val,
				const char *fn, const char *what)
{
	if (unlikely(val == (int)POISON_FREE_INT))
		poison_report(addr, fn, what);
}

#endif /* KIT_POISON_H */
