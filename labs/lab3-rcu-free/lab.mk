# labs/lab3-rcu-free/lab.mk -- lab 3's manifest (docs/design.md, "The lab
# manifest").  Its refcount_t is its own given refcount.h, on common/'s
# atomic_inc_not_zero(): no other lab's folder is on its include path
# (lab.include, lab.cflags and lab.exercises are empty).
lab.title     := RCU-deferred freeing
lab.edit      := objtable.c
lab.given     := objtable_given.c
lab.tests     := lab3
lab.api       := objtable_lookup objtable_delete object_put
lab.symbols   := __objtable_find_rcu objtable_unlink object_free
lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30

# Sharing of the points, and the handout's order (lab 1's manifest says
# how): Part 1, then Part 2.
lab.order     := objtable::* stress::* typesafe::* tsan_objtable::*
