# labs/lab5-fdtable/lab.mk -- lab 5's manifest (docs/design.md, "The lab
# manifest").  fget_locked_given.c compiles to nothing unless a build adds
# -DCONFIG_FDTABLE_LOCKED (the 2.6.6 lookups, for the benchmark; README
# "The 2.6.6 lookup"): the lab's own builds never do.
lab.title     := the lock-free fd table
lab.edit      := fdtable.c fget.c
lab.given     := file_given.c fdtable_given.c fget_locked_given.c
lab.tests     := lab5
lab.points    := unit-plain=30 unit-asan=20 tsan=20 race=30
