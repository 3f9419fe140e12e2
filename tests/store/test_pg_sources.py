"""The PostgreSQL source tables: revisions, layers, quarantine, locking, the tenant wall."""

from __future__ import annotations

import json
import threading
import time

import psycopg
import pytest

from pincite.errors import StoreError
from pincite.model import Element, TextLayer
from pincite.store import QuarantineRecord
from pincite.store.postgres import PostgresStore
from pincite.store.postgres.pg_connection import connect, transaction
from pincite.store.sqlite.index_store import source_key
from pincite.vocab import IngestStatus

SHA1, SHA2, SHA3 = "1" * 64, "2" * 64, "3" * 64


def layer(text: str = "hello world", parser: str = "text") -> TextLayer:
    return TextLayer(parser=parser, version="1", text=text,
                     elements=(Element("paragraph", 0, len(text), 1, None),), page_count=1,
                     page_sizes=((612.0, 792.0),), geometry=None, flags=())


def commit(store: PostgresStore, sha: str, *, tenant: str = "acme", source: str = "a.pdf",
           acl: tuple[str, ...] | None = ("legal",), at: str = "2026-01-01T00:00:00Z",
           text: str = "hello world"):
    return store.commit_revision(tenant=tenant, source_id=source, sha256=sha,
                                 media_type="text/plain", size=11, at=at, acl=acl, flags=(),
                                 layer=layer(text), owner="ana")


@pytest.fixture
def store(pg_url):
    s = PostgresStore(pg_url)
    yield s
    s.close()


def owner_sql(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Run `sql` as the URL's own role (the tables' owner), outside the app's wall."""
    with psycopg.connect(url, autocommit=True) as c:
        cur = c.execute(sql, params)
        return cur.fetchall() if cur.description else []


def tombstone(url: str, tenant: str, source: str, through: int, *, purged: bool = False) -> None:
    owner_sql(url, "INSERT INTO tombstones (tenant, source_key, through_seq, source_id, deleted_at, "
                   "deleted_by, acl) VALUES (%s, %s, %s, %s, 'now', 'ana', '[]')",
              (tenant, source_key(source), through, None if purged else source))


# ---- revisions ------------------------------------------------------------------------


def test_new_revised_unchanged_and_the_layers(store):
    rev1, st1 = commit(store, SHA1)
    assert (rev1.revision_id, st1) == ("r1", IngestStatus.NEW)
    rev2, st2 = commit(store, SHA2, at="2026-01-02T00:00:00Z", text="hello again")
    assert (rev2.revision_id, st2) == ("r2", IngestStatus.REVISED)
    again, st3 = commit(store, SHA2, at="2026-01-03T00:00:00Z")
    assert (again.revision_id, st3) == ("r2", IngestStatus.UNCHANGED)
    revs = store.revisions("acme", "a.pdf")
    assert [(r.revision_id, r.valid_to) for r in revs] == [("r1", "2026-01-02T00:00:00Z"),
                                                          ("r2", None)]
    assert store.latest_revision("acme", "a.pdf") == revs[1]
    assert store.revision("acme", "a.pdf", "r1") == revs[0]
    assert store.revision("acme", "a.pdf", "r9") is None
    assert store.text_layer(revs[1]).text == "hello again"
    src = store.source("acme", "a.pdf")
    assert (src.acl, src.acl_epoch, src.owner) == (("legal",), 1, "ana")
    # A second layer: newest by default, ids oldest first; a repeated id is refused.
    ocr = layer("hello w0rld", parser="ocr")
    assert store.add_text_layer(revs[1], ocr, "2026-01-04T00:00:00Z") is True
    assert store.add_text_layer(revs[1], ocr, "2026-01-05T00:00:00Z") is False
    assert store.layer_ids(revs[1]) == [layer("hello again").layer_id, ocr.layer_id]
    assert store.text_layer(revs[1]).text == "hello w0rld"
    assert store.text_layer(revs[1], layer("hello again").layer_id).text == "hello again"
    assert store.text_layer(revs[1], "nope") is None
    assert [r.revision_id for r in store.all_revisions()] == ["r1", "r2"]


def test_the_acl_is_kept_changed_and_required(store):
    commit(store, SHA1)
    commit(store, SHA2, acl=None)
    assert store.source("acme", "a.pdf").acl_epoch == 1
    commit(store, SHA3, acl=("hr",))
    assert (store.source("acme", "a.pdf").acl, store.source("acme", "a.pdf").acl_epoch) == (("hr",), 2)
    store.set_acl("acme", "a.pdf", ("hr", "legal"))
    assert store.source("acme", "a.pdf").acl == ("hr", "legal")
    assert store.source("acme", "a.pdf").acl_epoch == 3
    with pytest.raises(StoreError, match="needs an ACL"):
        commit(store, SHA1, source="b.pdf", acl=None)
    assert store.source("acme", "b.pdf") is None


def test_a_deleted_source_starts_again_after_its_deleted_numbers(store, pg_url):
    commit(store, SHA1)
    commit(store, SHA2)
    tombstone(pg_url, "acme", "a.pdf", 2)
    assert store.source("acme", "a.pdf") is None
    assert store.sources("acme") == []
    assert store.revisions("acme", "a.pdf") == []
    assert store.latest_revision("acme", "a.pdf") is None
    assert store.revision("acme", "a.pdf", "r1") is None
    rev, status = commit(store, SHA1, at="2026-02-01T00:00:00Z")
    assert (rev.revision_id, status) == ("r3", IngestStatus.NEW)
    assert [s.source_id for s in store.sources("acme")] == ["a.pdf"]
    assert [r.revision_id for r in store.revisions("acme", "a.pdf")] == ["r3"]


def test_after_a_purge_numbering_continues_past_the_purged_revisions(store, pg_url):
    commit(store, SHA1)
    commit(store, SHA2)
    # The purge removes the rows and keeps only the tombstone with the source's key.
    owner_sql(pg_url, "DELETE FROM text_layers")
    owner_sql(pg_url, "DELETE FROM revisions")
    owner_sql(pg_url, "DELETE FROM sources")
    tombstone(pg_url, "acme", "a.pdf", 2, purged=True)
    rev, status = commit(store, SHA3)
    assert (rev.revision_id, status) == ("r3", IngestStatus.NEW)


def test_a_new_revision_marks_open_review_items_of_other_bytes_stale(store, pg_url):
    commit(store, SHA1)
    ev = lambda doc, sha: json.dumps([{"doc_id": doc, "doc_sha256": sha}])  # noqa: E731
    rows = [("acme", "a.pdf", SHA1, "f1", "[]", "open"),       # same source, old bytes
            ("acme", "a.pdf", SHA2, "f2", "[]", "open"),       # same source, the new bytes
            ("acme", "c.pdf", SHA3, "f3", ev("a.pdf@r1", SHA1), "open"),   # quotes a.pdf
            ("acme", "c.pdf", SHA3, "f4", ev("a.pdf@r2", SHA2), "open"),   # quotes new bytes
            ("acme", "c.pdf", SHA3, "f5", ev("a.pdf.bak@r1", SHA1), "open"),  # another source
            ("acme", "c.pdf", SHA3, "f6", ev("a.pdf@x1", SHA1), "open"),   # not a revision
            ("acme", "a.pdf", SHA1, "f7", "[]", "decided"),    # not open
            ("globex", "a.pdf", SHA1, "f8", "[]", "open")]     # another tenant
    for row in rows:
        owner_sql(pg_url, "INSERT INTO review_queue (tenant, source_id, doc_sha256, field, "
                          "evidence, state, case_id, revision_id, reason, candidate, run_id, "
                          "extractor_version, created_at) VALUES (%s, %s, %s, %s, %s, %s, "
                          "'case', 'r1', 'low_confidence', '{}', 'run', 'x', 't')", row)
    commit(store, SHA2)
    states = dict(owner_sql(pg_url, "SELECT field, state FROM review_queue"))
    assert states == {"f1": "stale", "f2": "open", "f3": "stale", "f4": "open", "f5": "open",
                      "f6": "open", "f7": "decided", "f8": "open"}


# ---- two writers on one source --------------------------------------------------------


def _held_commit(url: str, sha: str, hold: threading.Event, started: threading.Event) -> None:
    """Commit a revision inside a transaction kept open until `hold` is set."""
    s = PostgresStore(url)
    try:
        with s.write("acme"):
            commit(s, sha)
            started.set()
            hold.wait(10)
    finally:
        s.close()


@pytest.mark.parametrize("existing", [False, True], ids=["new-source", "existing-source"])
def test_two_writers_on_one_source_take_turns(pg_url, existing):
    first = PostgresStore(pg_url)
    if existing:
        commit(first, SHA1)
    hold, started = threading.Event(), threading.Event()
    holder = threading.Thread(target=_held_commit, args=(pg_url, SHA2, hold, started))
    holder.start()
    assert started.wait(10)
    out: list = []
    second = PostgresStore(pg_url)
    racer = threading.Thread(target=lambda: out.append(commit(second, SHA3)))
    racer.start()
    time.sleep(0.5)
    assert racer.is_alive() and out == []  # waiting on the source row, not numbering
    hold.set()
    holder.join(10)
    racer.join(10)
    n = 2 if existing else 1
    rev, status = out[0]
    assert (rev.revision_id, status) == (f"r{n + 1}", IngestStatus.REVISED)
    assert [(r.revision_id, r.sha256) for r in first.revisions("acme", "a.pdf")][-2:] == [
        (f"r{n}", SHA2), (f"r{n + 1}", SHA3)]
    second.close()
    first.close()


def test_the_same_bytes_twice_at_once_make_one_revision(pg_url):
    hold, started = threading.Event(), threading.Event()
    holder = threading.Thread(target=_held_commit, args=(pg_url, SHA2, hold, started))
    holder.start()
    assert started.wait(10)
    out: list = []
    other = PostgresStore(pg_url)
    racer = threading.Thread(target=lambda: out.append(commit(other, SHA2)))
    racer.start()
    time.sleep(0.3)
    hold.set()
    holder.join(10)
    racer.join(10)
    assert (out[0][0].revision_id, out[0][1]) == ("r1", IngestStatus.UNCHANGED)
    assert len(other.revisions("acme", "a.pdf")) == 1
    other.close()


# ---- quarantine -----------------------------------------------------------------------


def test_quarantine_records_per_tenant_oldest_first(store):
    recs = [QuarantineRecord("x.pdf", "in/x.pdf", SHA1, 10, "encrypted", "password", "t1", "ana"),
            QuarantineRecord("y.pdf", "in/y.pdf", None, 0, "empty", "no text", "t2")]
    for r in recs:
        store.add_quarantine("acme", r)
    store.quarantine_blobs.put("acme", b"x", SHA1)
    assert store.quarantined("acme") == recs
    assert store.quarantined("globex") == []
    assert store.blob_in_use("acme", SHA1, quarantine=True) is True
    assert store.blob_in_use("globex", SHA1, quarantine=True) is False
    assert store.blob_in_use("acme", SHA1) is False


# ---- the tenant wall ------------------------------------------------------------------

ODD_TENANTS = ["acme", "café-ü", "日本", "o'brien", "a b", "ACME"]


@pytest.mark.parametrize("tenant", ODD_TENANTS[1:])
def test_odd_tenant_names_round_trip_and_stay_apart(store, tenant):
    data = f"bytes of {tenant}".encode()
    sha = store.blobs.put(tenant, data)
    commit(store, sha, tenant=tenant)
    commit(store, SHA1, tenant="acme")
    assert [s.tenant for s in store.sources(tenant)] == [tenant]
    assert store.latest_revision(tenant, "a.pdf").tenant == tenant
    assert store.blobs.get(tenant, sha) == data
    assert store.blob_in_use(tenant, sha) and not store.blob_in_use("acme", sha)
    with pytest.raises(FileNotFoundError):
        store.blobs.get("acme", sha)
    assert [r.sha256 for r in store.revisions("acme", "a.pdf")] == [SHA1]


def test_another_tenants_rows_are_invisible_through_the_app(store):
    data = b"acme secret"
    sha = store.blobs.put("acme", data)
    rev, _ = commit(store, sha)
    store.add_quarantine("acme", QuarantineRecord("q.pdf", "q.pdf", sha, 3, "empty", "", "t"))
    assert store.source("globex", "a.pdf") is None
    assert store.sources("globex") == []
    assert store.revision("globex", "a.pdf", "r1") is None
    assert store.revisions("globex", "a.pdf") == []
    assert store.latest_revision("globex", "a.pdf") is None
    stolen = rev.__class__(**{**{f: getattr(rev, f) for f in rev.__slots__}, "tenant": "globex"})
    assert store.text_layer(stolen) is None and store.layer_ids(stolen) == []
    with pytest.raises(psycopg.errors.ForeignKeyViolation):  # globex has no such revision
        store.add_text_layer(stolen, layer("forged"), "t")
    assert store.layer_ids(rev) == [layer().layer_id]
    assert store.quarantined("globex") == []
    assert store.blobs.exists("globex", sha) is False
    with pytest.raises(FileNotFoundError):
        store.blobs.get("globex", sha)


def test_the_wall_holds_when_a_query_forgets_its_tenant_filter(store, pg_url):
    sha = store.blobs.put("acme", b"acme secret")
    commit(store, sha)
    store.quarantine_blobs.put("acme", b"refused")
    store.add_quarantine("acme", QuarantineRecord("q.pdf", "q.pdf", None, 3, "empty", "", "t"))
    conn = connect(pg_url)
    try:
        with transaction(conn, "globex") as c:
            for table in ("sources", "revisions", "text_layers", "quarantine", "blobs"):
                assert c.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
            assert c.execute("SELECT data FROM blobs WHERE sha256 = %s", (sha,)).fetchall() == []
            # Nor can it write into another tenant's source.
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute("INSERT INTO blobs (tenant, area, sha256, data) "
                          "VALUES ('acme', 'accepted', %s, 'x')", (SHA3,))
        with transaction(conn, "acme") as c:
            assert c.execute("SELECT count(*) FROM text_layers").fetchone()[0] == 1
            assert c.execute("SELECT count(*) FROM blobs").fetchone()[0] == 2
    finally:
        conn.close()


RACER = """
import sys, time
from tests.store.test_pg_sources import commit
from pincite.store.postgres import PostgresStore
url, sha, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = PostgresStore(url)
s.blobs.put("acme", b"x")  # warm: connection open, role set
time.sleep(max(0.0, start - time.time()))
for i in range(5):
    rev, status = commit(s, sha[:-1] + str(i), at=f"2026-01-01T00:00:0{i}Z")
    print(rev.revision_id, status)
s.close()
"""


def test_processes_committing_to_one_source_at_once_number_every_revision_once(pg_url):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    start = time.time() + 3
    procs = [subprocess.Popen([sys.executable, "-c", RACER, pg_url, str(n) * 64, str(start)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for n in range(4)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], [e for _, e in outs]
    ids = sorted(line.split()[0] for o, _ in outs for line in o.splitlines())
    assert ids == sorted(f"r{n}" for n in range(1, 21))  # 20 commits, 20 numbers, none twice
    store = PostgresStore(pg_url)
    with store.read("acme") as c:
        assert c.execute("SELECT count(*) FROM revisions WHERE valid_to IS NULL").fetchone() == (1,)
    store.close()
