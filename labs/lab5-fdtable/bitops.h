/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bitops.h - GIVEN: the bit operations the fd table's bitmaps need, under
 * the kernel's names (include/linux/bitops.h, lib/find_bit.c).
 *
 * A bitmap is an array of unsigned long; bit @nr lives in word
 * nr / BITS_PER_LONG.  Given code: lab 5 uses it, you do not write it.
 * (It belongs with the other primitives in common/; it lives here until
 * a second lab needs it.)
 *
 * set_bit(), clear_bit() and test_bit() are atomic on their word and are
 * scheduling points of the race reproducer ("<caller>.set_bit", ...): a
 * bit that a lock-free reader may test is one step of the timeline.
 * find_next_zero_bit(), find_last_bit() and bitmap_copy() take no step:
 * call them with the lock that serialises every writer of the bitmap.
 */
#ifndef LAB5_BITOPS_H
#define LAB5_BITOPS_H

#include <string.h>

#include "compiler.h"
#include "race_hooks.h"

#define BITS_PER_LONG		(8 * (int)sizeof(unsigned long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))

/**
 * set_bit - set bit @nr of the bitmap at @addr
 *
 * Guarantees: atomic on its word (a concurrent update of another bit of
 * the same word is not lost); no ordering.
 */
#define set_bit(nr, addr) do {						\
	unsigned long *__w = (addr) + BIT_WORD(nr);			\
	race_access(__func__, "set_bit", __w, RACE_RMW);		\
	race_seen((long)__atomic_fetch_or(__w, BIT_MASK(nr),		\
					  __ATOMIC_RELAXED));		\
} while (0)

/**
 * clear_bit - clear bit @nr of the bitmap at @addr
 *
 * Guarantees: atomic on its word; no ordering.
 */
#define clear_bit(nr, addr) do {					\
	unsigned long *__w = (addr) + BIT_WORD(nr);			\
	race_access(__func__, "clear_bit", __w, RACE_RMW);		\
	race_seen((long)__atomic_fetch_and(__w, ~BIT_MASK(nr),		\
					   __ATOMIC_RELAXED));		\
} while (0)

/**
 * test_bit - whether bit @nr of the bitmap at @addr is set
 *
 * Guarantees: one untorn load of its word (1 or 0); no ordering.
 */
#define test_bit(nr, addr) ({						\
	const unsigned long *__w = (addr) + BIT_WORD(nr);		\
	unsigned long __v;						\
	race_access(__func__, "test_bit", __w, RACE_LOAD);		\
	__v = race_seen((long)__atomic_load_n(__w, __ATOMIC_RELAXED));	\
	(int)((__v & BIT_MASK(nr)) != 0);				\
})

/* One word of a bitmap whose writers are excluded by the caller's lock. */
static inline unsigned long __bitmap_word(const unsigned long *addr, int i)
{
	return __atomic_load_n(&addr[i], __ATOMIC_RELAXED);
}

/**
 * find_next_zero_bit - the first clear bit at or after @offset
 * @size: bits in the bitmap
 *
 * Guarantees: returns the lowest clear bit in [@offset, @size), or @size if
 * every one is set.  No scheduling point: call it under the writers' lock.
 */
static inline unsigned int find_next_zero_bit(const unsigned long *addr,
					      unsigned int size,
					      unsigned int offset)
{
	for (; offset < size; offset++)
		if (!(__bitmap_word(addr, BIT_WORD(offset)) & BIT_MASK(offset)))
			return offset;
	return size;
}

/**
 * find_last_bit - the highest set bit below @size
 *
 * Guarantees: returns the highest set bit in [0, @size), or @size if none
 * is set.  No scheduling point: call it under the writers' lock.
 */
static inline unsigned int find_last_bit(const unsigned long *addr,
					 unsigned int size)
{
	unsigned int nr = size;

	while (nr-- > 0)
		if (__bitmap_word(addr, BIT_WORD(nr)) & BIT_MASK(nr))
			return nr;
	return size;
}

/**
 * bitmap_copy - copy the words that hold bits [0, @nbits) from @src to @dst
 *
 * Guarantees: @dst's first BITS_TO_LONGS(@nbits) words equal @src's; bits
 * of the last word beyond @nbits come along.  No scheduling point: call it
 * under the writers' lock, before @dst is published.
 */
static inline void bitmap_copy(unsigned long *dst, const unsigned long *src,
			       unsigned int nbits)
{
	memcpy(dst, src, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

#endif /* LAB5_BITOPS_H */
