"""Backend-independent rows of the source tables: sources, revisions, text layers and
quarantine records, as every backend stores and reads them (same columns, same codec)."""

from __future__ import annotations

import json
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Element, Geometry, Revision, Source, TextLayer


@dataclass(frozen=True, slots=True)
class QuarantineRecord:
    """A file that was refused, with the reason from the closed set."""

    source_id: str
    path: str
    sha256: str | None
    size: int
    reason: str
    detail: str
    at: str
    owner: str | None = None  # the user whose ingest refused it (not in `to_dict`)

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON object."""
        return {"source_id": self.source_id, "path": self.path, "sha256": self.sha256,
                "size": self.size, "reason": self.reason, "detail": self.detail, "at": self.at}


def source_row(row: Sequence[Any]) -> Source:
    """Return the source stored in a row of (tenant, source_id, acl, acl_epoch,
    created_at, owner)."""
    return Source(row[0], row[1], tuple(json.loads(row[2])), row[3], row[4], row[5])


def revision_row(row: Sequence[Any]) -> Revision:
    """Return the revision stored in a row of (tenant, source_id, revision_id, sha256,
    media_type, size, acquired_at, valid_from, valid_to, flags)."""
    return Revision(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                    tuple(json.loads(row[9])))


def encode_layer(layer: TextLayer) -> tuple[Any, ...]:
    """Return the column values that store a text layer."""
    elements = zlib.compress(
        json.dumps([e.to_list() for e in layer.elements], separators=(",", ":")).encode(), 3
    )
    geometry = None
    if layer.geometry is not None:
        pages, boxes = layer.geometry.pages, layer.geometry.flat
        n = len(pages).to_bytes(8, "little")
        geometry = zlib.compress(n + pages.tobytes() + boxes.tobytes(), 3)
    return (
        layer.parser, layer.version, layer.text, elements, geometry, layer.page_count,
        json.dumps([list(s) for s in layer.page_sizes]), json.dumps(list(layer.flags)),
        json.dumps(layer.meta, separators=(",", ":")) if layer.meta else None,
    )


def decode_layer(row: Sequence[Any]) -> TextLayer:
    """Return the text layer stored in a row of (parser, version, text, elements, geometry,
    page_count, page_sizes, flags, meta)."""
    elements = tuple(Element.from_list(v) for v in json.loads(zlib.decompress(row[3])))
    geometry = None
    if row[4] is not None:
        raw = zlib.decompress(row[4])
        n = int.from_bytes(raw[:8], "little")
        pages = array("H")
        pages.frombytes(raw[8:8 + 2 * n])
        flat = array("f")
        flat.frombytes(raw[8 + 2 * n:])
        geometry = Geometry(pages, flat)
    return TextLayer(
        parser=row[0], version=row[1], text=row[2], elements=elements, page_count=row[5],
        page_sizes=tuple(tuple(s) for s in json.loads(row[6])),  # type: ignore[misc]
        geometry=geometry, flags=tuple(json.loads(row[7])),
        meta=json.loads(row[8]) if row[8] else None,
    )
