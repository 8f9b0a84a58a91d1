"""kit - the lab kit's tools library (standard library only).

The command-line tools in tools/ (grade.py, check.py, race.py, rr.py,
mutants.py, bench_race.py, demo.py) are thin front ends over these modules:

  kit.limits    every time limit and cap the tools apply, in one place
  kit.proc      run a command: timeout, resource limits, the whole process
                group killed, output bounded; make with a clean environment
  kit.layout    the labs as make declares them (make print-labs): Lab
  kit.criterion a Criterion binary's results, from its JSON report
  kit.tsan      the TSan programs' --list / CASE protocol and verdicts
  kit.race      the race binary: list, run, replay, check, and its result
                lines; the lab and binary that replay a schedule file
  kit.schedfile a schedule file read safely; messages escaped as the
                race binary escapes them
  kit.rr        rr where it can record; why not where it cannot
  kit.grading   Part (one graded part's verdict and points), Item (one test
                of it, with its share of the points) and the graders
  kit.testsrc   where each test is declared, and its hint, from its source
  kit.junit     the JUnit XML schema of the kit's reports, and its checker
  kit.mutants   the catalogue of known-wrong solutions

docs/design.md, "The tools", describes the API.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
