#!/usr/bin/env python3
"""demo.py - the kit in one command (make demo).

Builds lab 1's race scenarios against the reference solution, then:
  1. runs the broken lookup (cache_lookup_unlocked) under the reproducer:
     the timeline of the interleaving in which kref_get() increments an
     object that cache_remove() has just freed, its verdict, the schedule
     file, and the command that replays it -- the same way every time;
  2. runs the correct lookup (cache_lookup, reference taken under the lock)
     and shows that every interleaving within 2 preemptions is clean.
Exit 0 iff both behaved as the kit promises.  Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    args = ap.parse_args()
    race = os.path.join(args.build, "solutions", "race", "lab1", "race")
    print("Building lab 1's race scenarios (reference solution)...", flush=True)
    p = subprocess.run(["make", "-s", "BUILD=" + args.build, "IMPL=solutions", race],
                       cwd=ROOT, stdout=subprocess.DEVNULL)
    if p.returncode:
        return p.returncode
    races = os.path.join(args.build, "races")
    os.makedirs(os.path.join(ROOT, races), exist_ok=True)
    sched = os.path.join(races, "lab1-lookup_unlocked_vs_remove.sched")

    print("""
1. The race.  T1 calls cache_lookup_unlocked(1): it finds the object under
   cache_lock but takes its reference (kref_get) only after the unlock.
   T2 calls cache_remove(1), which drops the cache's reference -- the last.
   The reproducer runs one thread at a time and switches only at accesses
   to shared state, searching interleavings with the fewest preemptions
   first.  One column per thread, one row per step:
""")
    out = subprocess.run([race, "run", "lookup_unlocked_vs_remove", "--out", sched,
                          "--binary", race], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT).stdout.decode(errors="replace")
    body = [l for l in out.splitlines() if not l.startswith(("==", "RESULT"))]
    print("\n".join(body))
    ok1 = re.search(r"^RESULT \S+ .* got=use-after-free met=yes", out, re.M)
    print("\n   Replay it (same steps, same verdict, every time):"
          "\n     make replay SCHED=%s" % sched)
    print("""
2. The fix.  cache_lookup(1) takes the reference while cache_lock is held,
   so cache_remove() cannot drop the last reference in between.  Every
   interleaving with up to 2 preemptions, explored:
""")
    out = subprocess.run([race, "run", "lookup_vs_remove"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT
                         ).stdout.decode(errors="replace")
    held = [l for l in out.splitlines() if l.startswith("held:")]
    print("   " + (held[0] if held else out))
    ok2 = re.search(r"^RESULT \S+ .* got=none met=yes", out, re.M)
    print("\nNext: labs/lab1-kref/ (the handout), 'make lab-1', 'make race-1',"
          " docs/reproducer.md.")
    return 0 if ok1 and ok2 else 1


if __name__ == "__main__":
    sys.exit(main())
