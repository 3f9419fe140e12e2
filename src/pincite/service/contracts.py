"""The bodies the service answers with: exactly what the CLI prints with `--json` (a
command that prints JSON lines answers with the list of them). HTTP routes and MCP tools
both call these; `tests/service/test_contracts.py` compares every one with the CLI.

Every function takes the principal a verified credential names; none reads a tenant or a
user from its arguments.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import NotFound, QuoteNotFound, UsageError
from ..model import Principal
from ..model.provenance import provenance_entries

if TYPE_CHECKING:
    from ..library import Library


def sources(lib: Library, p: Principal, *, quarantined: bool = False) -> list[dict[str, Any]]:
    """`pincite sources --json` (`--quarantined`)."""
    if quarantined:
        return [q.to_dict() for q in lib.quarantined(p)]
    out = []
    for s in lib.sources(p):
        revs = lib.revisions(p, s.source_id)
        latest = revs[-1]
        out.append({"source_id": s.source_id, "doc_id": latest.doc_id,
                    "doc_sha256": latest.sha256, "media_type": latest.media_type,
                    "revisions": len(revs), "acl": list(s.acl), "flags": list(latest.flags)})
    return out


def show(lib: Library, p: Principal, doc: str, *, locator: str | None = None,
         chars: str | None = None) -> dict[str, Any]:
    """`pincite show DOC --json` (with `--locator` or `--chars A:B`)."""
    rev, layer = lib.document(p, doc)
    head = {"doc_id": rev.doc_id, "doc_sha256": rev.sha256, "media_type": rev.media_type,
            "text_layer": layer.layer_id, "valid_to": rev.valid_to, "flags": list(rev.flags)}
    if chars is not None:
        try:
            a, b = (int(x) for x in chars.split(":"))
        except ValueError:
            raise UsageError("chars takes A:B, two offsets") from None
        if not 0 <= a <= b <= len(layer.text):
            raise UsageError(f"chars {chars} is outside 0:{len(layer.text)}")
        return {**head, "char_start": a, "char_end": b, "text": layer.text[a:b]}
    if locator is not None:
        els = [e for e in layer.elements if e.locator == locator and e.kind != "page"]
        if not els:
            raise NotFound("locator", locator)
        el = max(els, key=lambda e: e.char_end - e.char_start)
        return {**head, **el.to_dict(), "text": layer.text[el.char_start:el.char_end]}
    return {**head, "text": layer.text, "elements": [e.to_dict() for e in layer.elements]}


def cite(lib: Library, p: Principal, doc: str, quotes: Sequence[str], *,
         occurrence: int | None = None, locator: str | None = None) -> list[dict[str, Any]]:
    """`pincite cite DOC --quote Q… --json`: a citation, or a not-found line, per quote."""
    from ..errors import EmptyQuote
    from ..library import comparison_form

    if not quotes:
        raise UsageError("give at least one quote")
    for i, q in enumerate(quotes, 1):
        if not comparison_form(q):
            raise EmptyQuote(f" {i}" if len(quotes) > 1 else "")
    ver = lib.verifier(p)
    out: list[dict[str, Any]] = []
    for q in quotes:
        try:
            out.append(ver.cite(doc, q, occurrence=occurrence, locator=locator).to_dict())
        except QuoteNotFound as exc:
            out.append({"quote": q, "error": "not_found", "message": exc.message})
    return out


def verify(lib: Library, p: Principal, data: Any, *, form: str | None = None
           ) -> list[dict[str, Any]]:
    """`pincite verify FILE --json`: one line per provenance entry found in `data`."""
    from ..library import Citation

    entries = [Citation.from_dict(e) for e in provenance_entries(data)]
    if not entries:
        raise UsageError("the body holds no provenance entries")
    return [{"doc_id": c.doc_id, "char_start": c.char_start, "char_end": c.char_end,
             "quote_verified": c.quote_verified, "verify_reason": c.verify_reason,
             "comparison": c.comparison} for c in lib.verify(p, entries, form=form)]


def search(lib: Library, p: Principal, q: str, *, k: int = 10, as_of: str | None = None,
           source: Sequence[str] = (), source_prefix: str | None = None,
           releases: Path | None = None) -> dict[str, Any]:
    """`pincite search Q --json`: the evidence bundle, from the generation an open canary
    routes `p` to (`Library.canary_for`, as the CLI asks), else the published one."""
    filters: dict[str, Any] = {}
    if source:
        filters["source_ids"] = list(source)
    if source_prefix:
        filters["source_prefix"] = source_prefix
    return lib.search(p, q, k=k, as_of=as_of, filters=filters or None,
                      generation=lib.canary_for(p, releases)).to_dict()


def ask(lib: Library, p: Principal, question: str, *, as_of: str | None = None,
        releases: Path | None = None, min_confidence: float = 0.0) -> dict[str, Any]:
    """`pincite ask Q --json`: the answer with verified citations, or not_found (routed
    as `search` is)."""
    return lib.ask(p, question, as_of=as_of, generation=lib.canary_for(p, releases),
                   min_confidence=min_confidence).to_dict()


def delete(lib: Library, p: Principal, source_id: str, *, purge: bool = False
           ) -> dict[str, Any]:
    """`pincite delete SOURCE --json` (`--purge`)."""
    return lib.delete(p, source_id, purge=purge).to_dict()


def set_acl(lib: Library, p: Principal, source_id: str, entries: Sequence[str]
            ) -> dict[str, Any]:
    """`pincite acl SOURCE --set E… --json`."""
    if not entries:
        raise UsageError("give the new ACL: one entry or more")
    src = lib.set_acl(p, source_id, list(entries))
    return {"source_id": src.source_id, "acl": list(src.acl), "acl_epoch": src.acl_epoch}


def tables(lib: Library, p: Principal, doc: str) -> list[dict[str, Any]]:
    """`pincite tables DOC --json`."""
    return [t.to_dict() for t in lib.tables(p, doc)]


def facts(lib: Library, p: Principal, doc: str, types: Sequence[str] = ()
          ) -> list[dict[str, Any]]:
    """`pincite facts DOC --type T… --json`."""
    return [f.to_dict() for f in lib.facts(p, doc, types=list(types) or None)]


def generations(lib: Library) -> list[dict[str, Any]]:
    """`pincite index list --json`."""
    return lib.generation_summaries()


def generation(lib: Library, gen_id: str | None, *, check: bool = False) -> dict[str, Any]:
    """`pincite index show [GEN] --json` (`--check`)."""
    g = lib.generation(gen_id)
    problems = lib.check_generation(g.gen_id) if check else None
    return {"gen_id": g.gen_id, "state": g.state, "published_at": g.published_at,
            "purged": g.purged, "manifest": g.manifest,
            **({"problems": problems} if problems is not None else {})}


def extract(lib: Library, p: Principal, schema: dict[str, Any] | str, docs: Sequence[str], *,
            case_id: str | None = None) -> dict[str, Any]:
    """`pincite extract DOCS --schema FILE --json`; the schema comes as the file's text
    (YAML or JSON: the run's schema digest is then the CLI's) or as a JSON object, read by
    the guarded loader (no aliases, bounded size and depth; messages say "the schema")."""
    from ..errors import InvalidSchema
    from ..library import records_json, schema_from_text

    if not docs:
        raise UsageError("give the case's documents")
    if isinstance(schema, str):
        sch = schema_from_text(schema)
    else:
        try:
            text = json.dumps(schema)  # NaN stays NaN here, and the loader refuses it
        except (RecursionError, ValueError, TypeError):
            raise InvalidSchema("the schema nests too deeply or holds a value JSON cannot "
                                "write: give the schema file's content") from None
        sch = schema_from_text(text, syntax="json")
    result = lib.extract(p, sch, list(docs), case_id=case_id)
    return records_json(result.records, run=result.run)


def calibration(lib: Library, p: Principal, field: str | None = None) -> dict[str, Any]:
    """`pincite calibrate --json` (`--field`)."""
    return lib.calibration(p, field=field)


def rank(lib: Library, p: Principal, body: bytes, tender_schema: Path | None = None
         ) -> dict[str, Any]:
    """`pincite rank --profile FILE --json`, the profile file's content sent as the JSON
    body (`profile_file` is None: no file was read)."""
    from ..library import default_tender_schema, rank_json

    return rank_json(lib, p, body, tender_schema or default_tender_schema())


def runs(book: Any, p: Principal, *, limit: int = 50) -> list[dict[str, Any]]:
    """`pincite runs --json` (`--limit`): the principal's own runs, newest first."""
    return book.runs(p, limit=limit)  # type: ignore[no-any-return]


def run(book: Any, p: Principal, run_id: str) -> dict[str, Any]:
    """`pincite runs ID --json`: one of the principal's runs with its steps; NotFound for
    any other id."""
    return book.run(p, run_id)  # type: ignore[no-any-return]
