// SPDX-License-Identifier: GPL-2.0
/*
 * shared_files.c - see shared_files.h.
 */
#include <pthread.h>
#include <stdint.h>

#include "shared_files.h"

struct inode test_inodes[TEST_INODES];
static unsigned char inode_data[TEST_INODES][INODE_SIZE];
static pthread_once_t inodes_once = PTHREAD_ONCE_INIT;

static void fill_inodes(void)
{
	for (int i = 0; i < TEST_INODES; i++) {
		for (int pos = 0; pos < INODE_SIZE; pos++)
			inode_data[i][pos] = INODE_BYTE(i, pos);
		test_inodes[i].i_ino = i;
		test_inodes[i].i_size = INODE_SIZE;
		test_inodes[i].i_data = inode_data[i];
	}
}

void inodes_init(void)
{
	pthread_once(&inodes_once, fill_inodes);
}

int open_inode(struct files_struct *files, unsigned int ino)
{
	struct file *file;
	int fd = get_unused_fd(files);

	if (fd < 0)
		return fd;
	file = alloc_file(&test_inodes[ino % TEST_INODES]);
	if (!file) {
		put_unused_fd(files, fd);
		return -1;
	}
	fd_install(files, fd, file);
	return fd;
}

int file_is_sane(struct file *file, size_t pos)
{
	unsigned char buf[16];
	uintptr_t at = (uintptr_t)file->f_inode, base = (uintptr_t)test_inodes;
	long ino;
	ssize_t n;

	if (at < base || at >= base + sizeof(test_inodes) ||
	    (at - base) % sizeof(struct inode))
		return -1;
	ino = (at - base) / sizeof(struct inode);
	n = file_pread(file, buf, sizeof(buf), pos % INODE_SIZE);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] != INODE_BYTE(ino, pos % INODE_SIZE + i))
			return -1;
	return n > 0 ? (int)ino : -1;
}
