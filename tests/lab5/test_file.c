// SPDX-License-Identifier: GPL-2.0
/*
 * test_file.c - lab 5's given struct file and bit operations: what file.h
 * and bitops.h promise.  They are given code; these tests keep them honest
 * (and tell a student that a failure elsewhere is not theirs).
 */
#include <criterion/criterion.h>

#include "bitops.h"
#include "bug.h"
#include "file.h"
#include "shared_files.h"
#include "slab.h"

static void setup(void)
{
	rcu_register_thread();
	inodes_init();
	warn_reset();
}

static void teardown(void)
{
	rcu_unregister_thread();
}

static int freed(const void *p)
{
	struct slab_info info;

	return slab_lookup(p, &info) && info.freed;
}

TestSuite(file, .init = setup, .fini = teardown);

Test(file, alloc_file_holds_one_reference)
{
	struct file *a = alloc_file(&test_inodes[0]);
	struct file *b = alloc_file(&test_inodes[0]);

	cr_assert_eq(file_count(a), 1);
	cr_assert_neq(a->f_id, b->f_id);
	fput(a);
	fput(b);
	rcu_barrier();
	cr_assert(freed(a) && freed(b));
}

Test(file, get_file_and_fput)
{
	struct file *file = alloc_file(&test_inodes[1]);

	cr_assert_eq(get_file(file), file);
	cr_assert_eq(file_count(file), 2);
	fput(file);
	cr_assert_eq(file_count(file), 1);
	rcu_barrier();
	cr_assert_not(freed(file));
	fput(file);
	rcu_barrier();
	cr_assert(freed(file));
	cr_assert_eq(warn_count(), 0);
}

Test(file, get_file_from_zero_warns)
{
	struct file *file = alloc_file(&test_inodes[1]);

	rcu_read_lock();		/* keeps the file from being freed */
	fput(file);
	get_file(file);
	rcu_read_unlock();
	cr_assert_eq(warn_count(), 1, "an increment from 0 must WARN");
}

Test(file, get_file_rcu_never_increments_zero)
{
	struct file *file = alloc_file(&test_inodes[2]);

	cr_assert_eq(get_file_rcu(file), 1);
	cr_assert_eq(file_count(file), 2);
	fput(file);
	rcu_read_lock();
	fput(file);
	cr_assert_eq(get_file_rcu(file), 0);
	cr_assert_eq(file_count(file), 0);
	cr_assert_not(freed(file), "freed before the grace period");
	rcu_read_unlock();
	rcu_barrier();
	cr_assert(freed(file));
}

Test(file, fput_below_zero_warns)
{
	struct file *file = alloc_file(&test_inodes[3]);

	rcu_read_lock();
	fput(file);
	fput(file);
	rcu_read_unlock();
	cr_assert_eq(warn_count(), 1);
}

Test(file, reads)
{
	struct file *a = alloc_file(&test_inodes[4]);
	struct file *b = alloc_file(&test_inodes[4]);
	unsigned char buf[INODE_SIZE];

	cr_assert_eq(file_read(a, buf, 10), 10);
	cr_assert_eq(buf[0], INODE_BYTE(4, 0));
	cr_assert_eq(file_read(a, buf, 10), 10);
	cr_assert_eq(buf[0], INODE_BYTE(4, 10), "file_read advances the position");
	cr_assert_eq(file_read(b, buf, 1), 1);
	cr_assert_eq(buf[0], INODE_BYTE(4, 0), "each file has its own position");
	cr_assert_eq(file_pread(a, buf, 100, INODE_SIZE - 3), 3);
	cr_assert_eq(buf[2], INODE_BYTE(4, INODE_SIZE - 1));
	cr_assert_eq(file_pread(a, buf, 1, INODE_SIZE), 0);
	file_llseek(a, INODE_SIZE - 1);
	cr_assert_eq(file_read(a, buf, 8), 1);
	cr_assert_eq(file_read(a, buf, 8), 0, "at the end");
	cr_assert_eq(file_is_sane(a, 17), 4);
	fput(a);
	fput(b);
}

Test(bitops, set_clear_test)
{
	unsigned long map[BITS_TO_LONGS(130)] = { 0 };

	set_bit(0, map);
	set_bit(64, map);
	set_bit(129, map);
	cr_assert(test_bit(0, map) && test_bit(64, map) && test_bit(129, map));
	cr_assert_not(test_bit(1, map) || test_bit(63, map) || test_bit(128, map));
	clear_bit(64, map);
	cr_assert_not(test_bit(64, map));
	cr_assert(test_bit(129, map), "clear_bit touched another bit");
}

Test(bitops, find_bits)
{
	unsigned long map[BITS_TO_LONGS(130)] = { 0 }, copy[BITS_TO_LONGS(130)];

	cr_assert_eq(find_next_zero_bit(map, 130, 0), 0);
	cr_assert_eq(find_last_bit(map, 130), 130, "none set");
	for (int nr = 0; nr < 70; nr++)
		set_bit(nr, map);
	cr_assert_eq(find_next_zero_bit(map, 130, 0), 70);
	cr_assert_eq(find_next_zero_bit(map, 130, 100), 100);
	cr_assert_eq(find_next_zero_bit(map, 60, 3), 60, "none clear below size");
	set_bit(99, map);
	cr_assert_eq(find_last_bit(map, 130), 99);
	cr_assert_eq(find_last_bit(map, 80), 69);
	bitmap_copy(copy, map, 130);
	cr_assert(test_bit(99, copy) && test_bit(0, copy) && !test_bit(70, copy));
}
