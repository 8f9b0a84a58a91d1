// SPDX-License-Identifier: GPL-2.0
/*
 * ccfork.c - run a compile through the fork server of ccfork_server.c:
 *
 *   ccfork CC ARG...
 *
 * runs CC ARG... as the server's fork of an already loaded CC where the
 * environment names a server for CC (CCFORK_SOCKET, CCFORK_CC: set by
 * tools/kit/ccfork.py for make check), and exits with its status.
 * Anywhere else -- another compiler, no server, a server that does not
 * answer -- it runs CC ARG... itself: the build never depends on it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ccfork.h"

extern char **environ;

/* Append @s and its NUL at @buf + @at (NULL: only count); the new end. */
static size_t put(char *buf, size_t at, const char *s)
{
	size_t n = strlen(s) + 1;

	if (buf)
		memcpy(buf + at, s, n);
	return at + n;
}

/* The strings of a request (ccfork.h) into @buf (NULL: only count). */
static size_t strings(char *buf, const char *cwd, int argc, char **argv,
		      uint32_t *envc)
{
	size_t n = put(buf, 0, cwd);
	int i;

	for (i = 0; i < argc; i++)
		n = put(buf, n, argv[i]);
	for (i = 0; environ[i]; i++)
		n = put(buf, n, environ[i]);
	*envc = i;
	return n;
}

/* Connect to the server of @cc, or -1. */
static int server_for(const char *cc)
{
	const char *path = getenv("CCFORK_SOCKET"), *served = getenv("CCFORK_CC");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s;

	if (!path || !served || strcmp(served, cc) || strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a))) {
		close(s);
		return -1;
	}
	return s;
}

/* Send the request of @argc arguments @argv; 0 or -1. */
static int request(int s, int argc, char **argv)
{
	int fds[3] = { 0, 1, 2 };
	char cbuf[CMSG_SPACE(sizeof(fds))], cwd[4096], *buf;
	struct ccfork_req rq = { .argc = argc };
	struct iovec iov = { &rq, sizeof(rq) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	size_t n;

	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	n = strings(NULL, cwd, argc, argv, &rq.envc);
	buf = n <= CCFORK_MAX_LEN ? malloc(n) : NULL;
	if (!buf)
		return -1;
	strings(buf, cwd, argc, argv, &rq.envc);
	rq.len = n;
	rq.umask = umask(0);
	umask(rq.umask);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	if (sendmsg(s, &mh, 0) != sizeof(rq) || write(s, buf, n) != (ssize_t)n)
		n = 0;
	free(buf);
	return n ? 0 : -1;
}

int main(int argc, char **argv)
{
	int s, status;

	if (argc < 2) {
		fprintf(stderr, "usage: ccfork CC [ARG...]\n");
		return 2;
	}
	s = server_for(argv[1]);
	if (s >= 0 && !request(s, argc - 1, argv + 1)) {
		if (read(s, &status, sizeof(status)) == sizeof(status))
			return status;
		fprintf(stderr, "ccfork: the server of %s did not answer\n", argv[1]);
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
