"""The windowed PDF active-content scan (`sources.active_content`) gives the result a scan
of the whole bytes gives — the regular expressions inspection used before it read large
files in windows, kept here as the reference — for any bytes, any window size, read from
`bytes` or from a file (`FileView`)."""

from __future__ import annotations

import os
import re
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pincite.sources.active_content import pdf_flags
from pincite.sources.file_view import FileView

# --- the reference: one pass over the whole bytes ------------------------------------------
_ACTIVE_RE = re.compile(
    rb"/(?:JavaScript|JS|Launch|EmbeddedFiles?|RichMedia|SubmitForm|ImportData|GoToE|XFA)"
    rb"(?![A-Za-z0-9#])"
)
_ESCAPED_NAME_RE = re.compile(rb"/[^\s/<>\[\]()%{}]*#[0-9A-Fa-f]{2}[^\s/<>\[\]()%{}]*")
_NAMES = frozenset(b"JavaScript JS Launch EmbeddedFile EmbeddedFiles RichMedia SubmitForm "
                   b"ImportData GoToE XFA".split())


def _in_stream(data: bytes, pos: int) -> bool:
    opened = data.rfind(b"stream", 0, pos)
    return opened >= 0 and opened != data.rfind(b"endstream", 0, pos) + 3


def reference(data: bytes) -> tuple[str, ...]:
    for m in _ACTIVE_RE.finditer(data):
        if not _in_stream(data, m.start()):
            return ("active_content",)
    for m in _ESCAPED_NAME_RE.finditer(data):
        decoded = re.sub(rb"#([0-9A-Fa-f]{2})", lambda g: bytes([int(g.group(1), 16)]),
                         m.group()[1:])
        if decoded in _NAMES and not _in_stream(data, m.start()):
            return ("active_content",)
    return ()


# --- inputs built from the pieces that matter ------------------------------------------------
PIECES = [b"/JS", b"/JavaScript", b"/Launch", b"/EmbeddedFiles", b"/XFA", b"/J#53",
          b"/#4a#53", b"/Java#53cript", b"/La#75nch", b"stream", b"endstream", b"end",
          b"/", b"#", b"#4", b"A", b"x", b"0", b" ", b"\n", b"(", b"<<", b">>", b"%",
          b"\x00", b"s", b"JS", b"#20", b"/JSX", b"/J#53#", b"a" * 37, b"/" + b"b" * 40]
blobs = st.lists(st.sampled_from(PIECES), max_size=60).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(blobs, st.integers(min_value=1, max_value=50))
def test_windowed_scan_agrees_with_the_whole_bytes_scan(data: bytes, window: int) -> None:
    assert pdf_flags(data, window=window) == reference(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blobs, st.integers(min_value=1, max_value=50), st.integers(min_value=3, max_value=64))
def test_a_file_read_in_chunks_scans_as_its_bytes(data: bytes, window: int, chunk: int) -> None:
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        view = FileView(f.fileno(), len(data), chunk=chunk)
        assert pdf_flags(view, window=window) == reference(data)


def test_known_cases() -> None:
    cases = {
        b"<< /S /JavaScript /JS (app.alert(1)) >>": ("active_content",),
        b"stream\n/JS garbage\nendstream": (),
        b"stream\nx\nendstream /OpenAction << /S /Launch >>": ("active_content",),
        b"<< /Type /J#61vaScript >>": ("active_content",),
        b"<< /Type /J#61vaScriptX >>": (),
        b"/" + b"#4a" * 13 + b" ": (),  # 39 characters that decode to 13 bytes, not a name
        b"/#45mbedded#46iles ": ("active_content",),
    }
    for data, flags in cases.items():
        assert pdf_flags(data) == reference(data) == flags, data
    big = b"stream\n" + os.urandom(3000).replace(b"endstream", b"") + b"\nendstream\n/JS"
    assert pdf_flags(big, window=100) == reference(big) == ("active_content",)
