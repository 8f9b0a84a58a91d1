// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - the options of the search or replay at hand, as the command
 * line (front/main.c), a replay or a generated scenario set them.
 */
#include "race/explore/strategy.h"

struct race_options race_opt;
