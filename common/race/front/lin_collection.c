// SPDX-License-Identifier: GPL-2.0
/*
 * lin_collection.c - the sequential specification of a collection of
 * reference-counted objects found by key (lin_collection.h), shared by the
 * labs whose API is one.
 */
#include <errno.h>

#include "race/lin_collection.h"

const struct lin_name race_lin_coll_hit_names[] = {
	{ 1, "hit" }, { 0, "miss" }, { LIN_COLL_WRONG, "another key's object" },
	{ 0, NULL },
};


/** race_lin_coll_insert - a new object of @key, the collection's reference */
long race_lin_coll_insert(void *model, int thread __maybe_unused, int key)
{
	struct lin_coll_model *m = model;
	int o;

	if (m->obj_of[key])
		return -EEXIST;
	o = ++m->nr_objs;
	m->count[o] = 1;
	m->key_of[o] = key;
	m->obj_of[key] = o;
	return 0;
}

/** race_lin_coll_delete - unlink @key, drop the collection's reference */
long race_lin_coll_delete(void *model, int thread __maybe_unused, int key)
{
	struct lin_coll_model *m = model;
	int o = m->obj_of[key];

	if (!o)
		return -ENOENT;
	m->obj_of[key] = 0;
	m->count[o]--;
	return 0;
}

/** race_lin_coll_lookup - @thread takes a reference to @key's object */
long race_lin_coll_lookup(void *model, int thread, int key)
{
	struct lin_coll_model *m = model;
	int o = m->obj_of[key];

	if (!o)
		return 0;
	m->count[o]++;
	m->held[thread][m->nr_held[thread]++] = o;
	return 1;
}

/**
 * race_lin_coll_put - @thread drops its oldest reference of @key: 0 (not
 * whether it was the last: lin_collection.h says why)
 */
long race_lin_coll_put(void *model, int thread, int key)
{
	struct lin_coll_model *m = model;
	int *held = m->held[thread], i, o;

	for (i = 0; i < m->nr_held[thread] && m->key_of[held[i]] != key; i++)
		;
	if (i == m->nr_held[thread])
		return LIN_NOTHING;
	o = held[i];
	for (; i + 1 < m->nr_held[thread]; i++)
		held[i] = held[i + 1];
	m->nr_held[thread]--;
	m->count[o]--;
	return 0;
}

/** race_lin_coll_find - whether @key is in the collection */
long race_lin_coll_find(void *model, int thread __maybe_unused, int key)
{
	struct lin_coll_model *m = model;

	return m->obj_of[key] != 0;
}

/** race_lin_coll_init - the model of @init: its keys, each in the collection */
void race_lin_coll_init(void *model, const struct lin_init *init)
{
	int i;

	for (i = 0; i < LIN_MAX_KEYS && init->keys[i]; i++)
		race_lin_coll_insert(model, 0, init->keys[i]);
}
