// SPDX-License-Identifier: GPL-2.0
/*
 * evidence.c - lines for the grader, and the lockdown (evidence.h).
 *
 * The lockdown is a seccomp filter (x86-64; elsewhere the process is only
 * made non-dumpable, and the evidence says "lockdown failed").  It
 * returns EPERM rather than killing, so that a sanitizer that tries to
 * start its symbolizer prints its report without names, and ENOSYS for
 * clone3 and openat2, so that the C library falls back to the calls the
 * filter can read.
 */
#define _GNU_SOURCE		/* CLONE_THREAD, CLONE_VM */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "evidence.h"
#include "race_hooks.h"

#define TOKEN_MAX	72

static struct {
	int locked;
	int fd;			/* the evidence file, once locked */
	char token[TOKEN_MAX];	/* the run's token, once read */
} lockdown = { .fd = -1 };

/*
 * The run's token.  The grader hands it over in a file of its drop
 * (KIT_EVIDENCE_TOKEN_FILE), which the first of the run's processes to
 * note evidence reads and removes -- the Criterion runner, a TSan program
 * -- before any code under test runs; it passes it on to the processes it
 * starts in KIT_EVIDENCE_TOKEN, which kit_lockdown() takes out again.
 */
static const char *evidence_token(void)
{
	const char *path, *env;
	ssize_t n = 0;
	int fd;

	if (lockdown.token[0] || lockdown.locked)
		return lockdown.token;
	env = getenv("KIT_EVIDENCE_TOKEN");
	if (env) {
		snprintf(lockdown.token, sizeof(lockdown.token), "%s", env);
		return lockdown.token;
	}
	path = getenv("KIT_EVIDENCE_TOKEN_FILE");
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, lockdown.token, sizeof(lockdown.token) - 1);
		close(fd);
		unlink(path);
	}
	lockdown.token[n > 0 ? n : 0] = 0;
	if (lockdown.token[0])
		setenv("KIT_EVIDENCE_TOKEN", lockdown.token, 1);
	return lockdown.token;
}

void kit_evidence(const char *fmt, ...)
{
	const char *path = getenv("KIT_EVIDENCE");
	const char *token = evidence_token();
	char line[512 + TOKEN_MAX];
	va_list ap;
	int fd, n, m;

	if (!path && lockdown.fd < 0)
		return;
	n = token && *token ? snprintf(line, TOKEN_MAX, "%s ", token) : 0;
	va_start(ap, fmt);
	m = vsnprintf(line + n, 512 - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	if (m > 512 - 2)
		m = 512 - 2;
	n += m;
	line[n++] = '\n';
	fd = lockdown.fd;
	if (fd < 0)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, n) != n)
		n = 0;		/* the grader sees the line missing */
	if (fd != lockdown.fd)
		close(fd);
}

#if defined(__x86_64__)

#define ARG_LO(i)	(offsetof(struct seccomp_data, args[i]))
#define RET(what)	BPF_STMT(BPF_RET | BPF_K, (what))
#define EPERM_RET	RET(SECCOMP_RET_ERRNO | EPERM)
#define ENOSYS_RET	RET(SECCOMP_RET_ERRNO | ENOSYS)
#define ALLOW		RET(SECCOMP_RET_ALLOW)
/* The call is @nr: answer EPERM.  (The accumulator holds the number.) */
#define REFUSE(nr)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), EPERM_RET
/* The call is @nr: EPERM if argument @arg has a bit of @bits, else allow. */
#define REFUSE_BITS(nr, arg, bits)					\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 4),		\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)),		\
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (bits), 0, 1),		\
	EPERM_RET, ALLOW
/* Opening for writing, creating, truncating. */
#define OPEN_WRITES	(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)

static struct sock_filter filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	RET(SECCOMP_RET_KILL_PROCESS),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),	/* x32 */
	EPERM_RET,
	/* other processes, new programs, new code */
	REFUSE(__NR_ptrace), REFUSE(__NR_process_vm_readv),
	REFUSE(__NR_process_vm_writev), REFUSE(__NR_kcmp),
	REFUSE(__NR_pidfd_open), REFUSE(__NR_pidfd_getfd),
	REFUSE(__NR_execve), REFUSE(__NR_execveat),
	REFUSE(__NR_fork), REFUSE(__NR_vfork), REFUSE(__NR_memfd_create),
	REFUSE(__NR_personality), REFUSE(__NR_modify_ldt),
	REFUSE(__NR_process_madvise),
	/* files: no new one, no change to the file system */
	REFUSE(__NR_creat), REFUSE(__NR_open_by_handle_at),
	REFUSE(__NR_name_to_handle_at), REFUSE(__NR_unlink), REFUSE(__NR_unlinkat),
	REFUSE(__NR_rename), REFUSE(__NR_renameat), REFUSE(__NR_renameat2),
	REFUSE(__NR_link), REFUSE(__NR_linkat), REFUSE(__NR_symlink),
	REFUSE(__NR_symlinkat), REFUSE(__NR_mkdir), REFUSE(__NR_mkdirat),
	REFUSE(__NR_rmdir), REFUSE(__NR_mknod), REFUSE(__NR_mknodat),
	REFUSE(__NR_truncate), REFUSE(__NR_ftruncate), REFUSE(__NR_fallocate),
	REFUSE(__NR_chmod), REFUSE(__NR_fchmod), REFUSE(__NR_fchmodat),
	REFUSE(__NR_chown), REFUSE(__NR_fchown), REFUSE(__NR_lchown),
	REFUSE(__NR_fchownat),
	/* the system */
	REFUSE(__NR_shmget), REFUSE(__NR_shmat), REFUSE(__NR_io_uring_setup),
	REFUSE(__NR_io_uring_enter), REFUSE(__NR_io_uring_register),
	REFUSE(__NR_userfaultfd), REFUSE(__NR_perf_event_open), REFUSE(__NR_bpf),
	REFUSE(__NR_mount), REFUSE(__NR_umount2), REFUSE(__NR_pivot_root),
	REFUSE(__NR_chroot), REFUSE(__NR_unshare), REFUSE(__NR_setns),
	REFUSE(__NR_fsopen), REFUSE(__NR_fsmount), REFUSE(__NR_fspick),
	REFUSE(__NR_move_mount), REFUSE(__NR_open_tree), REFUSE(__NR_keyctl),
	REFUSE(__NR_add_key), REFUSE(__NR_request_key),
	/* calls the C library replaces with ones the filter reads */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1), ENOSYS_RET,
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 0, 1), ENOSYS_RET,
	/* read their arguments */
	REFUSE_BITS(__NR_open, 1, OPEN_WRITES),
	REFUSE_BITS(__NR_openat, 2, OPEN_WRITES),
	REFUSE_BITS(__NR_mmap, 2, PROT_EXEC),
	REFUSE_BITS(__NR_mprotect, 2, PROT_EXEC),
	REFUSE_BITS(__NR_pkey_mprotect, 2, PROT_EXEC),
	/* a thread, or a task sharing this memory (LeakSanitizer's), only */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD | CLONE_VM, 1, 0),
	EPERM_RET,
	ALLOW,
	ALLOW,				/* every other call */
};

/* Install the filter on every thread of the process; 0 or -1. */
static int install_filter(void)
{
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0 ? 0 : -1;
}

#else

static int install_filter(void)
{
	errno = ENOSYS;
	return -1;
}

#endif /* __x86_64__ */

int kit_lockdown(void)
{
	const char *path = getenv("KIT_EVIDENCE");
	char *token;

	if (lockdown.locked || !getenv("KIT_LOCKDOWN"))
		return 0;
	evidence_token();
	token = getenv("KIT_EVIDENCE_TOKEN");
	if (token)
		memset(token, 0, strlen(token));	/* gone from /proc/self/environ */
	if (path)
		lockdown.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	lockdown.locked = 1;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || install_filter()) {
		kit_evidence("lockdown failed errno=%d", errno);
		return -1;
	}
	return 0;
}

int kit_locked_down(void)
{
	return lockdown.locked;
}

/*
 * LeakSanitizer stops every thread under ptrace to scan for leaks at exit;
 * the lockdown refuses ptrace.  A process that ran code under test has no
 * leak verdict to give (the kit's leak oracle is the slab's count), so
 * there LeakSanitizer stays off.  The sanitizer runtime calls this hook.
 */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return lockdown.locked;
}

/*
 * The race reproducer's search process is the fork of its parent that runs
 * the code under test; the parent writes the result.  So in the race
 * build, when graded, the search process locks down (race_hooks.h; in the
 * other builds there is none and this does nothing).
 */
static void lockdown_search_child(void)
{
	kit_lockdown();
}

static void __attribute__((constructor)) lockdown_search(void)
{
	if (getenv("KIT_LOCKDOWN"))
		race_on_search_child(lockdown_search_child);
}
