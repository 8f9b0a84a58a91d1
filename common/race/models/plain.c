// SPDX-License-Identifier: GPL-2.0
/*
 * plain.c - plain C accesses of the code under test, as the weak memory
 * model sees them.
 *
 * The labs' code and tests are compiled for the reproducer with
 * AddressSanitizer's accesses made as calls (mk/build.mk, CFLAGS_race_code:
 * -asan-instrumentation-with-call-threshold=0 and the callback prefix
 * race_plain_).  Every load and store the compiler emits then calls
 * race_plain_loadN/storeN(addr) just before it, and a memcpy, memmove or
 * memset calls race_plain_memcpy ... instead.  Each callback first makes
 * AddressSanitizer's own check (asan_check, asan_memcpy: sanitizer.h), so
 * a use-after-free is reported exactly as before, then, under the weak
 * model, tells it of the access (race_weak_plain): a plain store goes into
 * its location's history, and an access that races with another thread's
 * unordered one ends the execution with the verdict "data-race".
 *
 * Only accesses of scenario threads to objects of the slab count: a
 * thread's stack and the program's globals are left out.  Under
 * sequential consistency, and in a build without the prefix (gcc), none
 * of this runs: the callbacks are not even called.  A plain access is not
 * a scheduling point.
 */
#include <stdint.h>

#include "race/models/weak.h"
#include "race_hooks.h"
#include "sanitizer.h"

/* Tell the weak model of a plain access by a scenario thread to the slab. */
static void plain(uintptr_t a, uintptr_t n, bool store)
{
	struct race_thread *t;
	const char *race;

	if (!race_weak || !n || !(t = race_self()) ||
	    !race_obj_find((const void *)a))
		return;
	race = race_weak_plain(t, (const void *)a, n, store);
	if (race)
		race_report("data-race", race);
}

/* One access of @n bytes at @a: ASan's check, then the model's. */
static void checked(uintptr_t a, uintptr_t n, bool store)
{
	asan_check((const void *)a, n, store);
	plain(a, n, store);
}

#define PLAIN_SIZED(n)							\
void race_plain_load##n(uintptr_t a);					\
void race_plain_load##n(uintptr_t a)					\
{									\
	checked(a, n, false);						\
}									\
void race_plain_store##n(uintptr_t a);				\
void race_plain_store##n(uintptr_t a)					\
{									\
	checked(a, n, true);						\
}

PLAIN_SIZED(1)
PLAIN_SIZED(2)
PLAIN_SIZED(4)
PLAIN_SIZED(8)
PLAIN_SIZED(16)

void race_plain_loadN(uintptr_t a, uintptr_t n);
void race_plain_loadN(uintptr_t a, uintptr_t n)
{
	checked(a, n, false);
}

void race_plain_storeN(uintptr_t a, uintptr_t n);
void race_plain_storeN(uintptr_t a, uintptr_t n)
{
	checked(a, n, true);
}

/* A copy: plain loads of @src, then plain stores to @dst, made at once. */
void *race_plain_memcpy(void *dst, const void *src, uintptr_t n);
void *race_plain_memcpy(void *dst, const void *src, uintptr_t n)
{
	plain((uintptr_t)src, n, false);
	plain((uintptr_t)dst, n, true);
	return asan_memcpy(dst, src, n);
}

void *race_plain_memmove(void *dst, const void *src, uintptr_t n);
void *race_plain_memmove(void *dst, const void *src, uintptr_t n)
{
	plain((uintptr_t)src, n, false);
	plain((uintptr_t)dst, n, true);
	return asan_memmove(dst, src, n);
}

void *race_plain_memset(void *dst, int c, uintptr_t n);
void *race_plain_memset(void *dst, int c, uintptr_t n)
{
	plain((uintptr_t)dst, n, true);
	return asan_memset(dst, c, n);
}
