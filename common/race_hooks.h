/* SPDX-License-Identifier: GPL-2.0 */
/*
 * race_hooks.h - the contract between common/ primitives and the race
 * reproducer (the "harness" backend).
 *
 * In a harness build (-DCONFIG_RACE_HARNESS) every primitive that touches
 * shared state calls into the reproducer first, so that the reproducer can
 * switch to another thread there: that call is a *scheduling point*.  A
 * point is labelled "<calling function>.<what>", e.g. "kref_get.read",
 * because every primitive is a macro that passes __func__ of its caller.
 *
 * In every other build the hooks compile to nothing: the real backend costs
 * exactly what the C11 atomics and liburcu cost.
 *
 * The reproducer (common/race/) implements these functions; nothing else
 * in the kit does.
 */
#ifndef KIT_RACE_HOOKS_H
#define KIT_RACE_HOOKS_H

struct rcu_head;

#ifdef CONFIG_RACE_HARNESS

/**
 * race_access - scheduling point before an access to shared memory
 * @fn:   the function that performs the access (__func__ of the caller)
 * @what: the operation ("read", "inc", "cmpxchg", "READ_ONCE", ...)
 * @addr: the address accessed; the reproducer maps it to an object id
 *
 * May run other threads before returning.  When it returns, the calling
 * thread performs the access without any other thread running, then calls
 * race_seen() with the value.  If @addr lies in a freed slab object the
 * reproducer ends the execution with a use-after-free verdict.
 */
void race_access(const char *fn, const char *what, const volatile void *addr);

/**
 * race_seen - the value the access just made saw or produced
 *
 * Completes the step opened by the last race_access() of this thread.
 */
void race_seen(long value);

/**
 * race_point - a scheduling point added by hand
 * @fn:    __func__ of the caller
 * @label: what happens here
 */
void race_point_at(const char *fn, const char *label);
#define race_point(label) race_point_at(__func__, (label))

/* Models: the reproducer keeps these states so that it never runs a thread
 * that could not make progress. */

/**
 * race_spin_lock - scheduling point "<fn>.spin_lock" at which the thread is
 * runnable only while the lock is free (*(int *)@lock == 0).  When it
 * returns the lock is free and the caller takes it before any other thread
 * runs.  spin_trylock and spin_unlock are plain race_access() points.
 */
void race_spin_lock(const char *fn, void *lock);
void race_rcu_read_lock(const char *fn);
void race_rcu_read_unlock(const char *fn);
void race_synchronize_rcu(const char *fn);
void race_call_rcu(const char *fn, struct rcu_head *head,
		   void (*func)(struct rcu_head *head));
void race_rcu_barrier(const char *fn);

/**
 * race_free - scheduling point before a slab object is freed
 * @fn:  __func__ of the caller
 * @obj: the object about to be freed
 */
void race_free(const char *fn, const void *obj);

/**
 * race_report - a primitive found a bug (use-after-free, WARN, BUG)
 * @kind:    short verdict name ("use-after-free", "warn", "bug", ...)
 * @message: one line saying what and where
 *
 * Returns only for kinds the reproducer counts and continues after
 * (a WARN); for the others the execution ends here.
 */
void race_report(const char *kind, const char *message);

/* Who and when, for the slab's "freed by" record. */
int race_current_thread(void);		/* 1-based thread number, 0 outside */
long race_current_step(void);		/* step of the execution, -1 outside */

#else /* !CONFIG_RACE_HARNESS */

#define race_access(fn, what, addr)	do { } while (0)
#define race_seen(value)		do { } while (0)
#define race_point(label)		do { } while (0)
#define race_point_at(fn, label)	do { } while (0)

#endif /* CONFIG_RACE_HARNESS */

#endif /* KIT_RACE_HOOKS_H */
