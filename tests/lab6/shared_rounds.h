/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shared_rounds.h - the lab-6 workload that both the Criterion stress test
 * (test_stress.c) and the TSan program (tsan_rcuref.c) run: the mark-dead
 * race for real, round after round.
 *
 * In each round an object with one reference, the owner's, is published
 * under RCU; the owner unpublishes it and drops its reference while the
 * other threads find it under rcu_read_lock(), take a reference if they
 * can, read it and drop it.  The put that returns true frees the object
 * through call_rcu().  Bounded (a fixed number of rounds, no sleeps);
 * workers never assert: the result counts what went wrong.
 */
#ifndef LAB6_SHARED_ROUNDS_H
#define LAB6_SHARED_ROUNDS_H

struct rounds_result {
	long releases;		/* puts that returned true: one per object */
	long objects;		/* objects the rounds made */
	long not_dead;		/* objects freed with a count other than DEAD */
};

/**
 * run_rounds - @rounds rounds of one owner and @readers readers (at most
 * 8); every object is freed (rcu_barrier) before it returns
 *
 * The calling thread must be registered with RCU.
 */
struct rounds_result run_rounds(int readers, int rounds);

#endif /* LAB6_SHARED_ROUNDS_H */
