"""The fit ranking against hand-labelled relevance: nDCG@5 per profile and on average.

`run_rank_eval(DIR)` reads `DIR/relevance.yaml` (default examples/calls): the documents
folder and, per profile file, each call's graded relevance (0-3) written by a person
before the ranking ran. It ingests the documents into a temporary store (never yours),
ranks them with `rank.company_fit.rank_for` for every profile, and scores each ranking with
nDCG@5 (gain = the grade, discount log2(rank + 1), as trec_eval's `ndcg_cut`; an unlabelled
call has gain 0). It also counts every score part whose citation does not verify (0 is
the only passing figure) and the parts shown `unknown`.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidGold, UsageError
from ..store import Store
from .tenders import checkout_path, default_schema

CUTOFF = 5
MAX_GRADE = 3


def default_calls() -> Path:
    """Return examples/calls of the source checkout."""
    return checkout_path("examples", "calls")


def default_tender_schema() -> Path:
    """Return examples/tender/schema.yaml of the source checkout (UsageError without it)."""
    return default_schema()


def ndcg(ranked: list[str], grades: dict[str, int], k: int = CUTOFF) -> float:
    """Return nDCG@k of a ranked list of ids against graded relevance (0.0 when no id is
    relevant)."""
    def dcg(gains: list[int]) -> float:
        return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))

    ideal = dcg(sorted((g for g in grades.values() if g > 0), reverse=True))
    return dcg([grades.get(c, 0) for c in ranked]) / ideal if ideal else 0.0


def load_relevance(data: Path) -> tuple[Path, dict[str, dict[str, int]]]:
    """Return (documents folder, profile file name -> call -> grade) of `data`; raise
    InvalidGold naming the entry that is wrong."""
    from ..limits import read_yaml_file

    path = data / "relevance.yaml"
    if not path.is_file():
        raise UsageError(f"{data} has no relevance.yaml; give --data a folder of calls "
                         "(see examples/calls)")
    doc = read_yaml_file(path, max_bytes=1 << 20, refuse=InvalidGold,
                         what="a relevance.yaml (see examples/calls)") or {}
    if not isinstance(doc, dict) or doc.get("schema_name") != "pincite.rank-relevance":
        raise InvalidGold(f"{path}: schema_name must be pincite.rank-relevance")
    docs = (data / str(doc.get("docs", "docs"))).resolve()
    if not docs.is_dir() or not docs.is_relative_to(data.resolve()):
        raise InvalidGold(f"{path}: docs must name a folder inside {data}")
    out: dict[str, dict[str, int]] = {}
    profiles = doc.get("profiles") or {}
    if not isinstance(profiles, dict) or not all(isinstance(g or {}, dict)
                                                 for g in profiles.values()):
        raise InvalidGold(f"{path}: profiles maps each profile file to call -> grade")
    for name, grades in profiles.items():
        p = (data / str(name)).resolve()
        if not p.is_file() or p.parent != data.resolve():
            raise InvalidGold(f"{path}: profile {name!r} is not a file beside relevance.yaml")
        for call, g in (grades or {}).items():
            if not isinstance(g, int) or isinstance(g, bool) or not 0 <= g <= MAX_GRADE:
                raise InvalidGold(f"{path}: {name}: {call}: a grade is an integer 0-{MAX_GRADE}")
        out[str(name)] = {str(c): int(g) for c, g in (grades or {}).items()}
    if not out:
        raise InvalidGold(f"{path}: no profiles are labelled")
    return docs, out


@dataclass
class _Lib:
    store: Store


def run_rank_eval(data: Path | None = None, *, schema_path: Path | None = None
                  ) -> dict[str, Any]:
    """Rank the calls of `data` for each labelled profile; return nDCG@5 per profile, the
    mean, and the citation checks of every score part."""
    from ..model import Principal
    from ..rank.company_fit import rank_for
    from ..sources.acquire import walk_inputs
    from ..sources.ingest import Ingestor
    from ..store import open_store

    data = data or default_calls()
    if not data.is_dir():
        raise UsageError(f"{data} is not a folder; give --data a folder of calls")
    docs, labels = load_relevance(data)
    schema = schema_path or default_schema()
    principal = Principal.parse("eval:evaluator")
    profiles: dict[str, Any] = {}
    parts = unverified = unknown = 0
    with tempfile.TemporaryDirectory(prefix="pincite-rank-") as tmp:
        store = open_store(Path(tmp) / "store", create=True)
        try:
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                for item in walk_inputs([docs]):
                    ing.ingest_file(item, source_id=item.source_id)
            for name, grades in labels.items():
                out = rank_for(_Lib(store), principal, data / name, schema)
                ranked = [r["call"] for r in out["results"]]
                for r in out["results"]:
                    for p in r["parts"]:
                        parts += 1
                        unknown += p["status"] == "unknown"
                        unverified += any(not c["quote_verified"] for c in p["citations"])
                profiles[name] = {"profile": out["profile"], "ranked": ranked,
                                  "grades": [grades.get(c, 0) for c in ranked],
                                  f"ndcg@{CUTOFF}": round(ndcg(ranked, grades), 4)}
        finally:
            store.close()
    scores = [p[f"ndcg@{CUTOFF}"] for p in profiles.values()]
    return {"dataset": "calls", "data": str(data), "profiles": profiles,
            f"ndcg@{CUTOFF}": round(sum(scores) / len(scores), 4),
            "parts": parts, "parts_unknown": unknown, "citations_unverified": unverified}
