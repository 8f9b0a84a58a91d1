// SPDX-License-Identifier: GPL-2.0
/*
 * slab.c - the kit's slab: registered, poisoned, with three reuse modes.
 *
 * Each object is preceded by a header that points to its registry entry.
 * Entries live outside the objects, so what the slab knows of an object
 * (its id, who freed it) outlives the object's memory.  One mutex guards
 * the registry; under ThreadSanitizer it and the bookkeeping it guards are
 * hidden from TSan, so that the allocator adds no happens-before edge that
 * would mask a race in lab code.  The writes that matter to TSan -- the
 * poison over a freed object, the fill and constructor of a new one -- are
 * made outside, where TSan sees them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "bug.h"
#include "poison.h"
#include "race_hooks.h"
#include "refcount_watch.h"
#include "sanitizer.h"
#include "slab.h"

#define SLAB_MAGIC	0x51ab51abUL
#define HDR_SIZE	32

struct slab_obj {
	struct slab_obj *prev, *next;	/* registry: live and remembered */
	struct slab_obj *link;		/* quarantine FIFO or cache freelist */
	struct kmem_cache *cache;
	void *raw;			/* what malloc returned; NULL once released */
	char *mem;			/* the object */
	size_t size;
	unsigned long id;
	int freed;
	long free_tid;
	const char *free_fn, *free_file;
	int free_line;
	int fresh;			/* never constructed yet */
};

struct slab_hdr {
	struct slab_obj *obj;
	unsigned long magic;
};

struct kmem_cache {
	const char *name;
	size_t size, align;
	unsigned long flags;
	enum slab_reuse reuse;
	void (*ctor)(void *);
	struct slab_obj *freelist;	/* reusable objects, newest first */
	long live;
	struct kmem_cache *next_spare;	/* destroyed: on spare_caches */
};

static pthread_mutex_t slab_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct slab_obj registry = { .prev = &registry, .next = &registry };
static struct slab_obj *quarantine_head, *quarantine_tail;
static long quarantined;
static unsigned long next_id = 1;
static long live_objects, frees;

static struct kmem_cache kmalloc_cache = {
	.name = "kmalloc", .align = 16, .reuse = SLAB_REUSE_QUARANTINE,
};

/* Owner of the remembered (freed) objects of caches since destroyed. */
static struct kmem_cache destroyed_cache = {
	.name = "destroyed cache", .reuse = SLAB_REUSE_QUARANTINE,
};

static void slab_lock(void)
{
	tsan_ignore_begin();
	pthread_mutex_lock(&slab_mutex);
}

static void slab_unlock(void)
{
	pthread_mutex_unlock(&slab_mutex);
	tsan_ignore_end();
}

/*
 * The records of objects (struct slab_obj) are the slab's bookkeeping,
 * not memory the code under test touches: a record no longer needed goes
 * on a list of spares, and the next object takes it from there.  From
 * malloc each would go through AddressSanitizer's quarantine, on memory
 * never touched before -- in the reproducer, two or three records an
 * execution, a page fault every few executions.  Under the slab lock.
 */
static struct slab_obj *spare_records;

static struct slab_obj *record_new(void)
{
	struct slab_obj *o = spare_records;

	if (!o)
		return calloc(1, sizeof(*o));
	spare_records = o->link;
	memset(o, 0, sizeof(*o));
	return o;
}

static void record_free(struct slab_obj *o)
{
	o->link = spare_records;
	spare_records = o;
}

/*
 * A destroyed cache's struct is bookkeeping too, and a spare for the next
 * kmem_cache_create(): the reproducer creates and destroys a cache or two
 * in most executions.  Under the slab lock.
 */
static struct kmem_cache *spare_caches;

static struct kmem_cache *cache_new(void)
{
	struct kmem_cache *s;

	slab_lock();
	s = spare_caches;
	if (s)
		spare_caches = s->next_spare;
	slab_unlock();
	if (!s)
		return calloc(1, sizeof(*s));
	memset(s, 0, sizeof(*s));
	return s;
}

static void registry_add(struct slab_obj *o)
{
	o->next = registry.next;
	o->prev = &registry;
	registry.next->prev = o;
	registry.next = o;
}

static void registry_del(struct slab_obj *o)
{
	o->prev->next = o->next;
	o->next->prev = o->prev;
}

static struct slab_obj *registry_find(const volatile void *addr)
{
	const char *a = (const char *)addr;
	struct slab_obj *o;

	for (o = registry.next; o != &registry; o = o->next)
		if (a >= o->mem && a < o->mem + o->size)
			return o;
	return NULL;
}

static void release_memory(struct slab_obj *o)
{
	if (o->raw)
		refcount_unwatch_range(o->mem, o->size);
	free(o->raw);
	o->raw = NULL;
}

/* Forget the oldest quarantined object once the quarantine is full. */
static void quarantine_push(struct slab_obj *o)
{
	struct slab_obj *old;

	o->link = NULL;
	if (quarantine_tail)
		quarantine_tail->link = o;
	else
		quarantine_head = o;
	quarantine_tail = o;
	if (++quarantined <= SLAB_QUARANTINE_SIZE)
		return;
	old = quarantine_head;
	quarantine_head = old->link;
	quarantined--;
	registry_del(old);
	if (old->raw)
		release_memory(old);
	record_free(old);
}

static struct slab_obj *new_object(struct kmem_cache *s, size_t size)
{
	size_t align = race_obj_align(s->align > HDR_SIZE ? s->align : HDR_SIZE);
	size_t total = (align + size + align - 1) / align * align;
	struct slab_obj *o = record_new();
	struct slab_hdr *hdr;

	if (!o)
		return NULL;
	o->raw = aligned_alloc(align, total);
	if (!o->raw) {
		record_free(o);
		return NULL;
	}
	o->mem = (char *)o->raw + align;
	o->size = size;
	o->cache = s;
	hdr = (struct slab_hdr *)(o->mem - sizeof(*hdr));
	hdr->obj = o;
	hdr->magic = SLAB_MAGIC;
	o->fresh = 1;
	return o;
}

/* Fill and construct an object just taken, outside the slab lock. */
static void init_object(struct kmem_cache *s, struct slab_obj *o)
{
	if (!o->fresh && s->flags & SLAB_TYPESAFE_BY_RCU)
		return;		/* type-stable: keeps what its last user left */
	o->fresh = 0;
	memset(o->mem, POISON_INUSE, o->size);
	if (s->ctor)
		s->ctor(o->mem);
}

static void *slab_alloc(struct kmem_cache *s, size_t size, const char *fn)
{
	struct slab_obj *o;

	slab_lock();
	o = s->freelist;
	if (o) {
		s->freelist = o->link;
		o->freed = 0;
	} else {
		o = new_object(s, size);
		if (o)
			registry_add(o);
	}
	if (o) {
		o->id = next_id++;
		s->live++;
		live_objects++;
	}
	slab_unlock();
	if (!o)
		return NULL;
	init_object(s, o);
	race_obj_alloc(o->mem, size, s->name, s->flags & SLAB_TYPESAFE_BY_RCU,
		       fn);
	refcount_unwatch_range(o->mem, size);	/* a new object: its counts too */
	return o->mem;
}

/*
 * The calling thread's kernel id, asked of the kernel once per thread (a
 * system call on every free was a tenth of an execution's cost in the
 * reproducer); a forked child asks again.
 */
static __thread long my_tid;

static void forget_tid(void)
{
	my_tid = 0;
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, forget_tid);
}

static long current_tid(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (!my_tid) {
		pthread_once(&once, watch_forks);
		my_tid = syscall(SYS_gettid);
	}
	return my_tid;
}

static void record_freer(struct slab_obj *o, const char *fn, const char *file,
			 int line)
{
	o->freed = 1;
	o->free_fn = fn;
	o->free_file = file;
	o->free_line = line;
	o->free_tid = current_tid();
}

/* The registry entry of @obj; a BUG if the slab never handed it out. */
static struct slab_obj *object_of(const void *obj, const char *fn)
{
	const struct slab_hdr *hdr = (const void *)((const char *)obj - sizeof(*hdr));
	struct slab_obj *o;

	if (asan_address_poisoned(hdr)) {
		slab_lock();
		o = registry_find(obj);
		slab_unlock();
		if (o && o->freed)
			return o;
		kit_bug("bad-free", "%s frees %p, which the slab did not allocate",
			fn, obj);
	}
	if (hdr->magic != SLAB_MAGIC)
		kit_bug("bad-free", "%s frees %p, which the slab did not allocate",
			fn, obj);
	o = hdr->obj;
	return o;
}

static void slab_free(struct kmem_cache *s, const void *obj, const char *fn,
		      const char *file, int line)
{
	struct slab_obj *o = object_of(obj, fn);
	char where[256];

	if (o->freed) {
		slab_describe(obj, where, sizeof(where));
		kit_bug("double-free", "%s (%s:%d) frees %s", fn, file, line, where);
	}
	if (s && o->cache != s)
		kit_bug("bad-free", "%s frees obj#%lu of cache %s into cache %s",
			fn, o->id, o->cache->name, s->name);
	s = o->cache;
	if (!(s->flags & SLAB_TYPESAFE_BY_RCU)) {
		refcount_unwatch_range(o->mem, o->size);  /* its counts died */
		memset(o->mem, POISON_FREE, o->size);
	}
	slab_lock();
	record_freer(o, fn, file, line);
	s->live--;
	live_objects--;
	frees++;
	if (s->flags & SLAB_TYPESAFE_BY_RCU || s->reuse == SLAB_REUSE_IMMEDIATE) {
		o->link = s->freelist;
		s->freelist = o;
	} else {
		if (asan_enabled())
			release_memory(o);	/* ASan's quarantine reports later use */
		quarantine_push(o);
	}
	slab_unlock();
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     size_t align, unsigned long flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *s = cache_new();

	if (!s)
		return NULL;
	s->name = name;
	s->size = size;
	s->align = align ? align : sizeof(void *);
	s->flags = flags;
	s->ctor = ctor;
	s->reuse = SLAB_REUSE_QUARANTINE;
	return s;
}

void kmem_cache_set_reuse(struct kmem_cache *s, enum slab_reuse mode)
{
	s->reuse = mode;
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	struct slab_obj *o, *next;

	if (!s)
		return;
	if (s->live)
		fprintf(stderr, "BUG: leak: cache %s destroyed with %ld objects "
			"still allocated\n", s->name, s->live);
	slab_lock();
	for (o = s->freelist; o; o = next) {
		next = o->link;
		registry_del(o);
		release_memory(o);
		record_free(o);
	}
	s->freelist = NULL;
	for (o = registry.next; o != &registry; o = o->next)
		if (o->cache == s && o->freed)
			o->cache = &destroyed_cache;	/* outlives @s */
	if (!s->live) {
		s->next_spare = spare_caches;
		spare_caches = s;
	}
	slab_unlock();
}

void *__kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp __maybe_unused,
			 bool zero, const char *fn)
{
	void *p = slab_alloc(s, s->size, fn);

	if (p && zero)
		memset(p, 0, s->size);
	return p;
}

void __kmem_cache_free(struct kmem_cache *s, void *obj, const char *fn,
		       const char *file, int line)
{
	race_obj_free(obj, fn, file, line);
	slab_free(s, obj, fn, file, line);
}

void *__kmalloc(size_t size, gfp_t gfp __maybe_unused, bool zero,
		const char *fn)
{
	void *p = slab_alloc(&kmalloc_cache, size, fn);

	if (p && zero)
		memset(p, 0, size);
	return p;
}

void __kfree(const void *obj, const char *fn, const char *file, int line)
{
	if (!obj)
		return;
	race_obj_free(obj, fn, file, line);
	slab_free(NULL, obj, fn, file, line);
}

int slab_lookup(const volatile void *addr, struct slab_info *info)
{
	struct slab_obj *o;

	memset(info, 0, sizeof(*info));
	slab_lock();
	o = registry_find(addr);
	if (o) {
		info->id = o->id;
		info->cache = o->cache->name;
		info->size = o->size;
		info->offset = (size_t)((const char *)addr - o->mem);
		info->freed = o->freed;
		info->free_tid = o->free_tid;
		info->free_fn = o->free_fn;
		info->free_file = o->free_file;
		info->free_line = o->free_line;
	}
	slab_unlock();
	return o != NULL;
}

void slab_describe(const volatile void *addr, char *buf, size_t len)
{
	struct slab_info i;
	int n;

	if (!slab_lookup(addr, &i)) {
		snprintf(buf, len, "%p (not a slab object)", (const void *)addr);
		return;
	}
	n = snprintf(buf, len, "obj#%lu (%s, %zu bytes, +%zu)", i.id, i.cache,
		     i.size, i.offset);
	if (!i.freed || n < 0 || (size_t)n >= len)
		return;
	snprintf(buf + n, len - n, " freed by thread %ld in %s (%s:%d)",
		 i.free_tid, i.free_fn, i.free_file, i.free_line);
}

/* poison.h: an access found the free poison; the slab knows who freed it. */
void poison_report(const volatile void *addr, const char *fn, const char *what)
{
	struct slab_info i;
	char desc[256];

	if (!slab_lookup(addr, &i) || !i.freed)
		return;		/* a live counter that happens to hold 0x6b6b6b6b */
	slab_describe(addr, desc, sizeof(desc));
	kit_bug("use-after-free", "%s.%s on %s", fn, what, desc);
}

long slab_objects_live(void)
{
	long n;

	slab_lock();
	n = live_objects;
	slab_unlock();
	return n;
}

long slab_frees(void)
{
	long n;

	slab_lock();
	n = frees;
	slab_unlock();
	return n;
}

void slab_reset(void)
{
	struct slab_obj *o, *next;

	slab_lock();
	for (o = registry.next; o != &registry; o = next) {
		next = o->next;
		if (!o->freed)
			continue;	/* its owner frees it later */
		if (o->cache->flags & SLAB_TYPESAFE_BY_RCU ||
		    o->cache->reuse == SLAB_REUSE_IMMEDIATE)
			continue;	/* still on its cache's freelist */
		registry_del(o);
		if (o->raw)
			release_memory(o);
		record_free(o);
	}
	quarantine_head = quarantine_tail = NULL;
	quarantined = 0;
	next_id = 1;
	frees = 0;
	slab_unlock();
}
