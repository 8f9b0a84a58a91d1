// SPDX-License-Identifier: GPL-2.0
/*
 * objects.c - the objects of an execution, as the reproducer records them.
 *
 * The slab model (models/slab.c) records every allocation and free here:
 * obj#N in allocation order (restarting at 1 with every execution), the
 * size and cache, who allocated it, and who freed it, at which step.
 * Nothing here asks the slab anything.
 *
 * Memory that is freed and handed out again gets a new record: a lookup
 * takes the newest record that contains the address, so a reused object
 * is named by its new id, and the old record still says who freed the old
 * one.
 */
#include <stdlib.h>
#include <string.h>

#include "race/runtime/sched.h"

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

/** race_objects_reset - forget every object: ids restart at obj#1 */
void race_objects_reset(void)
{
	nr_objs = 0;
}

/* A new record at the end of the table; abort if memory is exhausted. */
static struct race_obj *new_record(void)
{
	objs = race_grow(objs, nr_objs, &cap_objs, sizeof(*objs));
	return memset(&objs[nr_objs++], 0, sizeof(*objs));
}

/**
 * race_obj_record - the slab handed out @obj: a new record, the next id
 */
struct race_obj *race_obj_record(const void *obj, size_t size,
				 const char *cache, bool typesafe,
				 const char *fn)
{
	struct race_obj *o = new_record();

	o->start = obj;
	o->size = size;
	o->cache = cache;
	o->typesafe = typesafe;
	o->alloc_fn = fn;
	o->id = nr_objs;
	return o;
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

/** race_obj_cache - the name of @o's cache */
const char *race_obj_cache(const struct race_obj *o)
{
	return o->cache;
}

/** race_obj_typesafe - whether @o's cache is SLAB_TYPESAFE_BY_RCU */
bool race_obj_typesafe(const struct race_obj *o)
{
	return o->typesafe;
}

/** race_obj_live - whether obj#@id of this execution exists and is not
 * freed */
bool race_obj_live(unsigned long id)
{
	return id >= 1 && (long)id <= nr_objs && !objs[id - 1].freed;
}

/** race_obj_is_freed - whether @o has been freed */
bool race_obj_is_freed(const struct race_obj *o)
{
	return o->freed;
}

/**
 * race_obj_record_free - @o is freed by thread @thread (0: outside the
 * threads) at step @step, in @fn (@file:@line)
 */
void race_obj_record_free(struct race_obj *o, int thread, long step,
			  const char *fn, const char *file, int line)
{
	o->freed = true;
	o->free_fn = fn;
	o->free_file = file;
	o->free_line = line;
	o->free_thread = thread;
	o->free_step = step;
}

/** race_obj_freed_by - "freed by T2 at step 14 in cache_obj_release
 * (cache.c:31)" */
void race_obj_freed_by(const struct race_obj *o, char *buf, size_t len)
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
