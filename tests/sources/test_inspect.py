"""Inspection: the media kind from the bytes, and hostile files quarantined before parsing.

Every hostile file is built here, in memory (no fixtures on disk). Every case is decided
twice — from the bytes, and from a file read on demand in small chunks (`FileView`, the
path of a large upload) — and both decisions must be the same.
"""

from __future__ import annotations

import io
import os
import struct
import tempfile
import zipfile
import zlib

import pytest

from pincite.errors import ParseFailure
from pincite.limits import Limits
from pincite.sources import inspect as inspection
from pincite.sources.file_view import FileView
from pincite.sources.inspect import Inspection
from tests.sources.hostile import (
    CONTENT_TYPES,
    DOCUMENT,
    LAUGHS,
    PDF,
    XXE,
    central_entry,
    docx,
    end_record,
    local_header,
    ole2,
    ooxml,
    xlsx,
)

LIMITS = Limits()


def inspect(data: bytes, **kw) -> Inspection:
    """Return what `data` is, decided from the bytes and from the bytes in a file; raise
    its ParseFailure — after checking that the file path agrees on both."""
    try:
        want = inspection.inspect(data, **kw)
    except ParseFailure as failure:
        with pytest.raises(ParseFailure) as got:
            _from_file(data, **kw)
        assert (got.value.reason, got.value.detail) == (failure.reason, failure.detail)
        raise
    assert _from_file(data, **kw) == want
    return want


def _from_file(data: bytes, **kw) -> Inspection:
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        return inspection.inspect(FileView(f.fileno(), len(data), chunk=4096), **kw)

def quarantined(data: bytes, name: str | None = None, limits: Limits = LIMITS,
                declared: str | None = None) -> ParseFailure:
    with pytest.raises(ParseFailure) as info:
        inspect(data, name=name, limits=limits, declared=declared)
    assert info.value.detail
    return info.value



# --- accepted inputs ----------------------------------------------------------------------

def test_real_office_files_and_pdf_pass() -> None:
    import docx as python_docx
    import openpyxl
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    document = python_docx.Document()
    document.add_paragraph("Clause 1. The deadline is 12 May 2025.")
    document.save(buf)
    assert inspect(buf.getvalue(), name="tender.docx", limits=LIMITS) == Inspection(
        "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ())

    buf = io.BytesIO()
    wb = openpyxl.Workbook()
    wb.active["A1"] = "Revenue"
    wb.save(buf)
    found = inspect(buf.getvalue(), name="report.xlsx", limits=LIMITS)
    assert (found.kind, found.flags) == ("xlsx", ())

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    c.drawString(72, 720, "Hello")
    c.save()
    found = inspect(buf.getvalue(), name="a.pdf", limits=LIMITS)
    assert (found.kind, found.media_type, found.flags) == ("pdf", "application/pdf", ())


@pytest.mark.parametrize("data,name,kind", [
    (b"# Title\n\nSome text.\n", None, "markdown"),
    (b"| a | b |\n|---|---|\n| 1 | 2 |\n", None, "markdown"),
    (b"Intro\n\n```\ncode\n```\n", "notes.txt", "markdown"),
    (b"name,amount,currency\nA,1,EUR\nB,2,USD\nC,3,GBP\n", None, "csv"),
    (b"a;b;c\n1;2;3\n", None, "csv"),
    (b"a\tb\n1\t2\n3\t4\n", "t.tsv", "csv"),
    (b"one column\nper line\n", "list.csv", "csv"),  # the extension breaks the tie
    (b"Plain prose, with a comma.\nAnd another line.\n", None, "text"),
    (b"Plain prose.\n", "readme.md", "markdown"),
    (b"<!DOCTYPE html><html><body><p>Hi</p></body></html>", "page.bin", "html"),
    (b"\xef\xbb\xbf  <html><p>x</p></html>", None, "html"),
    (b"<!-- note -->\n<div><p>fragment</p></div>", None, "html"),
    (b'<?xml version="1.0"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"/>',
     "a.xhtml", "html"),
    (b'<div align="center"><img src="logo.png"></div>\n\n# Project\n\n- item\n', "README.md",
     "markdown"),
    (b'<p>intro</p>\n\n# Title\n', None, "markdown"),
    (b"just words", "page.html", "html"),
    ("Überschrift\n".encode("utf-16"), None, "text"),
    ("a,b\n1,2\n".encode("utf-16-le"), "x.csv", "csv"),
    (b"a", None, "text"),
    (b"\xff", None, "text"),  # one byte of cp1252
    (b"See %PDF-1.7 for the format.\n", "notes.txt", "text"),
])
def test_sniffed_kinds(data: bytes, name: str | None, kind: str) -> None:
    assert inspect(data, name=name, limits=LIMITS).kind == kind


def test_invalid_utf8_reads_as_cp1252_with_a_flag() -> None:
    found = inspect("Café crème, 12 €\n".encode("cp1252"), name="menu.txt", limits=LIMITS)
    assert (found.kind, found.flags) == ("text", ("invalid_utf8",))
    # a few NULs and a bidi control in otherwise clean text: still text (the parser flags it)
    found = inspect(b"Total: 12 EUR \xe2\x80\xae\n" * 50 + b"a\x00b\n", name=None,
                    limits=LIMITS)
    assert (found.kind, found.flags) == ("text", ())


# --- basic rejections ---------------------------------------------------------------------

@pytest.mark.parametrize("data", [b"", b" ", b"\n\t \r\n", b"\x00", b"\xef\xbb\xbf \n"])
def test_empty(data: bytes) -> None:
    assert quarantined(data).reason == "empty"


def test_over_limit() -> None:
    assert quarantined(b"x" * 11, limits=Limits(max_bytes=10)).reason == "over_limit"


@pytest.mark.parametrize("data", [
    b"\x7fELF\x02\x01\x01\x00" + bytes(56) + b"\x00" * 64,
    b"MZ\x90\x00\x03\x00\x00\x00" + bytes(120),
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    # random bytes, named so every pytest-xdist worker collects the same test id
    pytest.param(b"\x1f\x8b\x08\x00" + os.urandom(64), id="gzip-random-body"),
    b"{\\rtf1\\ansi hello}",
    b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
    bytes(range(256)) * 8,
    b"\x00\x01\x02\x03" * 500 + b"some text",
    b"\x01",
])
def test_unsupported(data: bytes) -> None:
    # an executable named .pdf is still "unsupported", the stronger statement
    assert quarantined(data, name="contract.pdf").reason == "unsupported_type"


def test_other_zips_and_legacy_office_are_unsupported() -> None:
    pptx = ooxml({"[Content_Types].xml": CONTENT_TYPES, "ppt/presentation.xml": b"<p/>"})
    assert quarantined(pptx).reason == "unsupported_type"
    assert quarantined(ooxml({"a.txt": b"hello"})).reason == "unsupported_type"
    assert quarantined(ole2(["WordDocument", "\x05SummaryInformation"])).reason == \
        "unsupported_type"


def test_truncated_zip_is_malformed() -> None:
    data = docx()
    assert quarantined(data[: len(data) // 2]).reason == "malformed"


# --- type confusion and polyglots ---------------------------------------------------------

@pytest.mark.parametrize("data,name,declared", [
    (docx(), "contract.pdf", None),
    (PDF, "notes.txt", None),
    (xlsx(), "report.docx", None),
    (docx(), "x.xlsx", None),
    (PDF, "page.html", None),
    (b"<!DOCTYPE html><html><body>x</body></html>", "notes.txt", None),
    (docx(), None, "application/pdf"),
    (PDF, "a.pdf", "docx"),
    (b"# Title\n", None, "pdf"),
])
def test_type_mismatch(data: bytes, name: str | None, declared: str | None) -> None:
    assert quarantined(data, name, declared=declared).reason == "type_mismatch"


def test_unknown_extension_is_no_contradiction() -> None:
    assert inspect(docx(), name="upload.bin", limits=LIMITS).kind == "docx"
    assert inspect(docx(), name="old.doc", limits=LIMITS).kind == "docx"
    assert inspect(PDF, name=None, limits=LIMITS, declared="application/pdf").kind == "pdf"
    assert inspect(b"a,b\n1,2\n", name="x.md", limits=LIMITS, declared="csv").kind == "markdown"


@pytest.mark.parametrize("data", [
    PDF + docx(),  # a PDF with a ZIP appended
    b"%PDF-1.4\n" + docx(),  # a ZIP whose first bytes are %PDF
    b"<html><body>hi</body></html>\n" + PDF,  # HTML that is also a PDF
    PDF.replace(b"1 0 obj", b"<script>alert(1)</script>\n1 0 obj", 1),  # PDF read as HTML
    b"\xff\xd8\xff\xe0" + bytes(100) + PDF,  # JPEG + PDF
    ole2(["WordDocument"])[:512] + PDF,  # OLE2 + PDF (header in the first 1024 bytes)
    b"<html><body>x</body></html>" + docx(),  # HTML with a ZIP behind it
    docx() + b"trailing junk after the archive",
])
def test_polyglots(data: bytes) -> None:
    assert quarantined(data).reason == "type_mismatch"


# --- ZIP bombs and broken archives --------------------------------------------------------

def test_zip_bomb_by_ratio() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", CONTENT_TYPES)
        with zf.open("word/document.xml", "w") as part:
            zero = bytes(1 << 20)
            for _ in range(200):  # a 200 MB run of zeros
                part.write(zero)
    data = buf.getvalue()
    assert len(data) < 1 << 20
    q = quarantined(data, "bomb.docx")
    assert q.reason == "zip_bomb" and "ratio" in q.detail


def test_zip_bomb_by_entry_count() -> None:
    parts = {"[Content_Types].xml": CONTENT_TYPES, "word/document.xml": DOCUMENT}
    parts.update({f"word/media/{i}.xml": b"<a/>" for i in range(60)})
    assert quarantined(ooxml(parts), limits=Limits(max_zip_entries=50)).reason == "zip_bomb"


def test_zip_bomb_by_total_size() -> None:
    data = docx(word__big_dot_xml=os.urandom(300_000).hex().encode())
    assert quarantined(data, limits=Limits(max_zip_inflated=500_000)).reason == "zip_bomb"


def test_zip_bomb_by_overlapping_entries() -> None:
    # Entry B is a normal deflated part; entry A is a stored part whose bytes are B's
    # local header and data: two directory entries read the same bytes, so inflating the
    # archive costs more than its size (the non-recursive zip bomb). zipfile reads both.
    deflater = zlib.compressobj(9, zlib.DEFLATED, -15)
    kernel = deflater.compress(b"A" * 100_000) + deflater.flush()
    crc_b = zlib.crc32(b"A" * 100_000)
    name_a, name_b = b"word/document.xml", b"word/b.xml"
    b_local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0x21, crc_b,
                          len(kernel), 100_000, len(name_b), 0) + name_b + kernel
    a_local = local_header(name_a, b_local)
    off_b = len(a_local) - len(b_local)
    cd = central_entry(name_a, b_local, 0) + struct.pack(
        "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, crc_b, len(kernel),
        100_000, len(name_b), 0, 0, 0, 0, 0, off_b) + name_b
    data = a_local + cd + end_record(2, len(cd), len(a_local))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:  # Python's zipfile accepts it
        assert zf.read("word/b.xml") == b"A" * 100_000
    q = quarantined(data)
    assert q.reason == "zip_bomb" and "overlap" in q.detail


def test_zip_entry_whose_size_lies() -> None:
    body = b"<a>" + b"x" * 900_000 + b"</a>"  # under 1 MiB: the ratio rule does not apply
    deflater = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = deflater.compress(body) + deflater.flush()
    name = b"word/document.xml"

    def entry(usize: int) -> bytes:
        local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0x21,
                            zlib.crc32(body), len(packed), usize, len(name), 0) + name + packed
        cd = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21,
                         zlib.crc32(body), len(packed), usize, len(name), 0, 0, 0, 0, 0, 0)
        return local + cd + name + end_record(1, len(cd) + len(name), len(local))

    assert inspect(entry(len(body)), name=None, limits=LIMITS).kind == "docx"
    q = quarantined(entry(1000))  # declares 1000 bytes: small enough to pass the ratio rule
    assert q.reason == "zip_bomb" and "lies" in q.detail
    assert quarantined(entry(len(body) + 10)).reason == "malformed"


def test_bad_crc_is_malformed() -> None:
    name, body = b"word/document.xml", DOCUMENT
    local = local_header(name, body, crc=0)
    cd = central_entry(name, body, 0, crc=0)
    data = local + cd + end_record(1, len(cd), len(local))
    q = quarantined(data)
    assert q.reason == "malformed" and "CRC" in q.detail


@pytest.mark.parametrize("evil", ["../evil.xml", "word/../../evil.xml", "/etc/passwd",
                                  "C:/Windows/evil.xml", "..\\evil.xml"])
def test_path_traversal(evil: str) -> None:
    data = ooxml({"[Content_Types].xml": CONTENT_TYPES, "word/document.xml": DOCUMENT,
                  evil: b"<x/>"})
    q = quarantined(data, "a.docx")
    assert q.reason == "malformed" and "escapes" in q.detail


def test_duplicate_names_are_malformed() -> None:
    name, body = b"word/document.xml", DOCUMENT
    first = local_header(name, body)
    second = local_header(name, body.replace(b"Hello", b"Evil!"))
    cd = central_entry(name, body, 0) + central_entry(
        name, body.replace(b"Hello", b"Evil!"), len(first))
    data = first + second + cd + end_record(2, len(cd), len(first) + len(second))
    assert quarantined(data).reason == "malformed"


def test_names_differing_only_in_case_are_duplicates() -> None:
    data = ooxml({"[Content_Types].xml": CONTENT_TYPES, "word/document.xml": DOCUMENT,
                  "Word/Document.xml": DOCUMENT.replace(b"Hello", b"Evil!")})
    assert quarantined(data).reason == "malformed"


def test_zip64_end_record_is_read() -> None:
    data = docx()
    eocd = data.rfind(b"PK\x05\x06")
    _, _, _, _, count, cd_size, cd_offset, _ = struct.unpack_from("<4sHHHHIIH", data, eocd)
    record64 = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count,
                           cd_size, cd_offset)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, eocd, 1)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                      0xFFFFFFFF, 0)
    zip64 = data[:eocd] + record64 + locator + end
    with zipfile.ZipFile(io.BytesIO(zip64)) as zf:
        assert "word/document.xml" in zf.namelist()
    assert inspect(zip64, name="a.docx", limits=LIMITS).kind == "docx"


def test_directory_count_mismatch_is_malformed() -> None:
    name, body = b"word/document.xml", DOCUMENT
    local = local_header(name, body)
    cd = central_entry(name, body, 0)
    data = local + cd + end_record(3, len(cd), len(local))
    assert quarantined(data).reason == "malformed"


def test_encrypted_zip_entry() -> None:
    name, body = b"word/document.xml", DOCUMENT
    local = local_header(name, body)
    cd = central_entry(name, body, 0, flags=1)
    data = local + cd + end_record(1, len(cd), len(local))
    assert quarantined(data).reason == "encrypted"


def test_encrypted_ooxml_in_ole2() -> None:
    data = ole2(["EncryptionInfo", "EncryptedPackage", "\x06DataSpaces"])
    q = quarantined(data, "secret.docx")
    assert q.reason == "encrypted" and "password" in q.detail


# --- XML inside OOXML ---------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    docx(word__document_dot_xml=XXE),
    xlsx(XXE.replace(b"w:document", b"workbook")),
    xlsx(LAUGHS),
    docx(word__document_dot_xml=LAUGHS),
    docx(word__styles_dot_xml=b'<?xml version="1.0"?><!doctype x SYSTEM "http://evil/x.dtd"><x/>'),
    docx(word__document_dot_xml=XXE.decode().replace(' encoding="UTF-8"', "").encode("utf-16")),
    docx(word__hidden_dot_dat=LAUGHS),  # a part not named .xml is still scanned
    docx(customXml__item1_dot_xml=b"<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>"),
])
def test_xml_entities(data: bytes) -> None:
    assert quarantined(data).reason == "xml_entities"


def test_doctype_split_across_read_chunks_is_found() -> None:
    body = b"<a>" + b"x" * ((1 << 20) - 6) + b"<!DOCTYPE x><a/>"  # straddles 1 MiB
    data = ooxml({"[Content_Types].xml": CONTENT_TYPES, "word/document.xml": body},
                 method=zipfile.ZIP_STORED)
    assert quarantined(data).reason == "xml_entities"


def test_oversized_xml_part() -> None:
    data = docx(word__document_dot_xml=b"<a>" + b"x" * 2000 + b"</a>")
    assert quarantined(data, limits=Limits(max_xml_part_bytes=1000)).reason == "over_limit"


def test_flags_external_relationships_and_macros() -> None:
    rels = (b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            b'relationships"><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/'
            b'officeDocument/2006/relationships/hyperlink" Target="http://attacker.example/x" '
            b'TargetMode="External"/></Relationships>')
    found = inspect(docx(word___rels__document_dot_xml_dot_rels=rels), name="a.docm",
                    limits=LIMITS)
    assert found.flags == ("external_ref",)
    found = inspect(docx(word__vbaProject_dot_bin=b"\x00" * 100,
                         word__embeddings__oleObject1_dot_bin=b"\x01" * 10),
                    name=None, limits=LIMITS)
    assert (found.kind, found.flags) == ("docx", ("active_content", "embedded_file"))


def test_svg_picture_with_doctype_is_not_scanned() -> None:
    svg = b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg/>'
    assert inspect(docx(word__media__image1_dot_svg=svg), name=None, limits=LIMITS).kind == "docx"


# --- PDF ----------------------------------------------------------------------------------

@pytest.mark.parametrize("snippet", [
    b"/OpenAction << /S /JavaScript /JS (app.alert(1)) >>",
    b"/OpenAction 5 0 R /AA << /O << /S /Launch /F (cmd.exe) >> >>",
    b"/Names << /EmbeddedFiles 7 0 R >>",
    b"/OpenAction << /S /J#61vaScript /J#53 (x) >>",
])
def test_pdf_active_content_is_flagged(snippet: bytes) -> None:
    data = PDF.replace(b"/Pages 2 0 R", b"/Pages 2 0 R " + snippet)
    found = inspect(data, name="a.pdf", limits=LIMITS)
    assert (found.kind, found.flags) == ("pdf", ("active_content",))


def test_pdf_with_junk_before_header_is_still_pdf() -> None:
    assert inspect(b"\r\n  " + PDF, name="a.pdf", limits=LIMITS).kind == "pdf"
    assert inspect(b"garbage line\n" + PDF, name=None, limits=LIMITS).kind == "pdf"
    assert inspect(PDF.replace(b"/Pages 2 0 R", b"/Pages 2 0 R /JSON 1"), name=None,
                   limits=LIMITS).flags == ()


def test_parse_failure_reason_is_checked() -> None:
    with pytest.raises(ValueError):
        ParseFailure("not_a_reason", "x")
    q = ParseFailure("zip_bomb", "detail")
    import pickle

    assert (pickle.loads(pickle.dumps(q)).reason, str(q)) == ("zip_bomb", "zip_bomb: detail")
    assert (type(q.reason), q.code, q.status) == (str, "parse_failure", 422)
