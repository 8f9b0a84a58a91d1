/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refcount_watch.h - "0 is final": a reference count that has reached 0
 * never rises again.
 *
 * When an object's last reference goes, the object is on its way to be
 * freed; a get that increments its count from 0, even for a moment (an
 * increment undone when it sees it was 0), hands out a reference to a
 * dying object.  The harm shows only with a third thread in a narrow
 * interleaving, if at all; the broken rule shows at the increment itself.
 * So the primitives check the rule at every update of a count they know
 * is a reference count: an update that takes it from 0 to more is
 * reported, naming where, in every backend --
 *   plain backends  a BUG ("refcount-from-0"): the process stops, and the
 *                   grader has the line as evidence;
 *   reproducer      a WARN noted with the step that took the count from 0
 *                   and the step that brought it there (the execution goes
 *                   on, so that a use-after-free that follows is still
 *                   shown as one; a WARN the scenario does not expect is
 *                   its verdict): common/race/models/zero.c.
 *
 * Which atomic_t is a reference count: the code that creates the object
 * says so, once, when the count's life begins -- the given code that
 * allocates an object (lab 1's cache, lab 3's table, lab 5's files and
 * files_struct) and the tests that make counts of their own (labs 2 and
 * 4, where refcount_init() is the student's).  Not a type: the labs keep
 * the kernel's types (kref's and f_count's atomic_t), and a type cannot
 * tell when a count's life begins -- memory freed and handed out again
 * starts a new count at the same address.  Not the init function: lab 4's
 * is the student's, and a count on a test's stack would stay watched
 * after its frame is gone.  The watch ends when the slab frees the
 * object (or, for a SLAB_TYPESAFE_BY_RCU cache, whose freed objects stay
 * of their type, when their memory goes back), or by refcount_unwatch().
 */
#ifndef KIT_REFCOUNT_WATCH_H
#define KIT_REFCOUNT_WATCH_H

#include <stddef.h>

#include "compiler.h"

/**
 * refcount_watch - the atomic_t at @v is a reference count from now on
 *
 * Guarantees: from this call on, an update of @v by any primitive that
 * takes it from 0 to more is reported (see above), until the watch ends.
 * Watching it again starts a new life (whatever its value now).
 */
#define refcount_watch(v)	__refcount_watch(&(v)->counter, __func__)

/**
 * refcount_unwatch - @v is no reference count any more (a test that sets
 * a count by hand, or is done with a count on its stack)
 */
#define refcount_unwatch(v)	refcount_unwatch_range(&(v)->counter, sizeof(*(v)))

void __refcount_watch(const volatile int *counter, const char *fn);

/**
 * refcount_unwatch_range - every count watched in the @size bytes at
 * @addr is one no more (the slab frees them)
 */
void refcount_unwatch_range(const volatile void *addr, size_t size);

/**
 * refcount_from_zero - the primitives' check: @fn's @what has just taken
 * the int at @counter from 0 to @now; reported if it is a watched count
 *
 * Called by atomic.h and atomic_hash.c only when an update found 0 and
 * left more: a correct program pays for it only where a count is born.
 */
void refcount_from_zero(const volatile int *counter, int now, const char *fn,
			const char *what);

#endif /* KIT_REFCOUNT_WATCH_H */
