// SPDX-License-Identifier: GPL-2.0
/*
 * ops.c - the kernel's primitives, as a litmus test's process calls them.
 *
 * Every primitive common/ has is made with common/'s own macro
 * (READ_ONCE, smp_store_release, rcu_dereference, atomic_inc_return,
 * cmpxchg, spin_lock, synchronize_rcu, ...): the reproducer sees exactly
 * what it sees of a lab's code.  The kernel's forms common/ does not have
 * -- the _relaxed/_acquire/_release variants, atomic_xchg, the bitwise
 * atomics, spin_is_locked as a load, the smp_mb__*() fences -- are made
 * here as common/atomic.h makes its own: race_access() with the RACE_*
 * flags of the ordering the kernel promises (Documentation/atomic_t.txt),
 * the access, race_seen().  smp_mb__before_atomic() and
 * smp_mb__after_atomic() are full fences; tools/litmus_parse.py accepts
 * them only right before (after) an atomic read-modify-write, where the
 * kernel's fence orders what a full fence there orders.
 *
 * A step's label is "<family>.<primitive>", the family being the function
 * of this file that makes it: memory.READ_ONCE, atomic.inc_return (common/'s
 * own name of the update), lock.spin_lock, order.smp_mb.
 */
#include <stdio.h>

#include "atomic.h"
#include "barrier.h"
#include "litmus/litmus.h"
#include "race_hooks.h"
#include "rcupdate.h"
#include "rwonce.h"
#include "spinlock.h"

/* What a primitive does, beyond its name. */
enum fam {
	F_PLAIN_LOAD, F_PLAIN_STORE,
	F_READ_ONCE, F_WRITE_ONCE, F_LOAD_ACQUIRE, F_STORE_RELEASE, F_STORE_MB,
	F_DEREF, F_ASSIGN, F_XCHG, F_CMPXCHG,
	F_MB, F_WMB, F_RMB, F_BARRIER, F_MB_BEFORE_ATOMIC, F_MB_AFTER_ATOMIC,
	F_MB_AFTER_SPINLOCK,
	F_LOCK, F_UNLOCK, F_TRYLOCK, F_IS_LOCKED,
	F_RCU_LOCK, F_RCU_UNLOCK, F_SYNC_RCU,
	F_A_READ, F_A_READ_ACQ, F_A_SET, F_A_SET_REL, F_A_ADD_UNLESS,
	F_A_INC_NOT_ZERO, F_A_OP, F_A_RETURN, F_A_FETCH, F_A_XCHG, F_A_CMPXCHG,
	F_A_INC_AND_TEST, F_A_DEC_AND_TEST, F_A_SUB_AND_TEST, F_A_ADD_NEGATIVE,
};

enum aop { A_NONE, A_ADD, A_SUB, A_AND, A_OR, A_XOR, A_INC, A_DEC };
enum order { O_FULL, O_RELAXED, O_ACQUIRE, O_RELEASE };

struct prim_impl {
	enum fam fam;
	enum aop aop;
	enum order order;
};

#define I	LITMUS_INT
#define A	LITMUS_ATOMIC
#define L	LITMUS_LOCK
#define N	(-1)

#define PRIM(name, nargs, kind, ptr)	{ name, nargs, kind, ptr }
#define ORDERED(name, nargs, ptr)					\
	PRIM(name, nargs, A, ptr), PRIM(name "_relaxed", nargs, A, ptr),	\
	PRIM(name "_acquire", nargs, A, ptr), PRIM(name "_release", nargs, A, ptr)
#define S(fam)	{ fam, A_NONE, O_FULL }
#define ORDERED_IMPL(fam, aop)						\
	{ fam, aop, O_FULL }, { fam, aop, O_RELAXED },			\
	{ fam, aop, O_ACQUIRE }, { fam, aop, O_RELEASE }

/* The primitives, in one order with impl[] below. */
const struct litmus_prim litmus_prims[] = {
	PRIM("__plain_load", 1, I, 0), PRIM("__plain_store", 2, I, 0),
	PRIM("READ_ONCE", 1, I, 0), PRIM("WRITE_ONCE", 2, I, 0),
	PRIM("smp_load_acquire", 1, I, 0), PRIM("smp_store_release", 2, I, 0),
	PRIM("smp_store_mb", 2, I, 0),
	PRIM("rcu_dereference", 1, I, 0), PRIM("rcu_assign_pointer", 2, I, 0),
	PRIM("xchg", 2, I, 0), PRIM("xchg_relaxed", 2, I, 0),
	PRIM("xchg_acquire", 2, I, 0), PRIM("xchg_release", 2, I, 0),
	PRIM("cmpxchg", 3, I, 0), PRIM("cmpxchg_relaxed", 3, I, 0),
	PRIM("cmpxchg_acquire", 3, I, 0), PRIM("cmpxchg_release", 3, I, 0),
	PRIM("smp_mb", 0, N, N), PRIM("smp_wmb", 0, N, N), PRIM("smp_rmb", 0, N, N),
	PRIM("barrier", 0, N, N), PRIM("smp_mb__before_atomic", 0, N, N),
	PRIM("smp_mb__after_atomic", 0, N, N), PRIM("smp_mb__after_spinlock", 0, N, N),
	PRIM("spin_lock", 1, L, 0), PRIM("spin_unlock", 1, L, 0),
	PRIM("spin_trylock", 1, L, 0), PRIM("spin_is_locked", 1, L, 0),
	PRIM("rcu_read_lock", 0, N, N), PRIM("rcu_read_unlock", 0, N, N),
	PRIM("synchronize_rcu", 0, N, N),
	PRIM("atomic_read", 1, A, 0), PRIM("atomic_read_acquire", 1, A, 0),
	PRIM("atomic_set", 2, A, 0), PRIM("atomic_set_release", 2, A, 0),
	PRIM("atomic_add_unless", 3, A, 0), PRIM("atomic_inc_not_zero", 1, A, 0),
	PRIM("atomic_add", 2, A, 1), PRIM("atomic_sub", 2, A, 1),
	PRIM("atomic_and", 2, A, 1), PRIM("atomic_or", 2, A, 1),
	PRIM("atomic_xor", 2, A, 1), PRIM("atomic_inc", 1, A, 0),
	PRIM("atomic_dec", 1, A, 0),
	ORDERED("atomic_add_return", 2, 1), ORDERED("atomic_sub_return", 2, 1),
	ORDERED("atomic_inc_return", 1, 0), ORDERED("atomic_dec_return", 1, 0),
	ORDERED("atomic_fetch_add", 2, 1), ORDERED("atomic_fetch_sub", 2, 1),
	ORDERED("atomic_fetch_and", 2, 1), ORDERED("atomic_fetch_or", 2, 1),
	ORDERED("atomic_fetch_xor", 2, 1), ORDERED("atomic_fetch_inc", 1, 0),
	ORDERED("atomic_fetch_dec", 1, 0),
	ORDERED("atomic_xchg", 2, 0), ORDERED("atomic_cmpxchg", 3, 0),
	PRIM("atomic_inc_and_test", 1, A, 0), PRIM("atomic_dec_and_test", 1, A, 0),
	PRIM("atomic_sub_and_test", 2, A, 1), PRIM("atomic_add_negative", 2, A, 1),
};

static const struct prim_impl impl[] = {
	S(F_PLAIN_LOAD), S(F_PLAIN_STORE),
	S(F_READ_ONCE), S(F_WRITE_ONCE), S(F_LOAD_ACQUIRE), S(F_STORE_RELEASE),
	S(F_STORE_MB), S(F_DEREF), S(F_ASSIGN),
	{ F_XCHG, A_NONE, O_FULL }, { F_XCHG, A_NONE, O_RELAXED },
	{ F_XCHG, A_NONE, O_ACQUIRE }, { F_XCHG, A_NONE, O_RELEASE },
	{ F_CMPXCHG, A_NONE, O_FULL }, { F_CMPXCHG, A_NONE, O_RELAXED },
	{ F_CMPXCHG, A_NONE, O_ACQUIRE }, { F_CMPXCHG, A_NONE, O_RELEASE },
	S(F_MB), S(F_WMB), S(F_RMB), S(F_BARRIER), S(F_MB_BEFORE_ATOMIC),
	S(F_MB_AFTER_ATOMIC), S(F_MB_AFTER_SPINLOCK),
	S(F_LOCK), S(F_UNLOCK), S(F_TRYLOCK), S(F_IS_LOCKED),
	S(F_RCU_LOCK), S(F_RCU_UNLOCK), S(F_SYNC_RCU),
	S(F_A_READ), S(F_A_READ_ACQ), S(F_A_SET), S(F_A_SET_REL),
	S(F_A_ADD_UNLESS), S(F_A_INC_NOT_ZERO),
	{ F_A_OP, A_ADD, O_RELAXED }, { F_A_OP, A_SUB, O_RELAXED },
	{ F_A_OP, A_AND, O_RELAXED }, { F_A_OP, A_OR, O_RELAXED },
	{ F_A_OP, A_XOR, O_RELAXED }, { F_A_OP, A_INC, O_RELAXED },
	{ F_A_OP, A_DEC, O_RELAXED },
	ORDERED_IMPL(F_A_RETURN, A_ADD), ORDERED_IMPL(F_A_RETURN, A_SUB),
	ORDERED_IMPL(F_A_RETURN, A_INC), ORDERED_IMPL(F_A_RETURN, A_DEC),
	ORDERED_IMPL(F_A_FETCH, A_ADD), ORDERED_IMPL(F_A_FETCH, A_SUB),
	ORDERED_IMPL(F_A_FETCH, A_AND), ORDERED_IMPL(F_A_FETCH, A_OR),
	ORDERED_IMPL(F_A_FETCH, A_XOR), ORDERED_IMPL(F_A_FETCH, A_INC),
	ORDERED_IMPL(F_A_FETCH, A_DEC),
	ORDERED_IMPL(F_A_XCHG, A_NONE), ORDERED_IMPL(F_A_CMPXCHG, A_NONE),
	S(F_A_INC_AND_TEST), S(F_A_DEC_AND_TEST), S(F_A_SUB_AND_TEST),
	S(F_A_ADD_NEGATIVE),
};

_Static_assert(ARRAY_SIZE(litmus_prims) == ARRAY_SIZE(impl),
	       "litmus_prims[] and impl[] list the same primitives");

const int litmus_nr_prims = ARRAY_SIZE(litmus_prims);

static const unsigned int race_how[] = {
	[O_FULL] = RACE_FULL, [O_RELAXED] = RACE_RELAXED,
	[O_ACQUIRE] = RACE_ACQUIRE, [O_RELEASE] = RACE_RELEASE,
};

/*
 * A read-modify-write common/ has no macro for, made as common/atomic.h
 * makes one: a point with the ordering's flags, the update, the value.
 * @op is an __atomic_fetch_* or __atomic_exchange_n builtin.
 */
#define HOOK_RMW(fn, p, what, how, op, arg) ({			\
	__typeof__(*(p)) __old;						\
	race_access((fn), (what), (p), RACE_RMW | (how));		\
	__old = op((p), (arg), __ATOMIC_SEQ_CST);			\
	(long)(__typeof__(*(p)))race_seen((long)__old);			\
})

#define HOOK_CMPXCHG(fn, p, what, how, old, new) ({			\
	__typeof__(*(p)) __cur = (old);					\
	race_access((fn), (what), (p), RACE_RMW | (how));		\
	__atomic_compare_exchange_n((p), &__cur, (new), 0,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	(long)(__typeof__(*(p)))race_seen((long)__cur);			\
})

/* The old value of @aop applied to *@p with @d, ordered as @how says. */
static long fetch_op(int *p, enum aop aop, long d, const char *what,
		     unsigned int how)
{
	switch (aop) {
	case A_INC:
		d = 1;
		/* fall through */
	case A_ADD:
		return HOOK_RMW("atomic", p, what, how, __atomic_fetch_add, (int)d);
	case A_DEC:
		d = 1;
		/* fall through */
	case A_SUB:
		return HOOK_RMW("atomic", p, what, how, __atomic_fetch_sub, (int)d);
	case A_AND:
		return HOOK_RMW("atomic", p, what, how, __atomic_fetch_and, (int)d);
	case A_OR:
		return HOOK_RMW("atomic", p, what, how, __atomic_fetch_or, (int)d);
	default:
		return HOOK_RMW("atomic", p, what, how, __atomic_fetch_xor, (int)d);
	}
}

/* What @aop makes of @old with @d. */
static long apply(enum aop aop, long old, long d)
{
	switch (aop) {
	case A_ADD: return (int)(old + d);
	case A_SUB: return (int)(old - d);
	case A_AND: return old & d;
	case A_OR:  return old | d;
	case A_XOR: return old ^ d;
	case A_INC: return (int)(old + 1);
	default:    return (int)(old - 1);
	}
}

/* The update of atomic_*_return / atomic_fetch_*: the old value. */
static long atomic_update(atomic_t *v, const struct prim_impl *im, long d,
			  const char *what)
{
	int delta = im->aop == A_SUB || im->aop == A_DEC ? -1 : 1;

	if (im->aop == A_INC || im->aop == A_DEC)
		d = 1;
	if (im->order == O_FULL && (im->aop == A_ADD || im->aop == A_SUB ||
				    im->aop == A_INC || im->aop == A_DEC))
		return atomic_add_return(delta * (int)d, v) - delta * (int)d;
	return fetch_op(&v->counter, im->aop, d, what, race_how[im->order]);
}

/* atomic_add_unless(v, a, u): add @a unless the counter is @u; 1 if it did. */
static long add_unless(atomic_t *v, int a, int u)
{
	int c = atomic_read(v);

	while (c != u) {
		int old = atomic_cmpxchg(v, c, c + a);

		if (old == c)
			return 1;
		c = old;
	}
	return 0;
}

/* The variable @addr is, if it is one of the kind @kind; else the verdict. */
static void *var_at(const struct litmus_mem *mem, long addr, int kind,
		    const char *prim, long line)
{
	static const char *const kinds[] = { "a plain location", "an atomic_t",
					     "a spinlock_t" };
	char msg[256];
	int i;

	for (i = 0; i < mem->prog->nr_vars; i++)
		if ((long)mem->obj[i] == addr)
			break;
	if (i == mem->prog->nr_vars)
		snprintf(msg, sizeof(msg), "line %ld: %s: %ld is no location's "
			 "address", line, prim, addr);
	else if ((int)mem->prog->vars[i].kind != kind)
		snprintf(msg, sizeof(msg), "line %ld: %s on %s, %s", line, prim,
			 mem->prog->vars[i].name, kinds[mem->prog->vars[i].kind]);
	else
		return mem->obj[i];
	race_report("litmus", msg);
	return NULL;
}

/*
 * A plain C access (*x = v, r = *x): what a compiled plain access is to
 * the weak model -- one load or store, RACE_PLAIN, unordered, which may
 * race -- made a scheduling point here, as every access of a test is.
 */
static long plain(long *x, const struct prim_impl *im, long v)
{
	if (im->fam == F_PLAIN_LOAD) {
		race_access("memory", "load", x, RACE_LOAD | RACE_PLAIN);
		return race_seen(*(volatile long *)x);
	}
	race_access("memory", "store", x, RACE_STORE | RACE_PLAIN);
	*(volatile long *)x = v;
	race_seen(v);
	return 0;
}

/* The primitives on a plain location (a long). */
static long memory(long *x, const struct prim_impl *im, const char *what,
		   const long *a)
{
	switch (im->fam) {
	case F_PLAIN_LOAD:
		return plain(x, im, 0);
	case F_PLAIN_STORE:
		return plain(x, im, a[1]);
	case F_READ_ONCE:
		return READ_ONCE(*x);
	case F_WRITE_ONCE:
		WRITE_ONCE(*x, a[1]);
		return 0;
	case F_LOAD_ACQUIRE:
		return smp_load_acquire(x);
	case F_STORE_RELEASE:
		smp_store_release(x, a[1]);
		return 0;
	case F_STORE_MB:
		WRITE_ONCE(*x, a[1]);
		smp_mb();
		return 0;
	case F_DEREF:
		return rcu_dereference(*x);
	case F_ASSIGN:
		rcu_assign_pointer(*x, a[1]);
		return 0;
	case F_XCHG:
		if (im->order == O_FULL)
			return xchg(x, a[1]);
		return HOOK_RMW("memory", x, what, race_how[im->order], __atomic_exchange_n, a[1]);
	default:
		if (im->order == O_FULL)
			return cmpxchg(x, a[1], a[2]);
		return HOOK_CMPXCHG("memory", x, what, race_how[im->order], a[1], a[2]);
	}
}

/* The primitives on an atomic_t; @d is the operand of those that take one. */
static long atomic(atomic_t *v, const struct prim_impl *im, const char *what,
		      const long *a, long d)
{
	switch (im->fam) {
	case F_A_READ:
		return atomic_read(v);
	case F_A_READ_ACQ:
		race_access(__func__, what, &v->counter, RACE_LOAD | RACE_ACQUIRE);
		return race_seen(__atomic_load_n(&v->counter, __ATOMIC_ACQUIRE));
	case F_A_SET:
		atomic_set(v, (int)a[1]);
		return 0;
	case F_A_SET_REL:
		race_access(__func__, what, &v->counter, RACE_STORE | RACE_RELEASE);
		__atomic_store_n(&v->counter, (int)a[1], __ATOMIC_RELEASE);
		race_seen((int)a[1]);
		return 0;
	case F_A_ADD_UNLESS:
		return add_unless(v, (int)a[1], (int)a[2]);
	case F_A_INC_NOT_ZERO:
		return atomic_inc_not_zero(v);
	case F_A_OP:
		if (im->aop == A_ADD || im->aop == A_INC)
			atomic_add(im->aop == A_INC ? 1 : (int)d, v);
		else if (im->aop == A_SUB || im->aop == A_DEC)
			atomic_sub(im->aop == A_DEC ? 1 : (int)d, v);
		else
			fetch_op(&v->counter, im->aop, d, what, RACE_RELAXED);
		return 0;
	case F_A_RETURN:
		return apply(im->aop, atomic_update(v, im, d, what), d);
	case F_A_FETCH:
		return atomic_update(v, im, d, what);
	case F_A_XCHG:
		return HOOK_RMW("atomic", &v->counter, what, race_how[im->order],
				__atomic_exchange_n, (int)a[1]);
	case F_A_CMPXCHG:
		if (im->order == O_FULL)
			return atomic_cmpxchg(v, (int)a[1], (int)a[2]);
		return HOOK_CMPXCHG("atomic", &v->counter, what, race_how[im->order],
				    (int)a[1], (int)a[2]);
	case F_A_INC_AND_TEST:
		return atomic_inc_return(v) == 0;
	case F_A_DEC_AND_TEST:
		return atomic_dec_and_test(v);
	case F_A_SUB_AND_TEST:
		return atomic_add_return(-(int)d, v) == 0;
	default:
		return atomic_add_return((int)d, v) < 0;
	}
}

/* The primitives on a spinlock_t. */
static long lock(spinlock_t *l, const struct prim_impl *im, const char *what)
{
	switch (im->fam) {
	case F_LOCK:
		spin_lock(l);
		return 0;
	case F_UNLOCK:
		spin_unlock(l);
		return 0;
	case F_TRYLOCK:
		return spin_trylock(l);
	default:			/* spin_is_locked: a relaxed load */
		race_access(__func__, what, &l->locked, RACE_LOAD);
		return race_seen(__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) != 0;
	}
}

/* The fences and RCU: no location. */
static long order(const struct prim_impl *im, const char *what)
{
	switch (im->fam) {
	case F_MB:
		smp_mb();
		break;
	case F_WMB:
		smp_wmb();
		break;
	case F_RMB:
		smp_rmb();
		break;
	case F_BARRIER:
		barrier();
		break;
	case F_MB_BEFORE_ATOMIC:
	case F_MB_AFTER_ATOMIC:
	case F_MB_AFTER_SPINLOCK:
		race_fence(__func__, what, RACE_FULL);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		break;
	case F_RCU_LOCK:
		rcu_read_lock();
		break;
	case F_RCU_UNLOCK:
		rcu_read_unlock();
		break;
	default:
		synchronize_rcu();
		break;
	}
	return 0;
}

/**
 * litmus_call - perform primitive @n with argument values @args
 *
 * Its pointer argument must be the address of a variable of the kind the
 * primitive acts on; if not, the verdict "litmus" names the line.
 */
long litmus_call(const struct litmus_mem *mem, const struct litmus_node *n,
		 const long *args, long line)
{
	const struct litmus_prim *p = &litmus_prims[n->op];
	const struct prim_impl *im = &impl[n->op];
	long d = p->ptr == 1 ? args[0] : p->nargs > 1 ? args[1] : 0;
	void *obj;

	if (p->ptr < 0)
		return order(im, p->name);
	obj = var_at(mem, args[p->ptr], p->kind, p->name, line);
	if (p->kind == LITMUS_INT)
		return memory(obj, im, p->name, args);
	if (p->kind == LITMUS_LOCK)
		return lock(obj, im, p->name);
	return atomic(obj, im, p->name, args, d);
}
