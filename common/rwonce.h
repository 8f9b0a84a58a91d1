/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwonce.h - READ_ONCE() and WRITE_ONCE().
 *
 * A plain C access to shared memory may be torn, fused, repeated or
 * invented by the compiler; these may not.  Both are relaxed atomics, so
 * ThreadSanitizer treats them as the marked accesses they are, and both
 * are scheduling points of the race reproducer in a harness build (where
 * READ_ONCE returns the value the reproducer's memory model answers).
 */
#ifndef KIT_RWONCE_H
#define KIT_RWONCE_H

#include "compiler.h"
#include "race_hooks.h"

/**
 * READ_ONCE - one untorn load of a scalar or pointer
 *
 * Guarantees: exactly one load, at this point of the program; no ordering.
 */
#define READ_ONCE(x) ({							\
	__typeof__(x) __val;						\
	race_access(__func__, "READ_ONCE", &(x), RACE_LOAD);		\
	__val = __atomic_load_n(&(x), __ATOMIC_RELAXED);		\
	(__typeof__(x))race_seen((long)__val);				\
})

/**
 * WRITE_ONCE - one untorn store of a scalar or pointer
 *
 * Guarantees: exactly one store, at this point of the program; no ordering.
 */
#define WRITE_ONCE(x, val) do {						\
	__typeof__(x) __val = (val);					\
	race_access(__func__, "WRITE_ONCE", &(x), RACE_STORE);		\
	__atomic_store_n(&(x), __val, __ATOMIC_RELAXED);		\
	race_seen((long)__val);						\
} while (0)

#endif /* KIT_RWONCE_H */
