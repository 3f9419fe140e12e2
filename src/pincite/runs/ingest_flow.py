"""The ingest run: per file acquire → inspect → parse → store, then segment_embed → publish.

Each step is idempotent, so that a step killed after its work but before DBOS recorded
its output may run again without harm:

- `acquire` reads the file (bounded) and stages its bytes in the tenant's content-addressed
  blob store (writing the same bytes twice writes one blob); later steps read the staged
  bytes, never the file again, so a file changed meanwhile cannot mix two versions.
- `inspect` and `parse` only read; `parse` stages the text layer it made in the blob store
  (`staging`: keyed by the run, the source, the blob and the layer's own digest, so a
  re-run stages the same blob) and returns only its reference: DBOS records no document
  text in the runs database. `store` reads it back; the run deletes it once `store` has
  returned.

A file of `sources.ingest.STREAM_FROM` bytes or more is never held whole by the worker,
with the pieces `Ingestor.ingest_file` uses (`sources.bodies`): `acquire` hashes it in
chunks and stages it with `put_file` (copied in chunks, the copy's hash checked);
`inspect` reads the staged blob through a `FileView` and `parse` lends its descriptor to
the sandbox worker (`stored_body`: the blob's own file, or on PostgreSQL a private
temporary copy streamed out of the database); a quarantined one is copied to the
quarantine blobs in chunks. A file written to while `acquire` read it fails alone
(reason `input_changed`), as a file gone fails (`unreadable`).
- `store` commits the revision (`Store.commit_revision` returns the revision already there
  for the same bytes: a second commit is `unchanged`, never a second revision) or records
  the quarantine once (an identical record already there is not added again).
- `segment_embed` builds a generation only when the serving one does not already cover
  the revisions this run stored (an interrupted build is discarded by the next build).
- `publish` switches the pointer to that generation unless it already serves, or a
  generation published meanwhile covers this run's revisions (switching to ours would
  then take a newer one's revisions away).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbos import DBOS

from ..errors import (
    Forbidden,
    GenerationInvalid,
    InputChanged,
    NotFound,
    ParseFailure,
    UsageError,
)
from ..limits import Limits
from ..model import MEDIA_TYPES, Principal, TextLayer, timestamp
from ..sources.authority import authorize_write
from ..store import QuarantineRecord, Store
from ..vocab import GenerationState, IngestStatus, RunStep
from .engine import INGEST_WORKFLOW
from .staging import consumed, load_layer, stage_layer
from .steps import step, worker_store

if TYPE_CHECKING:
    from ..sources.bodies import Body


@DBOS.workflow(name=INGEST_WORKFLOW)
def ingest_run(spec: dict[str, Any]) -> dict[str, Any]:
    """Ingest the files of `spec` (see `book.RunBook.submit_ingest`); return the results
    and the generation published."""
    results = [ingest_one(spec, item) for item in spec["inputs"]]
    out: dict[str, Any] = {"results": results, "generation": None, "published": False}
    if spec.get("publish", True):
        epochs = {spec["tenant"]: max((r.get("epoch") or 0 for r in results), default=0)}
        gen_id = step(RunStep.SEGMENT_EMBED, lambda: _build(spec, epochs))
        out.update(step(RunStep.PUBLISH, lambda: _publish(gen_id, epochs)))
    return out


def ingest_one(spec: dict[str, Any], item: dict[str, Any],
               run: Callable[[RunStep, Callable[[], Any]], Any] = step) -> dict[str, Any]:
    """Ingest one file of `spec` as the steps acquire → inspect → parse → store, each run
    by `run` (`steps.step` in a worker: recorded); return its result."""
    acq = run(RunStep.ACQUIRE, lambda: _acquire(spec, item))
    if acq.get("error") is not None:  # unreadable now (gone since it was enqueued), or
        # written to while acquire read it: no bytes of it are used
        return {"path": acq["path"], "source_id": acq["source_id"], "doc_id": None,
                "status": "failed", "reason": acq.get("error_reason") or "unreadable",
                "detail": acq["error"]}
    found: dict[str, Any] = {}
    staged: dict[str, Any] | None = None  # the reference to the layer `parse` staged
    if acq.get("failure") is None and not acq.get("unchanged"):
        found = run(RunStep.INSPECT, lambda: _inspect(spec, acq))
        if found.get("failure") is None:
            parsed = run(RunStep.PARSE, lambda: _parse(spec, acq, found))
            if isinstance(parsed, dict):
                staged = parsed
            else:
                found = {**found, "failure": parsed}
    with consumed(worker_store(), spec["tenant"], [staged]):
        return run(RunStep.STORE, lambda: _store(spec, acq, found, _layer(spec, staged)))


# ---- step bodies -----------------------------------------------------------------------


def _acquire(spec: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    from ..sources.acquire import open_bounded
    from ..sources.bodies import read_body

    store: Store = worker_store()
    tenant, limits = spec["tenant"], _limits(spec)
    # when the bytes were acquired: the revision's `acquired_at`, or the quarantine record's
    base = {"path": item["path"], "source_id": item["source_id"], "name": item["name"],
            "at": timestamp()}
    if item.get("read_from") is None:
        return {**base, "failure": [item.get("reason") or "symlink", item.get("detail") or ""],
                "size": 0}
    try:
        # resolved when the run was enqueued: a link in it now was swapped in since
        opened = open_bounded(Path(item["read_from"]), limits.max_bytes, links_in_path=False)
    except ParseFailure as f:
        return {**base, "failure": [f.reason, f.detail], "size": 0}
    except UsageError as e:  # the file is gone or unreadable: nothing to store or quarantine
        return {**base, "error": e.message}
    with opened:
        try:  # read whole under `stream_from` bytes, else hashed in chunks (as `ingest`)
            body = read_body(opened, _stream_from(spec))
        except ParseFailure as f:  # it grew past the limit while read
            return {**base, "failure": [f.reason, f.detail], "size": 0}
        latest = store.latest_revision(tenant, item["source_id"])
        prior = latest.revision_id if latest is not None else None
        found = {**base, "sha256": body.sha256, "size": body.size, "prior": prior}
        if latest is not None and latest.sha256 == body.sha256:
            return {**found, "unchanged": True}
        try:  # staged: content-addressed, so a re-run writes nothing new
            body.check()  # not written to since it was opened (as `Ingestor` checks)
            body.store(store.blobs, tenant)  # a large file: copied in chunks, hash checked
        except InputChanged as e:  # written to while read: nothing of it is staged
            return {**base, "error": e.message, "error_reason": e.code}
    return found


def _inspect(spec: dict[str, Any], acq: dict[str, Any]) -> dict[str, Any]:
    from ..sources.inspect import inspect

    with _staged(spec, acq) as body:
        try:
            found = inspect(body.view, name=acq["name"], limits=_limits(spec))
        except ParseFailure as f:
            return {"failure": [f.reason, f.detail]}
    return {"kind": found.kind, "flags": sorted(found.flags)}


def _parse(spec: dict[str, Any], acq: dict[str, Any], found: dict[str, Any]
           ) -> dict[str, Any] | list[str]:
    from ..sources.bodies import parse_body
    from ..sources.sandbox import ParserSandbox

    limits = _limits(spec)
    with ExitStack() as stack:
        sandbox = (stack.enter_context(ParserSandbox(limits)) if spec.get("sandbox", True)
                   else None)
        body = stack.enter_context(_staged(spec, acq))
        try:
            layer = parse_body(found["kind"], body, None, limits=limits, sandbox=sandbox)
        except ParseFailure as f:
            return [f.reason, f.detail]
    return stage_layer(worker_store(), spec["tenant"], str(spec.get("run_id") or ""),
                       acq["source_id"], acq["sha256"], layer)


def _layer(spec: dict[str, Any], staged: dict[str, Any] | None) -> TextLayer | None:
    """Return the text layer `parse` staged (None when it staged none)."""
    return None if staged is None else load_layer(worker_store(), spec["tenant"], staged)


def _staged(spec: dict[str, Any], acq: dict[str, Any]) -> AbstractContextManager[Body]:
    """Return the body of the blob `acquire` staged: its bytes, or (a large one) the blob
    opened as a file, never read whole here."""
    from ..sources.bodies import stored_body

    return stored_body(worker_store().blobs, spec["tenant"], acq["sha256"], acq["size"],
                       name=acq["name"], stream_from=_stream_from(spec))


def _store(spec: dict[str, Any], acq: dict[str, Any], found: dict[str, Any],
           layer: TextLayer | None) -> dict[str, Any]:
    store: Store = worker_store()
    tenant, sid = spec["tenant"], acq["source_id"]
    base: dict[str, Any] = {"path": acq["path"], "source_id": sid,
                            "doc_sha256": acq.get("sha256"), "doc_id": None}
    try:  # the write rule again: the source may have changed since the run was enqueued
        authorize_write(store, _writer(spec), sid, acl=spec.get("acl"))
    except (NotFound, Forbidden) as e:
        return {**base, "status": "failed", "reason": e.code, "detail": e.message}
    existing = store.source(tenant, sid)
    acl = spec.get("acl")
    if acl is None and existing is None:
        acl = spec.get("new_acl")
    acl = tuple(acl) if acl is not None else None
    failure = acq.get("failure") or found.get("failure")
    if failure is not None:
        _quarantine_once(store, spec, acq, failure)
        return {**base, "status": IngestStatus.QUARANTINED.value, "reason": failure[0],
                "detail": failure[1]}
    if acq.get("unchanged"):
        latest = store.latest_revision(tenant, sid)
        assert latest is not None
        if existing is not None and acl is not None and existing.acl != acl:
            store.set_acl(tenant, sid, acl)
        return {**base, "status": IngestStatus.UNCHANGED.value, "doc_id": latest.doc_id,
                "revision_id": latest.revision_id, "media_type": latest.media_type,
                "flags": list(latest.flags), "epoch": store.tenant_rev_epochs().get(tenant, 0)}
    assert layer is not None
    flags = set(found.get("flags") or ()) | set(layer.flags)
    if not layer.text.strip():
        flags.add("no_text_layer")
    if acl is None and existing is None:
        failure = ["usage", f"source {sid!r} is new: give it an ACL (missing ACL = invisible)"]
        return {**base, "status": "failed", "reason": failure[0], "detail": failure[1]}
    rev, status = store.commit_revision(
        tenant=tenant, source_id=sid, sha256=acq["sha256"],
        media_type=MEDIA_TYPES[found["kind"]], size=acq["size"], at=acq["at"], acl=acl,
        flags=tuple(sorted(flags)), layer=layer, owner=spec.get("owner"))
    if status == IngestStatus.UNCHANGED and rev.revision_id != acq.get("prior"):
        # this run's own commit, made before a crash: report what it was then
        status = IngestStatus.NEW if acq.get("prior") is None else IngestStatus.REVISED
    return {**base, "status": status.value, "doc_id": rev.doc_id, "revision_id": rev.revision_id,
            "media_type": rev.media_type, "flags": list(rev.flags),
            "epoch": store.tenant_rev_epochs().get(tenant, 0)}


def _writer(spec: dict[str, Any]) -> Principal:
    """Return the principal who enqueued the run (runs enqueued before `groups` was
    recorded carry none)."""
    return Principal(spec["tenant"], spec["owner"], tuple(spec.get("groups") or ()))


def _quarantine_once(store: Store, spec: dict[str, Any], acq: dict[str, Any],
                     failure: list[str]) -> None:
    tenant, sha = spec["tenant"], acq.get("sha256")
    record = QuarantineRecord(acq["source_id"], acq["path"], sha, int(acq.get("size") or 0),
                              failure[0], failure[1], acq["at"], spec.get("owner"))
    if record in store.quarantined(tenant):
        return  # recorded by this step before a crash (same file, same acquisition time)
    if sha is not None and store.blobs.exists(tenant, sha):
        with _staged(spec, acq) as body:  # a large one copied in chunks, hash checked
            body.store(store.quarantine_blobs, tenant)
    store.add_quarantine(tenant, record)


def _covers(store: Store, gen_id: str | None, epochs: dict[str, int]) -> bool:
    """True when generation `gen_id` indexes every tenant epoch in `epochs`."""
    if gen_id is None:
        return False
    for tenant, epoch in epochs.items():
        built = store.generation_tenant(gen_id, tenant)
        if epoch > (built[0] if built else 0):
            return False
    return True


def _build(spec: dict[str, Any], epochs: dict[str, int]) -> str | None:
    from ..embed.factory import open_embedder
    from ..embed.space import EmbeddingSpace
    from ..index.generations import build

    store: Store = worker_store()
    emb = open_embedder(spec.get("embedder"))
    current = store.pointer()[0]
    row = store.generation(current) if current else None
    same_space = bool(row and row.manifest and not EmbeddingSpace.from_dict(
        row.manifest["embedding_space"]).differences(emb.space))
    if same_space and _covers(store, current, epochs):
        return None  # the serving generation already indexes what this run stored
    result = build(store, emb)
    if result.state != GenerationState.READY:
        raise GenerationInvalid(result.gen_id, list(result.problems))
    return result.gen_id


def _publish(gen_id: str | None, epochs: dict[str, int]) -> dict[str, Any]:
    from ..index.generations import DEFAULT_KEEP, prune, publish

    store: Store = worker_store()
    current = store.pointer()[0]
    if gen_id is None or current == gen_id:
        return {"generation": current, "published": gen_id is not None}
    if _covers(store, current, epochs):
        return {"generation": current, "published": False}  # a newer one serves these already
    publish(store, gen_id)
    prune(store, DEFAULT_KEEP)
    return {"generation": gen_id, "published": True}


def _stream_from(spec: dict[str, Any]) -> int:
    """Return the size from which a run's files are read from disk, never whole."""
    from ..sources.ingest import STREAM_FROM

    return int(spec.get("stream_from", STREAM_FROM))


def _limits(spec: dict[str, Any]) -> Limits:
    limits = spec.get("limits")
    return limits if isinstance(limits, Limits) else Limits()
