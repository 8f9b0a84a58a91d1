// SPDX-License-Identifier: GPL-2.0
/*
 * file_given_refcount.c - the benchmark's hashlock build of lab 5's
 * file_given.c: the same file, with fput()'s decrement through lab 4's
 * refcount_put() (file_refcount.h has the gets).
 *
 * In file_given.c the file count's only read-modify-write is fput()'s
 * atomic_dec_return(&file->f_count).  Here it is refcount_put(), which
 * says whether the count reached 0, not its value: fput() sees 0 for the
 * last put and 1 otherwise (lab 4's put does not report a count below 0;
 * the benchmark's final check of every count and of every free does).
 * Every other read-modify-write of an atomic_t is refused at compile time
 * in this file, so that a change to file_given.c's counting cannot leave
 * one count under two locks (lab 4's "mixing") without this build saying
 * so.  file_read()'s atomic_add_return on f_pos is not the count.
 */
#include "file_refcount.h"

static inline int file_put_ref(atomic_t *count)
{
	return refcount_put(file_ref(count)) ? 0 : 1;
}

#define BENCH_REFUSED(op) ({ _Static_assert(0, op " on an atomic_t in "	\
	"file_given.c: tests/bench/file_given_refcount.c must route it "	\
	"through lab 4's refcount_t"); 0; })

#undef atomic_dec_return
#define atomic_dec_return(v)	file_put_ref(v)
#undef atomic_inc
#define atomic_inc(v)		BENCH_REFUSED("atomic_inc")
#undef atomic_dec
#define atomic_dec(v)		BENCH_REFUSED("atomic_dec")
#undef atomic_inc_return
#define atomic_inc_return(v)	BENCH_REFUSED("atomic_inc_return")
#undef atomic_dec_and_test
#define atomic_dec_and_test(v)	BENCH_REFUSED("atomic_dec_and_test")
#undef atomic_inc_not_zero
#define atomic_inc_not_zero(v)	BENCH_REFUSED("atomic_inc_not_zero")
#undef atomic_cmpxchg
#define atomic_cmpxchg(v, o, n)	BENCH_REFUSED("atomic_cmpxchg")

#include "file_given.c"
