/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lin_collection.h - a ready sequential specification: a collection of
 * reference-counted objects found by key (lin_collection.c).
 *
 * Labs 1 and 3 have the same contract with two implementations (a locked
 * cache, an RCU table): insert a key, delete it, look it up taking a
 * reference, put a reference, look up and put at once.  Their tables of
 * operations (tests/labN/race_lin.c) pair their own run functions with
 * these: the model is which object holds each key, each object's count
 * (the collection's reference included), and the objects each thread
 * holds, oldest first.  A delete is one step of the model -- unlink and
 * drop the collection's reference -- whatever the code does in between.
 *
 *   insert(k)   0, or -EEXIST
 *   delete(k)   0, or -ENOENT
 *   lookup(k)   1 (the thread now holds a reference), 0 (a miss)
 *   put(k)      0, or LIN_NOTHING when the thread holds none of @k
 *   find(k)     1, 0: lookup and put at once
 *
 * Whether a put dropped the last reference is not part of its result: a
 * delete unlinks, then drops the collection's reference, two steps apart,
 * and another thread's lookup can miss and its put come in between --
 * correct code whose results no order of atomic deletes and puts
 * explains.  The oracles (use-after-free, double free, leak) judge the
 * counts; the unit tests, the value a put returns.
 *
 * A run function reports a lookup that returned another key's object as
 * LIN_COLL_WRONG, which no order explains.
 */
#ifndef KIT_RACE_LIN_COLLECTION_H
#define KIT_RACE_LIN_COLLECTION_H

#include "race/lin.h"

#define LIN_COLL_KEYS		3	/* keys of initial states: 1..3 */
#define LIN_COLL_OBJS		24	/* objects one history may create */
#define LIN_COLL_WRONG		2	/* a lookup got another key's object */

struct lin_coll_model {
	int obj_of[LIN_COLL_KEYS + 1];	/* key -> object holding it, 0: none */
	int count[LIN_COLL_OBJS], key_of[LIN_COLL_OBJS];
	int nr_objs;
	int held[RACE_MAX_THREADS + 1][LIN_MAX_HELD];
	int nr_held[RACE_MAX_THREADS + 1];
};

long race_lin_coll_insert(void *model, int thread, int key);
long race_lin_coll_delete(void *model, int thread, int key);
long race_lin_coll_lookup(void *model, int thread, int key);
long race_lin_coll_put(void *model, int thread, int key);
long race_lin_coll_find(void *model, int thread, int key);
void race_lin_coll_init(void *model, const struct lin_init *init);

extern const struct lin_name race_lin_coll_hit_names[];

/**
 * LIN_COLL_OPS - a table of the five operations, with the lab's run
 * functions and this specification
 * @delete: what the lab calls its delete ("remove", "delete")
 *
 *	static const struct lin_op ops[] = LIN_COLL_OPS("remove", run_insert,
 *		run_remove, run_lookup, run_put, run_find);
 */
#define LIN_COLL_OPS(delete, insert_fn, delete_fn, lookup_fn, put_fn, find_fn) { \
	{ "insert", LIN_KEYED, insert_fn, race_lin_coll_insert, NULL },		\
	{ delete, LIN_KEYED, delete_fn, race_lin_coll_delete, NULL },		\
	{ "lookup", LIN_KEYED | LIN_TAKES, lookup_fn, race_lin_coll_lookup,	\
	  race_lin_coll_hit_names },						\
	{ "put", LIN_KEYED | LIN_DROPS, put_fn, race_lin_coll_put, NULL },	\
	{ "find", LIN_KEYED | LIN_POST, find_fn, race_lin_coll_find,		\
	  race_lin_coll_hit_names },						\
}

#endif /* KIT_RACE_LIN_COLLECTION_H */
