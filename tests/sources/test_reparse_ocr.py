"""Documents stored before OCR: the store's migration, and `reparse` adding an OCR layer
while citations into the old layer keep verifying."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import replace

import pytest

from pincite.limits import Limits, OcrSettings
from pincite.model import Principal, timestamp
from pincite.parse import parse
from pincite.store.sqlite.backend import MIGRATIONS, SQLiteStore
from pincite.store.sqlite.connection import statements
from pincite.vocab import IngestStatus, ReviewReason, sql_in

ANA = Principal.parse("acme:ana:legal")
NO_OCR = Limits(ocr=OcrSettings(enabled=False))


def test_a_store_made_before_ocr_is_migrated(tmp_path):
    # a store as pincite wrote it before: five migrations, the queue's reasons of then
    root = tmp_path / "old"
    root.mkdir()
    conn = sqlite3.connect(root / "pincite.db", isolation_level=None)
    for k, script in enumerate(MIGRATIONS[:5]):
        assert isinstance(script, str)
        for stmt in statements(script if k != 2 else script.replace("'low_ocr_confidence', ", "")):
            conn.execute(stmt)
    conn.execute("PRAGMA user_version=5")
    old = conn.execute("SELECT sql FROM sqlite_schema WHERE name='review_queue'").fetchone()[0]
    assert "low_ocr_confidence" not in old
    conn.close()
    store = SQLiteStore(root)
    try:
        c = store.conn
        assert c.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        sql = c.execute("SELECT sql FROM sqlite_schema WHERE name='review_queue'").fetchone()[0]
        assert f"CHECK (reason IN ({sql_in(ReviewReason)}))" in sql
        assert "'low_ocr_confidence'" in sql and "'passage_changed'" in sql
        assert "meta" in [r[1] for r in c.execute("PRAGMA table_info(text_layers)")]
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        row = ("acme", "c", "s", "r1", "0" * 64, "f", "{}", "[]", "run", "1", timestamp())
        insert = ("INSERT INTO review_queue (tenant, case_id, source_id, revision_id, doc_sha256, "
                  "field, reason, candidate, evidence, run_id, extractor_version, created_at) "
                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
        c.execute(insert, row[:6] + ("low_ocr_confidence",) + row[6:])
        with pytest.raises(sqlite3.IntegrityError):  # the check still refuses the unknown
            c.execute(insert, row[:6] + ("no_such_reason",) + row[6:])
    finally:
        store.close()


@pytest.mark.tesseract
@pytest.mark.parametrize("how", ["ingested before OCR", "ingested with OCR off"])
def test_reparse_adds_the_ocr_layer_and_old_citations_keep_verifying(lib, how):
    from tests.parse.test_ocr import P1, P2, merged, scan_pdf, text_pdf

    born = text_pdf([P1, P2])
    data = merged((born, [0]), (scan_pdf(born, pages=[2]), [0]))
    if how == "ingested with OCR off":
        r = lib.ingest_bytes(data, source_id="m.pdf", tenant="acme", acl=["group:legal"],
                             name="m.pdf", limits=NO_OCR)
        assert r.flags == ("ocr_incomplete",)
    else:  # the layer pincite made before: page 2 without text, and nothing to say why
        layer = parse("pdf", data, limits=NO_OCR)
        layer = replace(layer, flags=(), meta=None)
        sha = hashlib.sha256(data).hexdigest()
        lib.store.blobs.put("acme", data, sha)
        _, status = lib.store.commit_revision(
            tenant="acme", source_id="m.pdf", sha256=sha, media_type="application/pdf",
            size=len(data), at=timestamp(), acl=("group:legal",), flags=(), layer=layer)
        assert status == IngestStatus.NEW
    old = lib.cite(ANA, "m.pdf", "shall deliver the goods")
    assert old.text_layer == "pdf@4"
    assert lib.reparse(ANA, ["m.pdf"]) == [("m.pdf@r1", "pdf+ocr@4.1")]
    assert lib.reparse(ANA, ["m.pdf"]) == [("m.pdf@r1", None)]  # done once
    [again] = lib.verify(ANA, [old])
    assert (again.quote_verified, again.verify_reason, again.text_layer) == (True, "ok", "pdf@4")
    new = lib.cite(ANA, "m.pdf", "The price is 12,500 euros")
    assert new.text_layer == "pdf+ocr@4.1" and new.flags == ("ocr",)


def test_reparse_leaves_a_born_digital_pdf_alone(lib):
    from tests.parse.test_ocr import P1, P2, text_pdf

    lib.ingest_bytes(text_pdf([P1, P2]), source_id="b.pdf", tenant="acme", acl=["group:legal"],
                     name="b.pdf", sandbox=False)
    assert lib.reparse(ANA, ["b.pdf"], sandbox=False) == [("b.pdf@r1", None)]
