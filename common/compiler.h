/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compiler.h - the few compiler helpers every kit header leans on.
 *
 * Detects the sanitizers the kit is built with, and gives the kernel's
 * container_of(), likely()/unlikely() and __maybe_unused spellings.
 */
#ifndef KIT_COMPILER_H
#define KIT_COMPILER_H

#include <stddef.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif

#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
#define CONFIG_KIT_TSAN 1
#endif

#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define CONFIG_KIT_ASAN 1
#endif

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define __maybe_unused	__attribute__((unused))
#define __noreturn	__attribute__((noreturn))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/**
 * container_of - the structure that embeds @ptr as its @member
 *
 * Guarantees: pure pointer arithmetic; never dereferences @ptr.
 */
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* KIT_COMPILER_H */
