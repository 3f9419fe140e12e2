"""The release record on disk, its HTML page, and the requalification fingerprint.

Records live as versioned JSON files under a releases folder (`--releases DIR`; default
`<store>/releases` for a store that is a path): `contract-vNNNN.json` for each frozen
contract, and per release `RNNNN/record-vNNNN.json` — each step writes the next version
(created exclusively, never overwritten), then `RNNNN/record.html` is rendered from it.
A store table would suit the PostgreSQL backend better; while the store is being
extended, the files keep the records beside any backend.

The **fingerprint** is what a release was qualified on: parser, segmenter, embedding
space, analyzer, index parameters, reranker (ranking policy), policy schema and corpus
boundary. Any difference from what serves now, or from what this pincite would build,
is a requalification trigger.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..errors import NotFound, UsageError
from .contract import digest

RECORD_SCHEMA = "pincite.release_record"
# 2: what the record must hold is `required_items` (version 1 called it `seed_items`)
RECORD_VERSION = 2
TRIGGERS = ("parser", "segmenter", "embedding_space", "analyzer", "index_params", "reranker",
            "policy_schema", "corpus_boundary")
# what a release record must hold (docs/releases.md), and the record key that holds each
REQUIRED_ITEMS = {"immutable manifest": "manifest", "evaluation results": "evaluation",
              "security and failure evidence": "security",
              "freshness and deletion measurements": "slas", "canary decision": "canary",
              "owner": "owner", "approval": "approval", "rollback target": "rollback_target",
              "requalification triggers": "qualified"}
_RID = re.compile(r"^R[0-9]{4}$")


def releases_dir(store_url: str, releases: str | Path | None) -> Path:
    """Return the releases folder: `releases`, else `<store>/releases` for a path store;
    a URL store needs `releases` (UsageError)."""
    if releases is not None:
        return Path(releases)
    if "://" in str(store_url):
        raise UsageError("a store given as a URL keeps no files beside it: give the folder of "
                         "release records with --releases DIR")
    return Path(store_url) / "releases"


def _write_new(path: Path, data: Any) -> Path:
    """Write JSON to a path that must not exist yet (write-then-link, no overwrite)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", "utf-8")
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise UsageError(f"{path.name} was written by another release step at the same time; "
                         "run the step again") from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _versions(folder: Path, stem: str) -> list[Path]:
    return sorted(folder.glob(f"{stem}-v[0-9][0-9][0-9][0-9].json")) if folder.is_dir() else []


def save_contract(root: Path, data: dict[str, Any]) -> dict[str, Any]:
    """Write the next contract version unless it equals the latest; return its entry."""
    latest = latest_contract(root)
    d = digest(data)
    if latest is not None and latest["digest"] == d:
        return latest
    n = len(_versions(root, "contract")) + 1
    name = f"contract-v{n:04d}.json"
    entry: dict[str, Any] = {"schema_name": "pincite.release_contract", "version": n,
                             "digest": d, "contract": data, "file": name}
    _write_new(root / name, entry)
    return entry


def latest_contract(root: Path) -> dict[str, Any] | None:
    """Return the newest frozen contract entry, None before any freeze."""
    files = _versions(root, "contract")
    return json.loads(files[-1].read_text("utf-8")) if files else None


def release_ids(root: Path) -> list[str]:
    """Return the release ids in order."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and _RID.match(p.name)) \
        if root.is_dir() else []


def load_record(root: Path, rid: str) -> dict[str, Any]:
    """Return the newest version of a release record (NotFound for an unknown id), in the
    current layout: a version 1 record's `seed_items` is read as `required_items`."""
    files = _versions(root / rid, "record") if _RID.match(rid) else []
    if not files:
        raise NotFound("release", rid)
    return upgrade_record(json.loads(files[-1].read_text("utf-8")))


def upgrade_record(record: dict[str, Any]) -> dict[str, Any]:
    """Return a release record as RECORD_VERSION lays it out (version 1: `seed_items`)."""
    if "seed_items" not in record:
        return record
    old = {k: v for k, v in record.items() if k != "seed_items"}
    return {**old, "required_items": record.get("required_items", record["seed_items"])}


def save_record(root: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Write the record as its next version and render its HTML page; return it."""
    folder = root / record["release_id"]
    record = {**upgrade_record(record), "version": RECORD_VERSION,
              "record_version": len(_versions(folder, "record")) + 1,
              "required_items": {item: record.get(key) not in (None, {}, [])
                                 for item, key in REQUIRED_ITEMS.items()}}
    _write_new(folder / f"record-v{record['record_version']:04d}.json", record)
    html = render_html(record)
    tmp = folder / ".record.html.tmp"
    tmp.write_text(html, "utf-8")
    os.replace(tmp, folder / "record.html")
    return record


def render_html(record: dict[str, Any]) -> str:
    """Return the record as a standalone HTML page (autoescaped)."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("pincite", "templates"),
                      autoescape=select_autoescape(["html"]))
    pretty = json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True)
    return env.get_template("release_record.html").render(r=record, pretty=pretty)


def fingerprint(manifest: dict[str, Any], contract: dict[str, Any]) -> dict[str, str]:
    """Return what a generation and a contract qualify: one string per trigger."""
    rp = manifest.get("ranking_policy") or {}
    vi = (manifest.get("vector_index") or {}).get("policy") or {}
    space = manifest.get("embedding_space") or {}
    return {"parser": ",".join(sorted(manifest.get("parsers") or ())),
            "segmenter": str(manifest.get("segmenter")),
            "embedding_space": str(space.get("space_id")),
            "analyzer": str((manifest.get("analyzer") or {}).get("name")),
            "index_params": str(vi.get("name")),
            "reranker": f"{rp.get('name')} rerank_depth={rp.get('rerank_depth')} "
                        f"deadline_ms={rp.get('rerank_deadline_ms')}",
            "policy_schema": f"{manifest.get('policy_schema')} / contract "
                             f"{contract.get('policy_schema')}",
            "corpus_boundary": digest(contract.get("boundary"))[:16]}


def code_versions() -> dict[str, str]:
    """Return what this pincite would build now: segmenter, analyzer, policy schema."""
    from ..index import analyze, generations, segment

    return {"segmenter": segment.POLICY, "analyzer": analyze.ANALYZER_ID,
            "policy_schema": generations.POLICY_SCHEMA}


def triggers(qualified: dict[str, str], serving: dict[str, str]) -> list[str]:
    """Return why a qualified release must be requalified (empty: it need not)."""
    out = [f"{k}: qualified {qualified.get(k)!r}, serving {serving.get(k)!r}"
           for k in TRIGGERS if qualified.get(k) != serving.get(k)]
    code = code_versions()
    for k, now in code.items():
        was = qualified.get(k, "")
        if k == "policy_schema":
            was = was.split(" / ")[0]
        if was != now:
            out.append(f"{k}: qualified {was!r}, this pincite builds {now!r}")
    return out
