/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evidence.h - lines for the grader, in a file the grader chose, and the
 * walls around the code under test.
 *
 * A graded run gets KIT_EVIDENCE, a fresh path no one else knows (the
 * grader's drop, tools/kit/sandbox.py), and KIT_EVIDENCE_TOKEN, a secret
 * of that run.  The kit's own code notes there what the grader must not
 * take from the program's output: the tests that ran to their end
 * (tests/criterion_evidence.c), a BUG the primitives caught (bug.c).  Each
 * line starts with the token; the grader ignores, and reports as SUSPECT,
 * a line without it.  Lab code has no business here: the grader's
 * pre-build check refuses a student's file that calls kit_evidence().
 *
 * Before the first instruction of the code under test runs in a graded
 * process, the kit's harness calls kit_lockdown() (the Criterion worker,
 * the TSan case, the race reproducer's search process).
 */
#ifndef KIT_EVIDENCE_H
#define KIT_EVIDENCE_H

#include "compiler.h"

/**
 * kit_evidence - append one line to the file KIT_EVIDENCE names
 *
 * One write() to a file opened O_APPEND: lines of concurrent processes do
 * not mix.  The line starts with the run's token.  Does nothing when
 * KIT_EVIDENCE is not set, or on any error (the grader then misses the
 * line and says so).  Lines longer than 500 bytes are cut.
 */
void kit_evidence(const char *fmt, ...) __printf(1, 2);

/**
 * kit_lockdown - what this process may do from here on, when graded
 *
 * Only when KIT_LOCKDOWN is set (the grader sets it; the kit's other tools
 * do not).  Keeps the evidence file open and the token in this process
 * only (it is taken out of the environment), makes the process not
 * dumpable (no other process of the run may read or write its memory),
 * and installs a seccomp filter, on every thread, that refuses with EPERM:
 * opening a file for writing or creating one, every change to the file
 * system, new processes (a clone without CLONE_THREAD or CLONE_VM),
 * execve, ptrace, another process's memory, executable mappings,
 * System V shared memory, io_uring, memfd, namespaces and mounts (no
 * network: the jail has none).  Threads, the
 * primitives, liburcu and the sanitizers' reports still work.
 *
 * Returns 0 (locked, or not graded), or -1 when the kernel refused the
 * filter (noted in the evidence: "lockdown failed").  Once per process.
 */
int kit_lockdown(void);

/**
 * kit_locked_down - whether kit_lockdown() installed its filter here
 */
int kit_locked_down(void);

#endif /* KIT_EVIDENCE_H */
