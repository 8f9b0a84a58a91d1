# labs/lab2-refcount/lab.mk -- lab 2's manifest (docs/design.md, "The lab
# manifest"; lab.include, lab.cflags and lab.exercises are empty here).
lab.title     := refcount_t: the CAS get
lab.edit      := refcount.c
lab.given     := refcount_given.c
lab.tests     := lab2
lab.api       := refcount_get refcount_get_rcu refcount_put_and_lock
lab.symbols   := refcount_init refcount_read refcount_put refcount_dec
lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30

# Sharing of the points, and the handout's order (lab 1's manifest says
# how).  Weight 0: what passes on the untouched skeleton -- refcount_init,
# refcount_put and refcount_dec are given, and a get_rcu that does nothing
# never resurrects a count.  They must still pass for the part to pass.
lab.weights   := refcount::init_is_one=0 refcount::dec_subtracts_one=0 \
	refcount::put_is_true_only_for_the_last=0 refcount::get_rcu_never_resurrects=0 \
	stress::get_rcu_never_resurrects=0
lab.order     := refcount::* put_and_lock::* stress::* tsan_refcount::*
