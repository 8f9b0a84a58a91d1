// SPDX-License-Identifier: GPL-2.0
/*
 * ccfork_server.c - a fork server for the compiler: loaded once into clang
 * (LD_PRELOAD), it forks that loaded clang for every compile a client
 * (ccfork.c) asks for.
 *
 * A start of clang costs this VM about 70 ms of CPU before it reads a
 * line: the dynamic loader applies the relocations of libLLVM and
 * libclang-cpp, some 4,000 pages.  A fork of a clang that has done so
 * shares those pages; the child runs clang's main() with the client's
 * arguments, environment, working directory, umask and standard files,
 * so the compile is the one the client would have run itself.
 *
 * Started with CCFORK_SERVE=SOCKET in the environment of a compiler whose
 * main() this library then never runs in the server itself: the hook of
 * __libc_start_main keeps main() for the children and serves the socket
 * instead.  Without CCFORK_SERVE, the compiler runs as always.  The server
 * ends with its parent (PR_SET_PDEATHSIG).  make check's server compiles
 * the kit's own objects (tools/kit/ccfork.py); a grade starts one inside
 * its jail for the student's files (tools/kit/jailcc.py), whose limits
 * each compile inherits.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ccfork.h"

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
			void (*)(void), void *);

static main_fn compiler_main;

/* Read exactly @len bytes; 0 or -1. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Split @n NUL-ended strings off @*p (up to @end) into @v; NULL-ended. */
static int split(char **p, const char *end, char **v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (*p >= end)
			return -1;
		v[i] = *p;
		*p += strlen(*p) + 1;
	}
	v[n] = NULL;
	return 0;
}

/*
 * The compile itself, in a child: the client's files, directory, umask
 * and environment, then the compiler's main().  Never returns.
 */
static void __attribute__((noreturn))
run_compiler(const struct ccfork_req *rq, const int fds[3], char *cwd,
	     char **argv, char **envp)
{
	int i;

	for (i = 0; i < 3; i++)
		if (dup2(fds[i], i) < 0)
			_exit(127);
	if (chdir(cwd)) {
		perror("ccfork: chdir");
		_exit(127);
	}
	umask(rq->umask);
	clearenv();
	for (i = 0; envp[i]; i++)
		putenv(envp[i]);
	signal(SIGPIPE, SIG_DFL);
	exit(compiler_main(rq->argc, argv, environ));
}

/* The exit status to report: the compiler's, or 128 + its signal. */
static int status_of(int w)
{
	return WIFEXITED(w) ? WEXITSTATUS(w) : 128 + WTERMSIG(w);
}

/*
 * One client's request, in a process of its own: receive it, fork the
 * compile, answer its status.  A client that goes away (make interrupted)
 * takes its compile with it.
 */
static void __attribute__((noreturn)) serve_one(int conn)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))], *buf, *p, **argv, **envp;
	struct ccfork_req rq;
	struct iovec iov = { &rq, sizeof(rq) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	struct pollfd pf[2];
	int fds[3], w, pidfd;
	pid_t pid;

	signal(SIGCHLD, SIG_DFL);
	if (recvmsg(conn, &mh, MSG_WAITALL) != sizeof(rq) || rq.len > CCFORK_MAX_LEN ||
	    !rq.argc || !(cm = CMSG_FIRSTHDR(&mh)) || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(fds)))
		_exit(1);
	memcpy(fds, CMSG_DATA(cm), sizeof(fds));
	buf = calloc(rq.len + 1, 1);
	argv = calloc(rq.argc + 1, sizeof(*argv));
	envp = calloc(rq.envc + 1, sizeof(*envp));
	if (!buf || !argv || !envp || read_all(conn, buf, rq.len))
		_exit(1);
	p = buf + strlen(buf) + 1;
	if (split(&p, buf + rq.len, argv, rq.argc) ||
	    split(&p, buf + rq.len, envp, rq.envc))
		_exit(1);
	pid = fork();
	if (!pid)
		run_compiler(&rq, fds, buf, argv, envp);
	w = 127 << 8;
	pidfd = pid > 0 ? syscall(SYS_pidfd_open, pid, 0) : -1;
	pf[0] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = conn, .events = POLLIN };	/* EOF: gone */
	while (pidfd >= 0 && poll(pf, 2, -1) >= 0 && !pf[0].revents) {
		if (pf[1].revents) {
			kill(pid, SIGKILL);
			break;
		}
	}
	if (pid > 0)
		while (waitpid(pid, &w, 0) < 0 && errno == EINTR)
			;
	w = status_of(w);
	(void)!write(conn, &w, sizeof(w));
	_exit(0);
}

/* Reap the request processes that ended (so that their CPU time, and
 * their compiles', counts in the server's children's: make check's
 * figures). */
static void reap(int sig)
{
	int e = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = e;
}

/*
 * Serve @path until the parent dies: a process per request.  The socket
 * is bound under another name and renamed to @path once it listens: a
 * client that waits for @path to exist (kit/jailcc.py) never connects
 * between bind() and listen(), which refuses it.
 */
static int serve(const char *path)
{
	struct sigaction sa = { .sa_handler = reap, .sa_flags = SA_RESTART };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s, c;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (strlen(path) + 2 >= sizeof(a.sun_path)) {
		fprintf(stderr, "ccfork: socket path too long: %s\n", path);
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s~", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(a.sun_path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 64) ||
	    rename(a.sun_path, path)) {
		perror("ccfork: serve");
		return 2;
	}
	for (;;) {
		c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("ccfork: accept");
			return 2;
		}
		if (!fork()) {
			close(s);
			serve_one(c);
		}
		close(c);
	}
}

/* main() of the compiler, or the server where CCFORK_SERVE says so. */
static int hooked_main(int argc, char **argv, char **envp)
{
	const char *path = getenv("CCFORK_SERVE");
	char *copy;

	if (!path || !*path)
		return compiler_main(argc, argv, envp);
	copy = strdup(path);
	unsetenv("CCFORK_SERVE");
	unsetenv("LD_PRELOAD");
	return serve(copy);
}

/**
 * __libc_start_main - the C library's start of the program, hooked: keeps
 * the compiler's main() for the children and starts hooked_main() instead
 */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	start_fn next = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");

	compiler_main = main;
	return next(hooked_main, argc, argv, init, fini, rtld_fini, stack_end);
}
