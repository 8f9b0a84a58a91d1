#!/usr/bin/env python3
"""github_classroom.py - a GitHub Classroom autograding workflow for the kit.

    python3 tools/autograder/github_classroom.py [--out FILE]

Prints (or writes to FILE) a workflow for the students' repositories,
.github/workflows/classroom.yml, made from the labs' manifests: it checks
out the student's repository, installs the kit's packages, then has one
step per lab -- GitHub Classroom's command grader running `make grade-N`,
worth the lab's points (the grader exits 0 only at full score: the command
grader gives all of a step's points or none) -- then reports the scores to
Classroom and keeps build/grade/ (results.json, junit.xml) as an artifact.
make check runs every step's command against the solutions in a temporary
copy of the students' tree.  Standard library only.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kit import layout  # noqa: E402

HEAD = """\
# .github/workflows/classroom.yml -- GitHub Classroom autograding for the lab
# kit, made by tools/autograder/github_classroom.py from the labs' manifests.
name: Autograding Tests
"on":
  - push
  - workflow_dispatch
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Install the kit's packages
        run: sudo make deps
"""

STEP = """\
      - name: lab-{n}
        id: lab-{n}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: "lab-{n}: {title}"
          setup-command: ""
          command: make grade-{n}
          timeout: {minutes}
          max-score: {points}
"""

TAIL = """\
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
{env}
        with:
          runners: {runners}
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: grade-reports
          path: build/grade/
"""


def workflow(labs):
    steps = "".join(STEP.format(n=l.n, title=l.title.replace('"', "'"), minutes=15,
                                points=sum(l.points.values())) for l in labs)
    env = "\n".join('          LAB-%d_RESULTS: "${{steps.lab-%d.outputs.result}}"' % (l.n, l.n)
                    for l in labs)
    return HEAD + steps + TAIL.format(env=env, runners=",".join("lab-%d" % l.n for l in labs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    args = ap.parse_args()
    text = workflow(layout.labs())
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
