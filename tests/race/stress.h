/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress.h - a lab's canonical race run free on real cores: the peer the
 * reproducer is measured against (make bench-race).
 *
 *   stress_labN MAX_SECONDS
 *
 * The fair peer, not a naive one: the two racing sides run on their own
 * threads in a tight loop, lined up by a barrier at the start of every
 * iteration so that they overlap as much as they can; setup, check and
 * cleanup run alone between iterations.  The first iteration that goes
 * wrong stops the program: ASan or the slab poison (a crash) or the
 * race's check(), and "STRESS failed after N iterations in X ms" is
 * printed.  If nothing shows within MAX_SECONDS it prints "STRESS no
 * failure in N iterations in X ms" and exits 0.  Built with the ASan
 * variant (mk/build.mk), run by tools/bench_race.py.
 */
#ifndef KIT_TESTS_STRESS_H
#define KIT_TESTS_STRESS_H

/**
 * struct stress - one race, as iterations
 * @setup:   alone, before each iteration (insert the key, publish ...)
 * @sides:   the two racing sides, each on its own thread
 * @check:   alone, after both: NULL if the race did not show, else what
 *           went wrong
 * @cleanup: alone, after check (free what the iteration left)
 */
struct stress {
	void (*setup)(void);
	void (*sides[2])(void);
	const char *(*check)(void);
	void (*cleanup)(void);
};

int stress_main(int argc, char **argv, const struct stress *s);

#endif /* KIT_TESTS_STRESS_H */
