"""Staged copies: what one step of a run hands the next, kept in the store, not in DBOS.

DBOS records the output of every step in the runs database, which is outside the store's
access rules, its `secure_delete` and `delete --purge`. So a step whose product holds
document text — `parse`'s text layer, the records of `extract`, `validate` and `decide`
with their quotes and values — stages it in the tenant's blob store and returns only a
reference, `{"staged": KEY, "digest": SHA256, …}`; the next step loads it (its digest
checked) and the run removes it once the step that consumes it has returned (`consumed`).

The key is a digest of the run id, what is staged and the bytes' digest: a re-run of a
step after a crash writes the same blob again (or, had it come out different, another
one), two runs never share one, and no document's own sha256 can be it. A staged copy is
no revision's blob, so `pincite fsck` reclaims one left by a run abandoned for good after
its grace period, like the file bytes `acquire` stages; a purge deletes those of the ended
runs that read the purged source (`store.runs_database`).

Formats: a text layer as the store's own columns (`store.source_rows.encode_layer`),
pickled from plain values only and read back by an unpickler that admits no class at all;
records pickled whole (the verifier's marks on their citations must survive, which their
JSON form drops) and read back admitting only pincite's own classes.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import PinciteError, StoreError
from ..model import TextLayer
from ..store.runs_database import STAGED_KEY
from ..store.source_rows import decode_layer, encode_layer

PREFIX = b"pincite-staged\x00"


def _key(run_id: str, what: str, digest: str) -> str:
    return hashlib.sha256(PREFIX + f"{run_id}\x00{what}\x00{digest}".encode()).hexdigest()


def _stage(store: Any, tenant: str, run_id: str, what: str, data: bytes) -> dict[str, Any]:
    digest = hashlib.sha256(data).hexdigest()
    key = _key(run_id, what, digest)
    store.blobs.put(tenant, data, key)
    return {STAGED_KEY: key, "digest": digest}


def _load(store: Any, tenant: str, ref: dict[str, Any], what: str) -> bytes:
    key = ref.get(STAGED_KEY)
    try:
        data: bytes = store.blobs.get(tenant, str(key))
    except FileNotFoundError:
        raise StoreError(f"the staged {what} {key} of this run is gone (reclaimed by "
                         "`pincite fsck` after its grace period, or deleted by a purge of a "
                         "source the run read): enqueue the run again") from None
    if hashlib.sha256(data).hexdigest() != ref.get("digest"):
        raise StoreError(f"the staged {what} {key} of this run no longer hashes to "
                         f"{ref.get('digest')}: run `pincite fsck`, then enqueue the run again")
    return data


def stage_layer(store: Any, tenant: str, run_id: str, source_id: str, sha256: str,
                layer: TextLayer) -> dict[str, Any]:
    """Stage the text layer parsed from the blob `sha256` of `source_id`; return its
    reference (which names the source and blob, so a purge finds it)."""
    data = pickle.dumps(encode_layer(layer), protocol=5)
    ref = _stage(store, tenant, run_id, f"layer\x00{source_id}\x00{sha256}", data)
    return {**ref, "source_id": source_id, "sha256": sha256, "layer_id": layer.layer_id}


def load_layer(store: Any, tenant: str, ref: dict[str, Any]) -> TextLayer:
    """Return the text layer a reference of `stage_layer` names."""
    row = _PlainUnpickler(io.BytesIO(_load(store, tenant, ref, "text layer"))).load()
    return decode_layer(row)


def stage_records(store: Any, tenant: str, run_id: str, step: str,
                  records: Sequence[Any]) -> dict[str, Any]:
    """Stage the field records a step of an extraction run produced; return their
    reference (with their count)."""
    data = pickle.dumps(list(records), protocol=5)
    return {**_stage(store, tenant, run_id, f"records\x00{step}", data), "count": len(records)}


def load_records(store: Any, tenant: str, ref: dict[str, Any]) -> list[Any]:
    """Return the field records a reference of `stage_records` names."""
    out = _RecordUnpickler(io.BytesIO(_load(store, tenant, ref, "records"))).load()
    if not isinstance(out, list):
        raise StoreError(f"the staged records {ref.get(STAGED_KEY)} are not a list of "
                         "records: enqueue the run again")
    return out


def unstage(store: Any, tenant: str, refs: Iterable[dict[str, Any] | None]) -> int:
    """Delete the staged copies named by `refs` (None and missing ones skipped); return
    how many were deleted."""
    return sum(1 for ref in refs if isinstance(ref, dict) and isinstance(ref.get(STAGED_KEY), str)
               and store.blobs.delete(tenant, ref[STAGED_KEY]))


@contextmanager
def consumed(store: Any, tenant: str, refs: list[dict[str, Any] | None]) -> Iterator[None]:
    """Delete the staged copies in `refs` (read when the block ends: it may add to the
    list) once the block returns, or refuses with a PinciteError (the run then ends in
    error and nothing will read them again); anything else (the worker stopping) leaves
    them for the resumed run."""
    try:
        yield
    except PinciteError:
        unstage(store, tenant, refs)
        raise
    unstage(store, tenant, refs)


class _PlainUnpickler(pickle.Unpickler):
    """Reads plain values only (str, bytes, numbers, None, tuples, lists, dicts)."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a staged text layer may hold no object ({module}.{name})")


class _RecordUnpickler(pickle.Unpickler):
    """Reads field records: classes defined in pincite's own modules, nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if module.split(".")[0] == "pincite" and "." not in name:
            obj = super().find_class(module, name)
            if isinstance(obj, type) and obj.__module__ == module:
                return obj
        raise pickle.UnpicklingError(f"staged records may not hold {module}.{name}")
