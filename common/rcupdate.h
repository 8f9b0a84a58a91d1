/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rcupdate.h - RCU under the kernel's names.
 *
 * Real backend: liburcu's "memb" flavour (membarrier-based read side, no
 * signals).  Threads that enter read-side critical sections must call
 * rcu_register_thread() first and rcu_unregister_thread() before they end.
 *
 * Harness backend: the race reproducer's model.  A thread in
 * synchronize_rcu() is not runnable until every reader that was inside a
 * read-side section when it began has left; call_rcu() callbacks run on the
 * reproducer's RCU thread after such a grace period.
 *
 * Under ThreadSanitizer the real backend adds the happens-before edges that
 * TSan cannot see through liburcu (see docs/design.md): readers release a
 * token before rcu_read_unlock(), updaters acquire it after synchronize_rcu()
 * and before each callback.  Correct code is then reported clean, and freeing
 * before a grace period is reported as a race.
 */
#ifndef KIT_RCUPDATE_H
#define KIT_RCUPDATE_H

#include "compiler.h"
#include "race_hooks.h"

/**
 * struct rcu_head - what call_rcu() queues; embed it in the object
 * @func: the callback, set by call_rcu()
 *
 * The first two words belong to liburcu's queue.
 */
struct rcu_head {
	void *__urcu_node;
	void *__urcu_func;
	void (*func)(struct rcu_head *head);
};

typedef void (*rcu_callback_t)(struct rcu_head *head);

void __rcu_read_lock(const char *fn);
void __rcu_read_unlock(const char *fn);
void __synchronize_rcu(const char *fn);
void __call_rcu(struct rcu_head *head, rcu_callback_t func, const char *fn);
void __rcu_barrier(const char *fn);

/**
 * rcu_read_lock - enter a read-side critical section
 *
 * Guarantees: an object reached through rcu_dereference() inside the
 * section is not freed by call_rcu() or after synchronize_rcu() before the
 * matching rcu_read_unlock().  Sections nest; they never block updaters.
 */
#define rcu_read_lock()		__rcu_read_lock(__func__)

/** rcu_read_unlock - leave the read-side critical section */
#define rcu_read_unlock()	__rcu_read_unlock(__func__)

/**
 * synchronize_rcu - wait for a grace period
 *
 * Guarantees: every read-side section that had begun when it was called has
 * ended when it returns.  Must not be called inside a read-side section.
 */
#define synchronize_rcu()	__synchronize_rcu(__func__)

/**
 * call_rcu - run @func(@head) after a grace period, asynchronously
 *
 * Guarantees: @func runs once, on another thread, after every read-side
 * section that had begun at the call has ended.
 */
#define call_rcu(head, func)	__call_rcu((head), (func), __func__)

/**
 * rcu_barrier - wait until every callback queued before it has run
 *
 * Use before freeing a cache or at exit, so that no callback is lost.
 */
#define rcu_barrier()		__rcu_barrier(__func__)

/**
 * rcu_dereference - load an RCU-protected pointer inside a read section
 *
 * Guarantees: the fields of the object it points to, as initialised before
 * rcu_assign_pointer() published it, are seen (acquire load).
 */
#define rcu_dereference(p) ({						\
	__typeof__(p) __p;						\
	race_access(__func__, "rcu_dereference", &(p),			\
		    RACE_LOAD | RACE_ACQUIRE);				\
	__p = __atomic_load_n(&(p), __ATOMIC_ACQUIRE);			\
	(__typeof__(p))race_seen((long)__p);				\
})

/**
 * rcu_dereference_protected - load an RCU pointer where updates cannot
 * happen (the update-side lock is held); @c documents why
 */
#define rcu_dereference_protected(p, c)	\
	((void)sizeof(c), __atomic_load_n(&(p), __ATOMIC_RELAXED))

/**
 * rcu_assign_pointer - publish @v at @p for readers
 *
 * Guarantees: a reader that sees the new pointer through rcu_dereference()
 * also sees every store made to *@v before this call (release store).
 */
#define rcu_assign_pointer(p, v) do {					\
	__typeof__(p) __v = (v);					\
	race_access(__func__, "rcu_assign_pointer", &(p),		\
		    RACE_STORE | RACE_RELEASE);				\
	__atomic_store_n(&(p), __v, __ATOMIC_RELEASE);			\
	race_seen((long)__v);						\
} while (0)

/** RCU_INIT_POINTER - store @v at @p while no reader can see @p yet */
#define RCU_INIT_POINTER(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELAXED)

/**
 * rcu_register_thread / rcu_unregister_thread - a thread that reads under
 * RCU registers once before its first rcu_read_lock() and unregisters
 * before it exits.  Harmless under the reproducer, whose model does not
 * use liburcu.
 */
void rcu_register_thread(void);
void rcu_unregister_thread(void);

#endif /* KIT_RCUPDATE_H */
