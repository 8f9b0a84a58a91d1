// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - lab 5, several threads on one table: readers fget and
 * read at random fds while writers open, close, dup2, fork and grow the
 * table (shared_workload.c).  Bounded, no sleeps.  Under ASan a read of a
 * freed file or array is a use-after-free report; in the plain build the
 * slab's poison makes the file fail its check.
 *
 * Checked at the end: every file read was a file, every fork's copy held
 * its files, nothing warned, and after rcu_barrier() every object the slab
 * handed out was freed exactly once (a second free is a BUG at once).
 */
#include <criterion/criterion.h>

#include "bug.h"
#include "rcupdate.h"
#include "shared_workload.h"
#include "slab.h"

/* Hint: Lock-free fget()/fget_light() readers against opens, closes, dup2,
 * forks and growths: the message above names the first WARN or bad read. Run
 * the race scenarios (make race-5), whose timelines show one interleaving at
 * a time.
 */
Test(stress, readers_vs_writers_growing_tables)
{
	static const struct workload w = { .rounds = 8, .reads = 50000, .writes = 12000 };
	long live0, failures;

	rcu_register_thread();
	warn_set_quiet(0);
	warn_reset();
	live0 = slab_objects_live();
	failures = run_workload(&w);
	rcu_barrier();
	cr_assert_eq(failures, 0, "%ld failures: a read through a file that "
		     "is not one (freed?), or a fork copy without its files",
		     failures);
	cr_assert_eq(warn_count(), 0, "a WARN fired (see its message above)");
	cr_assert_eq(slab_objects_live(), live0, "%ld object(s) never freed",
		     slab_objects_live() - live0);
	rcu_unregister_thread();
}
