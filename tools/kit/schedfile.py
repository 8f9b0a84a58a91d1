"""kit.schedfile - a schedule file, as the front ends see it.

The race binary is the parser of schedule files (common/race/schedfile.c;
`race check FILE` reads one as a replay would and runs nothing).  A front
end only needs one thing from a file before it knows which binary to ask:
the lab it is for (its "lab N" line).  This module reads that the way the
binary reads everything: a regular file only, opened without blocking (a
FIFO is refused, never waited on), at most MAX_BYTES, as bytes (a comment
may hold any byte); and it writes messages as the binary does, one line,
"FILE:LINE: expected ..., got '...'", every byte outside ' '..'~' escaped.
"""
import os
import stat

MAX_BYTES = 16 << 20            # RACE_SCHED_MAX_BYTES
QUOTE_MAX = 48                  # RACE_QUOTE_MAX


# What the grade says of an exercise's file that has no "run" line yet.
NOT_WRITTEN = "not written yet: it has no 'run' lines"


class SchedError(Exception):
    """A schedule file that cannot be used; str() is the one-line message."""


_LETTERS = {0x5c: "\\\\", 0x27: "\\'", 0x09: "\\t", 0x0a: "\\n", 0x0d: "\\r"}


def escape(data):
    """@data (bytes, or str such as a path) as printable ASCII, as
    race_escape() writes it: \\\\ \\' \\t \\n \\r, \\xNN for other bytes
    outside ' '..'~'."""
    if isinstance(data, str):
        data = os.fsencode(data)
    return "".join(_LETTERS.get(b) or (chr(b) if 0x20 <= b <= 0x7e else "\\x%02x" % b)
                   for b in data)


def quote(data):
    """'text', or for more than QUOTE_MAX bytes 'start...' (N bytes), as
    race_quote() writes it."""
    if isinstance(data, str):
        data = os.fsencode(data)
    if len(data) > QUOTE_MAX:
        return "'%s...' (%d bytes)" % (escape(data[:QUOTE_MAX]), len(data))
    return "'%s'" % escape(data)


def _kind(mode):
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def read(path):
    """The bytes of schedule file @path; SchedError if it is not a regular
    file, cannot be read, or is bigger than MAX_BYTES."""
    name = escape(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except (OSError, ValueError) as e:
        raise SchedError("%s: cannot open it: %s" % (name, getattr(e, "strerror", None) or e))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SchedError("%s: expected a schedule file (a regular file), got %s"
                             % (name, _kind(mode)))
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise SchedError("%s: cannot read it: %s" % (name, e.strerror))
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        raise SchedError("%s: expected a schedule file of at most %d MiB, got a "
                         "bigger file" % (name, MAX_BYTES >> 20))
    return b"".join(chunks)


def lines(data):
    """(number, text) of each line that is not blank or a comment: the text
    from its first word on, without a final carriage return."""
    for n, line in enumerate(data.split(b"\n"), 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        text = line.lstrip(b" \t")
        if text and not text.startswith(b"#"):
            yield n, text


def _unprintable(text):
    return next((i for i, b in enumerate(text) if not (0x20 <= b <= 0x7e or b == 9)), None)


def header(data, key):
    """(line number, the words after KEY) of the first line "KEY ..." of
    @data, or None.  SchedError, as the binary words it, if that line holds
    a byte that is not printable ASCII."""
    want = key.encode()
    for n, text in lines(data):
        words = text.replace(b"\t", b" ").split(b" ")
        if words[0] != want:
            continue
        bad = _unprintable(text)
        if bad is not None:
            raise SchedError("%d: expected printable ASCII text, got byte \\x%02x at "
                             "column %d in %s" % (n, text[bad], bad + 1, quote(text)))
        return n, [w.decode() for w in words[1:] if w]
    return None


def lab_line(path, data):
    """The lab number of @data's "lab N" line, or None if it has none;
    SchedError naming the line if it is malformed."""
    try:
        found = header(data, "lab")
    except SchedError as e:
        raise SchedError("%s:%s" % (escape(path), e))
    if found is None:
        return None
    n, words = found
    if len(words) != 1 or not words[0].isdigit() or len(words[0]) > 7 or int(words[0]) < 1:
        text = next(t for m, t in lines(data) if m == n)
        raise SchedError("%s:%d: expected 'lab N' (the number of a lab), got %s"
                         % (escape(path), n, quote(text)))
    return n, int(words[0])


def header_problem(data, scenario=None):
    """Why schedule file @data lacks its header, in one line, with the
    lines to add ('scenario NAME' with @scenario, if known), or None."""
    words = {text.split()[0] for _, text in lines(data) if text.split()}
    missing = [line for key, line in ((b"race-schedule", "race-schedule 1"),
                                      (b"scenario", "scenario %s" % (scenario or "NAME")))
               if key not in words]
    if not missing:
        return None
    return ("it has no %s line: add %s at its top (docs/reproducer.md, \"Schedule files\")"
            % (" or ".join("'%s'" % m.split()[0] for m in missing),
               " and ".join("'%s'" % m for m in missing)))


def exercise_problem(data, ex):
    """Why schedule file @data cannot be graded as exercise @ex (a
    kit.layout.Exercise), in one line, or None: it has no "run" line yet,
    or lacks the header that says what it replays (header_problem)."""
    words = {text.split()[0] for _, text in lines(data) if text.split()}
    if b"run" not in words:
        return NOT_WRITTEN
    return header_problem(data, ex.scenario)
