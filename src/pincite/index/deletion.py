"""Deleting a source: a tombstone at once, and with `purge` the bytes of every copy.

`delete_source` writes a tombstone covering every revision the source has. Every reader
checks tombstones in the same statement that authorizes (search in every generation,
old ones after a rollback included; show, cite, verify, list), and the tombstone bumps
the tenant's epoch, which keys every authorization cache — so the source is gone for
every path at once, without rebuilding anything. The tombstone keeps the ACL the source
had, so that `verify` of an old citation says `source_deleted` to a principal of the
tenant who could read it, and `unknown_document` to anyone else.

`purge=True` then removes the bytes: the vectors rows of every generation that holds the
source are zeroed (a new file, recorded as the generation's digest), its rows leave every
generation's lexical tables (bodies and packed postings), its chunks,
text layers, revisions, source row and quarantine records are deleted and its id is
stripped from the tombstone (a digest of it remains), blobs no other revision uses are
removed, its vectors leave the embedding cache, its own field records and review items
go, and in the rows other documents keep (their review items, labels, records, extraction
runs) every entry that quoted it becomes `{"purged": true}` (`store.scrub`; the full list
of places is in docs/concepts.md, Deletion), and both databases are vacuumed with
`secure_delete` on and the WAL truncated. In the durable-runs database (which records
references, never text: `runs.staging`) every ended run of the tenant that named it is
scrubbed the same way and rewritten (`store.runs_database`), before the id leaves the
tombstone. A purge that crashes can be run again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..embed import EmbeddingSpace, input_sha256
from ..errors import NotFound
from ..model import Principal, acl_allows, timestamp
from ..sources.authority import authorize_write
from ..store import Store
from ..store.runs_database import purge_run_copies
from .generations import chunk_list_digest


@dataclass(frozen=True, slots=True)
class DeleteResult:
    source_id: str
    through_revision: str | None
    deleted_at: str
    purged: bool
    removed: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"source_id": self.source_id, "through_revision": self.through_revision,
                "deleted_at": self.deleted_at, "purged": self.purged, "removed": self.removed}


def delete_source(store: Store, principal: Principal, source_id: str, *,
                  purge: bool = False) -> DeleteResult:
    """Delete a source the principal can read (NotFound otherwise); purge its bytes if asked."""
    at = timestamp()
    try:  # the one write rule: a source it cannot read is NotFound, like a missing one
        src = authorize_write(store, principal, source_id, must_exist=True)
    except NotFound:
        src = None
    if src is not None:
        revs = store.revisions(principal.tenant, source_id)
        through = max((_seq(r.revision_id) for r in revs), default=0)
        store.add_tombstone(principal.tenant, source_id, through, at, str(principal), src.acl)
        rev_id: str | None = f"r{through}"
    else:
        # a source deleted earlier may still be purged by someone who could read it
        tomb = store.tombstone_for(principal.tenant, source_id, 0)
        if not purge or tomb is None or tomb.source_id is None or not acl_allows(tomb.acl, principal):
            raise NotFound("source", source_id)
        rev_id, at = f"r{store.deleted_through(principal.tenant, source_id)}", tomb.deleted_at
    removed: dict[str, int] = {}
    if purge:
        removed = purge_source(store, principal.tenant, source_id)
    return DeleteResult(source_id, rev_id, at, purge, removed)


def _seq(revision_id: str) -> int:
    return int(revision_id[1:]) if revision_id[1:].isdigit() else 0


def purge_source(store: Store, tenant: str, source_id: str) -> dict[str, int]:
    """Remove every stored byte of a tombstoned source (see the module docstring)."""
    if store.tombstone_for(tenant, source_id, 0) is None:
        raise NotFound("source", source_id)
    chunks, ords_by_gen, shas, qshas = store.purge_plan(tenant, source_id)
    texts = store.chunk_texts([cid for cid, _ in chunks])
    spaces: dict[str, EmbeddingSpace] = {}
    for gen_id, ords in ords_by_gen.items():
        g = store.generation(gen_id)
        if g is None:
            continue
        if g.manifest:
            sp = EmbeddingSpace.from_dict(g.manifest["embedding_space"])
            spaces[sp.space_id] = sp
        sha = store.purge_vectors(g, ords)
        store.purge_generation_rows(gen_id, ords, sha, lambda gid: chunk_list_digest(store, gid))
    records = store.purge_review_of_source(tenant, source_id)
    records += store.purge_records_of_source(tenant, source_id)
    scrubbed = store.scrub_source(tenant, source_id, shas)
    # the runs database first: a purge stopped there (busy) can still be run again by id
    runs = purge_run_copies(store, tenant, source_id, [*shas, *qshas])
    store.purge_source_rows(tenant, source_id, timestamp())
    blobs = sum(1 for s in shas if not store.blob_in_use(tenant, s) and store.blobs.delete(tenant, s))
    qblobs = sum(1 for s in qshas if not store.blob_in_use(tenant, s, quarantine=True)
                 and store.quarantine_blobs.delete(tenant, s))
    gone = [t for cid, d in chunks if not store.content_digest_in_use(d) for t in [texts.get(cid)] if t]
    digests = sorted({input_sha256(sp.document_prefix + t) for sp in spaces.values() for t in gone}
                     | {input_sha256(t) for t in gone})
    forgotten = store.forget_embeddings(digests)
    store.secure_vacuum()
    return {"chunks": len(chunks), "generations": len(ords_by_gen), "blobs": blobs,
            "quarantine_blobs": qblobs, "cached_vectors": forgotten, "field_records": records,
            "rows_scrubbed": scrubbed, **runs}
