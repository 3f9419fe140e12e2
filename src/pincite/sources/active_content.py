"""PDF active content, found in the raw bytes: an action or embedded-file name
(`/JavaScript`, `/Launch`, `/EmbeddedFile`… also written with `#xx` escapes) outside
stream data. Compressed stream bytes would match short names like `/JS` by chance, so a
name counts only when the last `stream` keyword before it is an `endstream` (or there is
none).

The bytes are read in windows of 1 MiB (plus a look-ahead longer than any name), so a
large file is never held whole; the result is the one a scan of the whole bytes gives
(`tests/sources/test_active_content.py` checks that against the whole-bytes scan):

- a plain name is at most 14 bytes and its end test looks at one more;
- an escaped name is `/` and a maximal run of name characters holding a `#xx` escape;
  only a run of at most 39 characters can decode to one of the names (13 bytes at most,
  each from one to three characters), so longer runs are passed over;
- "in a stream" is decided from the `stream` and `endstream` keywords before the name,
  carried from window to window.
"""

from __future__ import annotations

import bisect
import re

from ..parse.containers import ByteView

__all__ = ["pdf_flags"]

_WINDOW = 1 << 20
_LOOKAHEAD = 64  # past the longest match decided in a window, and the byte after it
_ACTIVE_RE = re.compile(
    rb"/(?:JavaScript|JS|Launch|EmbeddedFiles?|RichMedia|SubmitForm|ImportData|GoToE|XFA)"
    rb"(?![A-Za-z0-9#])"
)
_NAME_CHARS = rb"[^\s/<>\[\]()%{}]"
_SHORT_NAME_RE = re.compile(rb"/(" + _NAME_CHARS + rb"{1,39})(?!" + _NAME_CHARS + rb")")
_ESCAPE_RE = re.compile(rb"#([0-9A-Fa-f]{2})")
_ACTIVE_NAMES = frozenset(
    b"JavaScript JS Launch EmbeddedFile EmbeddedFiles RichMedia SubmitForm ImportData "
    b"GoToE XFA".split()
)
_STREAM, _ENDSTREAM = b"stream", b"endstream"


def pdf_flags(data: ByteView, *, window: int = _WINDOW) -> tuple[str, ...]:
    """Return ("active_content",) when an action or embedded-file name appears outside
    stream data, else (); `data` is read `window` bytes at a time."""
    size = len(data)
    last_stream = last_end = -1  # the last keyword starts before the current window
    for lo in range(0, size, window):
        hi = min(size, lo + window)
        buf = data[lo:min(size, hi + _LOOKAHEAD)]
        edge = hi - lo
        streams = _starts(buf, _STREAM, edge)
        ends = _starts(buf, _ENDSTREAM, edge)
        for at in _names(buf, edge):
            opened = _last_before(streams, at - len(_STREAM), last_stream - lo)
            closed = _last_before(ends, at - len(_ENDSTREAM), last_end - lo)
            if not (opened >= -lo and opened != closed + 3):
                return ("active_content",)
        if streams:
            last_stream = lo + streams[-1]
        if ends:
            last_end = lo + ends[-1]
    return ()


def _names(buf: bytes, edge: int) -> list[int]:
    """Return where an active name starts in `buf`, plain or escaped, before `edge`."""
    found = [m.start() for m in _ACTIVE_RE.finditer(buf) if m.start() < edge]
    for m in _SHORT_NAME_RE.finditer(buf):
        if m.start() >= edge:
            break
        run = m.group(1)
        if _ESCAPE_RE.search(run) and _ESCAPE_RE.sub(
                lambda g: bytes([int(g.group(1), 16)]), run) in _ACTIVE_NAMES:
            found.append(m.start())
    return sorted(found)


def _starts(buf: bytes, word: bytes, edge: int) -> list[int]:
    """Return where `word` starts in `buf`, before `edge`, in order."""
    out = []
    at = buf.find(word)
    while 0 <= at < edge:
        out.append(at)
        at = buf.find(word, at + 1)
    return out


def _last_before(starts: list[int], limit: int, carried: int) -> int:
    """Return the last of `starts` at or before `limit`, else `carried` (window offsets)."""
    i = bisect.bisect_right(starts, limit)
    return starts[i - 1] if i else carried
