"""The package checks the DOCX and XLSX parsers run before any XML is parsed.

Inspection has already run the same container scanner (`pincite.containers`) on bytes
that come through ingest; the parsers run it again because they are usable alone and
must not trust their caller. It refuses empty, over-limit, encrypted and legacy-binary
input, anything that is not one clean ZIP archive, zip bombs and parts with a DTD, and
returns the flags the package earns (`external_ref`, `active_content`, `embedded_file`).
"""

from __future__ import annotations

from ..errors import ParseFailure
from ..limits import Limits
from . import containers


def check_package(data: bytes, limits: Limits, what: str) -> set[str]:
    """Check an OOXML package before it is parsed; return the flags it earns.

    Raises `ParseFailure` with a quarantine reason. `what` names the format in messages
    ("DOCX", "XLSX").
    """
    if not data:
        raise ParseFailure("empty", f"the {what} file has no bytes")
    if len(data) > limits.max_bytes:
        raise ParseFailure("over_limit", f"{len(data)} bytes exceed the limit of {limits.max_bytes}")
    if data.startswith(containers.OLE_MAGIC):
        containers.check_ole(data)
        raise ParseFailure(
            "malformed", f"a legacy binary Office file, not {what}; save it as {what} first")
    loc = containers.locate(data)
    if loc is None:
        raise ParseFailure("malformed", f"not a {what} package (no ZIP end-of-directory "
                           "record: the file is truncated or damaged)")
    containers.check_bounds(data, loc)
    entries = containers.read_directory(data, loc, limits)
    return set(containers.scan_entries(data, entries, limits, loc.cd_start))
