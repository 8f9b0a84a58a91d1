// SPDX-License-Identifier: GPL-2.0
/*
 * random.c - the search's random numbers, and the strategy that picks a
 * uniformly random runnable thread at every step.
 *
 * The baseline the other strategies are measured against: it needs no
 * state, and finds shallow bugs in long executions poorly (every step is a
 * coin flip, so staying with one thread for m steps has probability 2^-m
 * with two threads).  Under the weak memory model a load reads a uniformly
 * random one of the stores it may read.
 */
#include "race/explore/strategy.h"

static unsigned long long rng;

/** race_random_seed - restart the search's random numbers from @seed */
void race_random_seed(unsigned long seed)
{
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
}

/* xorshift64*: a small, fixed generator, so that a seed means one thing */
static unsigned long long next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/** race_random_below - a uniform number in [0, @n); @n > 0 */
long race_random_below(long n)
{
	return (long)(next_random() % (unsigned long long)n);
}

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
