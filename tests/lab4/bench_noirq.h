/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_noirq.h - forced (-include) into one of make bench-lab4's builds of
 * lab 4's refcount.c: local_irq_save/restore become nothing, so that the
 * benchmark can show the bucket lock's own price apart from the kit's
 * "interrupts off" (a per-thread count, common/irqflags.c; on a CPU, cli
 * and sti cost a few cycles).  Never graded, never correct with interrupts.
 */
#ifndef LAB4_BENCH_NOIRQ_H
#define LAB4_BENCH_NOIRQ_H

#include "irqflags.h"

#undef local_irq_save
#undef local_irq_restore
#define local_irq_save(flags)		((flags) = 0)
#define local_irq_restore(flags)	((void)(flags))

#endif /* LAB4_BENCH_NOIRQ_H */
