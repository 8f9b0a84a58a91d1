#!/usr/bin/env python3
"""bundle.py - what the kit needs at run time, packed to travel to a machine
that may lack it and cannot download it (a lent machine with more cores,
docs/debugging.md "rr on another machine").

    bundle.py [--dest DIR] [--archive FILE]

Copies, from the Debian packages installed here (make deps installs them;
nothing is downloaded), the files of:

  rr                 rr, its preload libraries and its helper programs
  libcriterion-dev,  Criterion's headers and library, for the unit tests
  libcriterion3
  liburcu-dev,       liburcu's headers and libraries
  liburcu8

into DEST/usr/... (the packages' own layout, so that rr finds its preload
library beside itself), then every shared library those programs and
libraries load (ldd) that is not the C library's own, into
DEST/usr/lib/bundle/.  It writes DEST/env.sh, which a shell on the other
machine sources (tools/hw/env.sh, copied), and DEST/MANIFEST: one line per
file with its package and size.  With --archive, a tar.xz of DEST as well
(what travels: the device takes 64 MiB of carried paths).

The other machine's C library must be this one's or newer (env.sh checks);
its own compiler builds the kit (CC=gcc): the sanitizer runtimes are the
compiler's, so none are carried.  Standard library only.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PACKAGES = ("rr", "libcriterion-dev", "libcriterion3", "liburcu-dev", "liburcu8")
KEEP = ("/usr/bin/", "/usr/lib/", "/usr/include/")
SKIP = ("/usr/share/", "/usr/lib/debug/")
LIBDIR = "usr/lib/bundle"
# The C library's own objects: the other machine's, never carried.
GLIBC = ("linux-vdso.so", "ld-linux", "libc.so", "libm.so", "libpthread.so", "libdl.so",
         "librt.so", "libresolv.so", "libutil.so", "libanl.so", "libmvec.so")


class BundleError(Exception):
    """A package is missing, or a library could not be found."""


def package_files(pkg):
    """The regular files and links package @pkg installed that the kit
    needs at run time or to build (programs, libraries, headers)."""
    r = subprocess.run(["dpkg", "-L", pkg], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        raise BundleError("package %s is not installed here: run 'make deps' as root "
                          "(it installs the optional tools too)" % pkg)
    return [p for p in r.stdout.split("\n") if p.startswith(KEEP) and not p.startswith(SKIP)
            and not p.endswith(".a") and (os.path.isfile(p) or os.path.islink(p))]


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def needed(path):
    """{soname: real path} of the libraries @path loads, as ldd resolves
    them here, the C library's own left out."""
    r = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    libs = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith(GLIBC) or "=>" not in parts:
            continue
        target = parts[parts.index("=>") + 1]
        if target == "not":
            raise BundleError("%s needs %s, which ldd does not find here" % (path, parts[0]))
        libs[parts[0]] = os.path.realpath(target)
    return libs


def copy(src, dest_root, manifest, pkg):
    """Copy @src to the same path under @dest_root (a link stays a link)."""
    dst = os.path.join(dest_root, src.lstrip("/"))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.lexists(dst):
        return
    if os.path.islink(src):
        os.symlink(os.readlink(src), dst)
        manifest.append((src, pkg, 0))
    else:
        shutil.copy2(src, dst)
        manifest.append((src, pkg, os.path.getsize(src)))


def build(dest):
    """Fill @dest; return the manifest [(path, package, bytes)]."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    manifest, elves = [], []
    for pkg in PACKAGES:
        for f in package_files(pkg):
            copy(f, dest, manifest, pkg)
            if not os.path.islink(f) and is_elf(f):
                elves.append(f)
    libs = {}
    for elf in elves:
        libs.update(needed(elf))
    for soname, real in sorted(libs.items()):
        dst = os.path.join(dest, LIBDIR, soname)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            shutil.copy2(real, dst)
            manifest.append((real, "needed as " + soname, os.path.getsize(real)))
    shutil.copy2(os.path.join(HERE, "env.sh"), os.path.join(dest, "env.sh"))
    with open(os.path.join(dest, "GLIBC"), "w") as f:
        f.write(os.confstr("CS_GNU_LIBC_VERSION").split()[-1] + "\n")
    with open(os.path.join(dest, "MANIFEST"), "w") as f:
        for path, pkg, size in manifest:
            f.write("%s\t%s\t%d\n" % (path, pkg, size))
    return manifest


def archive(dest, out):
    with tarfile.open(out, "w:xz") as t:
        t.add(dest, arcname="bundle")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dest", default=os.path.join("build", "hw", "bundle"))
    ap.add_argument("--archive")
    args = ap.parse_args()
    try:
        manifest = build(args.dest)
    except BundleError as e:
        print("bundle: " + str(e))
        return 2
    size = sum(m[2] for m in manifest)
    print("bundle: %d files, %.1f MiB in %s" % (len(manifest), size / 2**20, args.dest))
    if args.archive:
        archive(args.dest, args.archive)
        print("bundle: %s, %.1f MiB" % (args.archive, os.path.getsize(args.archive) / 2**20))
    return 0


if __name__ == "__main__":
    sys.exit(main())
