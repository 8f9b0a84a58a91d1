/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_run.h - one run of make bench: a variant of the fd table, a
 * workload, a number of reader threads; its answers checked (bench_run.c).
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stdbool.h>

#include "bench_ops.h"

#define BENCH_MAX_THREADS	16
#define BENCH_BLOCK		4096	/* bytes a read asks for: tiobench's default */
#define BENCH_FILE_SIZE		(1 << 20)	/* bytes of each reader's file */

/**
 * struct variant - a way of looking an fd up
 * @ops:   the build whose functions it calls
 * @light: fget_light() on a table of its own per thread (one user: no
 *         reference, no lock, the no-refcount limit); otherwise fget() on
 *         one table that every thread shares, as a threaded process does
 * @what:  one line for the legend
 * @lab4:  it runs lab 4's refcount.c too, not only lab 5's code
 */
struct variant {
	const char *name;
	const struct bench_ops *ops;
	bool light;
	const char *what;
	bool lab4;
};

/**
 * struct workload - what each reader does, again and again
 * @one_fd: every reader looks up fd 0 (one file, one count); otherwise
 *          reader i looks up fd i (a file and a count each)
 * @read:   after the lookup, pread BENCH_BLOCK bytes of the file and check
 *          them (tiobench-like); otherwise only the lookup and the put
 * @random: the offsets are random blocks; otherwise sequential, wrapping
 * @writer: one more thread opens and closes fds, and now and then grows
 *          the table, all the while (read-mostly: it pauses between
 *          updates)
 */
struct workload {
	const char *name;
	bool one_fd, read, random, writer;
	const char *what;
};

/**
 * struct run_spec - one run
 * @seconds: how long the readers run; 0: @ops lookups each (the smoke
 *           test: no timing, every answer still checked)
 */
struct run_spec {
	const struct variant *v;
	const struct workload *w;
	int threads;
	double seconds;
	long ops;
	const char *impl;	/* for messages: the tree under test */
	const char *others;	/* for messages: the variants that need lab 5 only */
};

/** struct run_result - lookups done by all readers, over @seconds */
struct run_result {
	long ops;
	double seconds;
};

/** bench_init - fill the files' contents; once, before any run */
void bench_init(void);

/**
 * bench_run - run @spec and check every answer
 *
 * Checks, while it runs: every lookup returns the file installed at that
 * fd (never NULL, never another), fget_light() on a single-user table
 * takes no reference, every read returns BENCH_BLOCK bytes that are the
 * file's at that offset, the writer's updates return what their contracts
 * say; at the end: every fd holds what it held before (the writer's fds
 * are empty again), every file's count is the number of tables that hold
 * it, nothing WARNed, and once the tables are put and the callbacks have
 * run, every object allocated was freed exactly once (a second free is a
 * BUG at once).  A failed check ends the process with a message naming
 * the variant, the workload and what was wrong: a benchmark of a wrong
 * table measures nothing.
 */
void bench_run(const struct run_spec *spec, struct run_result *res);

#endif /* BENCH_RUN_H */
