/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atomic.h - atomic_t, cmpxchg() and xchg() under the kernel's names.
 *
 * Real backend: GCC/Clang __atomic builtins on a plain int, which is what
 * C11 atomics compile to and what ThreadSanitizer understands.  Ordering
 * follows the kernel: operations that return nothing (atomic_inc, ...) and
 * atomic_read/atomic_set are relaxed; every operation that returns a value
 * derived from the update (atomic_dec_and_test, atomic_inc_return,
 * cmpxchg, xchg) is fully ordered, unless its name says _relaxed or
 * _release (rcuref_t's atomic_add_negative_relaxed, ...: lab 6).
 *
 * Harness backend: each operation is first a scheduling point of the race
 * reproducer, labelled "<caller>.<op>" (see race_hooks.h), and uses the
 * value the reproducer's memory model answers.
 *
 * Every operation that sees the old value also checks it against the slab
 * poison (poison.h): an atomic on freed memory is reported with who freed
 * it.  Every update that finds 0 and leaves more asks whether the counter
 * is a watched reference count (refcount_watch.h: "0 is final").
 *
 * CONFIG_NO_CMPXCHG (lab 4) builds code as for a CPU without
 * compare-and-exchange, the CPUs the 2004 patch's spinlock-hash fallback
 * was written for:
 *   - cmpxchg(), xchg(), atomic_cmpxchg() and atomic_inc_not_zero() fail
 *     at COMPILE time, with a message naming the flag: there is no
 *     instruction to build them from;
 *   - atomic_read() and atomic_set() stay: one load, one store;
 *   - atomic_inc(), atomic_dec(), atomic_add/sub(), the *_return forms and
 *     atomic_dec_and_test() stay, emulated as the kernel emulates them on
 *     such CPUs (sparc32's atomic32.c): under one of the arch's own hashed
 *     spinlocks, interrupts off (atomic_hash.c).  They are atomic with
 *     respect to one another ONLY.  A counter that is also updated under
 *     another lock (lab 4's __refcount_hash) is guarded by two locks, and
 *     loses updates: lab 4's "mixing" scenario and TSan case show it.
 */
#ifndef KIT_ATOMIC_H
#define KIT_ATOMIC_H

#include "compiler.h"
#include "race_hooks.h"
#include "poison.h"
#include "refcount_watch.h"

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(i)	{ (i) }

/* One atomic read-modify-write: a scheduling point, the update, the value. */
#define __ATOMIC_RMW(v, fn, what, op, delta, order, how) ({		\
	int __old;							\
	race_access(fn, what, &(v)->counter, RACE_RMW | (how));	\
	__old = race_seen(op(&(v)->counter, (delta), (order)));		\
	poison_check(&(v)->counter, __old, fn, what);			\
	if (unlikely(!__old && (delta) > 0))				\
		refcount_from_zero(&(v)->counter, (delta), fn, what);	\
	__old;								\
})

static inline int kit_atomic_read(const atomic_t *v, const char *fn __maybe_unused)
{
	int val;

	race_access(fn, "read", &v->counter, RACE_LOAD);
	val = race_seen(__atomic_load_n(&v->counter, __ATOMIC_RELAXED));
	poison_check(&v->counter, val, fn, "read");
	return val;
}

static inline void kit_atomic_set(atomic_t *v, int i, const char *fn __maybe_unused)
{
	int was;

	race_access(fn, "set", &v->counter, RACE_STORE);
	/* One exchange: the value it replaces, without a load that gcc
	 * takes for a read of the uninitialized count of an object on a
	 * stack (an init is a set on fresh memory). */
	was = __atomic_exchange_n(&v->counter, i, __ATOMIC_RELAXED);
	if (i <= 0)
		was = 1;
	race_seen(i);
	if (unlikely(!was))
		refcount_from_zero(&v->counter, i, fn, "set");
}

/*
 * The result of adding @i to @old, as the counter's two's complement
 * arithmetic wraps: no signed overflow in C.
 */
static inline int kit_atomic_sum(int old, int i)
{
	return (int)((unsigned int)old + (unsigned int)i);
}

#ifdef CONFIG_NO_CMPXCHG
/* atomic_hash.c: the arch's emulation, under its own hashed spinlocks. */
int atomic_hash_fetch_add(int *counter, int delta, const char *fn,
			  const char *what);

static inline int kit_atomic_fetch_add(atomic_t *v, int i, const char *fn,
				     const char *what,
				     int order __maybe_unused)
{
	int old = atomic_hash_fetch_add(&v->counter, i, fn, what);

	poison_check(&v->counter, old, fn, what);
	return old;
}

/* The operation @op does not exist here: a compile error naming the flag. */
#define __NO_CMPXCHG(op) _Static_assert(0, op " does not exist with "	\
	"CONFIG_NO_CMPXCHG: this CPU has no compare-and-exchange; update "	\
	"the count under its hashed spinlock instead (lab 4)")
#else
/* The ordering of a C11 memory order, as race_access() flags. */
static inline unsigned int kit_race_order(int order)
{
	switch (order) {
	case __ATOMIC_SEQ_CST:
		return RACE_FULL;
	case __ATOMIC_RELEASE:
		return RACE_RELEASE;
	case __ATOMIC_ACQUIRE:
		return RACE_ACQUIRE;
	default:
		return RACE_RELAXED;
	}
}

static inline int kit_atomic_fetch_add(atomic_t *v, int i, const char *fn,
				     const char *what, int order)
{
	return __ATOMIC_RMW(v, fn, what, __atomic_fetch_add, i, order,
			    kit_race_order(order));
}

/* @order: of a successful exchange; a failed one is a relaxed load. */
static inline int kit_atomic_cmpxchg_order(atomic_t *v, int old, int new,
					 const char *fn __maybe_unused,
					 const char *what, int order)
{
	int cur = old;

	race_access(fn, what, &v->counter, RACE_RMW | kit_race_order(order));
	__atomic_compare_exchange_n(&v->counter, &cur, new, 0, order,
				    order == __ATOMIC_SEQ_CST ?
				    __ATOMIC_SEQ_CST : __ATOMIC_RELAXED);
	cur = race_seen(cur);
	poison_check(&v->counter, cur, fn, what);
	if (unlikely(!cur && !old && new > 0))
		refcount_from_zero(&v->counter, new, fn, what);
	return cur;
}

static inline int kit_atomic_cmpxchg(atomic_t *v, int old, int new,
				   const char *fn)
{
	return kit_atomic_cmpxchg_order(v, old, new, fn, "cmpxchg",
					__ATOMIC_SEQ_CST);
}

static inline int kit_atomic_inc_not_zero(atomic_t *v, const char *fn)
{
	int c = kit_atomic_read(v, fn);

	while (c) {
		int old = kit_atomic_cmpxchg(v, c, c + 1, fn);

		if (old == c)
			return 1;
		c = old;
	}
	return 0;
}
#endif /* CONFIG_NO_CMPXCHG */

/**
 * atomic_read - the counter's value at some instant
 *
 * Guarantees: one untorn load; no ordering against other accesses.
 */
#define atomic_read(v)		kit_atomic_read((v), __func__)

/**
 * atomic_set - store @i into the counter
 *
 * Guarantees: one untorn store; no ordering.
 */
#define atomic_set(v, i)	kit_atomic_set((v), (i), __func__)

/**
 * atomic_inc / atomic_dec / atomic_add / atomic_sub - update in place
 *
 * Guarantees: the update is atomic (no lost updates); no ordering.
 */
#define atomic_inc(v)	((void)kit_atomic_fetch_add((v), 1, __func__, "inc", __ATOMIC_RELAXED))
#define atomic_dec(v)	((void)kit_atomic_fetch_add((v), -1, __func__, "dec", __ATOMIC_RELAXED))
#define atomic_add(i, v) ((void)kit_atomic_fetch_add((v), (i), __func__, "add", __ATOMIC_RELAXED))
#define atomic_sub(i, v) ((void)kit_atomic_fetch_add((v), -(i), __func__, "sub", __ATOMIC_RELAXED))

/**
 * atomic_inc_return / atomic_dec_return / atomic_add_return - update, and
 * return the new value
 *
 * Guarantees: atomic and fully ordered (a full barrier on each side); the
 * counter wraps (two's complement), as the kernel's does.
 */
#define atomic_inc_return(v)	 kit_atomic_sum(kit_atomic_fetch_add((v), 1, __func__, \
	"inc_return", __ATOMIC_SEQ_CST), 1)
#define atomic_dec_return(v)	 kit_atomic_sum(kit_atomic_fetch_add((v), -1, __func__, \
	"dec_return", __ATOMIC_SEQ_CST), -1)
#define atomic_add_return(i, v) ({ int __i = (i); kit_atomic_sum( \
	kit_atomic_fetch_add((v), __i, __func__, "add_return", __ATOMIC_SEQ_CST), __i); })

/**
 * atomic_dec_and_test - decrement; true iff the counter became 0
 *
 * Guarantees: atomic and fully ordered; exactly one of several concurrent
 * callers that bring the counter from 1 to 0 sees true.
 */
#define atomic_dec_and_test(v) \
	(kit_atomic_fetch_add((v), -1, __func__, "dec_and_test", __ATOMIC_SEQ_CST) == 1)

/**
 * atomic_add_negative / _relaxed / _release - add @i; true iff the result
 * is negative
 *
 * The counter wraps: 0x7fffffff + 1 is negative.  rcuref_t's get and put
 * (lab 6) are one of these each, checked after the fact.
 * Guarantees: atomic; atomic_add_negative() is fully ordered, _relaxed
 * orders nothing, _release orders every earlier access of the thread before
 * the update (Documentation/atomic_t.txt).
 */
#define atomic_add_negative(i, v) ({ int __i = (i); kit_atomic_sum( \
	kit_atomic_fetch_add((v), __i, __func__, "add_negative", __ATOMIC_SEQ_CST), \
	__i) < 0; })
#define atomic_add_negative_relaxed(i, v) ({ int __i = (i); kit_atomic_sum( \
	kit_atomic_fetch_add((v), __i, __func__, "add_negative_relaxed", \
			     __ATOMIC_RELAXED), __i) < 0; })
#define atomic_add_negative_release(i, v) ({ int __i = (i); kit_atomic_sum( \
	kit_atomic_fetch_add((v), __i, __func__, "add_negative_release", \
			     __ATOMIC_RELEASE), __i) < 0; })

/**
 * atomic_sub_return_release / _relaxed - subtract @i, return the new value
 *
 * Guarantees: atomic; _release orders every earlier access of the thread
 * before the update and nothing after it, _relaxed orders nothing.
 */
#define atomic_sub_return_release(i, v) ({ int __i = (i); kit_atomic_sum( \
	kit_atomic_fetch_add((v), -__i, __func__, "sub_return_release", \
			     __ATOMIC_RELEASE), -__i); })
#define atomic_sub_return_relaxed(i, v) ({ int __i = (i); kit_atomic_sum( \
	kit_atomic_fetch_add((v), -__i, __func__, "sub_return_relaxed", \
			     __ATOMIC_RELAXED), -__i); })

#ifdef CONFIG_NO_CMPXCHG
/* No compare-and-exchange on this CPU: each use is a compile error. */
#define atomic_cmpxchg(v, old, new) \
	({ __NO_CMPXCHG("atomic_cmpxchg()"); (void)sizeof(v); 0; })
#define atomic_cmpxchg_release(v, old, new) \
	({ __NO_CMPXCHG("atomic_cmpxchg_release()"); (void)sizeof(v); 0; })
#define atomic_inc_not_zero(v) \
	({ __NO_CMPXCHG("atomic_inc_not_zero()"); (void)sizeof(v); 0; })
#define cmpxchg(ptr, old, new) \
	({ __NO_CMPXCHG("cmpxchg()"); (void)sizeof(ptr); 0; })
#define xchg(ptr, new) \
	({ __NO_CMPXCHG("xchg()"); (void)sizeof(ptr); 0; })
#else
/**
 * atomic_cmpxchg - if the counter equals @old, set it to @new
 *
 * Returns the value found.  It equals @old iff the exchange happened.
 * Guarantees: atomic and fully ordered, whether or not it exchanged.
 */
#define atomic_cmpxchg(v, old, new)	kit_atomic_cmpxchg((v), (old), (new), __func__)

/**
 * atomic_cmpxchg_release - atomic_cmpxchg() with release ordering only
 *
 * Returns the value found; it equals @old iff the exchange happened.
 * Guarantees: atomic; when it exchanges, every earlier access of the
 * thread is ordered before the store; a failed one orders nothing.
 */
#define atomic_cmpxchg_release(v, old, new) \
	kit_atomic_cmpxchg_order((v), (old), (new), __func__, "cmpxchg_release", \
				 __ATOMIC_RELEASE)

/**
 * atomic_inc_not_zero - increment the counter unless it is 0
 *
 * The kernel's later name for the 2004 patch's "get unless zero".
 * Returns 1 if it incremented, 0 if it found 0 and left it so.
 * Guarantees: the test and the increment are one atomic step (a
 * compare-and-exchange loop); fully ordered when it increments.
 */
#define atomic_inc_not_zero(v)	kit_atomic_inc_not_zero((v), __func__)

/**
 * cmpxchg - compare-and-exchange on any int-sized or pointer lvalue
 * @ptr: where
 * @old: the value expected
 * @new: the value stored when *@ptr == @old
 *
 * Returns the value found at *@ptr, as the processor's instruction does:
 * the exchange happened iff the result equals @old.  Fully ordered.
 */
#define cmpxchg(ptr, old, new) ({					\
	__typeof__(*(ptr)) __cur = (old);				\
	race_access(__func__, "cmpxchg", (ptr), RACE_RMW | RACE_FULL);	\
	__atomic_compare_exchange_n((ptr), &__cur, (new), 0,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	(__typeof__(*(ptr)))race_seen((long)__cur);			\
})

/**
 * xchg - store @new at *@ptr and return what was there
 *
 * Guarantees: atomic and fully ordered.
 */
#define xchg(ptr, new) ({						\
	__typeof__(*(ptr)) __prev;					\
	race_access(__func__, "xchg", (ptr), RACE_RMW | RACE_FULL);	\
	__prev = __atomic_exchange_n((ptr), (new), __ATOMIC_SEQ_CST);	\
	(__typeof__(*(ptr)))race_seen((long)__prev);			\
})
#endif /* CONFIG_NO_CMPXCHG */

#endif /* KIT_ATOMIC_H */
