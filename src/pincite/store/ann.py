"""ANN partitions of index generations: usearch HNSW graphs beside `vectors.f32`.

A generation gets one graph per tenant that holds at least `AnnPolicy.min_vectors`
vectors: `<store>/indexes/<gen_id>/ann-<NNN>.usearch`, keyed by the generation's `ord`.
A tenant is the hard boundary of authorization, so a search walks only the graph of the
caller's tenant; the rest of the authorized universe (ACL, validity, tombstones,
filters) is applied during the search by the dense channel (`retrieve`).

Each file is written to a temporary name, fsynced, renamed into place and the directory
fsynced (like the vector file); its sha256 is recorded in the manifest (`vector_index`)
and checked by the generation integrity check. A process maps a file only after its
bytes hash to the recorded digest, so a damaged file is refused, never read.

A purge overwrites the purged rows' vectors inside the graph (remove, re-add a zero
vector under the same key so the freed slot is rewritten, remove again), writes the
file again (temp → fsync → rename) and records the new digest: no vector of a purged
source survives in any ANN file.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from .. import faults
from ..errors import PinciteError, UsageError
from .blobs import fsync_dir, sha256_file
from .lru import FileCache

POLICY_SCHEMA = "pincite.ann_policy"
INDEX_SCHEMA = "pincite.vector_index"
SCHEMA_VERSION = 1
DTYPES = ("f32", "f16", "bf16", "i8")


class AnnUnavailable(PinciteError):
    """An ANN partition file is missing or does not hash to its recorded digest."""

    code = "ann_unavailable"
    status = 503


@dataclass(frozen=True, slots=True)
class AnnPolicy:
    """When a generation gets ANN graphs, how they are built, and when a query uses them.

    Build: a tenant with at least `min_vectors` vectors gets a graph (HNSW, `connectivity`
    links per node, `expansion_add` candidates while linking, vectors stored as `dtype`).
    Query: the dense channel scans the authorized universe U exactly (recall 1.0) when
    |U| <= `exact_max_rows` or |U| < `exact_min_fraction` of the tenant's graph;
    otherwise it searches the graph with U applied, widening the search (x4 each time,
    from depth / (|U| / graph size) x `oversample`) until `depth` authorized neighbours
    are found, up to `max_candidates`; past that the exact scan answers (`fallback`).
    """

    min_vectors: int = 20_000
    dtype: str = "bf16"
    connectivity: int = 32
    expansion_add: int = 200
    expansion_search: int = 512
    exact_max_rows: int = 20_000
    exact_min_fraction: float = 0.05
    oversample: float = 1.5
    max_candidates: int = 8192

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise UsageError(f"ANN dtype must be one of {', '.join(DTYPES)}")
        if min(self.min_vectors, self.connectivity, self.expansion_add, self.expansion_search,
               self.max_candidates) < 1 or self.exact_max_rows < 0:
            raise UsageError("ANN policy sizes must be positive")
        if not 0.0 <= self.exact_min_fraction <= 1.0 or self.oversample < 1.0:
            raise UsageError("ANN exact_min_fraction must be in [0, 1] and oversample >= 1")

    @property
    def name(self) -> str:
        return (f"usearch-hnsw-m{self.connectivity}-efc{self.expansion_add}-"
                f"efs{self.expansion_search}-{self.dtype}-min{self.min_vectors}")

    def to_dict(self) -> dict[str, Any]:
        return {"schema_name": POLICY_SCHEMA, "version": SCHEMA_VERSION, "name": self.name,
                **asdict(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnnPolicy:
        d = dict(data)
        if d.pop("schema_name", POLICY_SCHEMA) != POLICY_SCHEMA:
            raise UsageError("not an ANN policy record")
        version = d.pop("version", SCHEMA_VERSION)
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise UsageError(f"ANN policy version {version!r} is newer than this pincite; upgrade")
        d.pop("name", None)
        unknown = sorted(set(d) - {f.name for f in fields(cls)})
        if unknown:
            raise UsageError(f"unknown ANN policy field(s): {', '.join(unknown)}")
        return cls(**d)


DEFAULT_ANN_POLICY = AnnPolicy()


@dataclass(frozen=True, slots=True)
class Partition:
    """One tenant's graph: rows `[ord_start, ord_end)` of the generation."""

    tenant: str
    file: str
    ord_start: int
    ord_end: int
    vectors: int
    sha256: str
    purged: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Partition:
        return cls(str(d["tenant"]), str(d["file"]), int(d["ord_start"]), int(d["ord_end"]),
                   int(d["vectors"]), str(d["sha256"]), int(d.get("purged", 0)))


def index_record(policy: AnnPolicy, partitions: Sequence[Partition], seconds: float) -> dict[str, Any]:
    """The manifest's `vector_index` section."""
    return {"schema_name": INDEX_SCHEMA, "version": SCHEMA_VERSION, "algorithm": "hnsw",
            "library": f"usearch {_usearch_version()}", "metric": "ip", "policy": policy.to_dict(),
            "build_seconds": round(seconds, 3),
            "partitions": [p.to_dict() for p in partitions]}


def partitions_of(manifest: Mapping[str, Any] | None) -> list[Partition]:
    vi = (manifest or {}).get("vector_index") or {}
    return [Partition.from_dict(p) for p in vi.get("partitions", ())]


def policy_of(manifest: Mapping[str, Any] | None) -> AnnPolicy:
    vi = (manifest or {}).get("vector_index") or {}
    return AnnPolicy.from_dict(vi["policy"]) if vi.get("policy") else DEFAULT_ANN_POLICY


def ann_path(gen_dir: Path, part: Partition) -> Path:
    name = Path(part.file).name
    if name != part.file or not name.startswith("ann-") or not name.endswith(".usearch"):
        raise AnnUnavailable(f"bad ANN file name {part.file!r} in the manifest")
    return gen_dir / name


def _usearch_version() -> str:
    import usearch

    return str(getattr(usearch, "__version__", "?"))


def _new_index(dimension: int, policy: AnnPolicy) -> Any:
    from usearch.index import Index

    return Index(ndim=dimension, metric="ip", dtype=policy.dtype,
                 connectivity=policy.connectivity, expansion_add=policy.expansion_add,
                 expansion_search=policy.expansion_search)



def _save(index: Any, path: Path) -> str:
    """Write `index` durably to `path` (temp → fsync → rename); return the file's sha256."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{path.name}.{os.getpid()}")
    faults.hit("gen.ann_write")
    index.save(str(tmp))
    h = hashlib.sha256()
    with open(tmp, "rb+") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
        faults.hit("gen.ann_fsync")
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)
    _CACHE.forget(path)
    return h.hexdigest()


def build_partitions(gen_dir: Path, vectors: np.ndarray,
                     tenant_ranges: Sequence[tuple[str, int, int]],
                     policy: AnnPolicy) -> list[Partition]:
    """Build and write a graph for every tenant range holding >= `min_vectors` rows."""
    out: list[Partition] = []
    for tenant, start, end in tenant_ranges:
        if end - start < policy.min_vectors:
            continue
        index = _new_index(int(vectors.shape[1]), policy)
        index.add(np.arange(start, end, dtype=np.uint64),
                  np.ascontiguousarray(vectors[start:end], dtype=np.float32))
        part = Partition(tenant, f"ann-{len(out):03d}.usearch", start, end, end - start, "")
        sha = _save(index, ann_path(gen_dir, part))
        out.append(Partition(tenant, part.file, start, end, end - start, sha))
    return out



def check_partitions(gen_dir: Path, manifest: Mapping[str, Any], n_chunks: int,
                     dimension: int) -> list[str]:
    """Integrity problems of a generation's ANN files (missing, damaged, out of range)."""
    problems: list[str] = []
    vi = manifest.get("vector_index")
    if not vi:
        return problems
    try:
        parts = partitions_of(manifest)
        policy_of(manifest)
    except (KeyError, TypeError, ValueError, UsageError) as exc:
        return [f"vector_index record unreadable: {exc}"]
    for p in parts:
        try:
            path = ann_path(gen_dir, p)
        except AnnUnavailable as exc:
            problems.append(exc.message)
            continue
        if not 0 <= p.ord_start < p.ord_end <= n_chunks:
            problems.append(f"ANN file {p.file} covers rows outside the generation")
        if not path.is_file():
            problems.append(f"ANN file {p.file} is missing")
        elif sha256_file(path) != p.sha256:
            problems.append(f"ANN file {p.file} digest does not match")
        else:
            try:
                index = load(path, p.sha256, verified=True)
            except AnnUnavailable as exc:
                problems.append(exc.message)
                continue
            if index.ndim != dimension or len(index) != p.vectors - p.purged:
                problems.append(f"ANN file {p.file} holds {len(index)} x {index.ndim}, expected "
                                f"{p.vectors - p.purged} x {dimension}")
    return problems


def load(path: Path, sha256: str, verified: bool = False, expansion_search: int | None = None) -> Any:
    """Return the graph at `path` mapped read-only, once its bytes hash to `sha256`
    (`verified`: the caller has just hashed them), searching with `expansion_search`
    candidates at least (a query-time setting: the file does not keep it)."""
    try:
        st = path.stat()
    except OSError:
        raise AnnUnavailable(f"ANN file {path.name} of {path.parent.name} is missing; rebuild "
                             "the generation (pincite index build)") from None
    graph = _CACHE.get(path, (st.st_mtime_ns, st.st_size, sha256),
                       lambda: _open_graph(path, sha256, verified))
    if expansion_search is not None and graph.expansion_search != expansion_search:
        graph.expansion_search = expansion_search
    return graph


def search(index: Any, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (ords, similarities) of the graph's `count` nearest rows, best first."""
    m = index.search(np.asarray(query, dtype=np.float32), count, threads=1)
    keys = np.asarray(m.keys, dtype=np.int64)
    sims = 1.0 - np.asarray(m.distances, dtype=np.float32)
    return keys, sims


def purge_rows(gen_dir: Path, manifest: dict[str, Any], ords: Sequence[int]) -> bool:
    """Erase rows `ords` from every partition that holds them; rewrite those files and
    update their records in `manifest` (in place). Returns True when anything changed."""
    vi = manifest.get("vector_index")
    if not vi or not ords:
        return False
    wanted = np.unique(np.asarray(list(ords), dtype=np.int64))
    changed = False
    records = vi.get("partitions", [])
    for i, p in enumerate(partitions_of(manifest)):
        mine = wanted[(wanted >= p.ord_start) & (wanted < p.ord_end)]
        path = ann_path(gen_dir, p)
        if not len(mine) or not path.is_file():
            continue
        from usearch.index import Index

        index = Index.restore(str(path), view=False)
        if index is None:
            raise AnnUnavailable(f"ANN file {p.file} of {gen_dir.name} is unreadable")
        keys = np.array([k for k in mine.tolist() if k in index], dtype=np.uint64)
        if not len(keys):
            continue
        index.remove(keys)
        zero = np.zeros((len(keys), index.ndim), dtype=np.float32)
        zero[:, 0] = 1.0
        index.add(keys, zero)   # the freed slots are reused: their vector bytes are rewritten
        index.remove(keys)
        sha = _save(index, path)
        records[i] = Partition(p.tenant, p.file, p.ord_start, p.ord_end, p.vectors, sha,
                               p.purged + len(keys)).to_dict()
        changed = True
    return changed


def _open_graph(path: Path, sha256: str, verified: bool) -> Any:
    """Return the graph in `path`, mapped read-only (its digest checked unless `verified`)."""
    if not verified and sha256_file(path) != sha256:
        raise AnnUnavailable(f"ANN file {path.name} of {path.parent.name} does not match "
                             "its digest; rebuild the generation (pincite index build)")
    from usearch.index import Index

    try:
        g = Index.restore(str(path), view=True)
    except Exception as exc:  # noqa: BLE001 - usearch raises bare RuntimeErrors
        raise AnnUnavailable(f"ANN file {path.name} of {path.parent.name} is unreadable: "
                             f"{exc}") from None
    if g is None:
        raise AnnUnavailable(f"ANN file {path.name} of {path.parent.name} is unreadable")
    return g


_CACHE = FileCache(8)  # a few verified, mapped graphs


def forget_generation(gen_dir: Path) -> None:
    """Drop the mapped graphs of a generation directory (it is being removed)."""
    _CACHE.forget_dir(gen_dir)
