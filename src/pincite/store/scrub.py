"""Scrubbing a purged source out of JSON that other rows keep (evidence, candidates, runs).

A review item, a label or an extraction run belongs to one source but may quote others:
a conflict's alternatives and the evidence list cite every document of the case, a run
lists every document it read. A purge cannot delete such a row (it belongs to a document
that stays), so every JSON object in it that rests on the purged source — one naming it
by `source_id`, by a `doc_id` of one of its revisions, or by one of its sha256 digests —
is replaced by the tombstone `{"purged": true}`, and a list of its source ids loses the
id. An object whose provenance rested only on the source (a conflict's alternative: the
value the purged document stated) becomes a tombstone too, and so does the runner-up of a
record that quoted it (`runner_up` names no document, so it may be that value). Nothing of the source (quoted
text, a value it stated, id, digest, locator) survives.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

TOMBSTONE: dict[str, Any] = {"purged": True}
# a record's runner-up names no document: once the record quoted a purged source, it may be
# the value that source stated, so it goes with the rest
UNATTRIBUTED = "runner_up"
_SHA_KEYS = ("sha256", "doc_sha256", "blob_sha256", "content_sha256")


def rests_on(obj: dict[str, Any], source_id: str, shas: frozenset[str]) -> bool:
    """Whether a JSON object names the source, one of its revisions or one of its digests."""
    if obj.get("source_id") == source_id:
        return True
    doc = obj.get("doc_id")
    if isinstance(doc, str) and doc.rpartition("@")[0 if "@" in doc else 2] == source_id:
        return True
    return any(obj.get(k) in shas for k in _SHA_KEYS)


def scrub(value: Any, source_id: str, shas: Iterable[str]) -> tuple[Any, bool]:
    """Return (value with every object resting on the source tombstoned, whether it changed)."""
    digests = frozenset(shas)
    changed = False

    def walk(v: Any, top: bool = False) -> Any:
        nonlocal changed
        if isinstance(v, dict):
            if rests_on(v, source_id, digests):
                changed = True
                return dict(TOMBSTONE)
            before, changed = changed, False
            out = {k: walk(x) for k, x in v.items()}
            if changed and out.get(UNATTRIBUTED) is not None:
                out[UNATTRIBUTED] = None
            changed = changed or before
            prov = out.get("provenance")
            if not top and isinstance(prov, list) and prov and all(p == TOMBSTONE for p in prov):
                return dict(TOMBSTONE)
            return out
        if isinstance(v, list):
            if source_id in v and all(isinstance(x, str) for x in v):
                changed = True
                return [x for x in v if x != source_id]
            return [walk(x) for x in v]
        if isinstance(v, str) and (v == source_id or v in digests):
            changed = True
            return None
        return v

    return walk(value, top=True), changed
