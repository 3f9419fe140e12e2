"""The parser sandbox: untrusted bytes are parsed in a child process under limits.

`ParserSandbox` keeps one worker process and reuses it for parse after parse. The worker
is a fresh interpreter, `python -P -m pincite.sources.parser_worker` over a socket pair,
not a multiprocessing child: "spawn" and "forkserver" re-import the caller's `__main__`,
so a script without an `if __name__ == "__main__":` guard would crash (or run twice), and
"fork" would copy a threaded parent. The worker sets its own limits before reading any
input:

- `RLIMIT_AS` = `limits.parse_memory_bytes` (allocation past it raises MemoryError),
- `RLIMIT_CPU` = `limits.parse_cpu_seconds` *per parse* (the soft limit is moved to "CPU
  used so far + budget" before each parse; past it the kernel's SIGXCPU ends the worker),
- `RLIMIT_FSIZE` = 1 MiB (parsers write no files; SIGXFSZ is ignored so a write fails),
- `RLIMIT_CORE` = 0; stdin, stdout and stderr are /dev/null (a parser's prints must not
  reach a CLI's JSON output or a log); Ctrl-C is left to the parent.

`parse(kind, data)` sends the bytes over the socket; `parse_file(kind, fd, size)` lends
the worker an open file's descriptor instead (`SCM_RIGHTS`), and the worker reads the
file's first `size` bytes itself with `pread` — within its own `RLIMIT_AS`, and without
opening any path, so a link swapped in meanwhile is never followed. The ingest of a large
file uses it: no copy of the file passes through the parent or the pipe.

The parent enforces the wall clock (`limits.parse_seconds`): past it the worker is killed
and a new one starts lazily on the next parse. A PDF page read by OCR takes seconds: the
worker says so after each (`PAGE_READ`), and the parent then waits `parse_seconds` plus
`limits.ocr.page_seconds` again — at most one heartbeat per page the OCR settings allow,
so a worker that keeps talking cannot keep the parent waiting for ever. Given a `report`
callback, the parent asks the worker for progress too: a PDF's pages read and pages read by
OCR (`progress_message`), passed on to `report`. Those renew nothing (the clock runs on
from the last heartbeat), each must be a page unit with counts within the limits, and no
more than `limits.max_pages + limits.ocr.max_pages + 1` come per parse; a worker that breaks
any of this is stopped and the parse fails as `malformed`. Every outcome is a `TextLayer` or a
`ParseFailure(reason, detail)`:

| what happened in the worker | reason |
|---|---|
| the parser raised ParseFailure | its own reason and detail |
| the wall clock or the CPU budget ran out | `timeout` |
| MemoryError, or the worker was SIGKILLed (the OOM killer) | `over_limit` (memory) |
| any other exception | `malformed` (exception type and message, truncated) |
| the worker died otherwise (exit status, SIGSEGV…) | `malformed` |

The reply is unpickled with an allow-list (`TextLayer`, `Element`, `Geometry` only), so
a parser subverted by hostile bytes cannot run code in the parent through the pipe.

Test seam: when the environment variable `PINCITE_SANDBOX_TEST` is set (in the parent
before the worker starts, which inherits it), the worker also accepts the kinds
`__sleep__` (sleeps an hour), `__alloc__` (allocates until RLIMIT_AS stops it),
`__spin__` (burns CPU), `__crash__` (`os._exit(3)`), `__raise__` (raises ValueError) and
`__pages__` (says three times, a second apart, that it read a page by OCR, then raises),
and, when progress is asked for, `__chatter__` (reports a page every 0.05 s, for ever)
and `__babble__` (reports page -1 of 3, then sleeps an hour).
Nothing else reads that variable.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from multiprocessing.connection import Connection
from multiprocessing.reduction import send_handle
from typing import Any

from ..errors import ParseFailure, PinciteError, UsageError
from ..limits import Limits
from ..model import MEDIA_TYPES, TextLayer
from ..model.progress_report import Report
from ..parse import IMPORT_KINDS
from ..vocab import ProgressUnit, QuarantineReason
from .parser_worker import (
    PAGE_READ,
    PAGE_UNITS,
    PROGRESS,
    READY,
    TEST_ENV,
    TEST_KINDS,
    parse_reply,
)

__all__ = ["TEST_ENV", "ParserSandbox", "parse_untrusted"]

_START_SECONDS = 60.0
_WORKER_MODULE = "pincite.sources.parser_worker"
_REPLY_CLASSES = frozenset({("pincite.model", "TextLayer"), ("pincite.model", "Element"),
                            ("pincite.model", "Geometry"), ("array", "_array_reconstructor"),
                            ("array", "array")})


class ParserSandbox:
    """Parses untrusted bytes in a reused, resource-limited worker process.

    Use as a context manager (`with ParserSandbox(limits) as sb: sb.parse(...)`) or call
    `close()`. Thread-safe: parses through one sandbox run one at a time.
    """

    def __init__(self, limits: Limits | None = None, *, recycle_after: int = 200) -> None:
        self.limits = limits or Limits()
        self.recycle_after = recycle_after
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None
        self._parses = 0
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize | None = None

    def __enter__(self) -> ParserSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def worker_pid(self) -> int | None:
        """The worker's process id, or None when no worker is running."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def parse(self, kind: str, data: bytes, password: str | None = None,
              report: Report | None = None) -> TextLayer:
        """Return the text layer of `data` read as `kind`; raise ParseFailure otherwise.
        The pages the worker reads are reported to `report`."""
        if not isinstance(data, bytes | bytearray | memoryview):
            raise UsageError(f"parse needs bytes, not {type(data).__name__}")
        return self._parse(kind, data, password, report)

    def parse_file(self, kind: str, fd: int, size: int, password: str | None = None,
                   report: Report | None = None) -> TextLayer:
        """Return the text layer of the first `size` bytes of the open file `fd`, read as
        `kind`; raise ParseFailure otherwise. The worker is lent the descriptor and reads
        the file itself (under its own memory limit), so no copy of it passes through this
        process or the pipe."""
        if not 0 <= size <= self.limits.max_bytes:
            raise UsageError(f"parse_file needs a size within 0..{self.limits.max_bytes}")
        return self._parse(kind, (fd, size), password, report)

    def _parse(self, kind: str, body: bytes | bytearray | memoryview | tuple[int, int],
               password: str | None, report: Report | None = None) -> TextLayer:
        check_kind(kind)
        with self._lock:
            conn = self._ensure_worker()
            try:
                reply = self._exchange(conn, kind, body, password, report)
            except BaseException:
                self._stop()  # never leave a worker whose reply nobody will read
                raise
        if reply[0] == "ok":
            layer: TextLayer = reply[1]
            return layer
        if reply[0] == "memory":
            raise ParseFailure("over_limit", f"the parser ran out of memory (limit "
                               f"{self.limits.parse_memory_bytes} bytes)")
        if reply[0] == "fail":
            raise ParseFailure(reply[1], reply[2])
        raise ParseFailure("malformed", reply[1])

    def _exchange(self, conn: Connection, kind: str,
                  body: bytes | bytearray | memoryview | tuple[int, int],
                  password: str | None, report: Report | None = None) -> tuple:
        """Send one request (the bytes, or an open file's descriptor and size) and return
        the worker's reply; raise ParseFailure when the worker timed out or died (it is
        stopped then)."""
        try:
            if isinstance(body, tuple):
                conn.send((kind, password, body[1], report is not None))
                send_handle(conn, body[0], 0)
            else:
                conn.send((kind, password, None, report is not None))
                conn.send_bytes(body)
        except OSError:
            raise self._died() from None
        wait, beats, reports = self.limits.parse_seconds, 0, 0
        deadline = time.monotonic() + wait
        while True:
            if not conn.poll(max(0.0, deadline - time.monotonic())):
                self._stop()
                raise ParseFailure("timeout", f"parsing took longer than {wait:g} s "
                                   f"{'after the last page read by OCR ' if beats else ''}"
                                   "; the parser was stopped")
            try:
                payload = conn.recv_bytes(self.limits.parse_memory_bytes)
            except EOFError:
                raise self._died() from None
            except OSError:
                self._stop()
                raise ParseFailure("over_limit", "the parsed text layer is larger than the "
                                   "memory limit allows") from None
            if payload.startswith(PROGRESS):
                reports += 1
                self._pass_on(payload, reports, report)
                continue
            if payload != PAGE_READ:
                break
            beats += 1
            if beats > self.limits.ocr.max_pages:
                self._stop()
                raise ParseFailure("malformed", "the parser process reported more pages read "
                                   "by OCR than the settings allow; it was stopped")
            wait = self.limits.parse_seconds + self.limits.ocr.page_seconds
            deadline = time.monotonic() + wait
        self._parses += 1
        reply = _loads(payload)
        if reply[0] == "memory" or self._parses >= self.recycle_after:
            self._stop()  # a worker that hit MemoryError starts afresh
        return reply

    def _pass_on(self, payload: bytes, count: int, report: Report | None) -> None:
        """Give a progress message of the worker to `report`; stop the worker and raise
        ParseFailure when it is not one a parser sends, or one too many."""
        progress = _read_progress(payload, self.limits)
        # a PDF sends one per page and one per page read by OCR, and one when OCR is done
        if report is None or progress is None \
                or count > self.limits.max_pages + self.limits.ocr.max_pages + 1:
            self._stop()
            raise ParseFailure("malformed", "the parser process sent a progress report no "
                               "parser makes (or more than the page limits allow); it was "
                               "stopped")
        report(*progress)

    def close(self) -> None:
        """Stop the worker (a later parse starts a new one)."""
        with self._lock:
            conn, proc = self._conn, self._proc
            if proc is not None and proc.poll() is None and conn is not None:
                try:
                    conn.send(None)
                    proc.wait(2)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._stop()

    # --- worker management ------------------------------------------------------------

    def _ensure_worker(self) -> Connection:
        if self._conn is not None and self._proc is not None and self._proc.poll() is None:
            return self._conn
        self._stop()
        ours, theirs = socket.socketpair()
        try:
            proc = _start_worker(theirs.fileno())
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        parent = Connection(ours.detach())
        self._finalizer = weakref.finalize(self, _kill, proc)
        self._proc, self._conn, self._parses = proc, parent, 0
        try:
            parent.send(self.limits)
            ready = parent.poll(_START_SECONDS) and parent.recv_bytes(64) == READY
        except (EOFError, OSError):
            ready = False
        if not ready:
            self._stop()
            raise PinciteError("the parser sandbox did not start; check that pincite is "
                               "importable in a fresh interpreter")
        return parent

    def _stop(self) -> None:
        """Kill the worker, if any, and forget it."""
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None:
            _kill(self._proc)
        if self._finalizer is not None:
            self._finalizer.detach()
        self._proc, self._conn, self._finalizer = None, None, None

    def _died(self) -> ParseFailure:
        """Return the failure that explains why the worker went away (and forget it)."""
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(5)
            except subprocess.TimeoutExpired:
                code = None
        self._stop()
        if code == -getattr(signal, "SIGXCPU", 24):
            return ParseFailure("timeout", f"parsing used more than "
                                f"{self.limits.parse_cpu_seconds} s of CPU time")
        if code == -signal.SIGKILL:
            return ParseFailure("over_limit", "the parser process was killed, most likely "
                                "for running out of memory")
        how = (f"signal {signal.Signals(-code).name}" if code is not None and code < 0
               else f"exit status {code}")
        return ParseFailure("malformed", f"the parser process died ({how}) while reading the "
                            "file; it is damaged or hostile")


def _start_worker(fd: int) -> subprocess.Popen[bytes]:
    """Start a worker interpreter that speaks over the socket `fd`; return its process."""
    if not sys.executable:
        raise PinciteError("the parser sandbox needs a Python executable (sys.executable "
                           "is empty in this embedding)")
    # the worker searches this process's sys.path, in order (as multiprocessing's spawn
    # does), so it imports the same pincite even when a script or test put it there; -P
    # keeps the working directory from being put first on top of it
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p or os.getcwd() for p in sys.path)
    return subprocess.Popen([sys.executable, "-P", "-m", _WORKER_MODULE, str(fd)],
                            pass_fds=(fd,), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:  # unkillable (D state): leave it to the kernel
        pass


def check_kind(kind: str) -> None:
    """Raise UsageError unless `kind` is a media kind or an import kind (`docling`), or a
    test kind with the test seam on."""
    if kind in MEDIA_TYPES or kind in IMPORT_KINDS or (
            kind in TEST_KINDS and os.environ.get(TEST_ENV)):
        return
    raise UsageError(f"unknown media kind {kind!r}; use one of {', '.join(MEDIA_TYPES)}")


def parse_untrusted(kind: str, data: bytes, *, password: str | None, limits: Limits,
                    sandbox: bool = True, report: Report | None = None) -> TextLayer:
    """Return the text layer of `data`; raise ParseFailure with a quarantine reason.

    `sandbox=False` parses in this process (tests, benchmarks): no process limits, but an
    unexpected exception still becomes `ParseFailure("malformed")`.
    """
    if sandbox:
        with ParserSandbox(limits) as sb:
            return sb.parse(kind, data, password, report)
    check_kind(kind)
    if kind in TEST_KINDS:
        raise UsageError(f"the test kind {kind!r} runs only in the sandbox worker")
    reply = parse_reply(kind, data, password, limits, report)
    if reply[0] == "ok":
        layer: TextLayer = reply[1]
        return layer
    if reply[0] == "memory":
        raise ParseFailure("over_limit", "the parser ran out of memory")
    if reply[0] == "fail":
        raise ParseFailure(reply[1], reply[2])
    raise ParseFailure("malformed", reply[1])


def _read_progress(payload: bytes, limits: Limits
                   ) -> tuple[ProgressUnit, int, int | None] | None:
    """Return (unit, done, total) of a worker's progress message, or None when it is not a
    page unit with counts within the limits (`parser_worker.progress_message`)."""
    bound = max(limits.max_pages, limits.ocr.max_pages)
    parts = payload[len(PROGRESS):].split(b"|") if len(payload) <= 64 else []
    if len(parts) != 3 or not parts[1].isdigit() or not (parts[2].isdigit() or not parts[2]):
        return None
    unit = next((u for u in PAGE_UNITS if u.value.encode() == parts[0]), None)
    done, total = int(parts[1]), int(parts[2]) if parts[2] else None
    if unit is None or done > bound or (total is not None and not done <= total <= bound):
        return None
    return unit, done, total


class _ReplyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _REPLY_CLASSES:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"the parser worker sent a forbidden object {module}.{name}")


def _loads(payload: bytes) -> tuple:
    try:
        reply = _ReplyUnpickler(io.BytesIO(payload)).load()
    except Exception as exc:  # noqa: BLE001 - a confused or subverted worker
        return ("error", f"the parser worker sent an unreadable reply ({type(exc).__name__})")
    if not isinstance(reply, tuple) or not reply or reply[0] not in (
            "ok", "fail", "memory", "error"):
        return ("error", "the parser worker sent an unexpected reply")
    if reply[0] == "ok" and not isinstance(reply[1], TextLayer):
        return ("error", "the parser worker sent something other than a text layer")
    if reply[0] == "fail" and (len(reply) != 3 or reply[1] not in set(QuarantineReason)
                               or not isinstance(reply[2], str)):
        return ("error", "the parser worker sent a refusal without a quarantine reason")
    return reply
