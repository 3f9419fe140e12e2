"""What every retriever adapter serves: a principal's search, each passage verified.

`EvidenceSource(library, principal)` searches as that principal only (`Library.search`:
authorization inside each channel), then verifies every passage it found as the same
principal (`Library.verify`: the document resolves for them, its bytes still hash to
`doc_sha256`, the quote is the text at `[char_start, char_end)`, locator and geometry
agree). A passage that does not verify is dropped, with its reason, and never reaches a
framework; a passage carrying a flag in `exclude_flags` (by default `hidden_text`: text a
reader of the document does not see, the classic carrier of instructions aimed at a
model) is dropped too. Nothing here knows a framework: the adapters turn each
`VerifiedHit` into their own record, with `hit.metadata()` as its metadata.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import PrincipalRequired, UsageError
from ..library import Library
from ..model import Citation, Principal
from ..vocab import ItemFlag, RecordFlag

DEFAULT_K = 10
MAX_K = 1000  # as `retrieve.search.MAX_K`
DEFAULT_EXCLUDED = (ItemFlag.HIDDEN_TEXT.value,)
KNOWN_FLAGS = frozenset({*(f.value for f in ItemFlag), *(f.value for f in RecordFlag)})
# the metadata keys a model is shown beside the quote (LlamaIndex's LLM metadata mode)
SHOWN_TO_MODEL = ("doc_id", "locator", "page")


@dataclass(frozen=True, slots=True)
class VerifiedHit:
    """One passage search found and the verifier confirmed, as the principal."""

    citation: Citation          # the verified provenance entry (`quote_verified` is True)
    evidence_id: str
    source_id: str
    revision_id: str
    heading_path: tuple[str, ...]
    item_flags: tuple[str, ...]
    ranks: Mapping[str, int | None]
    scores: Mapping[str, float | None]
    bundle_flags: tuple[str, ...]
    generation: str | None

    @property
    def text(self) -> str:
        """Return the passage: the document's own characters at the cited span."""
        return self.citation.quote

    @property
    def score(self) -> float | None:
        """Return the fused rank score (weighted RRF): an ordering signal, not a probability."""
        value = self.scores.get("fused")
        return float(value) if value is not None else None

    def flags(self) -> list[str]:
        """Return the passage's flags: the search item's and the verified citation's, sorted."""
        return sorted({*self.item_flags, *self.citation.flags})

    def metadata(self) -> dict[str, Any]:
        """Return the flat, JSON-ready metadata every adapter attaches to its record: the
        verified citation's fields, the flags, the ranks and score parts, and `citation`
        (the entry itself, as `pincite verify` reads it)."""
        c = self.citation
        md: dict[str, Any] = {
            "doc_id": c.doc_id, "source_id": self.source_id, "revision_id": self.revision_id,
            "doc_sha256": c.doc_sha256, "text_layer": c.text_layer, "locator": c.locator,
            "char_start": c.char_start, "char_end": c.char_end, "page": c.page,
            "bbox": [round(x, 2) for x in c.bbox] if c.bbox else None, "quote": c.quote,
            "quote_verified": c.quote_verified, "verify_reason": str(c.verify_reason),
            "flags": self.flags(), "heading_path": list(self.heading_path),
            "evidence_id": self.evidence_id, "ranks": dict(self.ranks),
            "scores": dict(self.scores), "bundle_flags": list(self.bundle_flags),
            "generation": self.generation, "citation": _plain(c.to_dict()),
        }
        if c.ocr_confidence is not None:
            md["ocr_confidence"] = c.ocr_confidence
        return md


@dataclass(frozen=True, slots=True)
class VerifiedEvidence:
    """A search's verified passages, best first, and what was dropped and why."""

    query: str
    hits: tuple[VerifiedHit, ...]
    dropped: tuple[tuple[str, str], ...] = ()  # (evidence_id, verify reason or excluded flag)
    bundle_flags: tuple[str, ...] = ()
    generation: str | None = None


@dataclass(frozen=True, slots=True)
class EvidenceSource:
    """A library searched and verified as one principal; built by every adapter, which
    refuses to exist without a principal (`PrincipalRequired`)."""

    library: Library
    principal: Principal
    k: int = DEFAULT_K
    filters: Mapping[str, Any] | None = None
    as_of: str | None = None
    exclude_flags: tuple[str, ...] = field(default=DEFAULT_EXCLUDED)

    @classmethod
    def build(cls, adapter: str, library: Any, principal: Any, *, k: int = DEFAULT_K,
              filters: Mapping[str, Any] | None = None, as_of: str | None = None,
              exclude_flags: Collection[str] = DEFAULT_EXCLUDED) -> EvidenceSource:
        """Return the source an adapter named `adapter` searches; raise PrincipalRequired
        without a principal, UsageError for anything else malformed."""
        return cls(_library(adapter, library), principal_of(adapter, principal),
                   k=check_k(k), filters=dict(filters) if filters else None, as_of=as_of,
                   exclude_flags=_flags(exclude_flags))

    def search(self, query: str, k: int | None = None) -> VerifiedEvidence:
        """Return the principal's verified passages for `query`, best first (at most `k`)."""
        if not isinstance(query, str):
            raise UsageError("the query must be a string")
        bundle = self.library.search(self.principal, query, k=check_k(k or self.k),
                                     filters=self.filters, as_of=self.as_of)
        claims = [Citation(doc_id=it.doc_id, doc_sha256=it.doc_sha256,
                           text_layer=it.text_layer, locator=it.locator, page=it.page,
                           bbox=it.bbox, char_start=it.char_start, char_end=it.char_end,
                           quote=it.quote) for it in bundle.items]
        checked = self.library.verify(self.principal, claims) if claims else []
        hits: list[VerifiedHit] = []
        dropped: list[tuple[str, str]] = []
        bflags = tuple(str(f) for f in bundle.flags)
        for it, c in zip(bundle.items, checked, strict=True):
            flags = {*it.flags, *c.flags}
            excluded = sorted(flags.intersection(self.exclude_flags))
            if not c.quote_verified:
                dropped.append((it.evidence_id, str(c.verify_reason)))
            elif excluded:
                dropped.append((it.evidence_id, excluded[0]))
            else:
                hits.append(VerifiedHit(
                    citation=c, evidence_id=it.evidence_id, source_id=it.source_id,
                    revision_id=it.revision_id, heading_path=tuple(it.heading_path),
                    item_flags=tuple(str(f) for f in it.flags), ranks=dict(it.ranks),
                    scores=dict(it.scores), bundle_flags=bflags, generation=bundle.generation))
        return VerifiedEvidence(query, tuple(hits), tuple(dropped), bflags, bundle.generation)


def principal_of(adapter: str, principal: Any) -> Principal:
    """Return the principal given (a `Principal` or `TENANT:USER[:GROUPS]`); raise
    PrincipalRequired when there is none."""
    if principal is None or (isinstance(principal, str) and not principal.strip()):
        raise PrincipalRequired(adapter)
    if isinstance(principal, Principal):
        return principal
    if isinstance(principal, str):
        return Principal.parse(principal)
    raise UsageError(f"{adapter}: principal must be a pincite.Principal or "
                     f"'TENANT:USER[:GROUP,GROUP]', not {type(principal).__name__}")


def check_k(k: Any) -> int:
    """Return `k` when it is a whole number of passages from 1 to MAX_K; else UsageError."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise UsageError(f"k must be a whole number from 1 to {MAX_K}, not {k!r}")
    return k


def _library(adapter: str, library: Any) -> Library:
    if not isinstance(library, Library):
        raise UsageError(f"{adapter} needs a library to search: pass library=pincite.open"
                         f"(STORE), not {type(library).__name__}")
    return library


def _flags(flags: Collection[str]) -> tuple[str, ...]:
    if isinstance(flags, str):
        flags = (flags,)
    unknown = sorted(set(flags) - KNOWN_FLAGS)
    if unknown:
        raise UsageError(f"unknown flag {unknown[0]!r} in exclude_flags: use any of "
                         f"{', '.join(sorted(KNOWN_FLAGS))}")
    return tuple(sorted({str(f) for f in flags}))


def _plain(value: Any) -> Any:
    """Return `value` with enums as their strings and tuples as lists (JSON-ready)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value
