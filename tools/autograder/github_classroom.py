#!/usr/bin/env python3
"""github_classroom.py - a GitHub Classroom autograding workflow for the kit.

    python3 tools/autograder/github_classroom.py [--out FILE]

Prints (or writes to FILE) a workflow for the students' repositories,
.github/workflows/classroom.yml, made from the labs' manifests: it checks
out the student's repository, installs the kit's packages, finds which
labs the push changed, then has one step per graded part of each lab --
GitHub Classroom's command grader running `make grade-N PARTS=part`, worth
the part's points from the manifest (the grader exits 0 only when the part
passes whole: the command grader gives all of a step's points or none) --
then reports the scores to Classroom and keeps build/grade/ (results.json,
junit.xml, each lab's report.txt) as an artifact.

Which labs: a push grades only the labs whose folder (labs/labN-*/) it
changed, so that a push of lab 2 does not wait for lab 5's grade; a tag
(a release), a run started by hand or by Classroom, and a first push grade
every lab.  Classroom keeps the score of the last run: tag a release (or
run the workflow by hand) for the grade of every lab at once.
make check runs a step's command against the solutions in a temporary copy
of the students' tree, and the "changed" step's script in a git repository
where one lab changed.  Standard library only.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kit import layout  # noqa: E402

HEAD = """\
# .github/workflows/classroom.yml -- GitHub Classroom autograding for the lab
# kit, made by tools/autograder/github_classroom.py from the labs' manifests.
# A push grades the labs it changed; a tag or a run by hand grades them all.
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
        with:
          fetch-depth: 0
      - name: Install the kit's packages
        run: sudo make deps
      - name: Which labs changed
        id: changed
        env:
          EVENT: ${{ github.event_name }}
          REF_TYPE: ${{ github.ref_type }}
          BEFORE: ${{ github.event.before }}
        run: |
{changed}
"""

# The "changed" step: LABS (" 1 3 ") and the reporter's RUNNERS.
CHANGED = """\
labs=""
for n in {numbers}; do
  if [ "$EVENT" != push ] || [ "$REF_TYPE" = tag ] || [ -z "$BEFORE" ] ||
     ! git cat-file -e "$BEFORE^{{commit}}" 2>/dev/null ||
     ! git diff --quiet "$BEFORE" HEAD -- "labs/lab$n-"*; then
    labs="$labs $n"
  fi
done
runners=""
{runners}
echo "labs=$labs " >> "$GITHUB_OUTPUT"
echo "runners=${{runners#,}}" >> "$GITHUB_OUTPUT"
echo "graded: labs${{labs:- none}}"
"""

STEP = """\
      - name: lab-{n} {part}
        id: {id}
        if: contains(steps.changed.outputs.labs, ' {n} ')
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: "lab {n} ({title}): {part}"
          setup-command: ""
          command: make grade-{n} PARTS={part}
          timeout: {minutes}
          max-score: {points}
"""

TAIL = """\
      - name: Autograding Reporter
        if: steps.changed.outputs.runners != ''
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
{env}
        with:
          runners: ${{{{ steps.changed.outputs.runners }}}}
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: grade-reports
          path: build/grade/
"""


def step_id(lab, part):
    return "lab-%d-%s" % (lab.n, part)


def changed_script(labs):
    """The shell of the "changed" step (make check runs it)."""
    runners = "\n".join('case "$labs " in *" %d "*) runners="$runners,%s";; esac'
                         % (l.n, ",".join(step_id(l, p) for p in l.points)) for l in labs)
    return CHANGED.format(numbers=" ".join(str(l.n) for l in labs), runners=runners)


def workflow(labs):
    changed = "\n".join("          " + l if l else "" for l in changed_script(labs).splitlines())
    steps = "".join(STEP.format(n=l.n, part=p, id=step_id(l, p),
                                title=l.title.replace('"', "'").replace("\\", "/"),
                                minutes=10, points=points)
                    for l in labs for p, points in l.points.items())
    env = "\n".join('          %s_RESULTS: "${{steps.%s.outputs.result}}"'
                     % (step_id(l, p).upper(), step_id(l, p)) for l in labs for p in l.points)
    return HEAD.replace("{changed}", changed) + steps + TAIL.format(env=env)


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
