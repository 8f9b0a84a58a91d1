/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evidence.h - lines for the grader, in a file the grader chose.
 *
 * A graded run gets KIT_EVIDENCE, a fresh path no one else knows (the
 * grader's drop, tools/kit/sandbox.py).  The kit's own code notes there
 * what the grader must not take from the program's output: the tests that
 * ran to their end (tests/criterion_evidence.c), a BUG the primitives
 * caught (bug.c).  Lab code has no business here: the grader's pre-build
 * check refuses a student's file that calls kit_evidence().
 */
#ifndef KIT_EVIDENCE_H
#define KIT_EVIDENCE_H

#include "compiler.h"

/**
 * kit_evidence - append one line to the file KIT_EVIDENCE names
 *
 * One write() to a file opened O_APPEND: lines of concurrent processes do
 * not mix.  Does nothing when KIT_EVIDENCE is not set, or on any error (the
 * grader then misses the line and says so).  Lines longer than 500 bytes
 * are cut.
 */
void kit_evidence(const char *fmt, ...) __printf(1, 2);

#endif /* KIT_EVIDENCE_H */
