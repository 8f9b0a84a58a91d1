/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab.h - kmem_cache and kmalloc under the kernel's names, with the
 * debugging the labs need.
 *
 * Every object the slab hands out is registered: it has a small id
 * (obj#1, obj#2, ... in allocation order), and when it is freed the slab
 * remembers who freed it (thread, function, file:line).  In a harness
 * build it also tells the race reproducer of every allocation and free
 * (race_hooks.h), which keeps its own record: thread and step.  A freed
 * object's bytes are overwritten with POISON_FREE (0x6b), so an atomic on
 * it sees 0x6b6b6b6b and reports a use-after-free naming who freed it.
 *
 * What happens to freed memory is the cache's reuse mode:
 *   SLAB_REUSE_QUARANTINE  (default) never handed out again while it sits
 *                          in a bounded quarantine; under ASan it goes to
 *                          ASan's allocator, which reports any later access
 *   SLAB_REUSE_IMMEDIATE   the next allocation from the cache gets the most
 *                          recently freed object back: the article's "freed
 *                          and reused" pitfall, made certain
 *   SLAB_TYPESAFE_BY_RCU   (a creation flag, as in the kernel) freed objects
 *                          go straight back to the cache and may be reused at
 *                          once, but the memory stays an object of this type:
 *                          it is not poisoned and never returned to malloc
 *                          while the cache exists
 */
#ifndef KIT_SLAB_H
#define KIT_SLAB_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler.h"

typedef unsigned int gfp_t;
#define GFP_KERNEL	0u
#define GFP_ATOMIC	1u

#define SLAB_TYPESAFE_BY_RCU	0x00080000UL	/* the kernel's value */

enum slab_reuse {
	SLAB_REUSE_QUARANTINE,
	SLAB_REUSE_IMMEDIATE,
};

/* Objects kept poisoned before their memory is really released. */
#define SLAB_QUARANTINE_SIZE	4096

struct kmem_cache;

/**
 * kmem_cache_create - a cache of @size-byte objects
 * @ctor: if not NULL, run on each object's memory when it is first made
 *        (once per object for SLAB_TYPESAFE_BY_RCU, at every allocation
 *        otherwise)
 *
 * Returns NULL only if memory is exhausted.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     size_t align, unsigned long flags,
				     void (*ctor)(void *));

/**
 * kmem_cache_destroy - free the cache; every object must be freed first
 *
 * Objects still allocated are a leak, reported on stderr (the cache then
 * stays allocated, so that they remain valid).
 */
void kmem_cache_destroy(struct kmem_cache *s);

/** kmem_cache_set_reuse - choose what the cache does with freed objects */
void kmem_cache_set_reuse(struct kmem_cache *s, enum slab_reuse mode);

void *__kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp, bool zero,
			 const char *fn);

/**
 * kmem_cache_alloc - an object from @s, or NULL when memory is exhausted
 *
 * The object's bytes are POISON_INUSE (0x5a) unless a ctor ran, or, for
 * SLAB_TYPESAFE_BY_RCU, whatever its last user left.
 */
#define kmem_cache_alloc(s, gfp) \
	__kmem_cache_alloc((s), (gfp), false, __func__)

/** kmem_cache_zalloc - as kmem_cache_alloc, the object zeroed */
#define kmem_cache_zalloc(s, gfp) \
	__kmem_cache_alloc((s), (gfp), true, __func__)

void __kmem_cache_free(struct kmem_cache *s, void *obj, const char *fn,
		       const char *file, int line);

/**
 * kmem_cache_free - give @obj back to @s
 *
 * Guarantees: freeing an object twice, or one that @s did not allocate, is
 * a BUG reported with who freed it first.  In a harness build it is a
 * scheduling point ("<caller>.kfree").
 */
#define kmem_cache_free(s, obj) \
	__kmem_cache_free((s), (obj), __func__, __FILE__, __LINE__)

void *__kmalloc(size_t size, gfp_t gfp, bool zero, const char *fn);

/** kmalloc / kzalloc - @size bytes from the generic cache, NULL if none */
#define kmalloc(size, gfp)	__kmalloc((size), (gfp), false, __func__)
#define kzalloc(size, gfp)	__kmalloc((size), (gfp), true, __func__)

void __kfree(const void *obj, const char *fn, const char *file, int line);

/** kfree - free what kmalloc returned; kfree(NULL) does nothing */
#define kfree(obj)	__kfree((obj), __func__, __FILE__, __LINE__)

/**
 * struct slab_info - what the slab knows of the object containing an address
 */
struct slab_info {
	unsigned long id;		/* obj#id; 0 if the address is no object */
	const char *cache;		/* the cache's name */
	size_t size;
	size_t offset;			/* of the address within the object */
	int freed;			/* 1 if the object is free */
	long free_tid;			/* kernel thread id of the freer */
	const char *free_fn, *free_file;
	int free_line;
};

/**
 * slab_lookup - fill @info for the object that contains @addr
 *
 * Returns 1 if @addr lies in an object the slab allocated (live, or freed
 * and still remembered), 0 otherwise.
 */
int slab_lookup(const volatile void *addr, struct slab_info *info);

/**
 * slab_describe - what the slab knows of @addr, as text: "obj#3 (kref, 24
 * bytes, +0) freed by thread 4242 in cache_remove (cache.c:40)"
 */
void slab_describe(const volatile void *addr, char *buf, size_t len);

/** slab_objects_live - objects allocated and not yet freed, over all caches */
long slab_objects_live(void);

/** slab_frees - objects freed since the last slab_reset() */
long slab_frees(void);

/**
 * slab_reset - forget the freed objects and restart ids at obj#1
 *
 * For tests, and for the reproducer between executions (so that the
 * slab's own messages number objects as its timelines do).  Live objects
 * stay registered (their owners free them later); the free count restarts
 * at 0.
 */
void slab_reset(void);

#endif /* KIT_SLAB_H */
