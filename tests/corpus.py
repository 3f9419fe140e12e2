"""Corpora for tests: small Markdown documents ingested through the real path, the example tender."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pincite.embed import HashEmbedder
from pincite.library import Library
from pincite.model import Principal
from pincite.sources.ingest import IngestResult
from pincite.vocab import IngestStatus

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
EMB = HashEmbedder()
ANA = Principal.parse("acme:ana:legal")

TERMS_EN = """# Master Services Agreement

1. PAYMENT

1.1 Invoices are payable within thirty (30) days of receipt.

1.2 Late payments accrue interest at two percent per month.

2. GOVERNING LAW

2.1 This Agreement is governed by the laws of Spain.

3. TERMINATION

3.1 Either party may terminate this Agreement with ninety days written notice.
"""

PLIEGO_ES = """# Pliego de cláusulas administrativas

1. GARANTÍAS

1.1 La garantía definitiva será del cinco por ciento del precio de adjudicación.

2. PLAZOS

2.1 El plazo de ejecución será de doce meses desde la formalización del contrato.

3. PENALIDADES

3.1 Las penalidades por demora serán de un euro por cada mil euros del precio.
"""


def add(lib: Library, source_id: str, text: str, *, tenant: str = "acme",
        acl: Sequence[str] = ("group:legal",)) -> IngestResult:
    """Ingest one Markdown document (in process, no sandbox: the text is ours)."""
    r = lib.ingest_bytes(text.encode(), source_id=source_id, tenant=tenant, acl=list(acl),
                         name=source_id if "." in source_id else source_id + ".md", sandbox=False)
    assert r.status != IngestStatus.QUARANTINED, r
    return r


def publish(lib: Library) -> str:
    """Build and publish a generation with the hash embedder; return its id."""
    r = lib.update_index(EMB)
    assert r is not None and r.state == "ready", r
    return r.gen_id


def items_json(bundle: Any) -> str:
    """The items of a bundle as canonical JSON (for byte comparisons)."""
    return json.dumps([i.to_dict() for i in bundle.items], sort_keys=True, ensure_ascii=False)


def doc_ids(bundle: Any) -> list[str]:
    return [i.doc_id for i in bundle.items]


TENDER_DOCS = ["tender/pliego.pdf", "tender/anexo-tecnico.docx", "tender/anuncio.html"]


def ingest_tender(lib: Library, *, tenant: str = "demo", acl: str = "group:analysts") -> Library:
    """Return `lib` after ingesting the example tender's three documents as `tender/<name>`."""
    for source_id in TENDER_DOCS:
        lib.ingest([EXAMPLES / source_id], tenant=tenant, acl=[acl], source_id=source_id,
                   sandbox=False)
    return lib


def tender_library(root: Path | str, acl: str = "group:analysts") -> Library:
    """Return a library at `root` holding the example tender (tenant demo)."""
    import pincite

    return ingest_tender(pincite.open(root, create=True), acl=acl)


def scifact_abstracts(n: int) -> list[str]:
    """Return the first `n` SciFact abstracts (title and text) of ../shared/data (the tests
    that call it carry the `shared_data("scifact")` mark, so they skip loudly without it)."""
    from tests.loud_skips import shared_path

    path = shared_path("scifact/corpus.jsonl")
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            out.append((doc["title"] + " " + doc["text"]).strip())
            if len(out) == n:
                break
    assert len(out) == n, f"{path} holds {len(out)} abstracts, not {n}: nothing to compare"
    return out


def files_under(root: Path, skip: Path) -> dict[str, bytes]:
    """Every file under `root` (links as their target's path) outside `skip`, by path."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        if Path(dirpath) == skip or skip in Path(dirpath).parents:
            continue
        for f in files:
            p = Path(dirpath) / f
            out[str(p.relative_to(root))] = (b"link:" + os.readlink(p).encode()
                                             if p.is_symlink() else p.read_bytes())
    return out
