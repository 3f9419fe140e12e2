"""A target workbook that came over the network (`POST /fill`): named safely, sniffed as
ingest sniffs an upload, then filled as `pincite fill` fills a file.

The name only labels the copy (`<stem>.filled.xlsx`): it is a bare file name ending in
`.xlsx`, never a path. The bytes must be what ingest's inspection (`sources.inspect`) calls
an XLSX — the format read from the bytes, polyglots and ZIP bombs (entry count, inflated
size, compression ratio) refused — before the fill's own checks (`target.check_target`)
read them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidTarget, ParseFailure, UsageError
from ..limits import Limits
from ..model import Principal
from ..sources.inspect import inspect
from .solve import FillResult, HasStore, run_fill
from .target import MAX_TARGET_BYTES

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._()-]{0,150}\.xlsx")


def check_target_name(name: str) -> str:
    """Return `name` when it is a bare workbook file name (letters, digits, space, `._()-`,
    ending `.xlsx`, no path separator, no `..`); else raise UsageError."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        raise UsageError(f"target name {str(name)[:80]!r} is not a bare file name ending in "
                         ".xlsx: give the workbook's file name only, such as model.xlsx")
    return name


def fill_upload(lib: HasStore, principal: Principal, target: Path, docs: Sequence[str], *,
                out: Path, review: bool = False, limits: Limits | None = None) -> FillResult:
    """Return the fill of the uploaded workbook at `target` (its name checked by
    `check_target_name`) from `docs` as `principal` reads them, every artifact written to
    `out`. The bytes are inspected first; what ingest would quarantine is InvalidTarget."""
    target = Path(target)
    check_target_name(target.name)
    size = target.stat().st_size
    if size > MAX_TARGET_BYTES:
        raise InvalidTarget(target, f"{size} bytes, more than the limit of {MAX_TARGET_BYTES}")
    data = target.read_bytes()
    try:
        found = inspect(data, name=target.name, limits=limits or Limits(), declared="xlsx")
    except ParseFailure as exc:
        raise InvalidTarget(target, f"refused as ingest refuses it ({exc.message})") from None
    if found.kind != "xlsx":  # the name's claim already refuses another family
        raise InvalidTarget(target, f"the bytes are {found.kind}, not a workbook")
    return run_fill(lib.store, principal, target, docs, out=out, review=review)


def fill_summary(result: FillResult, out: str) -> dict[str, Any]:
    """Return `pincite fill --json`'s body for `result`, with `out` naming where the
    artifacts are (the CLI's folder, or the service's fill id)."""
    return {"summary": result.audit["summary"], "out": out, "ran": result.ran,
            "skipped": result.skipped, "queued": result.queued,
            "errors": result.audit["errors"]}
