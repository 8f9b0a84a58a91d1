// SPDX-License-Identifier: GPL-2.0
/*
 * race_objtable.c - lab 3's race scenarios (see common/race/scenario.h).
 *
 * T1 always looks up key 1; the last thread deletes key 1 (and in some
 * scenarios inserts key 2, which gets the freed memory back when the slab
 * reuses at once).
 *
 *   lookup_vs_delete          must hold  plain table: lookup + put against
 *                                        delete; the last put may be either's
 *                                        (witness: it is the lookup's)
 *   lookup_vs_delete_reuse    must hold  the same, memory reused at once,
 *                                        key 2 inserted after the delete
 *                                        (witness: the lookup hits)
 *   typesafe_lookup_vs_reuse  must hold  SLAB_TYPESAFE_BY_RCU: the lookup
 *                                        re-checks the key (witness: hit)
 *   two_lookups_vs_delete     must hold  two readers and the delete: any of
 *                                        the three puts may be the last
 *                                        (witness: a reader's is)
 *   reader_vs_delete          must hold  a reader without a reference reads
 *                                        the object inside its section while
 *                                        the delete unlinks it: no free
 *                                        before the grace period, whether
 *                                        delete queues it (call_rcu) or
 *                                        waits (synchronize_rcu)
 *                                        (witness: it read after the unlink)
 *   immediate_free_reuse      demo       the article's pitfall, written in
 *                                        this file: freed without call_rcu
 *                                        and reused; a 2004 lookup ends up
 *                                        holding key 2
 *   typesafe_no_recheck       demo       type-stable memory, a lookup
 *                                        without the re-check (this file's):
 *                                        same ending
 *
 * The demos run broken code of this file, not the lab's: they show the
 * bugs the lab's code must avoid, and are never graded.
 */
#include <stdbool.h>
#include <stdio.h>

#include "bug.h"
#include "objtable.h"
#include "race/scenario.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "slab.h"

static struct objtable *t;
static struct object *held;	/* what T1's lookup returned, kept to the end */
static int held_key;		/* its key, as T1 read it right away */
static bool reader_put_last;	/* a lookup's object_put() was the last */
static bool read_unlinked;	/* a reader read the object after its unlink */

static void open_table(unsigned long flags, enum slab_reuse reuse)
{
	t = objtable_create(flags);
	BUG_ON(!t);
	kmem_cache_set_reuse(t->cachep, reuse);
	BUG_ON(objtable_insert(t, 1));
	held = NULL;
	held_key = 0;
	reader_put_last = false;
	read_unlinked = false;
}

static void setup_plain(void)		{ open_table(0, SLAB_REUSE_QUARANTINE); }
static void setup_reuse(void)		{ open_table(0, SLAB_REUSE_IMMEDIATE); }
static void setup_typesafe(void)	{ open_table(SLAB_TYPESAFE_BY_RCU, SLAB_REUSE_QUARANTINE); }

static void teardown(void)
{
	if (held)
		object_put(held);
	objtable_destroy(t);
}

/* T1: the lab's lookup; keep the reference until teardown. */
static void lookup_key1(void)
{
	held = objtable_lookup(t, 1);
	if (held)
		held_key = READ_ONCE(held->key);
}

/* T1: the lab's lookup, then its put: maybe the last one. */
static void lookup_put_key1(void)
{
	struct object *obj = objtable_lookup(t, 1);

	if (!obj)
		return;
	held_key = READ_ONCE(obj->key);
	if (object_put(obj))
		reader_put_last = true;
}

/*
 * T1: the search-and-reference of the 2004 comment, without the key
 * re-check: find, get_rcu, done.
 */
static void lookup_key1_no_recheck(void)
{
	struct object *obj;

	rcu_read_lock();
	obj = __objtable_find_rcu(t, 1);
	if (obj && !refcount_get_rcu(&obj->ref))
		obj = NULL;
	rcu_read_unlock();
	held = obj;
	if (obj)
		held_key = READ_ONCE(obj->key);
}

/*
 * T1: a reader that takes no reference: inside one read-side section it
 * finds key 1 and reads the key again once the object may be unlinked.
 */
static void peek_key1(void)
{
	struct object *obj;
	bool gone;

	rcu_read_lock();
	obj = __objtable_find_rcu(t, 1);
	if (obj) {
		gone = !__objtable_find_rcu(t, 1);
		held_key = READ_ONCE(obj->key);	/* freed? the oracle says */
		read_unlinked = gone;
	}
	rcu_read_unlock();
}

/* T2: the lab's delete. */
static void delete_key1(void)
{
	objtable_delete(t, 1);
}

/* T2: the lab's delete, then a new object that may get the memory back. */
static void delete_key1_insert_key2(void)
{
	objtable_delete(t, 1);
	objtable_insert(t, 2);
}

/* T2, BROKEN ON PURPOSE: unlink, free at once without call_rcu, insert 2. */
static void free_now_insert_key2(void)
{
	struct object *obj = objtable_unlink(t, 1);

	if (obj && refcount_put(&obj->ref))
		object_free(obj);
	objtable_insert(t, 2);
}

static const char *right_key(void)
{
	static char msg[128];

	if (!held_key || held_key == 1)
		return NULL;
	snprintf(msg, sizeof(msg), "T1 looked up key 1 and holds the object "
		 "of key %d: the memory it found was freed and reused", held_key);
	return msg;
}

/* Witness: T1's lookup found key 1 (and read the key of what it found). */
static bool hit(void)
{
	return held_key == 1;
}

/* Witness: a reader read the object after it was unlinked. */
static bool read_after_unlink(void)
{
	return read_unlinked;
}

/* Witness: the last reference was a lookup's, so its put freed the object. */
static bool lookup_put_last(void)
{
	return reader_put_last;
}

/* Hint: The timeline shows where the lookup touched freed memory or returned
 * a wrong key: objtable_lookup() must stay inside its read-side section until
 * the get, and the last object_put() free through call_rcu().
 */
RACE_SCENARIO(lookup_vs_delete) = {
	.name     = "lookup_vs_delete",
	.summary  = "objtable_lookup + object_put against objtable_delete",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_plain,
	RACE_THREADS(lookup_put_key1, delete_key1),
	.check    = right_key,
	.witness  = lookup_put_last,
	.outcome  = "T1 finds key 1, T2 deletes it meanwhile, and T1's "
		    "object_put is the last",
	.teardown = teardown,
	.bound    = 2,
};

/* Hint: Memory handed out again before the grace period: a lookup that ends
 * with key 2 means the free did not wait; look at object_put() (call_rcu) and
 * objtable_delete()'s order.
 */
RACE_SCENARIO(lookup_vs_delete_reuse) = {
	.name     = "lookup_vs_delete_reuse",
	.summary  = "lookup of key 1 against delete 1 + insert 2, memory reused at once",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_reuse,
	RACE_THREADS(lookup_key1, delete_key1_insert_key2),
	.check    = right_key,
	.witness  = hit,
	.outcome  = "T1's objtable_lookup finds key 1 and holds it while T2 "
		    "deletes it and inserts key 2",
	.teardown = teardown,
	.bound    = 2,
};

/* Hint: In a SLAB_TYPESAFE_BY_RCU table objtable_lookup() must re-read the
 * key after a successful get and, if it changed, put that reference and
 * search again.
 */
RACE_SCENARIO(typesafe_lookup_vs_reuse) = {
	.name     = "typesafe_lookup_vs_reuse",
	.summary  = "SLAB_TYPESAFE_BY_RCU: lookup of key 1 against delete 1 + insert 2",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_typesafe,
	RACE_THREADS(lookup_key1, delete_key1_insert_key2),
	.check    = right_key,
	.witness  = hit,
	.outcome  = "T1's objtable_lookup finds key 1 and holds it while T2 "
		    "deletes it and inserts key 2",
	.teardown = teardown,
	.bound    = 2,
};

/* Hint: A demo, not graded: the article's pitfall (a free without call_rcu()
 * and reuse) in this file's own broken code, the timeline of the handout's
 * Part 1.
 */
RACE_SCENARIO(immediate_free_reuse) = {
	.name     = "immediate_free_reuse",
	.summary  = "freed without call_rcu and reused: the reader takes key 2's object",
	.expect   = RACE_DEMO,
	.verdict  = "check",
	.setup    = setup_reuse,
	RACE_THREADS(lookup_key1_no_recheck, free_now_insert_key2),
	.check    = right_key,
	.teardown = teardown,
	.bound    = 2,
};

/* Hint: A demo, not graded: a lookup without the key re-check on type-stable
 * memory, this file's code, which ends holding key 2.
 */
RACE_SCENARIO(typesafe_no_recheck) = {
	.name     = "typesafe_no_recheck",
	.summary  = "SLAB_TYPESAFE_BY_RCU without the key re-check: key 2's object",
	.expect   = RACE_DEMO,
	.verdict  = "check",
	.setup    = setup_typesafe,
	RACE_THREADS(lookup_key1_no_recheck, delete_key1_insert_key2),
	.check    = right_key,
	.teardown = teardown,
	.bound    = 2,
};

/* T2 of two_lookups_vs_delete: a second reader of key 1. */
static void lookup_put_key1_again(void)
{
	struct object *obj = objtable_lookup(t, 1);

	if (obj && object_put(obj))
		reader_put_last = true;
}

/* Hint: Two readers and a delete: any put may be the last, so each lookup's
 * reference is its own; a failure means a free while a reader holds a
 * reference or a get on a count of 0.
 */
RACE_SCENARIO(two_lookups_vs_delete) = {
	.name     = "two_lookups_vs_delete",
	.summary  = "two lookups + puts against a delete: any of the three puts may be last",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_plain,
	RACE_THREADS(lookup_put_key1, lookup_put_key1_again, delete_key1),
	.check    = right_key,
	.witness  = lookup_put_last,
	.outcome  = "a lookup finds key 1, T3 deletes it meanwhile, and that "
		    "lookup's object_put is the last",
	.teardown = teardown,
	.bound    = 2,
};

/* Hint: A reader inside rcu_read_lock() still reads the object after the
 * unlink: objtable_delete() must unlink before it drops the table's
 * reference, and the free wait a grace period.
 */
RACE_SCENARIO(reader_vs_delete) = {
	.name     = "reader_vs_delete",
	.summary  = "a reader inside rcu_read_lock against objtable_delete: no "
		    "free before its grace period",
	.expect   = RACE_MUST_HOLD,
	.setup    = setup_plain,
	RACE_THREADS(peek_key1, delete_key1),
	.check    = right_key,
	.witness  = read_after_unlink,
	.outcome  = "T1 reads the object inside its read-side section after "
		    "T2 unlinked it",
	.teardown = teardown,
	.bound    = 2,
};
