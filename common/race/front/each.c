// SPDX-License-Identifier: GPL-2.0
/*
 * each.c - race run-each PREFIX TIMEOUT [--first-failure] SCENARIO...:
 * several runs from one start of the binary.
 *
 * The grader runs every scenario of a lab; a start of the binary (its
 * sanitizer's set-up, and the jail it runs in) costs more than a small
 * scenario's search.  So each scenario's run is a process forked from
 * this one -- a fresh copy of the options parsed and of the scenarios
 * loaded, as a start of its own would have -- one after the other:
 *
 *   PREFIX.<i>.out     what run i printed (stdout and stderr)
 *   PREFIX.<i>.result  its --result file
 *
 * i counting from 0 in the order given, and on this process's own output
 * a line "run-each <i> exit N", "run-each <i> signal N" or "run-each <i>
 * timeout": how run i ended.  That line is the one thing the code under
 * test cannot write: a run's output is its file, not this process's, and
 * this process is not dumpable (no other may open its files through
 * /proc or trace it).  A run still going after TIMEOUT seconds is killed
 * with every process it started (its own group); with a TIMEOUT of 0,
 * every run is, at once (none ends within no time, however fast: whether
 * it had ended when first looked at would depend on the machine's load).
 * With --first-failure,
 * no run starts after one that did not exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "race/front/front.h"

/* @prefix.@i.@what into @buf. */
static const char *each_path(char *buf, size_t len, const char *prefix, int i,
			     const char *what)
{
	snprintf(buf, len, "%s.%d.%s", prefix, i, what);
	return buf;
}

/* The child's side: output into PREFIX.<i>.out, then @run; never returns. */
static void __noreturn each_child(const char *prefix, int i, const char *name,
				  int (*run)(const char *name, const char *result),
				  const sigset_t *old)
{
	char out[4096], result[4096];
	int fd;

	setpgid(0, 0);
	sigprocmask(SIG_SETMASK, old, NULL);
	fd = open(each_path(out, sizeof(out), prefix, i, "out"),
		  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(2);
	close(fd);
	exit(run(name, each_path(result, sizeof(result), prefix, i, "result")));
}

/* Kill @pid and its group, and reap it into @status: -1, "timeout". */
static int each_kill(pid_t pid, int *status)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/* Wait for @pid at most @timeout_s seconds (SIGCHLD blocked); its status
 * in @status, or -1 once it and its group were killed for the time. */
static int each_wait(pid_t pid, long timeout_s, int *status)
{
	struct timespec end, now, left;
	sigset_t chld;

	if (timeout_s <= 0)
		return each_kill(pid, status);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_s;
	while (waitpid(pid, status, WNOHANG) != pid) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return each_kill(pid, status);
		sigtimedwait(&chld, NULL, &left);
	}
	return 0;
}

/* How run @i ended, on this process's output. */
static void each_status(int i, int waited, int status)
{
	if (waited < 0)
		printf("run-each %d timeout\n", i);
	else if (WIFSIGNALED(status))
		printf("run-each %d signal %d\n", i, WTERMSIG(status));
	else
		printf("run-each %d exit %d\n", i, WEXITSTATUS(status));
	fflush(stdout);
}

/**
 * race_run_each - @run each of the @nr scenarios @names, each in a process
 * forked from this one, one after the other (the top of this file)
 * @prefix:    where the files of each run go
 * @timeout_s: seconds a run may take, with the processes it starts
 * @first_failure: none after a run that did not exit 0
 * @run:       a run of scenario @name writing its result file @result;
 *             returns the exit status (main.c's `race run`)
 *
 * Returns 0 once the runs have ended, 2 if a process cannot be started.
 */
int race_run_each(const char *prefix, char **names, int nr, long timeout_s,
		  bool first_failure,
		  int (*run)(const char *name, const char *result))
{
	sigset_t chld, old;
	int i, status = 0, waited;
	pid_t pid;

	prctl(PR_SET_DUMPABLE, 0);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	for (i = 0; i < nr; i++) {
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			perror("race: fork");
			return 2;
		}
		if (!pid)
			each_child(prefix, i, names[i], run, &old);
		setpgid(pid, pid);
		waited = each_wait(pid, timeout_s, &status);
		each_status(i, waited, status);
		if (first_failure && (waited < 0 || !WIFEXITED(status) ||
				      WEXITSTATUS(status)))
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}
