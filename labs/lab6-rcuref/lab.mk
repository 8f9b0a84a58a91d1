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

# Sharing of the points, and the handout's order (lab 1's manifest says
# how): Part 1's count (its fast paths, then the slow paths), Part 2's
# table, the stress tests, the TSan cases.  Weight 0: what the untouched
# skeleton already does -- a get that fails and a put that never frees
# pass a get on a DEAD count, a put on a saturated one and a put slow path
# that finds a get came in (or the getter's own put) -- so they show no
# progress.  They must still pass for the part to pass.
lab.weights   := rcuref::get_on_dead_fails=0 rcuref::put_on_saturated_stays_saturated=0 \
	slowpath::put_slowpath_after_a_get_came_in=0 \
	slowpath::put_slowpath_after_the_getter_put_it=0
lab.order     := rcuref::* slowpath::* objtable::* stress::* tsan_rcuref::*
