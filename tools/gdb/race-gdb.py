"""race-gdb.py - gdb commands that walk a replayed race back and forth.

Sourced by `make debug` (and `make rr-replay-N`):

    gdb -x tools/gdb/race-gdb.py -ex goto-step --args RACE replay FILE --debug

A schedule file fixes the whole execution, so going back to step k is
running the program again and stopping at step k: every run is the same
execution (the same trick rr's reverse execution is built on).  The race
binary, under --debug, calls race_debug_step(k) in the thread that takes
step k, before its access, and race_debug_stop() when the execution ends
(common/race/front/debug.c); these commands stop there and nowhere else.

  goto-step [K]     run again from the start and stop at step K in the
                    thread that takes it; no K: at the verdict
  step-back [N]     back N steps (1): goto-step, N fewer
  step-forward [N]  on N steps (1), without running again
  who-freed [EXPR]  who freed the object of the step at hand (or the object
                    EXPR points into): the step, the thread, its backtrace;
                    found by running to that step, then back
  race-where        where we stand again: the step, both threads
  rr-walk-back      under `rr replay` (make rr-replay-N), stopped at the
                    verdict: watch the victim and reverse-continue to the
                    write that freed or dropped it

In the scenario's threads (named T1.. and RCU) backtraces leave out the
reproducer's frames (common/race/, the C library, the sanitizer runtime)
and what lies below the thread's function; `bt -no-filters` shows all.
Every command prints what it did in a few lines, and says what to do when
it cannot (no verdict, no object, a step past the end).
"""
import os
import re

import gdb

THREAD = re.compile(r"^(T\d+|RCU)$")


class Cursor:
    """Where the walk stands: a step, or the end of the execution."""
    step = 0            # the step at hand (0: not started)
    at_end = False      # stopped at race_debug_stop(), not at a step
    last = None         # how many steps the execution has, once seen


CUR = Cursor()


class StepStop(gdb.Breakpoint):
    """race_debug_step(nr): stop when nr is the step asked for."""

    def __init__(self):
        super().__init__("race_debug_step", internal=True)
        self.silent = True
        self.target = 0

    def stop(self):
        return int(gdb.parse_and_eval("nr")) == self.target


class EndStop(gdb.Breakpoint):
    """race_debug_stop(): the execution has ended."""

    def __init__(self):
        super().__init__("race_debug_stop", internal=True)
        self.silent = True


# --- reading the race binary's state ---------------------------------------------

def value(expr):
    return gdb.parse_and_eval(expr)


def where():
    """The step at hand as the schedule file records it:
    (number, thread, label, object)."""
    words = value("race_debug.where").string().split()
    if len(words) < 5:
        return int(value("race_debug.step")), "", "", "-"
    return int(words[1]), words[2], words[3], words[4]


def verdict():
    """'kind: message' of the execution's verdict, or None."""
    kind = value("race_sh->kind").string()
    return "%s: %s" % (kind, value("race_sh->message").string()) if kind else None


def thread_title(name):
    """'T2 remove_key' (the scenario's name for it), or 'T2', 'RCU'."""
    m = re.match(r"T(\d+)$", name or "")
    if m:
        try:
            fn = value("race_sc->names[%d]" % (int(m.group(1)) - 1))
            if int(fn):
                return "%s %s" % (name, fn.string())
        except gdb.error:
            pass
    return name


def scenario_threads():
    """The inferior's threads named T1.. and RCU, in that order."""
    threads = [t for t in gdb.selected_inferior().threads() if THREAD.match(t.name or "")]
    return sorted(threads, key=lambda t: (t.name == "RCU", len(t.name), t.name))


def step_fields(n):
    """(thread, label, obj_ref, obj, obj_off) of recorded step @n (1-based)."""
    s = value("race_sh->steps[%d]" % (n - 1))
    return (int(s["thread"]), "%s.%s" % (s["fn"].string(), s["what"].string()),
            int(s["obj_ref"]), int(s["obj"]), int(s["obj_off"]))


def workers():
    """How many threads the scenario has (the RCU thread not counted)."""
    n = 0
    while n < 4 and int(value("(long)race_sc->threads[%d]" % n)):
        n += 1
    return n


def thread_name(tid):
    """'T2' or 'RCU' for thread number @tid of the reproducer."""
    return "RCU" if tid == workers() + 1 else "T%d" % tid


# --- running ------------------------------------------------------------------------

def alive():
    inf = gdb.selected_inferior()
    return inf.pid != 0 and len(inf.threads()) > 0


def stopped_in():
    """'step', 'end', or why it stopped elsewhere (None: not running)."""
    if not alive():
        return None
    name = gdb.newest_frame().name() if gdb.selected_thread() else None
    return {"race_debug_step": "step", "race_debug_stop": "end"}.get(name, name or "?")


def run_to(k):
    """Run from the start; stop at step @k (0: at the end).  Returns
    'step', 'end' or where else it stopped."""
    STEP.target = k
    STEP.enabled = k > 0
    gdb.execute("run", to_string=True)
    return settle()


def go_on(k):
    """Continue to step @k of the running execution."""
    STEP.target = k
    STEP.enabled = True
    gdb.execute("continue", to_string=True)
    return settle()


def settle():
    """Read where the execution stopped into CUR; the stop's kind."""
    how = stopped_in()
    if how == "step":
        CUR.step, CUR.at_end = int(value("nr")), False
    elif how == "end":
        CUR.step, CUR.at_end = int(value("race_debug.step")), True
        CUR.last = CUR.step
    return how


# --- showing --------------------------------------------------------------------------

class RaceFrames:
    """Leave the reproducer's frames out of the scenario threads' backtraces."""

    def __init__(self):
        self.name, self.priority, self.enabled = "race-reproducer", 100, True
        gdb.frame_filters[self.name] = self

    def filter(self, frames):
        th = gdb.selected_thread()
        if th is None or not THREAD.match(th.name or ""):
            return frames
        return (d for d in self._until_thread_main(frames) if not hidden(d.inferior_frame()))

    @staticmethod
    def _until_thread_main(frames):
        for d in frames:
            if d.inferior_frame().name() == "thread_loop":
                return
            yield d


def hidden(frame):
    """A frame of the kit's primitives and reproducer (common/), the C
    library or the sanitizer runtime: what the step's label already says."""
    sal = frame.find_sal()
    if sal.symtab is None:
        return True
    exe = gdb.current_progspace().filename
    return sal.symtab.filename.startswith("common/") or (
        exe is not None and sal.symtab.objfile.filename != exe)


def backtrace(th):
    """The filtered backtrace of thread @th, as lines."""
    th.switch()
    text = gdb.execute("bt", to_string=True)
    return [l for l in text.splitlines() if l.startswith("#")]


def state_of(th):
    """What thread @th (of the reproducer's) is doing, from race_threads (runtime/threads.c)."""
    t = value("race_threads[%d]" % (workers() if th.name == "RCU" else int(th.name[1:]) - 1))
    state = str(t["state"])
    if state == "RACE_TS_POINT":
        return "waits at %s.%s" % (t["fn"].string(), t["what"].string())
    return {"RACE_TS_DONE": "finished", "RACE_TS_IDLE": "not started"}.get(state, state)


def show_threads(taker):
    for th in scenario_threads():
        lines = backtrace(th)
        if th.name == "RCU" and not lines:
            continue
        if th != taker:
            doing = state_of(th)
        else:
            doing = "found the verdict" if CUR.at_end else "takes step %d" % CUR.step
        print("%s: %s" % (thread_title(th.name), doing))
        for l in lines:
            print("   " + l)
    taker.switch()


def select_label_frame(label):
    """Select the frame of the function the step's label names."""
    fn = label.split(".", 1)[0]
    f = gdb.newest_frame()
    while f is not None:
        if f.name() == fn:
            f.select()
            return True
        f = f.older()
    return False


def show(how):
    """Say where the walk stands: the step, the verdict, both threads."""
    if how not in ("step", "end"):
        print("stopped elsewhere (%s): not at a step of the replay" % how)
        return
    taker = gdb.selected_thread()
    n, thread, label, obj = where()
    of = " of %d" % CUR.last if CUR.last else ""
    if how == "end" and not verdict():
        print("the execution ended after step %d without a verdict" % n)
    elif how == "end" and not THREAD.match(taker.name or ""):
        print("after step %d%s, the last, the verdict of the checks that run after "
              "the threads:" % (n, of))
        print("verdict: " + verdict())
    elif how == "end":
        print("step %d%s, the verdict: %s %s(%s)" % (n, of, thread, label, obj))
        print("verdict: " + verdict())
    else:
        print("step %d%s: %s %s(%s), before its access" % (n, of, thread, label, obj))
    show_threads(taker)
    if label and select_label_frame(label):
        gdb.execute("frame")


# --- the commands -----------------------------------------------------------------------

def number_arg(arg, default):
    arg = arg.strip()
    if not arg:
        return default
    try:
        return int(gdb.parse_and_eval(arg))
    except gdb.error:
        raise gdb.GdbError("expected a step number, got '%s'" % arg)


def goto(k):
    """Run to step @k (0: the verdict) and show it.  The first time, run
    to the end first: "step 5 of 15" needs the 15."""
    if CUR.last is None and k:
        run_to(0)
    how = run_to(k)
    if how == "end" and k and k > CUR.step:
        print("there is no step %d: the execution has %d steps" % (k, CUR.step))
    elif how == "end" and not k and not verdict() and CUR.step:
        print("no verdict: the execution ended after step %d; standing at it" % CUR.step)
        how = run_to(CUR.step)
    show(how)


class GotoStep(gdb.Command):
    """goto-step [K]: run the replay again and stop at step K, in the thread
that takes it, before its access.  Without K: at the verdict."""

    def __init__(self):
        super().__init__("goto-step", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        k = number_arg(arg, 0)
        if k < 0:
            raise gdb.GdbError("steps are numbered from 1")
        goto(k)


class StepBack(gdb.Command):
    """step-back [N]: go back N steps (default 1), by running again."""

    def __init__(self):
        super().__init__("step-back", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        if not CUR.step:
            raise gdb.GdbError("no step yet: goto-step K first")
        k = CUR.step - number_arg(arg, 1)
        if k < 1:
            raise gdb.GdbError("step 1 is the first: there is nothing before it")
        goto(k)


class StepForward(gdb.Command):
    """step-forward [N]: on N steps (default 1) in the running execution."""

    def __init__(self):
        super().__init__("step-forward", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        if not alive() or CUR.at_end:
            raise gdb.GdbError("the execution has ended: goto-step K or step-back")
        k = CUR.step + number_arg(arg, 1)
        how = go_on(k)
        if how == "end" and k > CUR.step:
            print("there is no step %d: the execution has %d steps" % (k, CUR.step))
        show(how)


def object_at(step):
    """(id, text) of the object step @step accesses, or None."""
    _, _, ref, obj, _ = step_fields(step)
    if ref != int(value("RACE_REF_OBJ")):
        return None
    return obj, "obj#%d" % obj


def object_of(expr):
    """(id, text) of the object @expr points into, or GdbError."""
    try:
        addr = int(value("(unsigned long)(%s)" % expr))
        o = value("race_obj_find((const volatile void *)%d)" % addr)
        if int(o) == 0:
            raise gdb.GdbError("%s (0x%x) is not in an object of this "
                               "execution" % (expr, addr))
        n = int(value("race_obj_id((const struct race_obj *)%d)" % int(o)))
    except gdb.error as e:
        raise gdb.GdbError("cannot evaluate %s: %s" % (expr, e))
    return n, "obj#%d" % n


def freeing_step(obj, before):
    """The step before @before that freed obj#@obj, or 0."""
    for n in range(before - 1, 0, -1):
        tid, label, ref, o, off = step_fields(n)
        if label.endswith(".kfree") and ref == int(value("RACE_REF_OBJ")) \
                and o == obj and off == 0:
            return n
    return 0


class WhoFreed(gdb.Command):
    """who-freed [EXPR]: the step, thread and backtrace that freed the
object of the step at hand (or the object EXPR points into).  Runs to that
step to show it, then comes back."""

    def __init__(self):
        super().__init__("who-freed", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not alive() or not CUR.step:
            raise gdb.GdbError("no execution: goto-step K first")
        found = object_of(arg) if arg.strip() else object_at(CUR.step)
        if found is None:
            raise gdb.GdbError("step %d accesses no object of the slab: "
                               "who-freed EXPR names one" % CUR.step)
        obj, text = found
        back, at_end = CUR.step, CUR.at_end
        n = freeing_step(obj, back)
        if not n:
            print("who-freed: no step before step %d frees %s (if it was freed, "
                  "it was outside the threads: setup or teardown)" % (back, text))
            return
        tid, label, _, _, _ = step_fields(n)
        run_to(n)
        taker = gdb.selected_thread()
        print("who-freed: %s was freed at step %d by %s, in %s:"
              % (text, n, thread_title(thread_name(tid)), label.rsplit(".", 1)[0]))
        for l in backtrace(taker):
            print("   " + l)
        run_to(0 if at_end else back)
        print("back at step %d%s (goto-step %d stands at the free)"
              % (CUR.step, ", the verdict" if at_end else "", n))


class Where(gdb.Command):
    """race-where: the step at hand again, and both threads."""

    def __init__(self):
        super().__init__("race-where", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        how = stopped_in()
        if how is None:
            raise gdb.GdbError("no execution: goto-step K first")
        settle()
        show(how)


class RrWalkBack(gdb.Command):
    """rr-walk-back: under rr replay, stopped at the verdict
(race_debug_stop): watch what the failing step accessed and
reverse-continue to the write that freed or dropped it."""

    def __init__(self):
        super().__init__("rr-walk-back", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        if not alive():
            raise gdb.GdbError(
                "rr-walk-back: no process: it must run after rr's 'target "
                "extended-remote' (rr replay puts that before the first "
                "-ex continue; rr issues 2098 and 3243)")
        if stopped_in() != "end":
            raise gdb.GdbError("rr-walk-back: not at the verdict: 'continue' "
                               "to race_debug_stop first")
        settle()
        if not verdict():
            raise gdb.GdbError("rr-walk-back: the execution ended without a verdict")
        n, thread, label, obj = where()
        addr = int(value("(unsigned long)race_debug.addr"))
        print("rr-walk-back: verdict at step %d, %s %s(%s): %s"
              % (n, thread, label, obj, verdict()))
        if not addr:
            raise gdb.GdbError("rr-walk-back: the verdict came from the checks "
                               "after the threads: no access to watch")
        gdb.execute("watch -l *(unsigned int *)0x%x" % addr, to_string=True)
        print("rr-walk-back: watching the 4 bytes at 0x%x (%s), reverse-continue" % (addr, obj))
        try:
            gdb.execute("reverse-continue")
        except gdb.error as e:
            gdb.execute("delete $bpnum", to_string=True)
            raise gdb.GdbError("rr-walk-back: this gdb cannot run backwards (%s): that "
                               "needs rr (make rr-replay-N); without rr, who-freed walks "
                               "back by running again" % e)
        done = int(value("race_sh->nr_steps"))
        tid, at, _, _, _ = step_fields(done)
        print("rr-walk-back: the last write before the verdict, in step %d: %s %s"
              % (done, thread_name(tid), at))
        CUR.step, CUR.at_end = done, False
        show_threads(gdb.selected_thread())
        gdb.execute("delete $bpnum", to_string=True)


gdb.execute("set confirm off")
gdb.execute("set pagination off")
gdb.execute("set width 0")
gdb.execute("set print thread-events off")
STEP, END = StepStop(), EndStop()
STEP.enabled = False
RaceFrames()
for command in (GotoStep, StepBack, StepForward, WhoFreed, Where, RrWalkBack):
    command()
if os.environ.get("GDB_UNDER_RR") != "1":
    print("race-gdb: goto-step [K], step-back [N], step-forward [N], who-freed [EXPR], "
          "race-where (help goto-step ...)")
