"""HOSTILE (files): every hostile file through the real, sandboxed ingest path ends in a
typed rejection or a flagged result — never a crash, never a hang.

The files are built in code: a ZIP bomb (one member inflating past the ratio limit),
a package of 10,001 entries, two directory entries over one member, a member named
`../../evil.xml`, billion-laughs entities and an external entity (XXE) in OOXML, HTML
nested 100,000 and 600 levels deep, a PDF cut in half, a PDF whose `startxref` points
nowhere, one claiming a billion pages, one with a JavaScript open action, text with
invalid UTF-8 and NULs, bidi and tag characters, an HTML page named `.pdf`, an empty
file, a CSV with formula cells; plus, with `--pdfs DIR`, every damaged PDF there (e.g.
qpdf's test files). They are ingested through the facade (sandboxed parser, timed per
file) and as one folder through the CLI.
"""

from __future__ import annotations

import io
import struct
import time
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...limits import Limits
from ...vocab import QuarantineReason
from .builders import Spec, render
from .harness import Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "HOSTILE"
F_CRASH = "crashes on hostile files (an exception out of ingest, a traceback)"
F_HANG = "hangs on hostile files (over the parse deadline)"
F_TYPED = "hostile files neither refused with their reason nor flagged"
HANG_SECONDS = 15.0
TYPES = (b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats'
         b'.org/package/2006/content-types"><Default Extension="rels" ContentType="application/'
         b'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
         b'"application/xml"/></Types>')
RELS = (b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        b'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
        b'schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        b'Target="word/document.xml"/></Relationships>')
W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
ANY = {r.value for r in QuarantineReason}

Expect = Callable[[Any], bool]


def _refused(*reasons: str) -> Expect:
    want = set(reasons) or ANY
    return lambda r: r.status == "quarantined" and r.reason in want


def _flagged(flag: str) -> Expect:
    return lambda r: (r.status != "quarantined" and flag in r.flags) or (
        r.status == "quarantined" and r.reason in ANY)


def _typed(r: Any) -> bool:
    return r.status in ("new", "unchanged", "revised") or (
        r.status == "quarantined" and r.reason in ANY)


def _package(parts: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, body in parts.items():
            zf.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), body, compress_type=method)
    return buf.getvalue()


def _docx(document: bytes, **extra: bytes) -> bytes:
    return _package({"[Content_Types].xml": TYPES, "_rels/.rels": RELS,
                     "word/document.xml": document, **extra})


def _body(text: bytes) -> bytes:
    return (b'<?xml version="1.0" encoding="UTF-8"?><w:document ' + W + b"><w:body><w:p><w:r>"
            b"<w:t>" + text + b"</w:t></w:r></w:p></w:body></w:document>")


def _overlapping() -> bytes:
    """A package whose central directory lists two names for one local member."""
    body = _body(b"Overlap")
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0x21, zlib.crc32(body),
                        len(body), len(body), 17, 0) + b"word/document.xml" + body

    def central(name: bytes) -> bytes:
        return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21,
                           zlib.crc32(body), len(body), len(body), len(name), 0, 0, 0, 0, 0,
                           0) + name

    cd = central(b"word/document.xml") + central(b"[Content_Types].xml")
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 2, 2, len(cd), len(local), 0)
    return local + cd + end


def _laughs() -> bytes:
    ents = b"".join(b'<!ENTITY l%d "%s">' % (i, (b"&l%d;" % (i - 1)) * 10 if i else b"lol")
                    for i in range(10))
    return (b'<?xml version="1.0"?><!DOCTYPE w:document [' + ents + b"]><w:document " + W
            + b"><w:body><w:p><w:r><w:t>&l9;</w:t></w:r></w:p></w:body></w:document>")


def _pdf_with(extra_catalog: bytes) -> bytes:
    base = render(Spec("Hostile", ("1.1 A clause of a hostile PDF.",)), "pdf")
    return base.replace(b"<< /Type /Catalog /Pages 2 0 R >>",
                        b"<< /Type /Catalog /Pages 2 0 R " + extra_catalog + b" >>", 1)


def hostile_files() -> dict[str, tuple[bytes, Expect]]:
    """name -> (bytes, what a correct outcome is)."""
    pdf = render(Spec("Hostile", ("1.1 A clause of a hostile PDF.",)), "pdf")
    deep = b"<html><body>" + b"<div>" * 100_000 + b"deep" + b"</div>" * 100_000 + b"</body></html>"
    deep600 = b"<html><body>" + b"<div>" * 600 + b"<p>deep text</p>" + b"</div>" * 600 + b"</body></html>"
    many = {"[Content_Types].xml": TYPES, "_rels/.rels": RELS, "word/document.xml": _body(b"x")}
    many.update({f"word/media/m{i}.xml": b"<a/>" for i in range(10_001)})
    return {
        "zip-bomb.docx": (_docx(_body(b" " * (8 << 20))), _refused("zip_bomb", "over_limit")),
        "many-entries.docx": (_package(many, zipfile.ZIP_STORED), _refused("zip_bomb", "over_limit")),
        "overlapping.docx": (_overlapping(), _refused()),
        "traversal.docx": (_docx(_body(b"Traversal"), **{"../../evil.xml": b"<a/>"}), _typed),
        "laughs.docx": (_docx(_laughs()), _refused("xml_entities")),
        "xxe.docx": (_docx(b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY x SYSTEM '
                           b'"file:///etc/passwd">]><w:document ' + W + b"><w:body><w:p><w:r>"
                           b"<w:t>&x;</w:t></w:r></w:p></w:body></w:document>"),
                     _refused("xml_entities")),
        "deep-100k.html": (deep, _refused("too_deep")),
        "deep-600.html": (deep600, _refused("too_deep")),
        "truncated.pdf": (pdf[: len(pdf) // 2], _typed),
        "bad-startxref.pdf": (pdf.replace(b"startxref\n", b"startxref\n99999999"), _typed),
        "billion-pages.pdf": (pdf.replace(b"/Count 1 ", b"/Count 1000000000 "), _typed),
        "javascript.pdf": (_pdf_with(b"/OpenAction << /S /JavaScript /JS (app.alert(1)) >>"),
                           _flagged("active_content")),
        "invalid-utf8.txt": (b"1. TERM\n\n1.1 Valid \xff\xfe\xc3( text \x00 with NULs.\n", _typed),
        "bidi-tags.txt": ("1. TERM\n\n1.1 Pay \u202eRUE 001\u202c and \U000e0041 tags.\n"
                          .encode(), _typed),
        "html-named.pdf": (b"<html><body><p>Not a PDF at all.</p></body></html>",
                           _refused("type_mismatch", "malformed", "unsupported_type")),
        "empty.txt": (b"", _refused("empty")),
        "formulas.csv": (b"item,total\nfee,=1+1\nhack,\"=cmd|' /C calc'!A0\"\n", _typed),
    }


class _Batch:
    """Files ingested with one parser sandbox: each result is timed and judged as it comes."""

    def __init__(self, files: list[tuple[Path, Expect]], f: dict[str, Any]) -> None:
        self.files, self.f = files, f
        self.done = 0
        self.last = time.perf_counter()

    def seen(self, r: Any) -> None:
        """Count one result (the `on_result` of ingest)."""
        now = time.perf_counter()
        path, expect = self.files[self.done]
        took, self.last = now - self.last, now
        self.done += 1
        self.f[F_CRASH].attempt(True)
        self.f[F_HANG].attempt(took <= HANG_SECONDS, f"{path.name}: {took:.1f} s")
        self.f[F_TYPED].attempt(expect(r), f"{path.name}: {r.status} {r.reason} {list(r.flags)}")


def _ingest_batch(lib: Any, files: list[tuple[Path, Expect]], limits: Limits,
                  f: dict[str, Any]) -> None:
    """Ingest files with one parser sandbox, timing each; after a crash, go on with the
    files after it."""
    while files:
        batch = _Batch(files, f)
        try:
            lib.ingest([p for p, _e in files], tenant="acme", acl=["*"], limits=limits,
                       publish=False, on_result=batch.seen)
        except Exception as exc:  # noqa: BLE001 - a crash is what is counted
            crashed = files[batch.done][0]
            f[F_CRASH].attempt(False, f"{crashed.name}: {type(exc).__name__}: {exc}")
            files = files[batch.done + 1:]
        else:
            files = []


def run_hostile_files(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                      seed: int, pdfs: Path | None = None) -> None:
    """Run the files half of the HOSTILE group into `board`."""
    folder = ws.folder("hostile-files")
    files = hostile_files()
    for name, (data, _e) in files.items():
        (folder / name).write_bytes(data)
    damaged = sorted(pdfs.glob("*.pdf")) if pdfs is not None and pdfs.is_dir() else []
    f = {n: board.figure(GROUP, n) for n in (F_CRASH, F_HANG, F_TYPED)}
    limits = replace(Limits(), parse_seconds=HANG_SECONDS)
    store = ws.path("hostile-files-store")
    with drivers.open_library(store, create=True) as lib:
        built: list[tuple[Path, Expect]] = [(folder / n, e) for n, (_d, e) in files.items()]
        _ingest_batch(lib, built, limits, f)
        _ingest_batch(lib, [(p, _typed) for p in damaged], limits, f)
    run = run_cli(drivers, ws.path("hostile-cli-store"), "ingest", str(folder), "--tenant",
                  "acme", "--acl", "*", "--no-publish", "--json")
    lines = run.json_lines()
    f[F_CRASH].attempt(run.traceback is None and len(lines) == len(files),
                       f"cli ingest of the folder: exit {run.returncode}, {len(lines)} lines, "
                       f"{(run.traceback or run.stderr)[-160:]!r}")
    board.note(GROUP, f"{len(files)} hostile files built in code"
               + (f" and {len(damaged)} damaged PDFs from {pdfs}" if damaged else
                  "; damaged PDFs not run: pass --pdfs DIR (e.g. qpdf's damaged PDFs)"))
