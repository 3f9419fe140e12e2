"""The parser sandbox's worker process: `python -P -m pincite.sources.parser_worker FD`.

`ParserSandbox` starts this module as a fresh interpreter (never through multiprocessing,
whose "spawn" and "forkserver" re-import the caller's `__main__` and so need an
`if __name__ == "__main__":` guard in every script). FD is the worker's end of a socket
pair, spoken as a `multiprocessing.connection.Connection`:

1. the parent sends its `Limits`; the worker sets its resource limits, then answers
   `READY`;
2. per parse, the parent sends `(kind, password, size)` and then either the bytes
   (`size` None) or an open file's descriptor (over the socket, `SCM_RIGHTS`), whose
   first `size` bytes the worker reads itself — a large upload is never copied through
   the parent or the pipe; the worker answers one pickled reply tuple (see
   `parse_reply`), after sending `PAGE_READ` for each page the PDF parser read from its
   image (OCR): each renews the parse's CPU budget, and the parent's wall clock
   (`ParserSandbox`); and, when the parent asked for progress, a `progress_message` per
   page reported (`ProgressUnit.PAGE`, `OCR_PAGE`), which renews nothing;
3. `None`, or the parent going away, ends the worker.
"""

from __future__ import annotations

import itertools
import math
import os
import pickle
import signal
import sys
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle

from ..errors import ParseFailure
from ..limits import Limits
from ..model.progress_report import Report
from ..vocab import ProgressUnit

__all__ = ["PAGE_READ", "PROGRESS", "READY", "TEST_ENV", "TEST_KINDS", "parse_reply",
           "progress_message", "serve"]

TEST_ENV = "PINCITE_SANDBOX_TEST"
TEST_KINDS = ("__sleep__", "__alloc__", "__spin__", "__crash__", "__raise__", "__pages__",
              "__chatter__", "__babble__")
READY = b"ready"
PAGE_READ = b"page-read"  # a heartbeat: one more page was read by OCR
PROGRESS = b"progress|"   # then `unit|done|total` (`progress_message`)
PAGE_UNITS = (ProgressUnit.PAGE, ProgressUnit.OCR_PAGE)  # what the worker may report
_DETAIL_MAX = 300
_FSIZE_BYTES = 1 << 20


def parse_reply(kind: str, data: bytes, password: str | None, limits: Limits,
                report: Report | None = None) -> tuple:
    """Return ("ok", layer) | ("fail", reason, detail) | ("memory",) | ("error", detail)."""
    try:
        if kind in TEST_KINDS:
            _test_hook(kind, report)
        from ..parse import parse

        return ("ok", parse(kind, data, password=password, limits=limits, report=report))
    except ParseFailure as f:
        return ("fail", f.reason, f.detail)
    except MemoryError:
        return ("memory",)
    except Exception as exc:  # noqa: BLE001 - every parser bug becomes a typed rejection
        detail = f"{type(exc).__name__}: {exc}"
        if len(detail) > _DETAIL_MAX:
            detail = detail[:_DETAIL_MAX - 3] + "..."
        return ("error", f"the parser failed: {detail}")


def progress_message(unit: ProgressUnit, done: int, total: int | None) -> bytes:
    """Return the message that reports `done` of `total` pages (`PAGE_UNITS`) to the parent."""
    return PROGRESS + f"{unit.value}|{done}|{'' if total is None else total}".encode()


def _test_hook(kind: str, report: Report | None = None) -> None:
    """The test seam (see `pincite.sources.sandbox`); only the worker reaches it."""
    if kind == "__sleep__":
        import time

        time.sleep(3600)
    elif kind == "__alloc__":
        hog = []
        while True:
            hog.append(bytes(64 << 20))  # calloc: counts against RLIMIT_AS, untouched
    elif kind == "__spin__":
        while True:
            pass
    elif kind == "__crash__":
        os._exit(3)
    elif kind == "__pages__":  # three pages "read by OCR", one a second, then a failure
        import time

        from ..parse.pdf import scanned

        for _ in range(3):
            time.sleep(1.0)
            if scanned._page_hook is not None:
                scanned._page_hook()
    elif kind == "__chatter__" and report is not None:  # page reports, 20 a second, for ever
        import time

        for k in itertools.count(1):
            report(ProgressUnit.PAGE, k, None)
            time.sleep(0.05)
    elif kind == "__babble__" and report is not None:  # a report no parser makes, then silence
        import time

        report(ProgressUnit.PAGE, -1, 3)
        time.sleep(3600)
    raise ValueError("test hook asked to fail")


def _confine(limits: Limits) -> None:
    """Set this process's resource limits (its stdout and stderr are /dev/null already)."""
    import resource

    def lower(which: int, value: int) -> None:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    lower(resource.RLIMIT_AS, limits.parse_memory_bytes)
    lower(resource.RLIMIT_FSIZE, _FSIZE_BYTES)
    lower(resource.RLIMIT_CORE, 0)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _cpu_budget(seconds: int) -> None:
    """Let the next parse use `seconds` more CPU time than this process has used so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + max(1, seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def serve(conn: Connection) -> None:
    """Receive the limits, confine this process, then serve parses until told to stop."""
    try:
        limits = conn.recv()
    except (EOFError, OSError):
        return
    if not isinstance(limits, Limits):
        return
    _confine(limits)
    from ..parse.pdf.scanned import set_page_hook

    def page_read() -> None:
        _cpu_budget(limits.parse_cpu_seconds)
        conn.send_bytes(PAGE_READ)

    def progress(unit: ProgressUnit, done: int, total: int | None, label: str = "") -> None:
        if unit in PAGE_UNITS:
            conn.send_bytes(progress_message(unit, done, total))

    set_page_hook(page_read)
    conn.send_bytes(READY)
    while True:
        try:
            request = conn.recv()
            if request is None:
                return
            kind, password, size, reported = request
            data = conn.recv_bytes() if size is None else _read_lent(recv_handle(conn), size)
        except (EOFError, OSError):
            return
        except MemoryError:
            _send(conn, ("memory",))
            continue
        _cpu_budget(limits.parse_cpu_seconds)
        reply = parse_reply(kind, data, password, limits, progress if reported else None)
        del data
        if not _send(conn, reply):
            return


def _send(conn: Connection, reply: tuple) -> bool:
    """Send one pickled reply; return False when the parent is gone."""
    try:
        payload = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        payload = pickle.dumps(("memory",))
    except Exception as exc:  # noqa: BLE001
        payload = pickle.dumps(("error", f"the text layer could not be sent back "
                                f"({type(exc).__name__})"))
    del reply
    try:
        conn.send_bytes(payload)
    except OSError:
        return False
    return True


def _read_lent(fd: int, size: int) -> bytes:
    """Return the first `size` bytes of the file the parent lent (then close it); fewer
    when it ends first. `pread` leaves the offset the parent shares alone."""
    try:
        data = os.pread(fd, size, 0)
        if len(data) < size:  # a short read: gather the rest (or what is left)
            parts, got = [data], len(data)
            while got < size and (more := os.pread(fd, size - got, got)):
                parts.append(more)
                got += len(more)
            data = b"".join(parts)
        return data
    finally:
        os.close(fd)


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1])))
