#!/usr/bin/env python3
"""test_hw.py - the bundle and the device script of tools/hw/, as far as
this machine allows (docs/debugging.md, "rr on another machine").

  Bundle     bundle.py copies rr, Criterion and liburcu with the libraries
             they load, writes MANIFEST, GLIBC and env.sh; env.sh puts the
             bundle first and refuses a C library older than the bundle's.
  DeviceRun  device_run.sh STEPS=probe,rr LABS=1 with that bundle: every
             step runs and says so in summary.txt; the probe names the CPU,
             opens the counters rr needs and quotes rr; lab 1's race is
             found and written down, and the rr targets record it (where
             rr can) or each says rr's own reason and what works instead.

The device script is run with the kit's compiler (CC) in a build folder of
its own, so that nothing the other rows built is touched; the folder starts
with copies of the kit's objects, times kept (check_grader.seed), so that
only lab 1's own files compile there, under the bundle's paths (the kit's
objects took 15 of the row's 25 CPU s).  Standard library only.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kit import rr  # noqa: E402
import check_grader  # noqa: E402

BUILD = os.environ.get("BUILD", "build")


def bundle(dest):
    return subprocess.run([sys.executable, "tools/hw/bundle.py", "--dest", dest], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def sourced(bundle_dir, command):
    """Run bash @command after sourcing @bundle_dir/env.sh."""
    script = '. "%s/env.sh" || exit 3; %s' % (bundle_dir, command)
    return subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


class Made(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.bundle = os.path.join(cls.tmp.name, "bundle")
        cls.made = bundle(cls.bundle)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()


class Bundle(Made):
    def test_made(self):
        self.assertEqual(self.made.returncode, 0, self.made.stdout)
        self.assertRegex(self.made.stdout, r"bundle: \d+ files, [\d.]+ MiB")

    def test_holds_what_the_device_lacks(self):
        for f in ("usr/bin/rr", "usr/lib/rr/librrpreload.so", "usr/include/criterion/criterion.h",
                  "usr/include/x86_64-linux-gnu/urcu/urcu-memb.h", "env.sh", "GLIBC"):
            self.assertTrue(os.path.exists(os.path.join(self.bundle, f)), f)
        libs = os.listdir(os.path.join(self.bundle, "usr/lib/x86_64-linux-gnu"))
        self.assertTrue(any(l.startswith("libcriterion.so.") for l in libs), libs)
        self.assertTrue(any(l.startswith("liburcu-memb.so.") for l in libs), libs)
        with open(os.path.join(self.bundle, "MANIFEST")) as f:
            manifest = f.read()
        self.assertIn("\trr\t", manifest)
        self.assertNotRegex(manifest, r"/libc\.so|ld-linux")     # the machine's own

    def test_env_puts_the_bundle_first(self):
        r = sourced(self.bundle, "command -v rr; echo $C_INCLUDE_PATH")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn(os.path.join(self.bundle, "usr/bin/rr"), r.stdout)
        self.assertIn(os.path.join(self.bundle, "usr/include"), r.stdout)

    def test_env_links_only_what_the_machine_lacks(self):
        r = sourced(self.bundle, "ls $HW_BUNDLE/usr/lib/active; ldconfig -p")
        self.assertEqual(r.returncode, 0, r.stdout)
        active = os.listdir(os.path.join(self.bundle, "usr/lib/active"))
        have = set(re.findall(r"^\s+(\S+) \(", r.stdout, re.M))
        self.assertFalse(set(active) & have, "links a library the machine has")

    def test_env_refuses_an_older_c_library(self):
        old = os.path.join(self.tmp.name, "old")
        shutil.copytree(self.bundle, old, symlinks=True)
        with open(os.path.join(old, "GLIBC"), "w") as f:
            f.write("99.0\n")
        r = sourced(old, "echo sourced")
        self.assertEqual(r.returncode, 3, r.stdout)
        self.assertRegex(r.stdout, r"env\.sh: glibc \S+ here, the bundle was made with 99\.0")


class DeviceRun(Made):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.out = os.path.join(cls.tmp.name, "out")
        build = os.path.join(BUILD, "hw", "check")
        check_grader.seed(BUILD, os.path.join(ROOT, build))
        env = dict(os.environ, OUT=cls.out, STEPS="probe,rr", LABS="1", STEP_LIMIT="240",
                   BUILD=build, CC=os.environ.get("CC", "clang"))
        cls.result = subprocess.run(["bash", "tools/hw/device_run.sh", cls.bundle], cwd=ROOT,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, timeout=600)

    def read(self, name):
        with open(os.path.join(self.out, name)) as f:
            return f.read()

    def test_every_step_ran(self):
        self.assertEqual(self.result.returncode, 0, self.result.stdout)
        summary = self.read("summary.txt")
        for name in ("perfprobe", "probe", "rr lab 1"):
            self.assertRegex(summary, r"(?m)^%s +exit +0 " % name, summary)
        self.assertRegex(summary, r"(?m)^done: ")

    def test_probe_names_the_cpu_and_quotes_rr(self):
        text = self.read("probe.txt")
        self.assertRegex(text, r"(?m)^cpu: \S+ family 0x[0-9a-f]+ model 0x[0-9a-f]+")
        self.assertRegex(text, r"(?m)^perf: instructions \(generic\): (ok|perf_event_open failed)")
        self.assertRegex(text, r"(?m)^perf: retired conditional branches")
        self.assertIn("rr record true:", text)
        if not rr.probe().ok:
            self.assertIn("rr cannot record on this machine; rr says: " + rr.probe().line, text)

    def test_lab1_race_found_and_given_to_rr(self):
        text = self.read("rr-lab1.log")
        self.assertRegex(text, r"(?m)^schedule: \S+/races/lab1-lookup_unlocked_vs_remove\.sched$")
        if rr.probe().ok:
            self.assertIn("recorded: ", text)
        else:
            self.assertEqual(text.count("rr cannot record on this machine; rr says: "), 3, text)
            self.assertIn("what works here: make debug SCHED=", text)
        self.assertNotIn("Traceback", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
