/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shared_workload.h - the lab 5 workload that both the Criterion stress
 * test (test_stress.c) and the TSan program (tsan_fdtable.c) run.
 *
 * Rounds of: a fresh table with PREOPEN files (it grows again, from 8 fds
 * to 32, while the workers run), NR_READERS readers that fget or
 * fget_light random fds, read through the file and check every byte,
 * and NR_WRITERS writers that open, close, dup2 (onto open fds too), flip
 * close-on-exec flags and fork (dup_files) the table.  Every thread is a user of the table; whoever
 * puts it last frees it.
 *
 * Bounded: fixed iteration counts, nothing sleeps, nothing depends on
 * timing.  Workers never assert: they count what went wrong in
 * workload_failures, and the caller checks it, the slab's live objects and
 * the WARN count once every round has ended.
 */
#ifndef LAB5_SHARED_WORKLOAD_H
#define LAB5_SHARED_WORKLOAD_H

#define NR_READERS	2
#define NR_WRITERS	2
#define FD_SPAN		24	/* fds the workers use: the table grows to 32 */
#define PREOPEN		6	/* files open when the workers start */

/**
 * struct workload - how much of it to run
 * @rounds:  fresh tables, one after the other
 * @reads:   fget + read + fput per reader per round
 * @writes:  updates per writer per round
 */
struct workload {
	int rounds, reads, writes;
};

extern long workload_failures;

/**
 * run_workload - run @w's rounds; returns the number of failures seen
 *
 * A failure: a file read through the table that is not a file of
 * test_inodes[] (freed or garbage), a dup_files copy that does not hold
 * its files, or a lab call that returned what its contract excludes.
 * The caller registers with RCU first and checks slab_objects_live() and
 * warn_count() afterwards (after rcu_barrier()).
 */
long run_workload(const struct workload *w);

#endif /* LAB5_SHARED_WORKLOAD_H */
