# labs/lab2-refcount/lab.mk -- lab 2's manifest (docs/design.md, "The lab
# manifest"; lab.include, lab.cflags and lab.exercises are empty here).
lab.title     := refcount_t: the CAS get
lab.edit      := refcount.c
lab.given     := refcount_given.c
lab.tests     := lab2
lab.api       := refcount_get refcount_get_rcu refcount_put_and_lock
lab.symbols   := refcount_init refcount_read refcount_put refcount_dec
lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30
