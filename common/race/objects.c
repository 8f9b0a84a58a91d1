// SPDX-License-Identifier: GPL-2.0
/*
 * objects.c - the objects of an execution, as the reproducer sees them.
 *
 * The slab tells of every allocation and free (race_obj_alloc,
 * race_obj_free in race_hooks.h); this file keeps its own record: obj#N in
 * allocation order (restarting at 1 with every execution), the size and
 * cache, who allocated it, and who freed it, at which step.  Nothing here
 * asks the slab anything.
 *
 * Memory that is freed and handed out again gets a new record: a lookup
 * takes the newest record that contains the address, so a reused object
 * is named by its new id, and the old record still says who freed the old
 * one.  An access through a primitive to a freed object is a
 * use-after-free, with the kernel's exception for SLAB_TYPESAFE_BY_RCU
 * caches, whose freed memory stays an object of the same type: a thread
 * inside an RCU read-side section may read it (and sees whatever is
 * there), and may try an update that leaves it unchanged (a get that
 * finds 0 and fails); an update that changes it, or any access outside a
 * read-side section, is a use-after-free there too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "race/dpor.h"
#include "race/held.h"
#include "race/sched.h"
#include "race/weak.h"
#include "race_hooks.h"

struct race_obj {
	const char *start;
	size_t size;
	const char *cache, *alloc_fn;
	unsigned long id;
	bool typesafe, freed;
	int free_thread;		/* 0: outside the threads */
	long free_step;
	const char *free_fn, *free_file;
	int free_line;
};

static struct race_obj *objs;
static long nr_objs, cap_objs;

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

/** race_objects_reset - forget every object: ids restart at obj#1 */
void race_objects_reset(void)
{
	nr_objs = 0;
	pending.t = NULL;
}

/* A new record at the end of the table; abort if memory is exhausted. */
static struct race_obj *new_record(void)
{
	if (nr_objs == cap_objs) {
		cap_objs = cap_objs ? 2 * cap_objs : 64;
		objs = realloc(objs, cap_objs * sizeof(*objs));
		if (!objs)
			abort();
	}
	return memset(&objs[nr_objs++], 0, sizeof(*objs));
}

/** race_obj_find - the newest object that contains @addr, or NULL */
const struct race_obj *race_obj_find(const volatile void *addr)
{
	const char *a = (const char *)addr;
	long i;

	for (i = nr_objs - 1; i >= 0; i--)
		if (a >= objs[i].start && a < objs[i].start + objs[i].size)
			return &objs[i];
	return NULL;
}

/** race_obj_id - N of obj#N */
unsigned long race_obj_id(const struct race_obj *o)
{
	return o->id;
}

/** race_obj_offset - where @addr lies in @o */
long race_obj_offset(const struct race_obj *o, const volatile void *addr)
{
	return (const char *)addr - o->start;
}

/** race_obj_start - where obj#@id of this execution lies (NULL: none) */
const void *race_obj_start(unsigned long id)
{
	return id >= 1 && (long)id <= nr_objs ? objs[id - 1].start : NULL;
}

/** race_obj_size - the size of @o in bytes */
size_t race_obj_size(const struct race_obj *o)
{
	return o->size;
}

/* The slab handed out @obj: a new record, the next id. */
void race_obj_alloc(const void *obj, size_t size, const char *cache,
		    bool typesafe, const char *fn)
{
	struct race_obj *o = new_record();

	o->start = obj;
	o->size = size;
	o->cache = cache;
	o->typesafe = typesafe;
	o->alloc_fn = fn;
	o->id = nr_objs;
	race_weak_forget(obj, size);
	race_dpor_extra(RACE_FP_SLAB);
}

/* "freed by T2 at step 14 in cache_obj_release (cache.c:31)" */
static void freed_by(const struct race_obj *o, char *buf, size_t len)
{
	char who[16];

	if (!o->free_thread) {
		snprintf(buf, len, "freed outside the threads (setup or "
			 "teardown) in %s (%s:%d)", o->free_fn, o->free_file,
			 o->free_line);
		return;
	}
	snprintf(buf, len, "freed by %s at step %ld in %s (%s:%d)",
		 race_thread_name(o->free_thread, who, sizeof(who)),
		 o->free_step, o->free_fn, o->free_file, o->free_line);
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

	freed_by(o, freer, sizeof(freer));
	race_fail("use-after-free", "%s.%s on obj#%lu (%s, %zu bytes, +%ld, %s%s) %s",
		  t->fn, t->what, o->id, o->cache, o->size,
		  race_obj_offset(o, addr), kind, why, freer);
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

	if (!o || !o->freed)
		return;
	if (!o->typesafe)
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

/* Remember who frees @o, and when. */
static void record_free(struct race_obj *o, const char *fn, const char *file,
			int line)
{
	struct race_thread *t = race_self();

	o->freed = true;
	o->free_fn = fn;
	o->free_file = file;
	o->free_line = line;
	o->free_thread = t ? t->id : 0;
	o->free_step = t && t->step ? t->step - race_sh->steps + 1 : -1;
}

/*
 * A point before a free ("<fn>.kfree"); a second free of the same object
 * is a double-free, named with the first.
 */
void race_obj_free(const void *obj, const char *fn, const char *file,
		   int line)
{
	struct race_thread *t = race_self();
	struct race_obj *o;
	char freer[256];

	o = (struct race_obj *)race_obj_find(obj);
	if (t) {
		race_dpor_footprint(RACE_FP_FREE, obj, o ? o->size : 1, 0);
		race_sched_point(NULL, fn, "kfree", obj);
	}
	o = (struct race_obj *)race_obj_find(obj);
	if (!o || o->start != (const char *)obj)
		return;		/* not an object of this execution: the slab says */
	if (o->freed) {
		freed_by(o, freer, sizeof(freer));
		race_fail("double-free", "%s.kfree frees obj#%lu (%s, %zu bytes) "
			  "a second time: %s", fn, o->id, o->cache, o->size,
			  freer);
	}
	record_free(o, fn, file, line);
	race_weak_forget(obj, o->size);
}

/**
 * race_objects_live - objects of this execution not freed
 * @names: filled with "obj#2 (object, 32 bytes, from objtable_insert), ..."
 */
long race_objects_live(char *names, size_t len)
{
	long i, live = 0;
	size_t n = 0;

	names[0] = 0;
	for (i = 0; i < nr_objs; i++) {
		if (objs[i].freed)
			continue;
		if (++live <= 4 && n < len)
			n += snprintf(names + n, len - n, "%sobj#%lu (%s, %zu "
				      "bytes, from %s)", live > 1 ? ", " : "",
				      objs[i].id, objs[i].cache, objs[i].size,
				      objs[i].alloc_fn);
	}
	return live;
}
