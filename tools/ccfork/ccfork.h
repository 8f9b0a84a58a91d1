/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccfork.h - what the client (ccfork.c) sends the fork server
 * (ccfork_server.c) over its socket, and what it gets back.
 *
 * A request: struct ccfork_req, with the client's standard input, output
 * and error attached (SCM_RIGHTS), then len bytes: the working directory,
 * argc arguments and envc environment strings, each ending in a NUL.
 * The answer: one int, the compiler's exit status (128 + N if signal N
 * ended it).
 */
#ifndef CCFORK_H
#define CCFORK_H

#include <stdint.h>

struct ccfork_req {
	uint32_t len;		/* bytes of strings that follow */
	uint32_t argc;		/* arguments, the compiler's name first */
	uint32_t envc;		/* environment strings */
	uint32_t umask;		/* the client's */
};

#define CCFORK_MAX_LEN	(16u << 20)	/* a request larger than this is refused */

#endif /* CCFORK_H */
