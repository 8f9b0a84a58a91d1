/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config_names.h - forced (-include) into lab 4's refcount.c when it is
 * built in one of the lab's other configurations (lab.configs in
 * labs/lab4-hashlock/lab.mk): every global name of the file gets the
 * prefix LAB4_CONFIG (up_, n8_), so that the builds link into one binary.
 * configs.h declares the prefixed names for the tests.
 */
#ifndef LAB4_CONFIG_NAMES_H
#define LAB4_CONFIG_NAMES_H

#define __LAB4_PASTE(a, b)	a##b
#define __LAB4_NAME(a, b)	__LAB4_PASTE(a, b)

#define refcount_init		__LAB4_NAME(LAB4_CONFIG, refcount_init)
#define refcount_read		__LAB4_NAME(LAB4_CONFIG, refcount_read)
#define refcount_get		__LAB4_NAME(LAB4_CONFIG, refcount_get)
#define refcount_get_rcu	__LAB4_NAME(LAB4_CONFIG, refcount_get_rcu)
#define refcount_put		__LAB4_NAME(LAB4_CONFIG, refcount_put)
#define refcount_dec		__LAB4_NAME(LAB4_CONFIG, refcount_dec)
#define refcount_put_and_lock	__LAB4_NAME(LAB4_CONFIG, refcount_put_and_lock)
#define __refcount_hash		__LAB4_NAME(LAB4_CONFIG, __refcount_hash)

#endif /* LAB4_CONFIG_NAMES_H */
