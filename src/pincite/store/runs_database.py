"""What the durable-runs database keeps of a source, and its purge there.

A store's durable runs (`pincite.runs`) are recorded by DBOS in a system database of the
store: `<store>/runs.sqlite` for the embedded store, the `dbos` schema of the same
database for a PostgreSQL one, or the database `$PINCITE_RUNS_DB` names. DBOS keeps every
run's input, output and error, and the output of each recorded step, serialized (base64
of a pickle, or JSON). The steps hand each other references only — a text layer or
extracted records are staged in the tenant's blob store (`pincite.runs.staging`) and
named by `{"staged": KEY, "digest": …}` — so no document text is recorded there; what a
run records of a source is its id, its revisions' ids, its sha256 digests and the paths it
was read from.

`purge_run_copies` takes those out, on both backends, for every run of the tenant that has
ended: each serialized value that names the source is decoded and every object resting on
it (the rule of `store.scrub`: by `source_id`, by a `doc_id` of one of its revisions, by
one of its digests) becomes `{"purged": true}`; a string naming it becomes null, an error
naming it a generic one; a document copy an older run recorded whole (a text layer,
records with quotes) goes whole; blobs still staged by such a run are deleted. Then the
database is rewritten (SQLite: VACUUM with `secure_delete`; PostgreSQL: VACUUM FULL of the
tables changed). A run still queued or running is left as it is — a resumed run replays
its recorded outputs — and is counted (`runs_in_flight`); it holds references, never text.

The values are read back with an unpickler that admits only the classes of pincite, of
DBOS and the built-in exceptions: the runs database is trusted like the store, and this
module still runs no other code it finds there.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import os
import pickle
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import StoreBusy, StoreError, UsageError
from .scrub import TOMBSTONE, rests_on
from .sqlite.connection import vacuum

RUNS_FILENAME = "runs.sqlite"
ENV_RUNS_DB = "PINCITE_RUNS_DB"
DBOS_SCHEMA = "dbos"
# the reference a run's step records in place of a staged copy (`pincite.runs.staging`)
STAGED_KEY = "staged"
# a run in any other state (queued, running, delayed) may still replay its outputs
ENDED = ("SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED")
PICKLE = "py_pickle"
JSON = "portable_json"
PURGED_ERROR = "the error of this run named a purged source"
# classes whose objects are document copies (text layers, elements, citations, records):
# a run that read the purged source loses every one it recorded
CONTENT_MODULES = ("pincite.model", "pincite.extract.records")
_HEX64 = re.compile(r"[0-9a-f]{64}")
# the few standard classes a recorded value may hold (a text layer's geometry is arrays)
_STDLIB = {("array", "array"), ("array", "_array_reconstructor"), ("datetime", "date"),
           ("datetime", "datetime"), ("datetime", "timedelta"), ("datetime", "timezone"),
           ("decimal", "Decimal"), ("collections", "OrderedDict")}


@dataclass(frozen=True)
class ValueColumns:
    """A DBOS table whose columns hold serialized values: its key columns, the column of
    the run they belong to, and where each value's serialization is named."""

    table: str
    keys: tuple[str, ...]
    run: str
    values: tuple[str, ...]
    own_serialization: bool


# DBOS 3.4's tables (identical on SQLite and PostgreSQL); `serialization` null or absent
# means the run's own (`workflow_status.serialization`), null there means pickle
TABLES = (
    ValueColumns("workflow_status", ("workflow_uuid",), "workflow_uuid",
                 ("inputs", "output", "error"), True),
    ValueColumns("workflow_input", ("workflow_uuid",), "workflow_uuid", ("inputs",), False),
    ValueColumns("workflow_output", ("workflow_uuid",), "workflow_uuid",
                 ("output", "error"), False),
    ValueColumns("operation_outputs", ("workflow_uuid", "function_id"), "workflow_uuid",
                 ("output", "error"), True),
    ValueColumns("workflow_events", ("workflow_uuid", "key"), "workflow_uuid", ("value",), True),
    ValueColumns("workflow_events_history", ("workflow_uuid", "function_id", "key"),
                 "workflow_uuid", ("value",), True),
    ValueColumns("streams", ("workflow_uuid", "key", "offset"), "workflow_uuid", ("value",),
                 True),
    ValueColumns("notifications", ("message_uuid",), "destination_uuid", ("message",), True),
)
ERROR_COLUMNS = ("error",)
INPUT_COLUMNS = ("inputs",)


# ---- where the runs are recorded -------------------------------------------------------


def runs_db_url(store: Any) -> str:
    """Return the URL of the system database that records the runs of `store` (see the
    module docstring); raise UsageError for a `$PINCITE_RUNS_DB` of an unknown scheme."""
    given = os.environ.get(ENV_RUNS_DB)
    if given:
        return check_db_url(given)
    if getattr(store, "backend", "sqlite") == "postgresql":
        return check_db_url(str(store.url))
    return f"sqlite:///{Path(store.root).resolve() / RUNS_FILENAME}"


def check_db_url(url: str) -> str:
    """Return a system database URL normalized (`postgresql://…` or `sqlite:///PATH`);
    raise UsageError for any other scheme."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme in ("postgresql", "postgres"):
        return "postgresql://" + url.split("://", 1)[1]
    if scheme == "sqlite":
        return url
    raise UsageError(f"runs database {url.split('@')[-1]!r} is not postgresql://… or "
                     f"sqlite:///PATH: give one of those (or a store directory)")


# ---- the purge -------------------------------------------------------------------------


@dataclass
class _Plan:
    """What one pass over the runs database found and will change."""

    status: dict[str, str] = field(default_factory=dict)       # run id -> status
    naming: set[str] = field(default_factory=set)               # runs whose values name it
    updates: dict[str, list[tuple[str, tuple[Any, ...], str]]] = field(default_factory=dict)
    staged: set[str] = field(default_factory=set)                # staged blob keys to delete
    in_flight: set[str] = field(default_factory=set)


def purge_run_copies(store: Any, tenant: str, source_id: str, shas: Iterable[str]
                     ) -> dict[str, int]:
    """Scrub the source out of every ended run of `tenant` in the store's runs database
    and delete the blobs those runs still had staged; return how many runs were scrubbed
    and how many still in flight name it (a store without a runs database: none)."""
    url = runs_db_url(store)
    needles = _Needles(source_id, frozenset(s for s in shas if s))
    if url.startswith("postgresql://"):
        plan, changed = _purge_postgres(url, tenant, needles)
    else:
        plan, changed = _purge_sqlite(Path(url[len("sqlite:///"):]), tenant, needles)
    blobs = getattr(store, "blobs", None)
    removed = sum(1 for key in sorted(plan.staged)
                  if blobs is not None and blobs.delete(tenant, key))
    return {"runs_scrubbed": changed, "runs_in_flight": len(plan.in_flight),
            "staged_copies": removed}


def _purge_sqlite(path: Path, tenant: str, needles: _Needles) -> tuple[_Plan, int]:
    if not path.is_file():
        return _Plan(), 0
    try:
        with closing(sqlite3.connect(path, timeout=30, isolation_level=None)) as conn:
            conn.execute("PRAGMA secure_delete=ON")
            conn.execute("BEGIN IMMEDIATE")
            try:
                plan = _plan(_SqliteRows(conn), tenant, needles)
                for rows in plan.updates.values():
                    for sql, args, _ in rows:
                        conn.execute(sql, args)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            if plan.updates:
                vacuum(conn)
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise StoreBusy(f"the runs database {path} is busy: {exc}") from exc
        raise StoreError(f"the runs database {path} could not be scrubbed ({exc}); the "
                         "purge stopped before the source's id was removed: run it again")\
            from exc
    return plan, len({r for rows in plan.updates.values() for _s, _a, r in rows})


def _purge_postgres(url: str, tenant: str, needles: _Needles) -> tuple[_Plan, int]:
    from .postgres.pg_connection import _psycopg, connect

    psycopg = _psycopg()
    conn = connect(url, role=None)
    try:
        exists = conn.execute("SELECT to_regclass(%s)",
                              (f"{DBOS_SCHEMA}.workflow_status",)).fetchone()[0]
        if exists is None:
            return _Plan(), 0
        try:
            with conn.transaction():
                plan = _plan(_PgRows(conn), tenant, needles)
                for rows in plan.updates.values():
                    for sql, args, _ in rows:
                        conn.execute(sql, args)
        except psycopg.errors.LockNotAvailable as exc:
            raise StoreBusy(str(exc).strip()) from exc
        for table in sorted(plan.updates):  # the old row versions leave the table files
            conn.execute(f'VACUUM (FULL) {DBOS_SCHEMA}."{table}"')
    finally:
        conn.close()
    return plan, len({r for rows in plan.updates.values() for _s, _a, r in rows})


class _SqliteRows:
    """The DBOS tables of a SQLite system database, read and updated by key."""

    param = "?"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}

    def name(self, table: str) -> str:
        return f'"{table}"'

    def columns(self, table: str) -> set[str]:
        return {r[1] for r in self.conn.execute(f'PRAGMA table_info("{table}")')}

    def runs(self, tenant: str) -> list[tuple[str, str, str | None]]:
        return list(self.conn.execute(
            "SELECT workflow_uuid, status, serialization FROM workflow_status "
            "WHERE json_extract(attributes, '$.tenant') = ?", (tenant,)))

    def rows(self, sql: str, run_ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        for i in range(0, len(run_ids), 500):
            part = run_ids[i:i + 500]
            yield from self.conn.execute(sql.format(ids=",".join("?" * len(part))), part)


class _PgRows(_SqliteRows):
    """The DBOS tables of a PostgreSQL system database (schema `dbos`)."""

    param = "%s"

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.tables = {r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s", (DBOS_SCHEMA,))}

    def name(self, table: str) -> str:
        return f'{DBOS_SCHEMA}."{table}"'

    def columns(self, table: str) -> set[str]:
        return {r[0] for r in self.conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s", (DBOS_SCHEMA, table))}

    def runs(self, tenant: str) -> list[tuple[str, str, str | None]]:
        return list(self.conn.execute(
            f"SELECT workflow_uuid, status, serialization FROM {DBOS_SCHEMA}.workflow_status "
            "WHERE attributes->>'tenant' = %s", (tenant,)))

    def rows(self, sql: str, run_ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        for i in range(0, len(run_ids), 500):
            part = list(run_ids[i:i + 500])
            yield from self.conn.execute(sql.format(ids=",".join(["%s"] * len(part))), part)


def _plan(db: _SqliteRows, tenant: str, needles: _Needles) -> _Plan:
    """Read every serialized value of the tenant's runs (first only their bytes, to find
    the runs that name the source); plan the updates that scrub it out of the ended ones."""
    plan = _Plan()
    serialization: dict[str, str | None] = {}
    for run_id, status, ser in db.runs(tenant):
        plan.status[run_id] = str(status)
        serialization[run_id] = ser
    for _spec, _key, run_id, _col, fmt, raw in _values(db, sorted(plan.status), serialization):
        if run_id not in plan.naming and needles.in_raw(raw, fmt):
            plan.naming.add(run_id)
    for spec, key, run_id, col, fmt, raw in _values(db, sorted(plan.naming), serialization):
        decoded = _decode(raw, fmt)
        if plan.status[run_id] not in ENDED:
            if decoded is _UNREADABLE or _scrub(decoded, needles, col)[1]:
                plan.in_flight.add(run_id)
            continue
        plan.staged |= set(_staged_keys(decoded))
        if decoded is _UNREADABLE:
            new: Any = _stand_in(col)  # it may be anything: it goes
            changed = True
        else:
            new, changed = _scrub(decoded, needles, col)
        if not changed:
            continue
        encoded = _encode(new, fmt)
        if needles.digests_in(encoded, fmt):  # a digest kept somewhere the rules missed
            encoded = _encode(_stand_in(col), fmt)
        where = " AND ".join(f'"{k}" = {db.param}' for k in spec.keys)
        sql = f'UPDATE {db.name(spec.table)} SET "{col}" = {db.param} WHERE {where}'
        plan.updates.setdefault(spec.table, []).append((sql, (encoded, *key), run_id))
    return plan


def _values(db: _SqliteRows, run_ids: Sequence[str], serialization: dict[str, str | None]
            ) -> Iterator[tuple[ValueColumns, tuple[Any, ...], str, str, str, str]]:
    """Yield (table, key, run id, column, serialization, value) for every serialized value
    the runs `run_ids` hold."""
    if not run_ids:
        return
    for spec in TABLES:
        if spec.table not in db.tables:
            continue
        cols = db.columns(spec.table)
        present = [c for c in spec.values if c in cols]
        if not present:
            continue
        ser_col = ("serialization" if spec.own_serialization and "serialization" in cols
                   else "NULL")
        key_cols = ", ".join(f'"{k}"' for k in spec.keys)
        sql = (f'SELECT {key_cols}, "{spec.run}", {ser_col}, '
               + ", ".join(f'"{c}"' for c in present)
               + f' FROM {db.name(spec.table)} WHERE "{spec.run}" IN ({{ids}})')
        n = len(spec.keys)
        for row in db.rows(sql, run_ids):
            key, run_id, ser = tuple(row[:n]), str(row[n]), row[n + 1]
            fmt = str(ser or serialization.get(run_id) or PICKLE)
            for col, raw in zip(present, row[n + 2:], strict=True):
                if raw is not None:
                    yield spec, key, run_id, col, fmt, str(raw)


# ---- reading and writing DBOS's serialized values ---------------------------------------


class _Unreadable:
    """A value that could not be decoded (or named a class outside the allow-list)."""


_UNREADABLE = _Unreadable()


class _Needles:
    """The source's id and digests, as searched in raw values and in decoded ones."""

    def __init__(self, source_id: str, shas: frozenset[str]) -> None:
        self.source_id = source_id
        self.shas = shas
        self._raw = [source_id.encode("utf-8"), *(s.encode() for s in shas)]

    def in_raw(self, raw: str, fmt: str) -> bool:
        """Whether a serialized value may name the source (its id or a digest in its bytes)."""
        data = _raw_bytes(raw, fmt)
        return data is None or any(n in data for n in self._raw)

    def digests_in(self, raw: str, fmt: str) -> bool:
        """Whether a serialized value still holds one of the source's digests."""
        data = _raw_bytes(raw, fmt)
        return data is not None and any(s.encode() in data for s in self.shas)

    def names(self, text: str) -> bool:
        """Whether a string names the source: its id (alone, as a revision's `ID@rN`, as
        the last part of a path, or quoted in a message) or one of its digests."""
        sid = self.source_id
        if text == sid or text.startswith(sid + "@") or text.endswith("/" + sid):
            return True
        if f"'{sid}'" in text or f'"{sid}"' in text or f"'{sid}@" in text:
            return True
        return any(s in text for s in self.shas)


def _raw_bytes(raw: str, fmt: str) -> bytes | None:
    if fmt == JSON:
        return raw.encode("utf-8")
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return None


class _AllowedUnpickler(pickle.Unpickler):
    """Admits pincite's and DBOS's own classes, the built-in exceptions and `_STDLIB`."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _STDLIB:
            return super().find_class(module, name)
        if "." in name:
            raise pickle.UnpicklingError(f"{module}.{name} is not admitted")
        if module.split(".")[0] in ("pincite", "dbos"):
            obj = super().find_class(module, name)
            if isinstance(obj, type) and obj.__module__ == module:
                return obj
        elif module == "builtins":
            obj = super().find_class(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseException):
                return obj
        raise pickle.UnpicklingError(f"{module}.{name} is not admitted")


def _decode(raw: str, fmt: str) -> Any:
    try:
        if fmt == JSON:
            return json.loads(raw)
        return _AllowedUnpickler(io.BytesIO(base64.b64decode(raw, validate=True))).load()
    except Exception:  # noqa: BLE001 - any value that does not read back is replaced whole
        return _UNREADABLE


def _encode(value: Any, fmt: str) -> str:
    if fmt == JSON:
        if isinstance(value, BaseException):
            value = {"name": "Error", "message": str(value), "code": None}
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return base64.b64encode(pickle.dumps(value)).decode("ascii")


def _stand_in(column: str) -> Any:
    """What replaces a whole value that names the source and cannot be scrubbed in place."""
    if column in ERROR_COLUMNS:
        return RuntimeError(PURGED_ERROR)
    if column in INPUT_COLUMNS:
        return {"args": (dict(TOMBSTONE),), "kwargs": {}}
    return dict(TOMBSTONE)


def _staged_keys(value: Any) -> Iterator[str]:
    """Yield the blob keys of the staged copies a value refers to."""
    if isinstance(value, dict):
        key = value.get(STAGED_KEY)
        if isinstance(key, str) and _HEX64.fullmatch(key):
            yield key
        for v in value.values():
            yield from _staged_keys(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _staged_keys(v)


def _scrub(value: Any, needles: _Needles, column: str) -> tuple[Any, bool]:
    """Return (value with everything naming the source replaced, whether it changed)."""
    changed = False
    sid, shas = needles.source_id, needles.shas

    def walk(v: Any) -> Any:
        nonlocal changed
        if isinstance(v, dict):
            if rests_on(v, sid, shas):
                changed = True
                return dict(TOMBSTONE)
            return {k: walk(x) for k, x in v.items()}
        if type(v) in (list, tuple, set, frozenset):
            items = list(v)
            if sid in items and all(isinstance(x, str) for x in items):
                changed = True
                items = [x for x in items if x != sid]
            out = [walk(x) for x in items]
            return out if isinstance(v, list) else type(v)(out)
        if isinstance(v, str):
            if needles.names(v):
                changed = True
                return None
            return v
        if isinstance(v, BaseException):
            if any(needles.names(str(x)) for x in (v, *v.args)):
                changed = True
                return RuntimeError(PURGED_ERROR)
            return v
        if type(v).__module__ in CONTENT_MODULES:
            changed = True  # a document copy an older run recorded whole
            return dict(TOMBSTONE)
        return v

    out = walk(value)
    if changed and column in ERROR_COLUMNS and not isinstance(out, BaseException):
        out = RuntimeError(PURGED_ERROR)
    return out, changed
