"""Records of the retrieval side of the store: chunks, live revisions, generations, tombstones."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A stored retrieval unit: the segmenter's chunk plus what a citation of it needs."""

    chunk_id: str
    tenant: str
    source_id: str
    revision_id: str
    text_layer: str
    policy: str
    kind: str
    char_start: int
    char_end: int
    locator: str
    parent_locator: str | None
    heading_path: tuple[str, ...]
    cite_locator: str
    page: int | None
    bbox: tuple[float, float, float, float] | None
    lang: str | None
    flags: tuple[str, ...]
    text: str
    content_digest: str

    def to_row(self) -> tuple[Any, ...]:
        return (self.chunk_id, self.tenant, self.source_id, self.revision_id, self.text_layer,
                self.policy, self.kind, self.char_start, self.char_end, self.locator,
                self.parent_locator, json.dumps(list(self.heading_path), ensure_ascii=False),
                self.cite_locator, self.page, json.dumps(list(self.bbox)) if self.bbox else None,
                self.lang, json.dumps(list(self.flags)), self.text, self.content_digest)

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> ChunkRecord:
        return cls(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                   row[9], row[10], tuple(json.loads(row[11])), row[12], row[13],
                   tuple(json.loads(row[14])) if row[14] else None,  # type: ignore[arg-type]
                   row[15], tuple(json.loads(row[16])), row[17], row[18])


@dataclass(frozen=True, slots=True)
class LiveRevision:
    """A revision a new generation indexes (not tombstoned), with its newest text layer."""

    tenant: str
    source_id: str
    revision_id: str
    seq: int
    sha256: str
    acquired_at: str
    valid_to: str | None
    layer_id: str | None


@dataclass(frozen=True, slots=True)
class BuildSnapshot:
    """What a build reads, on one snapshot of the store."""

    revisions: list[LiveRevision]
    tenant_rev_epochs: dict[str, int]
    source_watermark: str | None
    deletion_watermark: str | None


@dataclass(frozen=True, slots=True)
class GenerationRow:
    """One index generation as stored: its state, manifest and digests."""

    gen_id: str
    seq: int
    state: str
    created_at: str
    published_at: str | None
    builder: str
    manifest: dict[str, Any] | None
    n_chunks: int
    dimension: int
    vectors_sha256: str | None
    chunks_sha256: str | None
    purged: int
    note: str | None


@dataclass(frozen=True, slots=True)
class Tombstone:
    """A deletion: every revision of a source through `through_seq` is gone for every reader."""

    through_seq: int
    source_id: str | None
    deleted_at: str
    deleted_by: str
    acl: tuple[str, ...]
    purged_at: str | None


def gen_row(row: Sequence[Any]) -> GenerationRow:
    """Return the GenerationRow of a `generations` table row."""
    return GenerationRow(row[0], row[1], row[2], row[3], row[4], row[5],
                         json.loads(row[6]) if row[6] else None, row[7], row[8], row[9],
                         row[10], row[11], row[12])


@dataclass(frozen=True, slots=True)
class AuthScope:
    """The authorized universe of one query: generation, tenant, the principal's ACL
    entries, the evaluation time (None: now) and optional filters (None: no filter)."""

    gen_id: str
    tenant: str
    entries: tuple[str, ...]
    as_of: str | None = None
    source_ids: tuple[str, ...] | None = None
    source_prefix: str | None = None
    kinds: tuple[str, ...] | None = None
    langs: tuple[str, ...] | None = None
    media_types: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def params(self) -> dict[str, Any]:
        def lst(v: tuple[str, ...] | None) -> str | None:
            return None if v is None else json.dumps(list(v))

        return {
            "gen": self.gen_id, "tenant": self.tenant, "entries": json.dumps(list(self.entries)),
            "now": 1 if self.as_of is None else 0, "as_of": self.as_of or "",
            "sources": lst(self.source_ids), "prefix": self.source_prefix,
            "kinds": lst(self.kinds), "langs": lst(self.langs), "media": lst(self.media_types),
        }
