/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rcuref.h - rcuref_t, the reference count of today's kernel for objects
 * that are found under RCU and freed through it (Linux 6.4, 2023:
 * include/linux/rcuref.h and lib/rcuref.c, retold in the kit's words).
 *
 * Labs 2 and 3 take a reference with a compare-and-exchange loop that
 * never increments 0.  Under contention every failed exchange is one more
 * round trip of the cache line, for every contender.  rcuref_get() adds 1
 * unconditionally, in one atomic step, and looks at the result after the
 * fact.  That works because the count is kept as "references - 1" in an
 * unsigned int split into zones (README.md draws them):
 *
 *   0 .. MAXREF            valid: 1 .. 2^31 references (ONEREF is 0)
 *   0x80000000 ..          saturation zone, SATURATED in its middle: the
 *                          count stopped counting; the object leaks
 *   RELEASED .. NOREF      dead zone, DEAD in its middle: the last
 *                          reference is gone, no get may succeed
 *   NOREF                  what the last put leaves for a moment, before it
 *                          marks the count DEAD with one compare-and-exchange
 *
 * Read as an int, every value outside the valid zone is negative: the
 * fast paths test one sign bit, and only a negative result takes a slow
 * path.  Each zone is 2^29 wide, so the few racing operations that move a
 * count inside its zone before the slow path puts it back in the middle
 * can never carry it out.
 */
#ifndef LAB6_RCUREF_H
#define LAB6_RCUREF_H

#include <stdbool.h>

#include "atomic.h"
#include "barrier.h"
#include "bug.h"
#include "preempt.h"

#define RCUREF_ONEREF		0x00000000U	/* one reference */
#define RCUREF_MAXREF		0x7FFFFFFFU	/* the most that are counted */
#define RCUREF_SATURATED	0xA0000000U	/* middle of the saturation zone */
#define RCUREF_RELEASED		0xC0000000U	/* start of the dead zone */
#define RCUREF_DEAD		0xE0000000U	/* middle of the dead zone */
#define RCUREF_NOREF		0xFFFFFFFFU	/* the last reference just went */

typedef struct {
	atomic_t refcnt;		/* references - 1, read as unsigned int */
} rcuref_t;

/**
 * rcuref_init - start @ref at @cnt references (usually 1), before anybody
 * else can see it
 *
 * Guarantees: rcuref_read() then returns @cnt.
 *
 * Given.
 */
static inline void rcuref_init(rcuref_t *ref, unsigned int cnt)
{
	atomic_set(&ref->refcnt, (int)(cnt - 1));
}

/**
 * rcuref_read - the number of references at some instant (tests,
 * debugging, heuristics: it promises nothing about the next instant)
 *
 * Guarantees: one atomic read; 0 when the count is in the dead zone (NOREF
 * included), the stored count plus one otherwise.
 */
unsigned int rcuref_read(rcuref_t *ref);

/**
 * rcuref_get - take one more reference, unless the last one is gone
 *
 * For an object found under rcu_read_lock() (or under the lock of the
 * collection that holds it): its memory is valid, its count may be dead.
 * One atomic add, relaxed (the caller's rcu_dereference or lock ordered
 * the lookup); only a negative result goes to rcuref_get_slowpath().
 *
 * Guarantees: returns true, and the caller owns one more reference, unless
 * the count is dead.  A count whose last reference is gone stays dead
 * however many gets meet it: an object is never resurrected.  A get that
 * fails returns false, and once every racing get has returned the count is
 * back at DEAD.  A get that takes the count past MAXREF WARNs "rcuref
 * saturated - leaking memory", succeeds, and leaves the count SATURATED.
 */
bool rcuref_get(rcuref_t *ref);

/**
 * rcuref_get_slowpath - what rcuref_get() does when its add made the
 * count negative
 *
 * Guarantees: a count in the dead zone is set back to DEAD, and it returns
 * false; a count in the saturation zone WARNs "rcuref saturated - leaking
 * memory", is set to SATURATED, and it returns true; a count back in the
 * valid zone (a put came in between) is left alone, and it returns true.
 */
bool rcuref_get_slowpath(rcuref_t *ref);

/**
 * rcuref_put - drop one reference
 *
 * Subtracts 1 with release ordering; only a negative result goes to
 * rcuref_put_slowpath(), with that result, which marks a count at NOREF
 * dead.
 *
 * Guarantees: of the puts an object gets, at most one returns true, and
 * exactly one if each reference is put once and the count never
 * saturated; it returns true only once the last reference is gone and no
 * get can succeed any more (the count is DEAD): the caller may then free
 * the object through call_rcu().  Every access a holder made before its
 * put happens before the accesses that follow the put that returns true.
 * No grace period ends between its subtraction and its return (it runs
 * with preemption disabled), so a free through call_rcu() after a racing
 * get and put cannot pull @ref from under it.  A put on a dead count (a
 * reference put twice) WARNs "rcuref - imbalanced put()", returns false
 * and leaves the count at DEAD; a put that races with a get and a put of
 * another thread never WARNs.  A put on a saturated count returns false
 * and leaves it SATURATED.
 */
bool rcuref_put(rcuref_t *ref);

/**
 * rcuref_put_slowpath - what rcuref_put() does when its subtraction left
 * the count negative
 * @cnt: the count that subtraction left (atomic_sub_return_release's
 *       result): not the count now, which others may have moved since
 *
 * Guarantees: when @cnt is NOREF, the count is marked DEAD by one
 * compare-and-exchange from NOREF, never retried: true if it exchanged,
 * false if a get raised the count (or that get's put marked it dead)
 * meanwhile.  When @cnt is in the dead zone it WARNs "rcuref - imbalanced
 * put()", sets the count back to DEAD, and returns false.  When @cnt is in
 * the saturation zone it sets the count to SATURATED and returns false.
 */
bool rcuref_put_slowpath(rcuref_t *ref, unsigned int cnt);

#endif /* LAB6_RCUREF_H */
