/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bug.h - WARN_ON() and BUG_ON().
 *
 * WARN_ON prints "WARNING: file:line in func: condition", counts the warning
 * and carries on, as the kernel does; tests assert warn_count() did (not)
 * move.  BUG_ON prints "BUG: ..." and stops: abort() in the real backend,
 * the end of the execution (a verdict) under the race reproducer.
 */
#ifndef KIT_BUG_H
#define KIT_BUG_H

#include "compiler.h"

void __warn(const char *file, int line, const char *fn, const char *cond);
void __noreturn __bug(const char *file, int line, const char *fn,
		      const char *cond);

/**
 * kit_bug - report a kernel-style BUG found by a primitive, then stop
 * @kind: the verdict's name ("use-after-free", "underflow", ...)
 *
 * Never returns: the real backend aborts, the reproducer ends the execution.
 */
void __noreturn __printf(2, 3) kit_bug(const char *kind, const char *fmt, ...);

/**
 * WARN_ON - warn (once per call) if @cond is true; evaluates to !!@cond
 */
#define WARN_ON(cond) ({						\
	int __ret_warn_on = !!(cond);					\
	if (unlikely(__ret_warn_on))					\
		__warn(__FILE__, __LINE__, __func__, #cond);		\
	__ret_warn_on;							\
})

/**
 * WARN_ON_ONCE - as WARN_ON, but this call site prints at most once
 */
#define WARN_ON_ONCE(cond) ({						\
	static int __warned;						\
	int __ret_warn_once = !!(cond);					\
	if (unlikely(__ret_warn_once) &&				\
	    !__atomic_exchange_n(&__warned, 1, __ATOMIC_RELAXED))	\
		__warn(__FILE__, __LINE__, __func__, #cond);		\
	__ret_warn_once;						\
})

/**
 * BUG_ON - stop if @cond is true
 */
#define BUG_ON(cond) do {						\
	if (unlikely(cond))						\
		__bug(__FILE__, __LINE__, __func__, #cond);		\
} while (0)

#define BUG()	__bug(__FILE__, __LINE__, __func__, "BUG()")

/**
 * warn_count - warnings printed by WARN_ON/WARN_ON_ONCE since the start
 * (or since warn_reset())
 */
unsigned long warn_count(void);
void warn_reset(void);

/**
 * warn_set_quiet - stop printing warnings (they are still counted)
 *
 * For stress loops that provoke warnings on purpose.
 */
void warn_set_quiet(int quiet);

#endif /* KIT_BUG_H */
