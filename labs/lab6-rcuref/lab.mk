# labs/lab6-rcuref/lab.mk -- lab 6's manifest (docs/design.md, "The lab
# manifest"; lab.include, lab.cflags and lab.exercises are empty here).
lab.title     := rcuref_t: today's kernel's count
lab.edit      := rcuref.c objtable.c
lab.given     := objtable_given.c
lab.tests     := lab6
lab.api       := rcuref_read rcuref_get rcuref_get_slowpath rcuref_put \
	rcuref_put_slowpath objtable_lookup object_put
lab.symbols   := __objtable_find_rcu objtable_unlink object_free
lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30
