// SPDX-License-Identifier: GPL-2.0
/*
 * no_cmpxchg.c - what common/atomic.h lets code use with CONFIG_NO_CMPXCHG
 * (a CPU without compare-and-exchange, lab 4).  Compiled only, by make
 * check (tools/check.py, "atomic.h: CONFIG_NO_CMPXCHG"):
 *
 *   -DCONFIG_NO_CMPXCHG               must compile: the operations that stay
 *   -DCONFIG_NO_CMPXCHG -DTRY_<op>    must fail, naming CONFIG_NO_CMPXCHG
 *   -DTRY_<op> without the flag       must compile
 */
#include "atomic.h"

int stays(atomic_t *v);
int stays(atomic_t *v)
{
	atomic_set(v, atomic_read(v));
	atomic_inc(v);
	atomic_dec(v);
	atomic_add(2, v);
	atomic_sub(2, v);
	return atomic_inc_return(v) + atomic_dec_return(v) +
	       atomic_add_return(1, v) + atomic_dec_and_test(v);
}

#ifdef TRY_cmpxchg
int try(int *p);
int try(int *p) { return cmpxchg(p, 1, 2); }
#endif
#ifdef TRY_xchg
int try(int *p);
int try(int *p) { return xchg(p, 1); }
#endif
#ifdef TRY_atomic_cmpxchg
int try(atomic_t *v);
int try(atomic_t *v) { return atomic_cmpxchg(v, 1, 2); }
#endif
#ifdef TRY_atomic_inc_not_zero
int try(atomic_t *v);
int try(atomic_t *v) { return atomic_inc_not_zero(v); }
#endif
