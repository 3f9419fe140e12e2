"""DURABLE-RUN COPIES: a purge leaves nothing of the source in the durable-runs database.

Documents carrying canary tokens (in their text and in their file names, so in their
source ids) are ingested through `ingest --async` and read by `extract --async`, both
carried out by a `pincite worker` process; then each purged document is deleted with
`--purge`. Every value of every table of the store's runs database (`runs.sqlite`) is
decoded every way it can be — text, base64, zlib, pickle (this run's own database only),
JSON, recursively, and an unpickled object's fields — and searched for the canaries:
the text of a document must never be there (a run records references), and after the
purge neither its id nor its sha256; the references of the document that stays must be.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import pickle
import signal
import sqlite3
import subprocess
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...model import Principal
from .canaries import TokenMint
from .harness import CLI_ENV, Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "DURABLE-RUN COPIES"
F_RUNS = "durable runs (ingest, extraction) that did not succeed (not vacuous)"
F_TEXT = "document text canaries decoded from the runs database"
F_REFS = "ids and sha256 of a purged source decoded from the runs database after the purge"
F_SEEN = "purged sources' ids absent from the runs before the purge (not vacuous)"
F_KEPT = "references of the document that stays lost by the purge"
ANN = Principal.parse("acme:ann")
FAST = ("--beat", "0.1", "--lease", "0.6", "--poll", "0.1")
WAIT = 90.0
SCHEMA = """name: copies
fields:
  - name: subject
    type: text
    synonyms: {en: [subject matter of the contract]}
    patterns: ['subject matter of the contract is (?P<value>[^.]{10,200})']
"""


def _doc(token: str) -> str:
    return (f"Side letter.\n\n1. The subject matter of the contract is the supply of {token} "
            f"turbines.\n\n2. Payment within thirty days of the invoice.\n")


def decoded(value: Any, depth: int = 0) -> Iterator[str]:
    """Yield every text a stored value holds, decoded every way it can be (text, UTF-16,
    base64, zlib, pickle, JSON), recursively; an unpickled object's repr and fields too."""
    if depth > 8 or value is None:
        return
    if isinstance(value, bool | int | float):
        yield str(value)
    elif isinstance(value, str):
        yield value
        yield from _from_str(value, depth)
    elif isinstance(value, bytes | bytearray | memoryview):
        yield from _from_bytes(bytes(value), depth)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from decoded(k, depth + 1)
            yield from decoded(v, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from decoded(v, depth + 1)
    else:
        yield repr(value)
        fields = dict(getattr(value, "__dict__", {}) or {})
        for name in getattr(type(value), "__slots__", ()):
            if hasattr(value, name):
                fields[name] = getattr(value, name)
        if isinstance(value, BaseException):
            fields["args"] = value.args
        for v in fields.values():
            yield from decoded(v, depth + 1)


def _from_str(text: str, depth: int) -> Iterator[str]:
    compact = text.strip()
    if compact and len(compact) % 4 == 0:
        try:
            yield from _from_bytes(base64.b64decode(compact, validate=True), depth + 1)
        except (binascii.Error, ValueError):
            pass
    try:
        obj = json.loads(text)
    except ValueError:
        return
    if obj != text:
        yield from decoded(obj, depth + 1)


def _from_bytes(data: bytes, depth: int) -> Iterator[str]:
    yield data.decode("utf-8", "replace")
    yield data.decode("utf-16-le", "replace")
    try:
        yield from _from_bytes(zlib.decompress(data), depth + 1)
    except zlib.error:
        pass
    try:
        obj = pickle.loads(data)  # noqa: S301 - the database this group made itself
    except Exception:  # noqa: BLE001 - not a pickle
        obj = None
    if obj is not None:
        yield from decoded(obj, depth + 1)
    try:
        yield from _from_str(data.decode("ascii"), depth + 1)
    except UnicodeDecodeError:
        pass


def runs_db_texts(store: Path) -> list[str]:
    """Every text decoded from every column of every row of the store's runs database."""
    out: list[str] = []
    with sqlite3.connect(store / "runs.sqlite") as c:
        tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for t in tables:
            for row in c.execute(f'SELECT * FROM "{t}"'):
                for value in row:
                    out.extend(decoded(value))
    out.append((store / "runs.sqlite").read_bytes().decode("utf-8", "replace"))
    return out


def _worker(drivers: Drivers, store: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in CLI_ENV}
    env.update({k: v for k, v in CLI_ENV.items() if v is not None})
    return subprocess.Popen([*drivers.process, "--store", str(store), "worker", "--json", *FAST],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _wait(drivers: Drivers, store: Path, run_id: str) -> str:
    """Return the run's status once it has ended (or the last one seen after WAIT s)."""
    deadline, status = time.monotonic() + WAIT, "missing"
    with drivers.open_library(store) as lib:
        book = lib.runs(store)
        try:
            while time.monotonic() < deadline:
                status = str(book.run(ANN, run_id)["status"])
                if status not in ("ENQUEUED", "PENDING"):
                    break
                time.sleep(0.1)
        finally:
            book.close()
    return status


def run_run_copies(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                   seed: int) -> None:
    """Run the DURABLE-RUN COPIES group into `board`."""
    f = {n: board.figure(GROUP, n) for n in (F_RUNS, F_TEXT, F_REFS, F_SEEN, F_KEPT)}
    mint = TokenMint(seed + 25)
    folder, store = ws.folder("run-copies-docs"), ws.path("run-copies-store")
    # each file is one sandboxed parse in the worker: half the DELETION group's count
    gone = {f"side-{mint.new()}.txt": mint.new() for _ in range(max(1, size.deletions // 2))}
    keep_id, keep_text = f"keep-{mint.new()}.txt", mint.new()
    for sid, token in [*gone.items(), (keep_id, keep_text)]:
        (folder / sid).write_text(_doc(token), "utf-8")
    schema = folder / "schema.yaml"
    schema.write_text(SCHEMA, "utf-8")
    shas = {sid: hashlib.sha256((folder / sid).read_bytes()).hexdigest() for sid in gone}
    worker = _worker(drivers, store)
    try:
        r = run_cli(drivers, store, "ingest", *(str(folder / s) for s in [*gone, keep_id]),
                    "--tenant", "acme", "--as", str(ANN), "--acl", "*", "--no-publish", "--async",
                    "--json")
        ingest = (r.json() or {}).get("run_id") if r.returncode == 0 else None
        status = _wait(drivers, store, ingest) if ingest else f"not enqueued: {r.stderr[:120]}"
        f[F_RUNS].attempt(status == "SUCCESS", f"ingest run: {status}")
        r = run_cli(drivers, store, "extract", *gone, keep_id, "--schema", str(schema),
                    "--as", str(ANN), "--async", "--json")
        extract = (r.json() or {}).get("run_id") if r.returncode == 0 else None
        status = _wait(drivers, store, extract) if extract else f"not enqueued: {r.stderr[:120]}"
        f[F_RUNS].attempt(status == "SUCCESS", f"extraction run: {status}")
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.communicate()
    texts = runs_db_texts(store) if (store / "runs.sqlite").is_file() else []
    for token in [*gone.values(), keep_text]:
        f[F_TEXT].attempt(not any(token in t for t in texts), f"text {token} before the purge")
    for sid in gone:
        f[F_SEEN].attempt(any(sid in t for t in texts), f"{sid} not recorded by the runs")
    for sid in gone:
        r = run_cli(drivers, store, "delete", sid, "--as", str(ANN), "--purge", "--json")
        f[F_RUNS].attempt(r.returncode == 0, f"purge of {sid}: {r.stderr.strip()[:160]}")
    texts = runs_db_texts(store) if (store / "runs.sqlite").is_file() else []
    for sid, token in gone.items():
        f[F_TEXT].attempt(not any(token in t for t in texts), f"text {token} after the purge")
        f[F_REFS].attempt(not any(sid in t for t in texts), f"id {sid} after the purge")
        f[F_REFS].attempt(not any(shas[sid] in t for t in texts),
                          f"sha256 {shas[sid][:16]}… of {sid} after the purge")
    f[F_KEPT].attempt(any(keep_id in t for t in texts), f"{keep_id} gone from the runs")
    board.note(GROUP, f"{len(gone)} purged and 1 kept document, ingested and extracted by "
               "durable runs on one worker process; every value of runs.sqlite decoded "
               "before and after the purge")
