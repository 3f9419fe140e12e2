"""Fitting the question-kind classifier (`ask.kind_model`) from phrasing files.

Each phrasing file (`evals.phrasings`: `{"<kind>": ["style|text", …]}`) gives examples of
its kinds; a kind's canonical wording (`ask_cuad.QUESTIONS` for CUAD's categories) is an
example too. A phrasing's cross-validation group is its index within its kind and style
(the first formal, the first casual … of a kind are group 0), so no wording is both fitted
and held out when the threshold is chosen. `_unknown` lists questions of the same
documents that no kind answers: they are fitted as a kind with no canonical wording.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..ask.kind_model import UNKNOWN, KindModel, fit
from ..embed import Embedder
from ..limits import load_json
from .phrasings import load_phrasings

CANONICAL_GROUP = -1


def examples(paths: Sequence[Path], canonical: Mapping[str, str]
             ) -> tuple[list[str], list[str], list[int]]:
    """Return (texts, kinds, groups) of every phrasing in `paths` and every canonical wording;
    a file's kind is matched to a canonical kind whatever its case."""
    by_fold = {k.casefold(): k for k in canonical}
    texts: list[str] = [*canonical.values()]
    kinds: list[str] = [*canonical]
    groups: list[int] = [CANONICAL_GROUP] * len(canonical)
    for path in paths:
        known = [*canonical, *(k for k in _keys(path) if k.casefold() not in by_fold)]
        for kind, phrasings in load_phrasings(path, known).items():
            seen: dict[str, int] = {}
            for ph in phrasings:
                i = seen.get(ph.style, 0)
                seen[ph.style] = i + 1
                texts.append(ph.text)
                kinds.append(by_fold.get(kind.casefold(), kind))
                groups.append(i)
    return texts, kinds, groups


def fit_files(paths: Sequence[Path], canonical: Mapping[str, str], embedder: Embedder,
              provenance: Mapping[str, Any] | None = None) -> KindModel:
    """Return the classifier fitted on the phrasings of `paths` and the canonical wordings,
    in `embedder`'s space."""
    texts, kinds, groups = examples(paths, canonical)
    vectors = np.stack([embedder.embed_query(t) for t in texts])
    prov = {"fitted_on": [Path(p).name for p in paths], **(provenance or {})}
    return fit(vectors, kinds, groups, canonical, embedder.space.space_id, provenance=prov)


def _keys(path: Path) -> list[str]:
    """The kinds a phrasing file names (`_unknown` among them)."""
    data = load_json(Path(path).read_bytes(), f"the questions file {Path(path).name}")
    return [str(k) for k in data] if isinstance(data, dict) else [UNKNOWN]
