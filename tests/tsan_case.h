/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsan_case.h - the command line every TSan program of the kit shares.
 *
 * Criterion aborts under ThreadSanitizer (Criterion#274), so each TSan run
 * is a plain program with named cases:
 *
 *   prog --list     one line per case: "<name> clean|race", the verdict
 *                   TSan must give it
 *   prog <name>     run that case (a bounded stress) and exit with its
 *                   status: 0 when it ran to the end, 1 when the code under
 *                   test failed the case's own checks, 2 on a usage error
 *
 * The grader (tools/kit/tsan.py) runs each case with TSAN_OPTIONS=exitcode=66
 * and compares TSan's verdict with the listed one.  A case that returns
 * notes "case NAME done status=S" in the grader's evidence file
 * (common/evidence.h): a process that exits 0 before the case has ended is
 * not a clean run.
 */
#ifndef KIT_TSAN_CASE_H
#define KIT_TSAN_CASE_H

#include <stddef.h>

struct tsan_case {
	const char *name;
	const char *verdict;			/* "clean" or "race" */
	int (*run)(const struct tsan_case *c);	/* the case's exit status */
	const void *arg;			/* what run() varies on */
};

/**
 * tsan_case_main - list the cases, or run the one named by argv[1]
 *
 * Returns the exit status for main(): see above.
 */
int tsan_case_main(int argc, char **argv, const struct tsan_case *cases,
		   size_t nr_cases);

#endif /* KIT_TSAN_CASE_H */
