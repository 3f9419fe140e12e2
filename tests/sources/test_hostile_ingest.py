"""Hostile files through the real ingest path (inspect → sandboxed parse → store).

Each one must end quarantined with its typed reason, and leave no source, revision or
blob behind; a good file ingested afterwards by the same ingestor still works.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import pytest

from pincite.model import Principal
from tests.loud_skips import shared_files
from tests.sources.hostile import LAUGHS, PDF, XXE, docx, ooxml, xlsx


def _zip_bomb_by_ratio() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", b"<Types/>")
        zf.writestr("word/document.xml", b"\x00" * (200 * 1024 * 1024))
    return buf.getvalue()


def _encrypted_pdf() -> bytes:
    return shared_files("docling_testdata/pdf_password/sources", "*.pdf")[0].read_bytes()


CASES = {
    "bomb.docx": (_zip_bomb_by_ratio, "zip_bomb"),
    "xxe.docx": (lambda: docx(word__document_dot_xml=XXE), "xml_entities"),
    "laughs.xlsx": (lambda: ooxml({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": LAUGHS}),
                    "xml_entities"),
    "polyglot.pdf": (lambda: PDF + xlsx(), "type_mismatch"),
    "looks.pdf": (docx, "type_mismatch"),
    "empty.txt": (lambda: b"", "empty"),
    "one.bin": (lambda: b"\x7f", "unsupported_type"),
    "elf.txt": (lambda: b"\x7fELF\x02\x01\x01" + b"\x00" * 64, "unsupported_type"),
}


def _all_quarantined(lib, cases: dict[str, tuple[Callable[[], bytes], str]]) -> None:
    results = {}
    for name, (make, _) in cases.items():
        results[name] = lib.ingest_bytes(make(), source_id=name, tenant="acme", acl=["*"],
                                         name=name, owner="x")
    got = {n: (r.status, r.reason) for n, r in results.items()}
    assert got == {n: ("quarantined", reason) for n, (_, reason) in cases.items()}
    assert lib.store.sources("acme") == []
    assert list(lib.store.blobs.walk()) == []
    reasons = {q.source_id: q.reason for q in lib.quarantined(Principal.parse("acme:x"))}
    assert reasons == {n: reason for n, (_, reason) in cases.items()}


@pytest.mark.shared_data("docling_testdata/pdf_password")
def test_an_encrypted_pdf_is_quarantined_and_leaves_nothing(lib):
    _all_quarantined(lib, {"secret.pdf": (_encrypted_pdf, "encrypted")})


def test_hostile_files_are_quarantined_with_their_reason_and_leave_nothing(lib):
    _all_quarantined(lib, CASES)
    ok = lib.ingest_bytes(b"1. TERM\n\n1.1 Ten years.\n", source_id="fine.txt", tenant="acme",
                          acl=["*"], name="fine.txt")
    assert ok.status == "new"


def test_invalid_utf8_text_is_ingested_with_a_flag(lib):
    r = lib.ingest_bytes(b"Precio: 450.000 \xe2\x82\xac y caf\xe9 \xff\xfe", source_id="mixed.txt",
                         tenant="acme", acl=["*"], name="mixed.txt")
    assert r.status == "new" and "invalid_utf8" in r.flags
