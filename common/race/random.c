// SPDX-License-Identifier: GPL-2.0
/*
 * random.c - a uniformly random runnable thread at every step.
 *
 * The baseline the other strategies are measured against: it needs no
 * state, and finds shallow bugs in long executions poorly (every step is a
 * coin flip, so staying with one thread for m steps has probability 2^-m
 * with two threads).  Under the weak memory model a load reads a uniformly
 * random one of the stores it may read.
 */
#include "race/strategy.h"

static void random_init(void)
{
}

static bool random_begin(void)
{
	return true;
}

static int random_pick(const struct race_choice *c)
{
	return c->nr == 1 ? 0 : race_random_below(c->nr);
}

/* A uniformly random store among those the load may read. */
static int random_pick_read(const struct race_read *r)
{
	return race_random_below(r->nr);
}

static void random_describe(char *buf, size_t len)
{
	snprintf(buf, len, "random seed=%lu", race_opt.seed);
}

const struct race_strategy race_random = {
	.name		= "random",
	.init		= random_init,
	.begin		= random_begin,
	.pick		= random_pick,
	.pick_read	= random_pick_read,
	.describe	= random_describe,
};
