// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ops.c - the table of one build (bench_ops.h), compiled into every
 * build with -DBENCH_OPS=bench_ops_<build>: its entries are that build's
 * functions, and file.h's inline ones as that build compiles them (the
 * hashlock build's get_file is lab 4's refcount_get).
 */
#include "bench_ops.h"
#include "fdtable.h"

#ifndef BENCH_OPS
#error "build with -DBENCH_OPS=bench_ops_<build> (mk/bench.mk)"
#endif

/* Defaults; fget_rwlock.c and rcupdate_qsbr.c have the strong ones. */
__attribute__((weak)) void bench_quiescent_state(void) { }
__attribute__((weak)) void bench_update_begin(void) { }
__attribute__((weak)) void bench_update_end(void) { }

static struct file *ops_get_file(struct file *file)
{
	return get_file(file);
}

static int ops_file_count(struct file *file)
{
	return file_count(file);
}

static void ops_rcu_barrier(void)
{
	rcu_barrier();
}

const struct bench_ops BENCH_OPS = {
	.files_alloc = files_alloc,
	.get_files_struct = get_files_struct,
	.put_files_struct = put_files_struct,
	.get_unused_fd = get_unused_fd,
	.fd_install = fd_install,
	.close_fd = close_fd,
	.dup2_fd = dup2_fd,
	.fget = fget,
	.fget_light = fget_light,
	.alloc_file = alloc_file,
	.get_file = ops_get_file,
	.fput = fput,
	.file_count = ops_file_count,
	.file_pread = file_pread,
	.thread_online = rcu_register_thread,
	.thread_offline = rcu_unregister_thread,
	.quiescent = bench_quiescent_state,
	.update_begin = bench_update_begin,
	.update_end = bench_update_end,
	.flush_rcu = ops_rcu_barrier,
};
