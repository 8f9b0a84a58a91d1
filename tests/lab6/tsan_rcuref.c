// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_rcuref.c - lab 6 under ThreadSanitizer, on the real liburcu backend
 * (a plain program: Criterion aborts under TSan).
 *
 *   tsan_rcuref --list     one line per case: "<case> clean|race"
 *   tsan_rcuref <case>     a bounded stress of that case; exits 0, or 1 if
 *                          the lab code fails a check: a single-threaded
 *                          sanity run first (so a do-nothing rcuref fails
 *                          every case), and the end-of-run checks
 *
 * The grader runs each case with TSAN_OPTIONS=exitcode=66 and calls it
 * "race" iff ThreadSanitizer reported one.  rcuref_put's preempt_disable()
 * is a read-side section of liburcu here (common/preempt.h), and
 * common/rcupdate.c tells TSan what a grace period orders: a put that
 * frees through call_rcu() after its last access is clean.
 *
 *   get_put         threads take and drop references on one count that
 *                   keeps its owner's: clean, and the count ends at 1
 *   last_put        round after round, the owner's last put against two
 *                   readers' get and put (the mark-dead race, for real):
 *                   clean, one release per object, each freed at DEAD
 *   lookup_delete   the table: lookups and puts against deletes and
 *                   inserts: clean, nothing left, nothing WARNed
 *   free_before_gp  the same with this file's broken delete, which frees
 *                   at once: must be reported (TSan sees the kit's RCU)
 */
#include <pthread.h>
#include <stdio.h>

#include "bug.h"
#include "objtable.h"
#include "rcupdate.h"
#include "rcuref.h"
#include "rwonce.h"
#include "shared_rounds.h"
#include "slab.h"
#include "tsan_case.h"

#define NR_THREADS	2
#define PAIRS		20000
#define ROUNDS		400
#define NR_KEYS		4
#define READS		20000
#define WRITES		2000
#define SANITY_KEY	100

static int fail(const char *what)
{
	fprintf(stderr, "tsan_rcuref: %s\n", what);
	return 1;
}

/* Single-threaded: does the count work at all?  0 if so. */
static int count_sane(void)
{
	rcuref_t r;

	rcuref_init(&r, 1);
	if (!rcuref_get(&r) || rcuref_read(&r) != 2)
		return fail("sanity: rcuref_get does not take a reference");
	if (rcuref_put(&r) || !rcuref_put(&r))
		return fail("sanity: only the last rcuref_put may return true");
	if (rcuref_get(&r))
		return fail("sanity: rcuref_get succeeds on a dead count");
	return 0;
}

/* --- get_put ------------------------------------------------------------------- */

static rcuref_t shared;
static long bad;

static void *pairs(void *arg __maybe_unused)
{
	rcu_register_thread();
	for (int i = 0; i < PAIRS; i++) {
		if (!rcuref_get(&shared) || rcuref_put(&shared))
			__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
	}
	rcu_unregister_thread();
	return NULL;
}

static int case_get_put(const struct tsan_case *c __maybe_unused)
{
	pthread_t tid[NR_THREADS];
	int i;

	if (count_sane())
		return 1;
	rcuref_init(&shared, 1);
	for (i = 0; i < NR_THREADS; i++)
		pthread_create(&tid[i], NULL, pairs, NULL);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);
	if (bad || rcuref_read(&shared) != 1)
		return fail("get_put: a get failed, a put returned true, or the "
			    "count did not end at 1");
	return 0;
}

/* --- last_put ------------------------------------------------------------------ */

static int case_last_put(const struct tsan_case *c __maybe_unused)
{
	struct rounds_result r;

	if (count_sane())
		return 1;
	r = run_rounds(NR_THREADS, ROUNDS);
	if (r.releases != r.objects || r.not_dead || warn_count()) {
		fprintf(stderr, "tsan_rcuref: last_put: %ld releases for %ld "
			"objects, %ld freed not DEAD, %lu warnings\n", r.releases,
			r.objects, r.not_dead, warn_count());
		return 1;
	}
	return 0;
}

/* --- the table ------------------------------------------------------------------ */

static struct objtable *t;
static long wrong_keys;

static int table_sane(void)
{
	struct object *obj;

	if (objtable_insert(t, SANITY_KEY))
		return fail("sanity: objtable_insert failed");
	obj = objtable_lookup(t, SANITY_KEY);
	if (!obj || READ_ONCE(obj->key) != SANITY_KEY)
		return fail("sanity: the lookup does not find an inserted key");
	if (rcuref_read(&obj->ref) != 2)
		return fail("sanity: the lookup did not take a reference");
	if (object_put(obj))
		return fail("sanity: object_put freed an object the table holds");
	if (objtable_delete(t, SANITY_KEY))
		return fail("sanity: objtable_delete does not find an inserted key");
	if (objtable_lookup(t, SANITY_KEY))
		return fail("sanity: the lookup finds a deleted key");
	return 0;
}

static void lookup_put(int key)
{
	struct object *obj = objtable_lookup(t, key);

	if (!obj)
		return;
	if (READ_ONCE(obj->key) != key)
		__atomic_add_fetch(&wrong_keys, 1, __ATOMIC_RELAXED);
	object_put(obj);
}

/* A reader that reads the first object without taking a reference. */
static void peek_head(int key __maybe_unused)
{
	struct object *obj;

	rcu_read_lock();
	obj = rcu_dereference(t->head);
	if (obj)
		(void)READ_ONCE(obj->key);
	rcu_read_unlock();
}

static void delete_key(int key)
{
	objtable_delete(t, key);
}

/* BROKEN ON PURPOSE: unlink, and free at once if that was the last put. */
static void delete_key_free_now(int key)
{
	struct object *obj = objtable_unlink(t, key);

	if (obj && rcuref_put(&obj->ref))
		object_free(obj);
}

static void (*read_op)(int key);
static void (*delete_op)(int key);

static void *reader(void *arg)
{
	unsigned int key = (unsigned int)(long)arg;

	rcu_register_thread();
	for (int i = 0; i < READS; i++)
		read_op((key += 3) % NR_KEYS);
	rcu_unregister_thread();
	return NULL;
}

static void *writer(void *arg __maybe_unused)
{
	rcu_register_thread();
	for (int i = 0; i < WRITES; i++) {
		delete_op(i % NR_KEYS);
		objtable_insert(t, i % NR_KEYS);
	}
	rcu_unregister_thread();
	return NULL;
}

static int run_table(void (*reader_op)(int), void (*writer_op)(int))
{
	pthread_t tid[NR_THREADS + 1];
	long i;

	t = objtable_create();
	if (!t)
		return fail("objtable_create failed");
	if (table_sane())
		return 1;
	read_op = reader_op;
	delete_op = writer_op;
	for (i = 0; i < NR_KEYS; i++)
		objtable_insert(t, i);
	for (i = 0; i <= NR_THREADS; i++)
		pthread_create(&tid[i], NULL, i < NR_THREADS ? reader : writer,
			       (void *)i);
	for (i = 0; i <= NR_THREADS; i++)
		pthread_join(tid[i], NULL);
	objtable_destroy(t);
	if (wrong_keys || slab_objects_live() || warn_count()) {
		fprintf(stderr, "tsan_rcuref: wrong keys %ld, objects live %ld, "
			"warnings %lu\n", wrong_keys, slab_objects_live(), warn_count());
		return 1;
	}
	return 0;
}

static int case_lookup_delete(const struct tsan_case *c __maybe_unused)
{
	return run_table(lookup_put, delete_key);
}

static int case_free_before_gp(const struct tsan_case *c __maybe_unused)
{
	/* The verdict is TSan's report; the run's own checks must pass. */
	return run_table(peek_head, delete_key_free_now);
}

static const struct tsan_case cases[] = {
	/* Hint: TSan must see no race on gets and puts of one count: every
	 * access to the count goes through the kit's atomics. Exit 1: the
	 * sanity run or the final count failed; pass the unit tests first.
	 */
	{ "get_put",		"clean", case_get_put, NULL },
	/* Hint: The owner's last put against readers must be clean: the free
	 * comes only after the put that returned true, through call_rcu() (the
	 * handout's "The ordering argument"). Exit 1: an end-of-run check
	 * failed; pass the unit tests first.
	 */
	{ "last_put",		"clean", case_last_put, NULL },
	/* Hint: The table under TSan: objtable_lookup() and object_put()
	 * against the given delete and insert must be clean. A report usually
	 * means a free without call_rcu() or a lookup outside its read-side
	 * section.
	 */
	{ "lookup_delete",	"clean", case_lookup_delete, NULL },
	/* Hint: This case must race: the file's own broken delete frees at
	 * once. If it exits 1, make lookup_delete pass first.
	 */
	{ "free_before_gp",	"race",  case_free_before_gp, NULL },
};

int main(int argc, char **argv)
{
	rcu_register_thread();		/* puts and objtable_destroy() use RCU */
	return tsan_case_main(argc, argv, cases, ARRAY_SIZE(cases));
}
