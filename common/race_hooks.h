/* SPDX-License-Identifier: GPL-2.0 */
/*
 * race_hooks.h - the contract between the primitives of common/ and the
 * race reproducer (common/race/), and the only file of common/ that knows
 * which of the two is built.
 *
 * In a harness build (-DCONFIG_RACE_HARNESS) the primitives call these
 * hooks, and the reproducer implements them.  In every other build each
 * hook is the inline stub below it: it does nothing (or answers "not
 * handled"), and the compiler removes the call, so the real backend costs
 * exactly what the C11 atomics and liburcu cost.  This is the pattern of
 * the kernel's sanitizer hooks (kasan_*, kcsan_*, kfence_free): the code
 * of common/ calls the hook unconditionally and never tests the config.
 *
 * The hooks come in families, one per model of the reproducer:
 *
 *   memory     race_access, race_seen, race_point_at    models/access.c
 *              race_touch                                models/access.c
 *              race_fence                                models/access.c, weak.c
 *   locks      race_spin_lock                            models/lock.c
 *   RCU        race_rcu_*, race_synchronize_rcu, ...     models/rcu.c
 *              race_preempt_depth                        models/rcu.c
 *   objects    race_obj_alloc, race_obj_free             models/slab.c
 *              race_obj_align                            runtime/placement.c
 *   interrupts race_irq_depth                            models/irq.c
 *   lockdep    race_lock_acquire, race_lock_release,     models/lockdep.c
 *              race_hardirqs_on
 *   counts     race_refcount_watch, race_refcount_unwatch models/zero.c
 *   reports    race_report                               models/access.c
 *   processes  race_on_search_child                      explore/search.c
 *
 * A primitive that is built from others (a hashed-spinlock atomic, an fd
 * table) needs no hook of its own: its parts already call theirs.  A new
 * primitive that touches memory calls race_access()/race_seen() with the
 * RACE_* flags saying what it does.  Only a new kind of waiting or of
 * deferred work needs a new family: its hooks here, and one new file in
 * common/race/ that implements them.
 *
 * Scheduling points.  A hook that is a point may run other threads before
 * it returns; the code between two points runs alone.  Points are labelled
 * "<calling function>.<what>", e.g. "kref_get.read": every primitive is a
 * macro (or takes @fn) so that __func__ is its caller's.
 */
#ifndef KIT_RACE_HOOKS_H
#define KIT_RACE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler.h"

struct rcu_head;

/*
 * What an access does (race_access's @how): the kind, and the ordering the
 * primitive guarantees, as in the kernel's Documentation/atomic_t.txt.
 * Under the default, sequentially consistent model only the kind shows;
 * the ordering is the input of a weaker memory model.
 */
#define RACE_LOAD	0x01		/* reads memory */
#define RACE_STORE	0x02		/* writes memory */
#define RACE_RMW	(RACE_LOAD | RACE_STORE)	/* one atomic update */
#define RACE_RELAXED	0x00		/* no ordering */
#define RACE_ACQUIRE	0x10		/* later accesses stay after it */
#define RACE_RELEASE	0x20		/* earlier accesses stay before it */
#define RACE_FULL	(RACE_ACQUIRE | RACE_RELEASE)	/* fully ordered */
#define RACE_PLAIN	0x40		/* a plain C access, not a marked one:
					 * the LKMM's data races */

#ifdef CONFIG_RACE_HARNESS

/**
 * race_access - scheduling point before an access to shared memory
 * @fn:   the function that performs the access (__func__ of the caller)
 * @what: the operation ("read", "inc", "cmpxchg", "READ_ONCE", ...)
 * @addr: the address accessed; the reproducer names it obj#N or @N
 * @how:  RACE_LOAD, RACE_STORE or RACE_RMW, | RACE_ACQUIRE/RELEASE/FULL
 *
 * May run other threads before returning.  When it returns the caller
 * performs the access, with no other thread running, then calls
 * race_seen().  An access to an object that has been freed ends the
 * execution with the verdict "use-after-free".
 */
void race_access(const char *fn, const char *what, const volatile void *addr,
		 unsigned int how);

/**
 * race_seen - the value the access just made read (or the old value of an
 * update) or wrote
 *
 * Completes the step opened by this thread's last race_access().  Returns
 * the value the caller must use as the result of the access: @value under
 * the default model.  (A weak memory model may answer with an older store
 * to the same location; the primitives are written to use the answer.)
 */
long race_seen(long value);

/**
 * race_touch - the access the caller just made is a plain one, between
 * two points (@how: RACE_LOAD or RACE_STORE)
 *
 * Not a point: it belongs to the caller's last step, which the reproducer
 * then orders against every other step that touches @addr.  For the few
 * plain accesses of common/ that others race with (an emulated atomic's
 * load, its lock word's release).
 */
void race_touch(const volatile void *addr, unsigned int how);

/**
 * race_fence - a memory barrier (smp_mb, smp_wmb, smp_rmb)
 * @fn:   __func__ of the caller
 * @what: the barrier's name ("smp_wmb")
 * @how:  RACE_FULL (smp_mb), RACE_STORE | RACE_RELEASE (smp_wmb: orders
 *        stores), RACE_LOAD | RACE_ACQUIRE (smp_rmb: orders loads)
 *
 * Under the sequentially consistent model nothing (not a point: a fence
 * changes nothing when one thread runs at a time and every store is seen
 * at once).  Under the weak model a point, shown in the timeline, whose
 * ordering the model applies (docs/reproducer.md, "The weak memory model").
 */
void race_fence(const char *fn, const char *what, unsigned int how);

/**
 * race_point_at - a scheduling point with no access, added by hand
 * @fn:    __func__ of the caller
 * @label: what happens here
 */
void race_point_at(const char *fn, const char *label);

/**
 * race_spin_lock - scheduling point "<fn>.spin_lock" at which the thread
 * is runnable only while *@word is 0 (the lock is free)
 *
 * When it returns the lock is free and the caller takes it before any other
 * thread runs, so the real acquisition succeeds at its first attempt.
 * spin_trylock and spin_unlock are plain race_access() points.
 */
void race_spin_lock(const char *fn, const int *word);

/*
 * RCU.  Each returns true when the reproducer's model performed the
 * operation; the caller then leaves liburcu alone.
 *
 * race_rcu_read_lock/unlock  points that enter and leave a read-side section
 * race_synchronize_rcu       a point at which the thread is runnable once
 *                            every reader inside at its arrival has left
 * race_call_rcu              queues @func(@head) for the reproducer's RCU
 *                            thread, after the same kind of grace period
 * race_rcu_barrier           a point runnable once the callbacks queued
 *                            before it have returned
 */
bool race_rcu_read_lock(const char *fn);
bool race_rcu_read_unlock(const char *fn);
bool race_synchronize_rcu(const char *fn);
bool race_call_rcu(const char *fn, struct rcu_head *head,
		   void (*func)(struct rcu_head *head));
bool race_rcu_barrier(const char *fn);

/**
 * race_preempt_depth - where the calling scenario thread's
 * preempt_disable() nesting is kept, or NULL outside the scenario threads
 *
 * The scenario threads of one execution share an OS thread, so a
 * thread-local count would be theirs together.  Not a scheduling point.
 */
int *race_preempt_depth(void);

/**
 * race_obj_alloc - the slab has just handed out @obj
 * @obj:      the object (its first byte)
 * @size:     its size in bytes
 * @cache:    the cache's name, for messages
 * @typesafe: the cache is SLAB_TYPESAFE_BY_RCU: after a free the memory
 *            stays an object of this type, and reading it is no bug
 * @fn:       __func__ of the caller that allocated it
 *
 * Not a scheduling point.  The reproducer numbers the objects of an
 * execution obj#1, obj#2, ... in this order.
 */
void race_obj_alloc(const void *obj, size_t size, const char *cache,
		    bool typesafe, const char *fn);

/**
 * race_obj_align - the alignment the slab gives a new object of a cache
 * that asks for @align (a power of two)
 *
 * Not a scheduling point.  In a race binary that declares
 * RACE_HASHED_ADDRESSES() (scenario.h), every object starts on a 2 KiB
 * boundary: the low bits of its address -- all that a hash of it, such as
 * lab 4's (addr >> 8) & (N - 1), looks at -- are then the same in every
 * execution and every process, wherever malloc put it.
 */
size_t race_obj_align(size_t align);

/**
 * race_obj_free - scheduling point "<fn>.kfree" before @obj is freed
 * @fn, @file, @line: the caller, remembered as who freed it
 *
 * A second free of the same object ends the execution with the verdict
 * "double-free", naming who freed it first and at which step.
 */
void race_obj_free(const void *obj, const char *fn, const char *file,
		   int line);

/**
 * race_irq_depth - where the calling scenario thread's "interrupts off"
 * nesting is kept, or NULL outside the scenario threads
 *
 * local_irq_save() and local_irq_restore() count in it instead of the
 * thread's own count (irqflags.c): a scenario thread's interrupts are the reproducer's
 * (.irqs of scenario.h), delivered only at a point where that thread has
 * them on (a count of 0); on one simulated CPU (.up) nothing else runs
 * while the thread at the CPU has them off.  Not a scheduling point.
 */
unsigned long *race_irq_depth(void);

/**
 * race_on_search_child - have @fn run in every search process the
 * reproducer forks, first thing after the fork
 *
 * The search process runs the code under test; its parent keeps the
 * result.  A caller that must restrict what the code under test can do
 * (the grader's lockdown, common/evidence.c) registers here.  Outside the
 * harness there is no search process: nothing to do.  Not a point.
 */
void race_on_search_child(void (*fn)(void));

/**
 * race_lock_acquire - the caller has just taken the spinlock at @lock
 * race_lock_release - ... has just released it
 * race_hardirqs_on  - ... has just turned interrupts back on (@fn)
 *
 * Not scheduling points.  lockdep (lockdep.h) calls them first; they
 * return true when the reproducer's lockdep model keeps the irq-safety
 * rule itself (in every harness build, for every thread: the plain
 * lockdep's usage, kept in the lock, would outlive an execution), and the
 * plain lockdep then does nothing.
 */
bool race_lock_acquire(const char *fn, const volatile void *lock);
bool race_lock_release(const volatile void *lock);
bool race_hardirqs_on(const char *fn);

/**
 * race_refcount_watch - the int at @counter is a reference count from
 * now on, made so by @fn ("0 is final": refcount_watch.h)
 * race_refcount_unwatch - ... no longer: the @size bytes at @addr are
 * being freed, or a test sets a count by hand
 *
 * Not scheduling points.  Return true when the reproducer's model keeps
 * the watch (every harness build); the plain table then does nothing.
 */
bool race_refcount_watch(const volatile int *counter, const char *fn);
bool race_refcount_unwatch(const volatile void *addr, size_t size);

/**
 * race_report - a primitive found a bug (a WARN, a BUG, a use-after-free)
 * @kind:    short verdict name ("warn", "bug", "use-after-free", ...)
 * @message: one line saying what and where
 *
 * Returns true if the reproducer took the report: a "warn" is noted (the
 * execution goes on, the caller prints nothing); any other kind ends the
 * execution and does not return.
 */
bool race_report(const char *kind, const char *message);

#else /* !CONFIG_RACE_HARNESS: every hook is a no-op */

static inline void race_access(const char *fn __maybe_unused,
			       const char *what __maybe_unused,
			       const volatile void *addr __maybe_unused,
			       unsigned int how __maybe_unused) { }
static inline long race_seen(long value) { return value; }
static inline void race_touch(const volatile void *addr __maybe_unused,
			      unsigned int how __maybe_unused) { }
static inline void race_fence(const char *fn __maybe_unused,
			      const char *what __maybe_unused,
			      unsigned int how __maybe_unused) { }
static inline void race_point_at(const char *fn __maybe_unused,
				 const char *label __maybe_unused) { }
static inline void race_spin_lock(const char *fn __maybe_unused,
				  const int *word __maybe_unused) { }
static inline bool race_rcu_read_lock(const char *fn __maybe_unused)
{ return false; }
static inline bool race_rcu_read_unlock(const char *fn __maybe_unused)
{ return false; }
static inline bool race_synchronize_rcu(const char *fn __maybe_unused)
{ return false; }
static inline bool race_call_rcu(const char *fn __maybe_unused,
				 struct rcu_head *head __maybe_unused,
				 void (*func)(struct rcu_head *head) __maybe_unused)
{ return false; }
static inline bool race_rcu_barrier(const char *fn __maybe_unused)
{ return false; }
static inline void race_obj_alloc(const void *obj __maybe_unused,
				  size_t size __maybe_unused,
				  const char *cache __maybe_unused,
				  bool typesafe __maybe_unused,
				  const char *fn __maybe_unused) { }
static inline size_t race_obj_align(size_t align) { return align; }
static inline void race_obj_free(const void *obj __maybe_unused,
				 const char *fn __maybe_unused,
				 const char *file __maybe_unused,
				 int line __maybe_unused) { }
static inline unsigned long *race_irq_depth(void) { return NULL; }
static inline int *race_preempt_depth(void) { return NULL; }
static inline void race_on_search_child(void (*fn)(void) __maybe_unused) { }
static inline bool race_lock_acquire(const char *fn __maybe_unused,
				     const volatile void *lock __maybe_unused)
{ return false; }
static inline bool race_lock_release(const volatile void *lock __maybe_unused)
{ return false; }
static inline bool race_hardirqs_on(const char *fn __maybe_unused)
{ return false; }
static inline bool race_refcount_watch(const volatile int *counter __maybe_unused,
				       const char *fn __maybe_unused)
{ return false; }
static inline bool race_refcount_unwatch(const volatile void *addr __maybe_unused,
					 size_t size __maybe_unused)
{ return false; }
static inline bool race_report(const char *kind __maybe_unused,
			       const char *message __maybe_unused)
{ return false; }

#endif /* CONFIG_RACE_HARNESS */

/** race_point - a scheduling point "<caller>.@label" (see race_point_at) */
#define race_point(label)	race_point_at(__func__, (label))

#endif /* KIT_RACE_HOOKS_H */
