// SPDX-License-Identifier: GPL-2.0
/*
 * slab.c - the slab model: allocations and frees, as the slab reports them
 * (race_obj_alloc, race_obj_free in race_hooks.h), and the oracle of
 * accesses to freed memory.
 *
 * A free is a scheduling point ("<fn>.kfree"); a second free of the same
 * object is a double free, named with the first.  Every object is recorded
 * by the runtime (runtime/objects.c): obj#N, who freed it, at which step.
 * An access through a primitive to a freed object is a use-after-free,
 * with the kernel's exception for SLAB_TYPESAFE_BY_RCU caches, whose freed
 * memory stays an object of the same type: a thread inside an RCU
 * read-side section may read it (and sees whatever is there), and may try
 * an update that leaves it unchanged (a get that finds 0 and fails); an
 * update that changes it, or any access outside a read-side section, is a
 * use-after-free there too.
 */
#include "race/models/models.h"
#include "race/models/weak.h"
#include "race_hooks.h"

/*
 * An update of freed type-stable memory inside a read-side section, made
 * now: legal only if it leaves the memory as it was (a failed get).
 * race_obj_seen() compares once the access is done.
 */
static struct {
	const struct race_thread *t;
	const struct race_obj *o;
	const volatile int *addr;
	int before;
} pending;

static void slab_reset(void)
{
	pending.t = NULL;
}

RACE_MODEL(slab_model) = {
	.name	= "slab",
	.reset	= slab_reset,
};

/* The slab handed out @obj: a new record, the next id. */
void race_obj_alloc(const void *obj, size_t size, const char *cache,
		    bool typesafe, const char *fn)
{
	race_obj_record(obj, size, cache, typesafe, fn);
	race_weak_forget(obj, size);
	race_sched_extra(RACE_FP_SLAB);
	race_sched_touch(RACE_FP_ALLOC, obj, size);
}

/* "a read", "a write" or "an update": what an access of kind @how does. */
static const char *access_kind(unsigned int how)
{
	if (!(how & RACE_STORE))
		return "a read";
	return how & RACE_LOAD ? "an update" : "a write";
}

/* End the search: thread @t's access of kind @how to freed object @o. */
static void __noreturn use_after_free(const struct race_thread *t,
				      const struct race_obj *o,
				      const volatile void *addr,
				      const char *kind, const char *why)
{
	char freer[256];

	race_obj_freed_by(o, freer, sizeof(freer));
	race_fail("use-after-free", "%s.%s on obj#%lu (%s, %zu bytes, +%ld, %s%s) %s",
		  t->fn, t->what, race_obj_id(o), race_obj_cache(o),
		  race_obj_size(o), race_obj_offset(o, addr), kind, why, freer);
}

/**
 * race_obj_check - end the search if thread @t's access of kind @how
 * (RACE_LOAD, RACE_STORE, RACE_RMW) to @addr is a use-after-free
 *
 * An access to a freed object is one, unless the object's cache is
 * SLAB_TYPESAFE_BY_RCU and @t is inside an RCU read-side section: a load
 * is then legal, and an update is judged by race_obj_seen() once made.
 */
void race_obj_check(const struct race_thread *t, const volatile void *addr,
		    unsigned int how)
{
	const struct race_obj *o = addr ? race_obj_find(addr) : NULL;

	if (!o || !race_obj_is_freed(o))
		return;
	if (!race_obj_typesafe(o))
		use_after_free(t, o, addr, access_kind(how), "");
	if (!race_held_rcu(t->id))
		use_after_free(t, o, addr, access_kind(how), " outside any RCU "
			       "read-side section; type-stable memory may be "
			       "read only inside one");
	if (!(how & RACE_STORE))
		return;
	if (!(how & RACE_LOAD))
		use_after_free(t, o, addr, "a write", " to type-stable memory: "
			       "once freed it may be read, never written");
	pending.t = t;
	pending.o = o;
	pending.addr = (const volatile int *)addr;
	pending.before = *pending.addr;
}

/**
 * race_obj_check_access - race_obj_check() of a write (call_rcu() queues
 * @addr, an rcu_head: a freed object may not be queued, type-stable or not)
 */
void race_obj_check_access(const struct race_thread *t,
			   const volatile void *addr)
{
	race_obj_check(t, addr, RACE_STORE);
}

/**
 * race_obj_seen - thread @t's access is done: an update of freed
 * type-stable memory (race_obj_check) that changed it is a use-after-free
 */
void race_obj_seen(const struct race_thread *t)
{
	if (pending.t != t)
		return;
	pending.t = NULL;
	if (*pending.addr != pending.before)
		use_after_free(t, pending.o, pending.addr, "an update",
			       " that changed type-stable memory: once freed "
			       "it may be read, and a get may fail on it, "
			       "never succeed");
}

/*
 * A point before a free ("<fn>.kfree"); a second free of the same object
 * is a double-free, named with the first.
 */
void race_obj_free(const void *obj, const char *fn, const char *file,
		   int line)
{
	struct race_thread *t = race_self();
	const struct race_obj *o = race_obj_find(obj);
	char freer[256];

	if (t) {
		race_sched_footprint(RACE_FP_FREE, obj, o ? race_obj_size(o) : 1, 0);
		race_sched_point(NULL, fn, "kfree", obj);
	}
	o = race_obj_find(obj);
	if (!o || race_obj_offset(o, obj))
		return;		/* not an object of this execution: the slab says */
	if (race_obj_is_freed(o)) {
		race_obj_freed_by(o, freer, sizeof(freer));
		race_fail("double-free", "%s.kfree frees obj#%lu (%s, %zu bytes) "
			  "a second time: %s", fn, race_obj_id(o),
			  race_obj_cache(o), race_obj_size(o), freer);
	}
	race_obj_record_free((struct race_obj *)o, t ? t->id : 0,
			     t && t->step ? race_trace_nr(t->step) : -1,
			     fn, file, line);
	race_weak_forget(obj, race_obj_size(o));
}
