/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shared_files.h - lab 5 test helpers that the Criterion tests and the
 * TSan program share: inodes whose every byte is known, opening a file at
 * the lowest fd, and checking that a file read through the table is the
 * file it claims to be.
 */
#ifndef LAB5_SHARED_FILES_H
#define LAB5_SHARED_FILES_H

#include "fdtable.h"

#define TEST_INODES	8
#define INODE_SIZE	256

/* Byte @pos of inode @ino: every inode's contents differ. */
#define INODE_BYTE(ino, pos)	((unsigned char)((ino) * 37 + (pos) * 7 + 1))

extern struct inode test_inodes[TEST_INODES];

/** inodes_init - fill test_inodes[] (idempotent) */
void inodes_init(void);

/**
 * open_inode - alloc_file(test_inodes[@ino]) at the lowest free fd of @files
 *
 * Returns the fd, or a negative errno (nothing allocated then).
 */
int open_inode(struct files_struct *files, unsigned int ino);

/**
 * file_is_sane - whether @file reads as a file of test_inodes[]: its inode
 * is one of them, and a pread at @pos returns that inode's bytes
 *
 * Returns the inode's index, or -1.  The caller holds a reference.
 */
int file_is_sane(struct file *file, size_t pos);

#endif /* LAB5_SHARED_FILES_H */
