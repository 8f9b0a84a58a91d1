/* SPDX-License-Identifier: GPL-2.0 */
/*
 * criterion_evidence.h - the grader's evidence of each test
 * (criterion_evidence.c), called from the kit's hooks (criterion_timeout.c).
 */
#ifndef KIT_CRITERION_EVIDENCE_H
#define KIT_CRITERION_EVIDENCE_H

#include <criterion/criterion.h>
#include <criterion/hooks.h>

/**
 * evidence_declare - note every test of @set, and arrange that each notes
 * its own end (in the runner, before any test runs)
 */
void evidence_declare(struct criterion_test_set *set);

/**
 * evidence_outcome - note what the runner saw of one test (in the runner,
 * after the test)
 */
void evidence_outcome(const struct criterion_test_stats *stats);

#endif /* KIT_CRITERION_EVIDENCE_H */
