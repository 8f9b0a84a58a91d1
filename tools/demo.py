#!/usr/bin/env python3
"""demo.py - the kit in one command (make demo).

Builds lab 1's race scenarios against the reference solution, then:
  1. runs the broken lookup (cache_lookup_unlocked) under the reproducer:
     the timeline of the interleaving in which kref_get() increments an
     object that cache_remove() has just freed, its verdict, the schedule
     file (in BUILD/demo/, never where 'make race-1' writes the student's
     own), and the command that replays it -- the same way every time;
  2. runs the correct lookup (cache_lookup, reference taken under the lock)
     and shows that every interleaving within 2 preemptions is clean.
Exit 0 iff both behaved as the kit promises.  Standard library only.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import ROOT, layout, race  # noqa: E402

BROKEN, FIXED = "lookup_unlocked_vs_remove", "lookup_vs_remove"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-root", default=os.environ.get("BUILD", "build"))
    args = ap.parse_args()
    print("Building lab 1's race scenarios (reference solution)...", flush=True)
    lab, r = layout.built(1, "solutions", args.build_root)
    binary = lab.bins["race"]
    if not r.ok:
        print(r.out)
        return 1
    # Its own folder: build/races/ holds what 'make race-1' found in the
    # student's own code, which the demo must not overwrite.
    races = os.path.join(args.build_root, "demo")
    os.makedirs(os.path.join(ROOT, races), exist_ok=True)
    sched = os.path.join(races, "lab1-%s.sched" % BROKEN)

    print("""
1. The race.  T1 calls cache_lookup_unlocked(1): it finds the object under
   cache_lock but takes its reference (kref_get) only after the unlock.
   T2 calls cache_remove(1), which drops the cache's reference -- the last.
   The reproducer runs one thread at a time and switches only at accesses
   to shared state, searching interleavings with the fewest preemptions
   first.  One column per thread, one row per step:
""")
    r, broken = race.run(binary, BROKEN, out=sched, lab=1)
    print(race.with_legend("\n".join(l for l in r.out.splitlines()
                                      if not l.startswith(("==", "RESULT")))))
    print("\n   Replay it (same steps, same verdict, every time):"
          "\n     make replay SCHED=%s IMPL=solutions"
          "\n   Walk it back under gdb (goto-step, step-back, who-freed):"
          "\n     make debug SCHED=%s IMPL=solutions" % (sched, sched))
    print("""
2. The fix.  cache_lookup(1) takes the reference while cache_lock is held,
   so cache_remove() cannot drop the last reference in between.  Every
   interleaving with up to 2 preemptions, explored:
""")
    r, fixed = race.run(binary, FIXED)
    shown = [l for l in r.out.splitlines() if l.startswith(("held:", "witness:"))]
    print("   " + "\n   ".join(shown) if fixed and fixed.held and shown else r.out)
    print("\nNext: %s (the handout), 'make lab-1', 'make race-1',"
          " docs/reproducer.md." % lab.handout)
    ok1 = broken and broken.met and broken.got == "use-after-free"
    ok2 = fixed and fixed.met and fixed.got == "none"
    return 0 if ok1 and ok2 else 1


if __name__ == "__main__":
    sys.exit(main())
