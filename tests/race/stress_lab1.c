// SPDX-License-Identifier: GPL-2.0
/*
 * stress_lab1.c - lab 1's race free running (stress.h): the scenario
 * lookup_unlocked_vs_remove on real cores.  Each iteration inserts key 1;
 * one side runs cache_lookup_unlocked() + cache_put(), the other
 * cache_remove().  The use of the freed object is ASan's to report.
 */
#include "cache.h"
#include "stress.h"

#define KEY	1

static void insert(void)
{
	cache_insert(KEY);
}

static void lookup_unlocked_put(void)
{
	struct cache_obj *obj = cache_lookup_unlocked(KEY);

	if (obj)
		cache_put(obj);
}

static void remove_key(void)
{
	cache_remove(KEY);
}

static const char *nothing(void)
{
	return NULL;
}

static void nothing_left(void)
{
}

static const struct stress lab1 = {
	.setup	 = insert,
	.sides	 = { lookup_unlocked_put, remove_key },
	.check	 = nothing,
	.cleanup = nothing_left,
};

int main(int argc, char **argv)
{
	int ret;

	cache_init();
	ret = stress_main(argc, argv, &lab1);
	cache_destroy();
	return ret;
}
