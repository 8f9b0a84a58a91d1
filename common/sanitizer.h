/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sanitizer.h - what the kit tells AddressSanitizer and ThreadSanitizer,
 * and the no-op stubs that stand for it in a build without them.
 *
 * The kernel's code calls kasan_*() and kcsan_*() unconditionally and
 * kasan.h / kcsan-checks.h compile them to nothing when the sanitizer is
 * off; the kit does the same: this is the only file of common/ that tests
 * CONFIG_KIT_ASAN or CONFIG_KIT_TSAN (compiler.h sets them from the
 * compiler's own __SANITIZE_*__ / __has_feature).  Every stub keeps its
 * arguments' evaluation and types, so a build without the sanitizer
 * compiles the same code.
 *
 * AddressSanitizer:
 *   asan_address_poisoned(p)     whether ASan forbids the byte at @p
 *   asan_on_report(cb)           @cb(report) runs before ASan aborts
 *   asan_start_switch_fiber(..)  a switch to another stack begins ...
 *   asan_finish_switch_fiber(..) ... and has happened (the reproducer's
 *                                contexts: runtime/carrier.c)
 *   asan_check(p, n, store)      ASan's own check of an access, as its
 *                                instrumentation makes it
 *   asan_memcpy/memmove/memset   the copy, checked, as ASan makes it (the
 *                                weak model's callbacks: models/plain.c)
 * ThreadSanitizer:
 *   tsan_release(addr)           what happened before is released at @addr
 *   tsan_acquire(addr)           ... and acquired here: a happens-before
 *                                edge TSan cannot see (liburcu's)
 *   tsan_ignore_begin()/_end()   the accesses and synchronization between
 *                                them are hidden from TSan (the slab's own
 *                                bookkeeping)
 */
#ifndef KIT_SANITIZER_H
#define KIT_SANITIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "compiler.h"

#ifdef CONFIG_KIT_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>

static inline bool asan_address_poisoned(const volatile void *p)
{
	return __asan_address_is_poisoned(p);
}

static inline void asan_on_report(void (*cb)(const char *report))
{
	__asan_set_error_report_callback(cb);
}

/* @n bytes at @p are addressable again (a stack used afresh). */
static inline void asan_unpoison(const volatile void *p, size_t n)
{
	__asan_unpoison_memory_region(p, n);
}

/* Before switching to the stack at @bottom (@size bytes); @save keeps
 * this stack's fake frames (NULL: this stack is left for good). */
static inline void asan_start_switch_fiber(void **save, const void *bottom,
					   size_t size)
{
	__sanitizer_start_switch_fiber(save, bottom, size);
}

/* On the new stack, once there: @save as given when it was left; the stack
 * switched from is returned in @bottom, @size (may be NULL). */
static inline void asan_finish_switch_fiber(void *save, const void **bottom,
					    size_t *size)
{
	__sanitizer_finish_switch_fiber(save, bottom, size);
}

/* ASan's runtime exports these (the types are the ones gcc knows them by). */
void __asan_loadN(void *p, long n);
void __asan_storeN(void *p, long n);
void *__asan_memcpy(void *dst, const void *src, size_t n);
void *__asan_memmove(void *dst, const void *src, size_t n);
void *__asan_memset(void *dst, int c, size_t n);

static inline void asan_check(const volatile void *p, size_t n, bool store)
{
	if (store)
		__asan_storeN((void *)p, (long)n);
	else
		__asan_loadN((void *)p, (long)n);
}

static inline void *asan_memcpy(void *dst, const void *src, size_t n)
{
	return __asan_memcpy(dst, src, n);
}

static inline void *asan_memmove(void *dst, const void *src, size_t n)
{
	return __asan_memmove(dst, src, n);
}

static inline void *asan_memset(void *dst, int c, size_t n)
{
	return __asan_memset(dst, c, n);
}
#else
static inline bool asan_address_poisoned(const volatile void *p __maybe_unused)
{
	return false;
}

static inline void asan_unpoison(const volatile void *p __maybe_unused,
				 size_t n __maybe_unused)
{
}

static inline void asan_on_report(void (*cb)(const char *report) __maybe_unused)
{
}

static inline void asan_start_switch_fiber(void **save __maybe_unused,
					   const void *bottom __maybe_unused,
					   size_t size __maybe_unused)
{
}

static inline void asan_finish_switch_fiber(void *save __maybe_unused,
					    const void **bottom __maybe_unused,
					    size_t *size __maybe_unused)
{
}

static inline void asan_check(const volatile void *p __maybe_unused,
			      size_t n __maybe_unused, bool store __maybe_unused)
{
}

static inline void *asan_memcpy(void *dst, const void *src, size_t n)
{
	return memcpy(dst, src, n);
}

static inline void *asan_memmove(void *dst, const void *src, size_t n)
{
	return memmove(dst, src, n);
}

static inline void *asan_memset(void *dst, int c, size_t n)
{
	return memset(dst, c, n);
}
#endif /* CONFIG_KIT_ASAN */

/* Whether this build has AddressSanitizer. */
static inline bool asan_enabled(void)
{
#ifdef CONFIG_KIT_ASAN
	return true;
#else
	return false;
#endif
}

#ifdef CONFIG_KIT_TSAN
#include <sanitizer/tsan_interface.h>

void AnnotateIgnoreSyncBegin(const char *file, int line);
void AnnotateIgnoreSyncEnd(const char *file, int line);
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);

#define tsan_release(addr)	__tsan_release(addr)
#define tsan_acquire(addr)	__tsan_acquire(addr)
#define tsan_ignore_begin() do {					\
	AnnotateIgnoreSyncBegin(__FILE__, __LINE__);			\
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__);			\
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__);			\
} while (0)
#define tsan_ignore_end() do {						\
	AnnotateIgnoreWritesEnd(__FILE__, __LINE__);			\
	AnnotateIgnoreReadsEnd(__FILE__, __LINE__);			\
	AnnotateIgnoreSyncEnd(__FILE__, __LINE__);			\
} while (0)
#else
#define tsan_release(addr)	((void)(addr))
#define tsan_acquire(addr)	((void)(addr))
#define tsan_ignore_begin()	do { } while (0)
#define tsan_ignore_end()	do { } while (0)
#endif /* CONFIG_KIT_TSAN */

#endif /* KIT_SANITIZER_H */
