// SPDX-License-Identifier: GPL-2.0
/*
 * refcount_watch.c - the watched reference counts (refcount_watch.h) of
 * the plain backends: a small hash set of addresses, with who watched
 * each.
 *
 * Open addressing with linear probing, removal by shifting back (no
 * tombstones), one mutex.  Watches and unwatches come with allocations
 * and frees, which take the slab's mutex anyway; the check runs only
 * where an update found 0.  As the slab's, the mutex and the table are
 * hidden from ThreadSanitizer: the set must not order the accesses of the
 * code under test.  When the set is full a new count is not watched (it
 * is not checked: never a false report).
 *
 * Under the reproducer the model (models/zero.c) keeps the watches per
 * execution and checks every step; the set stays empty there.
 */
#include <pthread.h>
#include <stdint.h>

#include "bug.h"
#include "race_hooks.h"
#include "refcount_watch.h"
#include "sanitizer.h"

#define WATCH_SLOTS	4096		/* a power of two */
#define WATCH_MAX	(WATCH_SLOTS / 2)

static struct {
	const volatile int *counter;	/* NULL: a free slot */
	const char *fn;
} slots[WATCH_SLOTS];
static long nr_watched;
static pthread_mutex_t watch_mutex = PTHREAD_MUTEX_INITIALIZER;

static void watch_lock(void)
{
	tsan_ignore_begin();
	pthread_mutex_lock(&watch_mutex);
}

static void watch_unlock(void)
{
	pthread_mutex_unlock(&watch_mutex);
	tsan_ignore_end();
}

static unsigned long home(const volatile int *counter)
{
	uintptr_t a = (uintptr_t)counter >> 2;

	return (a ^ (a >> 12)) * 0x9e3779b97f4a7c15ULL >> 52 & (WATCH_SLOTS - 1);
}

/* The slot of @counter, or of the free slot where it would go. */
static unsigned long find(const volatile int *counter)
{
	unsigned long i = home(counter);

	while (slots[i].counter && slots[i].counter != counter)
		i = (i + 1) & (WATCH_SLOTS - 1);
	return i;
}

/* Empty slot @i, shifting back the entries of its probe run. */
static void remove_at(unsigned long i)
{
	unsigned long j = i, h;

	slots[i].counter = NULL;
	for (;;) {
		j = (j + 1) & (WATCH_SLOTS - 1);
		if (!slots[j].counter)
			break;
		h = home(slots[j].counter);
		/* move j back to i unless its home lies in (i, j] */
		if (i <= j ? i < h && h <= j : i < h || h <= j)
			continue;
		slots[i] = slots[j];
		slots[j].counter = NULL;
		i = j;
	}
	nr_watched--;
}

void __refcount_watch(const volatile int *counter, const char *fn)
{
	unsigned long i;

	if (race_refcount_watch(counter, fn))
		return;
	watch_lock();
	i = find(counter);
	if (slots[i].counter || nr_watched < WATCH_MAX) {
		nr_watched += !slots[i].counter;
		slots[i].counter = counter;
		slots[i].fn = fn;
	}
	watch_unlock();
}

void refcount_unwatch_range(const volatile void *addr, size_t size)
{
	const volatile int *p = addr, *end = (const volatile int *)
		((const volatile char *)addr + size);
	unsigned long i;

	if (race_refcount_unwatch(addr, size) ||
	    !__atomic_load_n(&nr_watched, __ATOMIC_RELAXED))
		return;
	watch_lock();
	for (; p < end; p++) {
		i = find(p);
		if (slots[i].counter)
			remove_at(i);
	}
	watch_unlock();
}

void refcount_from_zero(const volatile int *counter, int now, const char *fn,
			const char *what)
{
	const char *watcher = NULL;
	unsigned long i;

	if (!__atomic_load_n(&nr_watched, __ATOMIC_RELAXED))
		return;
	watch_lock();
	i = find(counter);
	if (slots[i].counter)
		watcher = slots[i].fn;
	watch_unlock();
	if (!watcher)
		return;
	kit_bug("refcount-from-0", "%s's %s took a reference count (watched "
		"since %s) from 0 to %d: 0 is final -- once the count reaches 0 "
		"the object is on its way to be freed, and no get may raise it, "
		"not even for a moment (a get unless zero tests first, and "
		"increments only a count that is not 0)", fn, what, watcher, now);
}
