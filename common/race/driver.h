/* SPDX-License-Identifier: GPL-2.0 */
/*
 * driver.h - the search child (driver.c), seen from the command line.
 */
#ifndef KIT_RACE_DRIVER_H
#define KIT_RACE_DRIVER_H

void race_shared_map(long cap_steps);
int race_search(void);

#endif /* KIT_RACE_DRIVER_H */
