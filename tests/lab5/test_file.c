// SPDX-License-Identifier: GPL-2.0
/*
 * test_file.c - lab 5's given struct file and bit operations: what file.h
 * and bitops.h promise.  They are given code; these tests keep them honest
 * (and tell a student that a failure elsewhere is not theirs).
 */
#include <pthread.h>

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

	cr_assert_eq(file_count(a), 1, "alloc_file must start the count at 1");
	cr_assert_neq(a->f_id, b->f_id, "two files must have two ids");
	fput(a);
	fput(b);
	rcu_barrier();
	cr_assert(freed(a) && freed(b), "the last fput must free each file after the grace period");
}

Test(file, get_file_and_fput)
{
	struct file *file = alloc_file(&test_inodes[1]);

	cr_assert_eq(get_file(file), file, "get_file must return its argument");
	cr_assert_eq(file_count(file), 2, "get_file on a count of 1 must give 2");
	fput(file);
	cr_assert_eq(file_count(file), 1, "fput must drop exactly one reference");
	rcu_barrier();
	cr_assert_not(freed(file), "a file with a reference left must not be freed");
	fput(file);
	rcu_barrier();
	cr_assert(freed(file), "the last fput must free the file after the grace period");
	cr_assert_eq(warn_count(), 0, "gets and puts of a live file must not WARN");
}

Test(file, get_file_from_zero_warns)
{
	struct file *file = alloc_file(&test_inodes[1]);

	refcount_unwatch(&file->f_count);	/* the WARN's test, not 0 is final's */
	rcu_read_lock();		/* keeps the file from being freed */
	fput(file);
	get_file(file);
	rcu_read_unlock();
	cr_assert_eq(warn_count(), 1, "an increment from 0 must WARN");
}

Test(file, get_file_rcu_never_increments_zero)
{
	struct file *file = alloc_file(&test_inodes[2]);

	cr_assert_eq(get_file_rcu(file), 1,
		     "get_file_rcu on a count of 1 must return 1 (a reference taken)");
	cr_assert_eq(file_count(file), 2, "get_file_rcu on a count of 1 must give 2");
	fput(file);
	rcu_read_lock();
	fput(file);
	cr_assert_eq(get_file_rcu(file), 0, "get_file_rcu on a count of 0 must return 0");
	cr_assert_eq(file_count(file), 0, "get_file_rcu must never increment a count of 0");
	cr_assert_not(freed(file), "freed before the grace period");
	rcu_read_unlock();
	rcu_barrier();
	cr_assert(freed(file), "the file must be freed after the grace period");
}

Test(file, count_reaching_zero_twice_warns_and_frees_once)
{
	struct file *file = alloc_file(&test_inodes[3]);

	refcount_unwatch(&file->f_count);	/* the WARNs' test, not 0 is final's */
	rcu_read_lock();
	fput(file);		/* 0: the free is queued */
	get_file(file);		/* from 0: WARN */
	fput(file);		/* 0 again: WARN, nothing queued */
	rcu_read_unlock();
	rcu_barrier();
	cr_assert_eq(warn_count(), 2, "an increment from 0 and a second fall to 0 must each WARN");
	cr_assert(freed(file), "freed once, by the first queueing");
}

Test(file, fput_below_zero_warns)
{
	struct file *file = alloc_file(&test_inodes[3]);

	rcu_read_lock();
	fput(file);
	fput(file);
	rcu_read_unlock();
	cr_assert_eq(warn_count(), 1, "an fput below 0 must WARN once");
}

Test(file, reads)
{
	struct file *a = alloc_file(&test_inodes[4]);
	struct file *b = alloc_file(&test_inodes[4]);
	unsigned char buf[INODE_SIZE];

	cr_assert_eq(file_read(a, buf, 10), 10, "file_read of 10 bytes from the start must read 10");
	cr_assert_eq(buf[0], INODE_BYTE(4, 0),
		     "file_read must read the inode's bytes from the start");
	cr_assert_eq(file_read(a, buf, 10), 10, "a second file_read of 10 bytes must read 10");
	cr_assert_eq(buf[0], INODE_BYTE(4, 10), "file_read advances the position");
	cr_assert_eq(file_read(b, buf, 1), 1, "file_read of 1 byte must read 1");
	cr_assert_eq(buf[0], INODE_BYTE(4, 0), "each file has its own position");
	cr_assert_eq(file_pread(a, buf, 100, INODE_SIZE - 3), 3,
		     "file_pread 3 bytes before the end must read 3");
	cr_assert_eq(buf[2], INODE_BYTE(4, INODE_SIZE - 1),
		     "file_pread must read the inode's last byte");
	cr_assert_eq(file_pread(a, buf, 1, INODE_SIZE), 0, "file_pread at the end must read 0");
	file_llseek(a, INODE_SIZE - 1);
	cr_assert_eq(file_read(a, buf, 8), 1, "file_read 1 byte before the end must read 1");
	cr_assert_eq(file_read(a, buf, 8), 0, "at the end");
	cr_assert_eq(file_is_sane(a, 17), 4, "file_is_sane must find the file of inode 4 intact");
	fput(a);
	fput(b);
}

static struct file *shared_file;

/* One byte at a time until the end: file_read hands out each byte once. */
static void *read_bytes(void *arg)
{
	long *got = arg;
	unsigned char c;

	while (file_read(shared_file, &c, 1) == 1)
		(*got)++;
	return NULL;
}

Test(file, concurrent_reads_split_the_file)
{
	pthread_t tid[2];
	long got[2] = { 0, 0 };

	shared_file = alloc_file(&test_inodes[5]);
	for (int i = 0; i < 2; i++)
		pthread_create(&tid[i], NULL, read_bytes, &got[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	cr_assert_eq(got[0] + got[1], INODE_SIZE,
		     "two readers of one file read %ld + %ld bytes of %d: a "
		     "range was read twice or skipped", got[0], got[1], INODE_SIZE);
	fput(shared_file);
}

Test(bitops, set_clear_test)
{
	unsigned long map[BITS_TO_LONGS(130)] = { 0 };

	set_bit(0, map);
	set_bit(64, map);
	set_bit(129, map);
	cr_assert(test_bit(0, map) && test_bit(64, map) && test_bit(129, map),
		  "set_bit must set bits 0, 64 and 129");
	cr_assert_not(test_bit(1, map) || test_bit(63, map) || test_bit(128, map),
		      "set_bit must set no other bit");
	clear_bit(64, map);
	cr_assert_not(test_bit(64, map), "clear_bit(64) must clear bit 64");
	cr_assert(test_bit(129, map), "clear_bit touched another bit");
}

static unsigned long one_word[1];

/* Set, then clear, then set again bits [@arg, @arg + 32) of one_word. */
static void *flip_half(void *arg)
{
	int base = (int)(long)arg;

	for (int round = 0; round < 2000; round++)
		for (int nr = base; nr < base + 32; nr++) {
			if (round % 2)
				clear_bit(nr, one_word);
			else
				set_bit(nr, one_word);
		}
	for (int nr = base; nr < base + 32; nr++)
		set_bit(nr, one_word);
	return NULL;
}

Test(bitops, updates_of_one_word_are_not_lost)
{
	pthread_t tid[2];

	if (BITS_PER_LONG < 64)
		return;
	for (int i = 0; i < 2; i++)
		pthread_create(&tid[i], NULL, flip_half, (void *)(long)(32 * i));
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	cr_assert_eq(one_word[0], ~0UL, "a concurrent set_bit/clear_bit on "
		     "another bit of the word lost an update: %#lx", one_word[0]);
}

Test(bitops, find_bits)
{
	unsigned long map[BITS_TO_LONGS(130)] = { 0 }, copy[BITS_TO_LONGS(130)];

	cr_assert_eq(find_next_zero_bit(map, 130, 0), 0, "the first zero bit of an empty map is 0");
	cr_assert_eq(find_last_bit(map, 130), 130, "none set");
	for (int nr = 0; nr < 70; nr++)
		set_bit(nr, map);
	cr_assert_eq(find_next_zero_bit(map, 130, 0), 70,
		     "with bits 0-69 set, the first zero bit is 70");
	cr_assert_eq(find_next_zero_bit(map, 130, 100), 100,
		     "bit 100 is clear: the search from 100 finds it");
	cr_assert_eq(find_next_zero_bit(map, 60, 3), 60, "none clear below size");
	set_bit(99, map);
	cr_assert_eq(find_last_bit(map, 130), 99, "the last set bit of the map is 99");
	cr_assert_eq(find_last_bit(map, 80), 69, "below 80, the last set bit is 69");
	bitmap_copy(copy, map, 130);
	cr_assert(test_bit(99, copy) && test_bit(0, copy) && !test_bit(70, copy),
		  "bitmap_copy must copy every bit");
}
