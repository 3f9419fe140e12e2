"""The shared records: principals, ACLs, sources, revisions, text layers, elements, citations;
the clock every stored timestamp comes from; and the reader of versioned records.

The closed vocabularies these records use (element kinds, verify reasons, …) are the
`StrEnum`s of `pincite.vocab`.

Spans are half-open `[char_start, char_end)` character (code point) offsets into a text
layer. Boxes are `(x0, top, x1, bottom)` in PDF points, origin at the page's top-left.
Pages are 1-based.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from itertools import chain
from typing import Any

import numpy as np

from ..errors import InvalidCitation, UsageError
from ..limits import ROW_ID_MAX, check_number
from ..vocab import ComparisonForm, Role
from .names import check_name
from .provenance import (
    Occurrence,
    read_box,
    read_boxes,
    read_comparison,
    read_notes,
    read_occurrences,
)

MEDIA_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html",
    "markdown": "text/markdown",
    "text": "text/plain",
    "csv": "text/csv",
}

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: a tenant, a subject, and the groups the subject belongs to."""

    tenant: str
    subject: str
    groups: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_name("tenant", self.tenant)
        check_name("user", self.subject)
        for g in self.groups:
            check_name("group", g)

    @classmethod
    def parse(cls, text: str) -> Principal:
        """Return the principal written `TENANT:USER[:GROUP,GROUP…]`."""
        parts = (text or "").split(":")
        if len(parts) not in (2, 3):
            raise UsageError(
                f"invalid principal {text!r}: write TENANT:USER or TENANT:USER:GROUP,GROUP"
            )
        tenant = check_name("tenant", parts[0])
        subject = check_name("user", parts[1])
        groups: tuple[str, ...] = ()
        if len(parts) == 3 and parts[2]:
            groups = tuple(sorted({check_name("group", g) for g in parts[2].split(",") if g}))
        return cls(tenant, subject, groups)

    def __str__(self) -> str:
        base = f"{self.tenant}:{self.subject}"
        return f"{base}:{','.join(self.groups)}" if self.groups else base


def parse_acl_entry(entry: str) -> str:
    """Return the canonical form of one ACL entry (`user:NAME`, `group:NAME` or `*`)."""
    entry = (entry or "").strip(" ")  # spaces only: a newline or tab is refused below
    if entry == "*":
        return entry
    kind, _, name = entry.partition(":")
    if kind not in ("user", "group") or not name:
        raise UsageError(f"invalid ACL entry {entry!r}: write user:NAME, group:NAME or *")
    return f"{kind}:{check_name(kind, name)}"


def holds_role(principal: Principal, role: Role) -> bool:
    """Return True when the principal holds `role`: it belongs to the group of that name
    written with `.` for `:` (`acl:admin` → group `acl.admin`)."""
    return role.group in principal.groups


def may_change_acl(source: Source, principal: Principal) -> bool:
    """Return True when the principal may replace the source's ACL: it is the source's
    owner (the user who first ingested it) or holds the `acl:admin` role, in its tenant."""
    if principal.tenant != source.tenant:
        return False
    return (source.owner is not None and source.owner == principal.subject) or holds_role(
        principal, Role.ACL_ADMIN)


def acl_allows(acl: tuple[str, ...] | None, principal: Principal) -> bool:
    """Return True when the ACL grants read to the principal; a missing ACL grants nothing."""
    if not acl:
        return False
    for entry in acl:
        if entry == "*":
            return True
        kind, _, name = entry.partition(":")
        if kind == "user" and name == principal.subject:
            return True
        if kind == "group" and name in principal.groups:
            return True
    return False


@dataclass(frozen=True, slots=True)
class Source:
    """A named document slot in one tenant; its revisions hold the bytes."""

    tenant: str
    source_id: str
    acl: tuple[str, ...]
    acl_epoch: int
    created_at: str
    owner: str | None = None  # the user who first ingested it (None: recorded before owners)


@dataclass(frozen=True, slots=True)
class Revision:
    """One immutable byte sequence of a source."""

    tenant: str
    source_id: str
    revision_id: str
    sha256: str
    media_type: str
    size: int
    acquired_at: str
    valid_from: str
    valid_to: str | None
    flags: tuple[str, ...] = ()

    @property
    def doc_id(self) -> str:
        return f"{self.source_id}@{self.revision_id}"


@dataclass(frozen=True, slots=True)
class Element:
    """A structural piece of a text layer: `text[char_start:char_end]` is its text."""

    kind: str
    char_start: int
    char_end: int
    locator: str
    page: int | None = None
    bbox: Box | None = None
    heading_path: tuple[str, ...] = ()
    level: int = 0
    row: int | None = None
    col: int | None = None
    flags: tuple[str, ...] = ()
    row_path: tuple[str, ...] = ()
    column_path: tuple[str, ...] = ()
    # table elements: caption, title_path, intro, unit, scale, period_grain, entity,
    # header_rows, header_cols, n_rows, n_cols, sheet, pages; cells: ref ("B4"),
    # row_span, col_span, header ("row"|"column"). JSON values only.
    meta: dict[str, Any] | None = None

    def to_list(self) -> list[Any]:
        """Return a compact JSON-able list (the storage form)."""
        out = [
            self.kind, self.char_start, self.char_end, self.locator, self.page,
            list(self.bbox) if self.bbox else None, list(self.heading_path), self.level,
            self.row, self.col, list(self.flags),
        ]
        if self.row_path or self.column_path or self.meta:
            out += [list(self.row_path), list(self.column_path), self.meta]
        return out

    @classmethod
    def from_list(cls, v: list[Any]) -> Element:
        """Return the element stored by `to_list`."""
        extra = (tuple(v[11]), tuple(v[12]), v[13]) if len(v) > 11 else ((), (), None)
        return cls(v[0], v[1], v[2], v[3], v[4], tuple(v[5]) if v[5] else None,
                   tuple(v[6]), v[7], v[8], v[9], tuple(v[10]), *extra)

    def to_dict(self) -> dict[str, Any]:
        """Return the element as a JSON object."""
        d: dict[str, Any] = {
            "kind": self.kind, "char_start": self.char_start, "char_end": self.char_end,
            "locator": self.locator, "page": self.page,
            "bbox": [round(x, 2) for x in self.bbox] if self.bbox else None,
            "heading_path": list(self.heading_path), "level": self.level,
        }
        if self.row is not None:
            d["row"], d["col"] = self.row, self.col
        if self.row_path or self.column_path:
            d["row_path"], d["column_path"] = list(self.row_path), list(self.column_path)
        if self.meta:
            d["meta"] = self.meta
        if self.flags:
            d["flags"] = list(self.flags)
        return d


class _BoxView(Sequence[Box]):
    """Read-only view of a flat float array as 4-tuples."""

    __slots__ = ("_flat",)

    def __init__(self, flat: array) -> None:
        self._flat = flat

    def __len__(self) -> int:
        return len(self._flat) // 4

    def __getitem__(self, i: Any) -> Any:
        f = self._flat
        if isinstance(i, slice):
            return [(f[4 * k], f[4 * k + 1], f[4 * k + 2], f[4 * k + 3])
                    for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        return (f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3])


@dataclass(frozen=True, slots=True)
class Geometry:
    """Per-character page numbers and boxes, parallel to a text layer (PDF only).

    `pages[i] == 0` marks a character the parser inserted (a joining space or newline);
    it has no box. Stored packed (`array('H')` pages, `array('f')` four floats per
    character), so a layer crosses the sandbox pipe and the store as bytes.
    """

    pages: array
    flat: array

    @classmethod
    def from_lists(cls, pages: Sequence[int], boxes: Sequence[Box]) -> Geometry:
        """Return the geometry of per-character page numbers and boxes."""
        return cls(array("H", pages), array("f", chain.from_iterable(boxes)))

    @property
    def boxes(self) -> Sequence[Box]:
        return _BoxView(self.flat)

    def span_boxes(self, start: int, end: int) -> list[tuple[int, Box]]:
        """Return one union box per page for the characters in `[start, end)`."""
        lo, hi = max(0, start), min(end, len(self.pages))
        if hi <= lo:
            return []
        pages = np.frombuffer(self.pages, dtype=np.uint16, count=hi, offset=0)[lo:hi]
        boxes = np.frombuffer(self.flat, dtype=np.float32, count=4 * hi).reshape(-1, 4)[lo:hi]
        out = []
        for p in np.unique(pages[pages > 0]).tolist():
            sel = boxes[pages == p]
            out.append((p, (float(sel[:, 0].min()), float(sel[:, 1].min()),
                            float(sel[:, 2].max()), float(sel[:, 3].max()))))
        return out


@dataclass(frozen=True, slots=True)
class TextLayer:
    """One normalised text string of a revision plus its elements, versioned by parser."""

    parser: str
    version: str
    text: str
    elements: tuple[Element, ...]
    page_count: int = 0
    page_sizes: tuple[tuple[float, float], ...] = ()
    geometry: Geometry | None = None
    flags: tuple[str, ...] = ()
    meta: dict[str, Any] | None = None  # JSON; `{"ocr": …}`: see `parse.pdf.ocr_marks`

    @property
    def layer_id(self) -> str:
        return f"{self.parser}@{self.version}"


@dataclass(frozen=True, slots=True)
class Citation:
    """A provenance entry: a pointer into a source plus the quote it claims is there.

    `quote_verified` and `verify_reason` are set by the verifier only.
    """

    doc_id: str
    doc_sha256: str
    text_layer: str
    locator: str
    page: int | None
    bbox: Box | None
    char_start: int
    char_end: int
    quote: str
    quote_verified: bool = False
    verify_reason: str | None = None
    boxes: tuple[tuple[int, Box], ...] = field(default=())
    flags: tuple[str, ...] = ()  # `RecordFlag` values the verifier found on the cited span
    ocr_confidence: float | None = None  # lowest OCR word confidence (0-100) under the span
    comparison: str = ComparisonForm.CMP_2.value  # the form `quote` is compared in
    notes: tuple[str, ...] = ()  # `CiteNote`s: how `cite` found the quote
    occurrence: int | None = None  # which of `occurrences` this is (1-based)
    occurrences: tuple[Occurrence, ...] = ()  # every place `cite` found the quote, when > 1
    occurrence_count: int = 0  # how many there are in all (`occurrences` lists the first)

    def to_dict(self) -> dict[str, Any]:
        """Return the provenance entry as the JSON object of the contract."""
        d: dict[str, Any] = {
            "doc_id": self.doc_id,
            "doc_sha256": self.doc_sha256,
            "text_layer": self.text_layer,
            "locator": self.locator,
            "page": self.page,
            "bbox": [round(x, 2) for x in self.bbox] if self.bbox else None,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "quote": self.quote,
            "quote_verified": self.quote_verified,
            "verify_reason": self.verify_reason,
        }
        if len(self.boxes) > 1:
            d["boxes"] = [{"page": p, "bbox": [round(x, 2) for x in b]} for p, b in self.boxes]
        if self.flags:
            d["flags"] = list(self.flags)
        if self.ocr_confidence is not None:
            d["ocr_confidence"] = self.ocr_confidence
        d["comparison"] = self.comparison
        d.update((n, True) for n in self.notes)
        if self.occurrences:
            d["occurrence"] = self.occurrence
            d["occurrence_count"] = self.occurrence_count
            d["occurrences"] = [o.to_dict() for o in self.occurrences]
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Citation:
        """Return the citation in a JSON object; raise InvalidCitation when it is malformed.

        `quote_verified`, `verify_reason`, `flags` and `ocr_confidence` from the input are
        ignored: only the verifier sets them. An entry without `comparison` was made in `cmp-1`.
        """
        if not isinstance(d, dict):
            raise InvalidCitation("a provenance entry must be a JSON object")
        missing = [k for k in ("doc_id", "char_start", "char_end", "quote") if k not in d]
        if missing:
            raise InvalidCitation(f"provenance entry lacks {', '.join(missing)}")
        cs, ce = (check_number(k, d[k], 0, ROW_ID_MAX, integer=True, error=InvalidCitation)
                  for k in ("char_start", "char_end"))
        if not isinstance(d["quote"], str) or not isinstance(d["doc_id"], str):
            raise InvalidCitation("doc_id and quote must be strings")
        if d.get("page") is not None:
            check_number("page", d["page"], 1, 10**6, integer=True, error=InvalidCitation)
        bbox = d.get("bbox")
        occurrence, occurrences, count = read_occurrences(d)
        return cls(
            doc_id=d["doc_id"],
            doc_sha256=str(d.get("doc_sha256") or ""),
            text_layer=str(d.get("text_layer") or ""),
            locator=str(d.get("locator") or ""),
            page=d.get("page"),
            bbox=read_box("bbox", bbox) if bbox is not None else None,
            char_start=cs,
            char_end=ce,
            quote=d["quote"],
            boxes=read_boxes(d),
            comparison=read_comparison(d),
            notes=read_notes(d),
            occurrence=occurrence, occurrences=occurrences, occurrence_count=count,
        )

    def with_result(self, verified: bool, reason: str, flags: tuple[str, ...] = (),
                    ocr_confidence: float | None = None) -> Citation:
        """Return a copy with a verification outcome, the span's flags and OCR confidence."""
        return replace(self, quote_verified=verified, verify_reason=reason, flags=flags,
                       ocr_confidence=ocr_confidence)


def extractor_key(extractor: Mapping[str, Any]) -> str:
    """Return the identity labels and calibrated thresholds are keyed by: the extractor's
    version plus its model and prompt version (model-backed: `1.0/gpt-x/ext-model-2`) or its
    rules version (`1.0/rules-1`), so a new model or rule set never inherits another's."""
    parts = [str(extractor.get("version", ""))]
    parts += [str(extractor[k]) for k in ("model", "prompt_version", "rules_version")
              if extractor.get(k)]
    return "/".join(parts)


def split_doc_id(doc: str) -> tuple[str, str | None]:
    """Return (source_id, revision_id or None) of `SOURCE_ID[@REVISION_ID]`."""
    source_id, sep, rev = doc.rpartition("@")
    if not sep:
        return doc, None
    if not source_id or not re.fullmatch(r"r\d+", rev):
        return doc, None
    return source_id, rev


# The clock. Every stored timestamp is ISO 8601 UTC with microseconds; stages that tests
# drive through time take a `Clock` and default to `utc_now`.
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """Return the current time, timezone-aware in UTC (the default `Clock`)."""
    return datetime.now(UTC)


def timestamp(t: datetime | None = None) -> str:
    """Return `t` (default: now) in the stored form, e.g. `2025-06-01T12:00:00.000000+00:00`."""
    return (t or utc_now()).astimezone(UTC).isoformat(timespec="microseconds")


# Versioned records (`to_dict` output with `schema_name` and `version`) read back. Policies
# and spaces are recorded in manifests; a reader must refuse a record of another kind, a
# version newer than it knows, and fields it does not know, so that an old pincite never
# half-reads what a newer one wrote.
def record_fields(data: Mapping[str, Any], cls: type, schema_name: str, supported: int,
                  what: str, *, strict: bool = False,
                  legacy: Sequence[str] = ()) -> dict[str, Any]:
    """Return the dataclass fields of `data`; raise UsageError for a record of
    another kind, a version newer than `supported`, or unknown fields. A missing
    `schema_name` or `version` passes as the current one unless `strict`; `legacy` keys of
    older versions and the derived `name` are dropped."""
    d = dict(data)
    name = d.pop("schema_name", None if strict else schema_name)
    if name != schema_name:
        raise UsageError(f"expected {what} record, found schema_name={name!r}")
    version = d.pop("version", None if strict else supported)
    if not isinstance(version, int) or version > supported:
        raise UsageError(f"{what} record version {version!r} is newer than this pincite "
                         f"supports ({supported}); upgrade pincite to read it")
    known = {f.name for f in fields(cls)}
    if "name" not in known:
        d.pop("name", None)
    if version < supported:
        for key in legacy:
            d.pop(key, None)
    unknown = sorted(set(d) - known)
    if unknown:
        raise UsageError(f"unknown {what} field(s): {', '.join(unknown)}")
    return d
