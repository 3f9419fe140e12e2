"""Spies at the seams where candidates are made: they record what each one was given.

- `CandidateSpy` wraps, for the store's class, the two candidate generators of the
  authorized path — `authorized_rows` (the universe the dense channel scans) and
  `authorized_postings` (the lexical channel's postings) — and the dense channel's scorer
  (`retrieve.search.dense_candidates`), recording every row id (generation, ord) they
  return, with the query scope. Patching the class reaches every store the process opens,
  the in-process CLI's included; the wrappers only record.
- `SpyEmbedder` is the model-free embedder recording every text it embeds (queries, and
  the candidate windows `ask` scores).
- `SpyReranker` records the candidates (id and text) a reranker is handed and keeps their
  order.
`OwnerIndex` maps a generation's row ids to the (tenant, source, revision) that owns them,
read tenant by tenant through the store's own accessors, so a row of any tenant is named.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...embed import HashEmbedder
from ...embed.embedder import Embedded, Role
from ...retrieve.rerank import RerankCandidate


@dataclass(frozen=True)
class Generated:
    """Rows one generator call handed on: which channel, for which scope."""

    channel: str                  # universe | lexical | dense
    gen_id: str | None
    tenant: str | None
    entries: tuple[str, ...] | None
    ords: tuple[int, ...]


class CandidateSpy:
    """Records the rows every candidate generator returns while installed (a context
    manager over the store's class: its universe, postings and dense candidates)."""

    _WRAPPED = ("authorized_rows", "authorized_postings", "dense_candidates")

    def __init__(self, store_type: type) -> None:
        self.store_type = store_type
        self.calls: list[Generated] = []
        self._saved: dict[str, Any] = {}

    def take(self) -> list[Generated]:
        """Return the calls recorded since the last take, and forget them."""
        out, self.calls = self.calls, []
        return out

    def __enter__(self) -> CandidateSpy:
        cls: Any = self.store_type
        rows_fn, post_fn = cls.authorized_rows, cls.authorized_postings
        dense_fn = cls.dense_candidates
        self._saved = {name: cls.__dict__.get(name) for name in self._WRAPPED}
        spy = self

        def authorized_rows(store: Any, scope: Any) -> Any:
            out = rows_fn(store, scope)
            ords = np.asarray(out.array["ord"], dtype=np.int64).tolist()
            spy.calls.append(Generated("universe", scope.gen_id, scope.tenant,
                                       tuple(scope.entries), tuple(ords)))
            return out

        def authorized_postings(store: Any, scope: Any, terms: Sequence[str]) -> Any:
            out = post_fn(store, scope, terms)
            ords = [int(o) for arr in out.ords for o in np.asarray(arr).tolist()]
            spy.calls.append(Generated("lexical", scope.gen_id, scope.tenant,
                                       tuple(scope.entries), tuple(ords)))
            return out

        def dense_candidates(store: Any, g: Any, scope: Any, universe: np.ndarray,
                             *args: Any, **kw: Any) -> Any:
            got = dense_fn(store, g, scope, universe, *args, **kw)
            ords = np.asarray(universe)[np.asarray(got.positions, dtype=np.int64)].tolist()
            spy.calls.append(Generated("dense", None, None, None, tuple(int(o) for o in ords)))
            return got

        cls.authorized_rows = authorized_rows
        cls.authorized_postings = authorized_postings
        cls.dense_candidates = dense_candidates
        return self

    def __exit__(self, *exc: object) -> None:
        cls = self.store_type
        for name in self._WRAPPED:
            if self._saved.get(name) is None:
                delattr(cls, name)
            else:
                setattr(cls, name, self._saved[name])


class SpyEmbedder(HashEmbedder):
    """The model-free embedder, recording every text it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded:
        self.texts.extend(texts)
        return super().embed(texts, role=role, progress=progress)

    def take(self) -> list[str]:
        """Return the texts embedded since the last take, and forget them."""
        out, self.texts = self.texts, []
        return out


class SpyReranker:
    """A reranker that keeps the first-stage order and records what it was handed."""

    def __init__(self) -> None:
        self.seen: list[RerankCandidate] = []

    def __call__(self, query: str, candidates: Sequence[RerankCandidate]) -> list[str]:
        self.seen.extend(candidates)
        return [c.evidence_id for c in candidates]

    def take(self) -> list[RerankCandidate]:
        """Return the candidates handed over since the last take, and forget them."""
        out, self.seen = self.seen, []
        return out


Owner = tuple[str, str, str]  # tenant, source id, revision id


class OwnerIndex:
    """Which (tenant, source, revision) owns each row of a generation."""

    def __init__(self, store: Any, tenants: Iterable[str]) -> None:
        self.store = store
        self.tenants = sorted(set(tenants))
        self._by_ord: dict[str, dict[int, Owner]] = {}
        self._by_chunk: dict[str, Owner] = {}

    def _load(self, gen_id: str) -> dict[int, Owner]:
        if gen_id not in self._by_ord:
            ords = [int(o) for o, _cid, _d in self.store.generation_chunk_list(gen_id)]
            found: dict[int, Owner] = {}
            for t in self.tenants:
                for o, row in self.store.chunks_by_ord(gen_id, t, ords).items():
                    ch = row[0]
                    found[int(o)] = (ch.tenant, ch.source_id, ch.revision_id)
                    self._by_chunk[ch.chunk_id] = found[int(o)]
            self._by_ord[gen_id] = found
        return self._by_ord[gen_id]

    def of_ord(self, gen_id: str, ord_: int) -> Owner | None:
        """The owner of row `ord_` of generation `gen_id` (None: no tenant holds it)."""
        return self._load(gen_id).get(int(ord_))

    def of_evidence(self, gen_id: str, evidence_id: str) -> Owner | None:
        """The owner of an evidence id (`ev_…`, the chunk `ch_…`) of a generation."""
        self._load(gen_id)
        return self._by_chunk.get("ch_" + evidence_id.removeprefix("ev_"))
