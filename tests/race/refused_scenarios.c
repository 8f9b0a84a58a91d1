// SPDX-License-Identifier: GPL-2.0
/*
 * refused_scenarios.c - scenarios the race binary must refuse to run.
 *
 * Not part of any lab or of the self-test binary: tests/race/test_race.py
 * builds a race binary of this file alone and checks that every command
 * exits 2 with one line per scenario below, naming its file and line.
 *
 *   fails_anyhow     must-fail without .verdict: any failure would count
 *   demo_anyhow      a demo without .verdict: the same
 *   holds_blindly    must-hold without .witness/.outcome: could be vacuous
 *   holds_and_fails  must-hold with a .verdict: contradicts itself
 *   lonely           one thread: nothing to interleave
 */
#include "race/scenario.h"
#include "rwonce.h"

static int x;

static void poke(void)
{
	WRITE_ONCE(x, 1);
}

RACE_SCENARIO(fails_anyhow) = {
	.name = "fails_anyhow",
	.expect = RACE_MUST_FAIL,
	RACE_THREADS(poke, poke),
};

RACE_SCENARIO(demo_anyhow) = {
	.name = "demo_anyhow",
	.expect = RACE_DEMO,
	RACE_THREADS(poke, poke),
};

RACE_SCENARIO(holds_blindly) = {
	.name = "holds_blindly",
	.expect = RACE_MUST_HOLD,
	RACE_THREADS(poke, poke),
};

RACE_SCENARIO(holds_and_fails) = {
	.name = "holds_and_fails",
	.expect = RACE_MUST_HOLD,
	.verdict = "check",
	RACE_THREADS(poke, poke),
};

RACE_SCENARIO(lonely) = {
	.name = "lonely",
	.expect = RACE_MUST_FAIL,
	.verdict = "check",
	RACE_THREADS(poke),
};
