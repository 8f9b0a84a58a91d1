/* SPDX-License-Identifier: GPL-2.0 */
/*
 * poison.h - the byte patterns the slab writes, as in the kernel's
 * include/linux/poison.h.
 */
#ifndef KIT_POISON_H
#define KIT_POISON_H

/* Every byte of a freed object. */
#define POISON_FREE	0x6b
/* A freed int-sized counter reads as this. */
#define POISON_FREE_INT	0x6b6b6b6bu
/* Every byte of a fresh object before its constructor runs. */
#define POISON_INUSE	0x5a

#endif /* KIT_POISON_H */
