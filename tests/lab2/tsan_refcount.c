// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_refcount.c - lab 2 under ThreadSanitizer (a plain program: Criterion
 * aborts under TSan).
 *
 *   tsan_refcount --list     one line per case: "<case> clean|race"
 *   tsan_refcount <case>     a bounded stress of that case; exits 0, or 1
 *                            if a final count is wrong
 *
 * The grader runs each case with TSAN_OPTIONS=exitcode=66 and calls it
 * "race" iff ThreadSanitizer reported one.  Every case here must be clean:
 * refcount_t is built on atomics only, and the objects it frees are freed
 * after every other holder's last access in happens-before order.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bug.h"
#include "refcount.h"
#include "rwonce.h"
#include "slab.h"
#include "spinlock.h"
#include "shared_workload.h"
#include "tsan_case.h"

static int expect(const char *what, long got, long want)
{
	if (got == want)
		return 0;
	fprintf(stderr, "%s: %ld, expected %ld\n", what, got, want);
	return 1;
}

static int case_get_put(const struct tsan_case *c __maybe_unused)
{
	refcount_init(&shared);
	run_threads(get_put);
	return expect("count", refcount_read(&shared), 1);
}

static int case_get_rcu(const struct tsan_case *c __maybe_unused)
{
	refcount_init(&shared);
	run_threads(get_rcu_put);
	return expect("count", refcount_read(&shared), 1) |
	       expect("failed get_rcu on a held count", worker_failures, 0);
}

static int case_put_and_lock(const struct tsan_case *c __maybe_unused)
{
	int bad;

	slot_open();
	run_threads(slot_user);
	bad = expect("objects live", slab_objects_live(), 0) |
	      expect("warnings", warn_count(), 0);
	slot_close();
	return bad;
}

static const struct tsan_case cases[] = {
	/* Hint: TSan saw the counter touched by a plain access, or (lab 4) an
	 * update outside its bucket lock: reach it only through
	 * common/atomic.h. Exit 1 means the case's own checks failed: pass
	 * the unit tests first.
	 */
	{ "get_put",		"clean", case_get_put, NULL },
	/* Hint: refcount_get_rcu() must read and update the counter only
	 * through common/atomic.h (lab 4: under its bucket lock). Exit 1:
	 * pass the unit tests first.
	 */
	{ "get_rcu",		"clean", case_get_rcu, NULL },
	/* Hint: refcount_put_and_lock() must use the lock only through
	 * common/spinlock.h and the count only through common/atomic.h. Exit
	 * 1: pass the put_and_lock unit tests first.
	 */
	{ "put_and_lock",	"clean", case_put_and_lock, NULL },
};

int main(int argc, char **argv)
{
	workload_rounds = TSAN_ITERATIONS;
	return tsan_case_main(argc, argv, cases, ARRAY_SIZE(cases));
}
