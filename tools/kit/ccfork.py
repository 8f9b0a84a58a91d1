"""kit.ccfork - make check's fork server of the compiler (tools/ccfork/).

A start of clang costs this VM about 70 ms of CPU before it compiles
anything (its libraries' relocations), and make check starts it for
hundreds of the kit's own objects.  start() builds the server (make
ccfork), starts it -- clang with ccfork_server.so preloaded, serving a
socket -- and sets, in this process's environment, what the makes it
starts then use: COMPILER_CACHE=<the client>, which mk/build.mk puts in
front of the compiler for the kit's own objects and links (KIT_CC, never
a student's file: those compile in the jail), CCFORK_SOCKET and
CCFORK_CC.  The client runs the compiler itself wherever the server is
not the compiler it is asked for, or does not answer.  The server ends
with this process, or at stop().  Standard library only.
"""
import os
import shutil
import subprocess
import tempfile
import time

from . import ROOT, proc

_server = None


def clang(cc):
    """The real path of compiler @cc if it is clang (the server's only
    compiler), else None."""
    path = shutil.which(cc) if cc else None
    real = os.path.realpath(path) if path else None
    return real if real and os.path.basename(real).startswith("clang") else None


def library(build):
    """The server's library (make ccfork) for BUILD @build: its path."""
    return os.path.join(ROOT, build, "ccfork", "ccfork.so")


def start(build, cc):
    """Start the server for compiler @cc (BUILD @build); None, or why not."""
    global _server
    path = shutil.which(cc)
    if not clang(cc):
        return "CC=%s is not clang" % cc
    r = proc.make(["ccfork"], build=build)
    if not r.ok:
        return "make ccfork: " + r.status()
    out = os.path.dirname(library(build))
    folder = tempfile.mkdtemp(prefix="ccfork.")
    sock = os.path.join(folder, "socket")
    env = dict(os.environ, CCFORK_SERVE=sock, LD_PRELOAD=library(build))
    with open(os.path.join(folder, "errors"), "w+") as errors:
        server = subprocess.Popen([path], env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=errors)
        deadline = time.time() + 5
        while not os.path.exists(sock) and server.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        if not os.path.exists(sock):
            server.kill()
            server.wait()
            errors.seek(0)
            err = " ".join(errors.read().split())
            shutil.rmtree(folder, ignore_errors=True)
            return "the server did not start" + (": " + err if err else "")
    _server = (server, folder)
    os.environ.update(COMPILER_CACHE=os.path.join(out, "ccfork"), CCFORK_SOCKET=sock,
                      CCFORK_CC=cc)
    return None


def server_pid():
    """The server's pid, or None if none runs."""
    return _server[0].pid if _server else None


def stop():
    """End the server, if one runs, and take it out of the environment."""
    global _server
    if not _server:
        return
    server, folder = _server
    server.kill()
    server.wait()
    shutil.rmtree(folder, ignore_errors=True)
    for k in ("COMPILER_CACHE", "CCFORK_SOCKET", "CCFORK_CC"):
        os.environ.pop(k, None)
    _server = None
