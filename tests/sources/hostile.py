"""Hostile and borderline files built in memory for the inspection and ingest tests:
minimal OOXML packages, XXE and billion-laughs XML, hand-packed ZIP records, OLE2."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    b'<Default Extension="xml" ContentType="application/xml"/></Types>'
)
ROOT_RELS = (
    b'<?xml version="1.0" encoding="UTF-8"?>'
    b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    b'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
DOCUMENT = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    b"<w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>"
)
WORKBOOK = (
    b'<?xml version="1.0" encoding="UTF-8"?>'
    b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    b'<sheets><sheet name="S" sheetId="1"/></sheets></workbook>'
)
XXE = (
    b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    b"<w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>"
)
LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
               for i in range(1, 10))
    + b']><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
      b"<sheets>&lol9;</sheets></workbook>"
)
PDF = (
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
    b"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
    b"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n"
    b"trailer\n<< /Root 1 0 R /Size 4 >>\nstartxref\n0\n%%EOF\n"
)


def ooxml(parts: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """Return a ZIP of `parts` (in order) built with zipfile."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, body in parts.items():
            zf.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), body, compress_type=method)
    return buf.getvalue()


def docx(**extra: bytes) -> bytes:
    parts = {"[Content_Types].xml": CONTENT_TYPES, "_rels/.rels": ROOT_RELS,
             "word/document.xml": DOCUMENT}
    parts.update({k.replace("__", "/").replace("_dot_", "."): v for k, v in extra.items()})
    return ooxml(parts)


def xlsx(workbook: bytes = WORKBOOK) -> bytes:
    return ooxml({"[Content_Types].xml": CONTENT_TYPES, "_rels/.rels": ROOT_RELS,
                  "xl/workbook.xml": workbook})


def local_header(name: bytes, body: bytes, *, method: int = 0, usize: int | None = None,
                 crc: int | None = None) -> bytes:
    return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21,
                       zlib.crc32(body) if crc is None else crc, len(body),
                       len(body) if usize is None else usize, len(name), 0) + name + body


def central_entry(name: bytes, body: bytes, offset: int, *, method: int = 0,
                  usize: int | None = None, crc: int | None = None, flags: int = 0) -> bytes:
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, flags, method, 0, 0x21,
                       zlib.crc32(body) if crc is None else crc, len(body),
                       len(body) if usize is None else usize, len(name), 0, 0, 0, 0, 0,
                       offset) + name


def end_record(count: int, cd_size: int, cd_offset: int) -> bytes:
    return struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, cd_size, cd_offset, 0)


def ole2(names: list[str]) -> bytes:
    """Return a minimal OLE2 compound file whose directory holds `names` (as streams)."""
    free, end, fatsect = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIIII", header, 0x2C, 1, 1, 0, 4096, end, 0, end, 0, 0)
    struct.pack_into("<109I", header, 0x4C, 0, *([free] * 108))
    fat = struct.pack("<128I", fatsect, end, *([free] * 126))
    directory = bytearray()
    for i, (name, kind) in enumerate([("Root Entry", 5)] + [(n, 2) for n in names]):
        raw = name.encode("utf-16-le") + b"\x00\x00"
        entry = bytearray(128)
        entry[:len(raw)] = raw
        struct.pack_into("<HBB", entry, 0x40, len(raw), kind, 1)
        struct.pack_into("<III", entry, 0x44, free, i + 1 if i < len(names) else free,
                         free if i else 1)
        struct.pack_into("<II", entry, 0x74, end, 0)
        directory += entry
    directory += bytes(512 - len(directory) % 512) if len(directory) % 512 else b""
    return bytes(header) + fat + bytes(directory)
