"""Run a fill: the seed's stages in order, each a recorded step that writes its artifact.

    compile target ─► fact universe ─► route tables ─► rank candidates ─► deterministic
    writes ─► model fallback (gated) ─► coverage validation ─► review artifact

| stage      | artifact                                        |
|------------|-------------------------------------------------|
| `compile`  | target.json                                     |
| `facts`    | facts.json                                      |
| `route`    | table_retrieval.json, table_alignment.json      |
| `rank`     | candidates.json                                 |
| `program`  | fill_program.json (after the fallback's writes) |
| `coverage` | coverage.json, marks.csv                        |
| `outputs`  | audit.json, audit.xlsx, report.html,            |
|            | <target>.filled.xlsx                            |

With an output folder, `checkpoints.json` records each finished stage with its
artifacts' sha256 and the digest of the run's inputs (target bytes, the revisions read,
the marks, the thresholds, the principal). A re-run with the same inputs loads a finished
stage's artifact instead of running it again (`FillResult.skipped`), so a run killed
between stages resumes where it stopped and writes byte-identical artifacts. The fault
points `fill.after_<stage>` (`pincite.faults`) fire right after a stage's checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .. import faults
from ..cite.resolve import resolve_doc
from ..errors import OutputUnwritable, UsageError
from ..model import Principal
from .coverage import marks_template, obligations, read_marks, validate_coverage
from .fact_universe import build_universe
from .handoff import queue_unresolved, review_state, review_writes
from .output import audit, audit_workbook, filled_workbook, report_html, summary_line
from .program import fill_program
from .rank import MARGIN, MIN_SCORE, rank_cells
from .route import route_tables
from .row_model import Encoder, RowAligner, active_aligner
from .target import check_target, compile_target
from .trace import Tracer, default_trace, set_attrs

STAGES = ("compile", "facts", "route", "rank", "program", "coverage", "outputs")
CHECKPOINTS = "checkpoints.json"


@dataclass
class FillResult:
    """What a fill produced: the artifacts by name, the audit, the stages run and skipped,
    and how many unresolved cells went to the review queue (`review=True`)."""

    artifacts: dict[str, Any]
    audit: dict[str, Any]
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    out: Path | None = None
    queued: int = 0

    @property
    def summary(self) -> str:
        """Return the one-line summary."""
        return summary_line(self.audit)


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def code_digest() -> str:
    """Return the sha256 of the fill package's sources: a changed rule reruns every stage."""
    h = hashlib.sha256()
    for p in sorted(Path(__file__).parent.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def prepare_out(out: Path, target: Path) -> Path:
    """Return the output folder, created; refuse one that is a file, or that holds the
    target (the target is never written)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputUnwritable(out, "it is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputUnwritable(out, exc.strerror or "cannot create it") from None
    if target.resolve().parent == out.resolve():
        raise OutputUnwritable(out, "it holds the target workbook, which is never written")
    return out


class _Steps:
    """Stage runner: loads a finished stage's artifacts, else runs it and records it."""

    def __init__(self, out: Path | None, inputs: str, tracer: Tracer) -> None:
        self.out = out
        self.inputs = inputs
        self.tracer = tracer
        self.ran: list[str] = []
        self.skipped: list[str] = []
        self.done: dict[str, dict[str, str]] = {}
        if out is not None and (out / CHECKPOINTS).is_file():
            try:
                cp = json.loads((out / CHECKPOINTS).read_text(encoding="utf-8"))
            except ValueError:
                cp = {}
            if cp.get("inputs") == inputs:
                self.done = cp.get("done") or {}

    def _fresh(self, stage: str) -> bool:
        files = self.done.get(stage)
        if not files or self.out is None:
            return False
        for name, digest in files.items():
            p = self.out / name
            if not p.is_file() or hashlib.sha256(p.read_bytes()).hexdigest() != digest:
                return False
        return True

    def run(self, stage: str, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Return the stage's artifacts by file name (loaded, or computed and written)."""
        if self._fresh(stage):
            assert self.out is not None
            self.skipped.append(stage)
            return {name: (json.loads((self.out / name).read_text(encoding="utf-8"))
                           if name.endswith(".json") else (self.out / name).read_bytes())
                    for name in self.done[stage]}
        arts = fn()
        self.ran.append(stage)
        if self.out is not None:
            digests = {}
            for name, obj in arts.items():
                data = obj if isinstance(obj, bytes) else (
                    obj.encode() if isinstance(obj, str) else _dump(obj))
                tmp = self.out / (name + ".tmp")
                tmp.write_bytes(data)
                tmp.replace(self.out / name)
                digests[name] = hashlib.sha256(data).hexdigest()
            self.done[stage] = digests
            cp = _dump({"schema_name": "pincite.fill.checkpoints", "version": 1,
                        "inputs": self.inputs, "done": self.done})
            (self.out / (CHECKPOINTS + ".tmp")).write_bytes(cp)
            (self.out / (CHECKPOINTS + ".tmp")).replace(self.out / CHECKPOINTS)
        faults.hit(f"fill.after_{stage}")
        return arts


def _citations(store: Any, principal: Principal, program: dict[str, Any],
               universe: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    from ..cite.verifier import Verifier, citation_for

    v = Verifier(store, principal)
    index = {f["fact_id"]: f for f in universe["facts"]}
    out: dict[str, list[dict[str, Any]]] = {}
    for w in program["writes"]:
        cites = []
        for fid in w["source_fact_ids"]:
            f = index[fid]
            rev = v.revision(f["doc_id"])
            loaded = v.layer(rev, f["text_layer"]) if rev is not None else None
            if rev is None or loaded is None:
                cites.append({"fact_id": fid, "doc_id": f["doc_id"], "locator": f["locator"],
                              "page": f["page"], "quote": f["value"], "quote_verified": False,
                              "verify_reason": "unknown_document"})
                continue
            c = v.verify(citation_for(rev, loaded, f["char_start"], f["char_end"]))
            cites.append({"fact_id": fid, **c.to_dict()})
        out[w["cell_id"]] = cites
    return out


def _page_images(store: Any, principal: Principal, a: dict[str, Any]
                 ) -> tuple[dict[str, tuple[str, float, float]], dict[str, str]]:
    """Return the page images the writes' PDF citations need: `doc_id#page` → (CSS class,
    width pt, height pt), and class → PNG data URI (each page rendered once)."""
    import base64

    from ..parse.pdf.render import render_page_png
    from ..store.blobs import open_blob

    pages: dict[str, tuple[str, float, float]] = {}
    images: dict[str, str] = {}
    for w in a["writes"]:
        for c in w["citations"]:
            key = f"{c['doc_id']}#{c.get('page')}"
            if key in pages or not c.get("bbox") or not c.get("page") or not c["quote_verified"]:
                continue
            rev = resolve_doc(store, principal, c["doc_id"])
            if rev.media_type != "application/pdf":
                continue
            with open_blob(store.blobs, rev.tenant, rev.sha256) as fh:
                png, pw, ph = render_page_png(fh, c["page"])
            cls = f"pg{len(images) + 1}"
            pages[key] = (cls, pw, ph)
            images[cls] = "data:image/png;base64," + base64.b64encode(png).decode()
    return pages, images


class HasStore(Protocol):
    """What the facade passes: a library and its store."""

    store: Any


def fill_workbook(lib: HasStore, principal: Principal, target: str | Path,
                  docs: Sequence[str], **kw: Any) -> FillResult:
    """Return the fill of a copy of `target` from `docs` as `principal` reads them, through
    the library's store (`run_fill`'s options: out, marks, trace, review, model_endpoint…);
    the facade re-exports it as `pincite.library.fill_workbook`."""
    return run_fill(lib.store, principal, Path(target), docs, **kw)


def run_fill(store: Any, principal: Principal, target: Path, docs: Sequence[str], *,
             out: Path | None = None, marks: Path | None = None, trace: Path | None = None,
             min_score: float = MIN_SCORE, margin: float = MARGIN, review: bool = False,
             model_endpoint: str | None = None, model: str | None = None,
             fallback: Callable[[dict[str, Any], dict[str, Any], dict[str, Any]],
                                list[dict[str, Any]]] | None = None,
             aligner: tuple[RowAligner, Encoder] | None | str = "shipped") -> FillResult:
    """Fill a copy of `target` from `docs` as `principal` may read them; with `out`,
    write every artifact there and resume from its checkpoints. Return the result.
    `aligner`: "shipped" (the shipped row aligner where MiniLM is installed), None (rows
    by the rules alone) or a (model, encoder) pair."""
    target = Path(target)
    if isinstance(aligner, str):
        if aligner != "shipped":
            raise UsageError(f"unknown row aligner {aligner!r}: give 'shipped', None or a model")
        rows_by: tuple[RowAligner, Encoder] | None = active_aligner()
    else:
        rows_by = aligner
    row_model = rows_by[0].to_dict() if rows_by is not None else None
    data = check_target(target)
    if out is not None:
        out = prepare_out(out, target)
    revs = [resolve_doc(store, principal, d) for d in docs]  # authorization first, always
    user_marks = read_marks(marks)
    if fallback is None and model_endpoint:
        from .fallback import ModelFallback

        fallback = ModelFallback(model_endpoint, model)
    inputs = hashlib.sha256(_dump({
        "target": hashlib.sha256(data).hexdigest(),
        "revisions": [[r.doc_id, r.sha256] for r in revs], "marks": user_marks,
        "min_score": min_score, "margin": margin, "principal": str(principal),
        "fallback": [model_endpoint, model] if model_endpoint else fallback is not None,
        "code": code_digest(), "row_aligner": row_model,
        "review": review_state(store, principal, {"sha256": hashlib.sha256(data).hexdigest()})
        if review else None})).hexdigest()
    tracer = Tracer(trace if trace is not None else default_trace(out))
    steps = _Steps(out, inputs, tracer)
    stem = target.stem
    filled_name = f"{stem}.filled.xlsx"
    try:
        with tracer.span("solve.exec", {"document.count": len(revs)}) as root:
            tgt = steps.run("compile", lambda: {"target.json": compile_target(target)})["target.json"]
            with tracer.span("facts.build", {"artifact.path": "facts.json"}) as s:
                uni = steps.run("facts", lambda: {"facts.json": build_universe(
                    store, principal, [r.doc_id for r in revs])})["facts.json"]
                c = uni["counts"]
                set_attrs(s, {"source.pages": c["pages"], "source.tables": c["tables"],
                              "facts.total": c["facts_total"],
                              "facts.table_cell": c["facts_table_cell"]})

            def _route() -> dict[str, Any]:
                r = route_tables(tgt["tables"], uni["tables"], rows_by)
                return {"table_retrieval.json": r["retrieval"],
                        "table_alignment.json": r["alignment"]}

            rt = steps.run("route", _route)
            routing = {"retrieval": rt["table_retrieval.json"], "alignment": rt["table_alignment.json"]}
            for r in routing["retrieval"]["routes"]:
                with tracer.span("retrieval.tables", {
                        "target.table": r["target_table"], "recall.filters": r["recall"]["filters"],
                        "recall.fts": r["recall"]["fts"], "recall.vector": r["recall"]["vectors"],
                        "fused.tables": r["fused_tables"], "reranked.tables": r["reranked_tables"],
                        "artifact.path": "table_retrieval.json"}):
                    pass
            for a in routing["alignment"]["alignments"]:
                with tracer.span("alignment.table", {
                        "target.table": a["target_table"], "source.table": a["source_table"],
                        "row.mapped": a["row_mapped"], "column.mapped": a["column_mapped"],
                        "ambiguous.axes": len(a["ambiguous_axes"]),
                        "artifact.path": "table_alignment.json"}):
                    pass
            ranking = steps.run("rank", lambda: {"candidates.json": rank_cells(
                tgt, uni, routing, min_score=min_score, margin=margin)})["candidates.json"]
            for cell in ranking["cells"]:
                with tracer.span("candidate.rank", {
                        "target.cell": cell["cell_id"], "winner.fact_id": cell.get("winner"),
                        "winner.score": cell.get("score"), "winner.margin": cell.get("margin"),
                        "status": cell["status"], "reason": cell.get("reason"),
                        "artifact.path": "candidates.json"}):
                    pass

            def _program() -> dict[str, Any]:
                first = fill_program(ranking, uni)
                extra = review_writes(store, principal, tgt, first, uni, ranking) if review else []
                if fallback is not None:
                    extra += fallback(first, uni, ranking)
                return {"fill_program.json": fill_program(ranking, uni, extra) if extra else first}

            program = steps.run("program", _program)["fill_program.json"]
            obls = obligations(tgt, uni, routing)

            def _coverage() -> dict[str, Any]:
                cov = validate_coverage(obls, program, uni, user_marks)
                return {"coverage.json": cov, "marks.csv": marks_template(cov)}

            with tracer.span("coverage.validate", {"artifact.path": "coverage.json"}) as s:
                cov = steps.run("coverage", _coverage)["coverage.json"]
                set_attrs(s, {"obligations.high_signal": cov["high_signal"],
                              "obligations.unresolved": cov["unresolved"]})
            names = {"target": "target.json", "facts": "facts.json",
                     "table_retrieval": "table_retrieval.json",
                     "table_alignment": "table_alignment.json", "candidates": "candidates.json",
                     "fill_program": "fill_program.json", "coverage": "coverage.json",
                     "marks": "marks.csv", "report": "report.html", "filled": filled_name,
                     "audit_workbook": "audit.xlsx"}

            def _outputs() -> dict[str, Any]:
                cites = _citations(store, principal, program, uni)
                a = audit(tgt, uni, program, cites, cov, names)
                arts: dict[str, Any] = {"audit.json": a}
                if out is not None:
                    pages, images = _page_images(store, principal, a)
                    arts["report.html"] = report_html(a, cov, pages, images)
                    arts[filled_name] = filled_workbook(data, program, cites)
                    arts["audit.xlsx"] = audit_workbook(a)
                return arts

            outs = steps.run("outputs", _outputs)
            a = outs["audit.json"]
            queued = 0
            if review and program["unresolved"]:
                queued = queue_unresolved(store, principal, tgt, program, uni,
                                          f"fill-{int(time.time() * 1000):013x}-{os.urandom(4).hex()}")
            set_attrs(root, {"target.cells": tgt["target_cells"],
                             "output.writes": a["summary"]["written"],
                             "output.unresolved": a["summary"]["unresolved"],
                             **{f"artifact.{k}": v for k, v in names.items()}})
    finally:
        tracer.close()
    arts = {"target": tgt, "facts": uni, "routing": routing, "candidates": ranking,
            "program": program, "coverage": cov}
    return FillResult(arts, a, steps.ran, steps.skipped, out, queued)
