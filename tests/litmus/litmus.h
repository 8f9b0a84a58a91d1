/* SPDX-License-Identifier: GPL-2.0 */
/*
 * litmus.h - how tests/litmus/ declares a litmus shape as a race scenario.
 *
 * Every shape runs under the weak memory model and is exhausted: its bound
 * is higher than any shape has steps.  A "Sometimes" shape is a must-fail
 * whose check() names the outcome; a "Never" shape is a must-hold whose
 * check() names the forbidden outcome and whose witness shows that the
 * threads communicated.  @threads is a parenthesized list, T1 first; what
 * follows it are more fields (.teardown = ...).
 */
#ifndef KIT_TESTS_LITMUS_H
#define KIT_TESTS_LITMUS_H

#include "race/scenario.h"

#define LITMUS_BOUND	8

#define LITMUS_SOMETIMES(id, what, setup_, check_, threads, ...)	\
	RACE_SCENARIO(id) = {						\
		.name = #id, .summary = what, .expect = RACE_MUST_FAIL,	\
		.verdict = "check", .setup = setup_, .check = check_,	\
		RACE_THREADS threads, .bound = LITMUS_BOUND,		\
		.memory = RACE_MEMORY_WEAK, __VA_ARGS__ }

#define LITMUS_NEVER(id, what, setup_, check_, threads, witness_,	\
		     outcome_, ...)					\
	RACE_SCENARIO(id) = {						\
		.name = #id, .summary = what, .expect = RACE_MUST_HOLD,	\
		.setup = setup_, .check = check_, RACE_THREADS threads,	\
		.witness = witness_, .outcome = outcome_,		\
		.bound = LITMUS_BOUND, .memory = RACE_MEMORY_WEAK,	\
		__VA_ARGS__ }

#endif /* KIT_TESTS_LITMUS_H */
