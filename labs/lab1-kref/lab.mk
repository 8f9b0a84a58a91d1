# labs/lab1-kref/lab.mk -- lab 1's manifest: what the kit builds, runs and
# grades for this lab.  The format is in docs/design.md, "The lab manifest";
# the folder is where this file is, the lab's number the N of its labN-.
lab.title     := kref and its race

# The files the student edits (solutions/lab1-kref/ holds exactly these),
# and the given code linked with them, from this folder.
lab.edit      := kref.c cache.c race.sched
lab.given     := cache_given.c

# The tests it runs (folders under tests/), its include path beyond its own
# folder (other labs' folders), and its extra CFLAGS.
lab.tests     := lab1
lab.include   :=
lab.cflags    :=

# Exercises graded by replay: the student's schedule must drive the
# scenario to the verdict, at a step of function "at" whose access is
# "access" (read, write or update): here the increment of the count in
# kref_get(), whatever atomic performs it (atomic_inc, atomic_add,
# atomic_inc_return, a cmpxchg loop).
lab.exercises := race.sched
lab.exercise.race.sched := scenario=lookup_unlocked_vs_remove \
	verdict=use-after-free at=kref_get access=update

# The pre-build check (docs/design.md): the functions the student's files
# define (nothing else but static helpers), and what they may call beyond
# the kit's primitives (KIT_SYMBOLS, mk/labs.mk): the given functions.
lab.api       := kref_get kref_put cache_lookup cache_remove
lab.symbols   := cache_lock __cache_find __cache_unlink cache_obj_release cache_put

# Points of each graded part.
lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30

# How the points of a part are shared among its tests (each test, TSan
# case, scenario and exercise is worth the same unless a pattern here says
# otherwise; the first pattern a name matches gives its weight), and the
# order in which a grade lists the failures: the handout's.
# Weight 0: tests that pass on the untouched skeleton, so they show no
# progress: kref_init() is given (kref.h), cache_insert() too (the
# duplicate refusal), and an absent key gives NULL before any code is
# written.  They must still pass for the part to pass.
lab.weights   := kref::init_sets_one=0 cache::lookup_of_absent_key_is_null=0 \
	cache::duplicate_insert_is_refused_without_leak=0 race.sched=2
lab.order     := race.sched kref::* cache::* stress::* tsan_cache::*
lab.hint.race.sched := Three run lines do it, as the handout's table: T1 up to \
	and including kref_get's read, T2 to its end, then T1 again.  'make race-1' \
	prints lookup_unlocked_vs_remove's timeline: every step label is in it.
