"""Container checks on raw bytes — ZIP/OOXML packages and OLE2 compound files — done
without trusting `zipfile`.

One scanner serves both callers: `sources.inspect` and the DOCX/XLSX parsers (through
`parse.ooxml`, defence in depth). A refusal is `ParseFailure(reason, detail)` with a
quarantine reason, which the ingest records as a quarantined revision.

Python's `zipfile` accepts zip bombs built from overlapping entries, entries whose
declared size lies, and path-traversal names. This module reads the end-of-central-
directory record, the central directory and every local header itself, and inflates
each entry as a stream with a cap (its declared size), so no check ever inflates
unbounded:

- `locate(data)` finds a structurally valid archive (or None): the sniffing step uses it
  to tell ZIP from not-ZIP and to catch bytes in front of or behind an archive;
- `check_bounds(data, loc)` refuses bytes in front of the archive or anything but
  padding behind it (`type_mismatch`: a polyglot or self-extracting file);
- `read_directory(data, loc, limits)` parses the directory and refuses too many entries
  (`zip_bomb`), traversal or duplicate names, a corrupt directory (`malformed`) and
  encrypted entries (`encrypted`);
- `scan_entries(data, entries, limits, cd_start)` checks sizes, ratios and overlaps
  (`zip_bomb`), compression methods (`malformed`), the size of each XML part
  (`over_limit`), inflates every entry with the cap and verifies its CRC (`malformed`),
  and scans every part that is not media for `<!DOCTYPE`/`<!ENTITY` in any case, in
  UTF-8 or UTF-16 (`xml_entities`). It returns the flags: `external_ref` (an external
  relationship, recorded inert), `active_content` (VBA macros, ActiveX),
  `embedded_file` (embedded OLE objects or packages);
- `check_ole(data)` refuses an OLE2 file that is a password-protected Office package
  (`encrypted`); what a legacy `.doc`/`.xls` is called is the caller's word.

Every check takes `bytes` or any `ByteView` — a file read on demand
(`sources.file_view.FileView`), so a large upload is checked without being held whole:
the checks only slice, search and test membership, reading at most one inflate chunk or
one directory record at a time.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from ..errors import ParseFailure
from ..limits import Limits

EOCD_SIG = b"PK\x05\x06"
LOCAL_SIG = b"PK\x03\x04"
_CENTRAL_SIG = b"PK\x01\x02"
_EOCD64_LOCATOR_SIG = b"PK\x06\x07"
_EOCD64_SIG = b"PK\x06\x06"
_EOCD = struct.Struct("<4sHHHHIIH")  # 22 bytes
_EOCD64_LOCATOR = struct.Struct("<4sIQI")  # 20 bytes
_EOCD64 = struct.Struct("<4sQHHIIQQQQ")  # 56 bytes
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")  # 46 bytes
_LOCAL = struct.Struct("<4sHHHHHIIIHH")  # 30 bytes
_MAX_COMMENT = 0xFFFF

RATIO_FLOOR = 1_000_000  # the ratio check applies to entries above this uncompressed size
_IN_CHUNK = 256 * 1024
_OUT_CHUNK = 1024 * 1024

# Entries never parsed as XML by any reader of ours: skipped by the entity scan (an SVG
# picture may legitimately carry a DOCTYPE; nothing of ours parses it).
_MEDIA_EXTS = frozenset(
    "png jpg jpeg jpe gif bmp tif tiff emf wmf emz wmz svg ico webp wdp jxr heic "
    "mp3 mp4 m4a wav wma avi mov wmv mpg mpeg bin odttf ttf otf fntdata sigs".split()
)
_ENTITY_MARKERS = tuple(
    word.encode(enc) for word in ("<!doctype", "<!entity")
    for enc in ("utf-8", "utf-16-le", "utf-16-be")
)
_EXTERNAL_RE = re.compile(rb"targetmode\s*=\s*[\"']external[\"']")
_OVERLAP = 32  # bytes carried between chunks so a marker split across two is still seen
_PADDING_RE = re.compile(rb"[ \t\r\n\x0b\x0c\x00]*")  # what may follow an archive

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_STREAMS = ("EncryptionInfo", "EncryptedPackage")
_U16, _U32, _DIFAT = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<109I")



class ByteView(Protocol):
    """What the checks use of `bytes`: length, slices, searches; `bytes` is one."""

    def __len__(self) -> int: ...
    def __getitem__(self, key: slice, /) -> bytes: ...
    def __contains__(self, sub: bytes, /) -> bool: ...
    def find(self, sub: bytes, start: int = 0, end: int = ..., /) -> int: ...
    def rfind(self, sub: bytes, start: int = 0, end: int = ..., /) -> int: ...
    def startswith(self, prefix: bytes, /) -> bool: ...


def _unpack(fmt: struct.Struct, data: ByteView, pos: int) -> tuple:
    """Return `fmt` unpacked at `pos` (struct.error when the bytes end first)."""
    return fmt.unpack(data[pos:pos + fmt.size])


# --- ZIP ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ZipLocation:
    """Where a structurally valid archive sits in the bytes."""

    eocd: int  # offset of the end-of-central-directory record
    end: int  # first byte after the record and its comment
    cd_start: int  # absolute offset of the central directory
    cd_size: int
    count: int  # entry count the end record declares
    prefix: int  # bytes in front of the archive (0 for a plain ZIP)


@dataclass(frozen=True, slots=True)
class ZipEntry:
    """One central-directory entry, offsets absolute in the bytes."""

    name: str
    raw_name: bytes
    flags: int
    method: int
    crc: int
    csize: int
    usize: int
    header: int  # absolute offset of the local header


def locate(data: ByteView) -> ZipLocation | None:
    """Return the archive in `data` (the last end record that checks out), or None."""
    lo = max(0, len(data) - _MAX_COMMENT - _EOCD.size)
    pos = data.rfind(EOCD_SIG, lo)
    while pos >= 0:
        found = _check_eocd(data, pos)
        if found is not None:
            return found
        pos = data.rfind(EOCD_SIG, lo, pos)
    return None


def _check_eocd(data: ByteView, pos: int) -> ZipLocation | None:
    if pos + _EOCD.size > len(data):
        return None
    _, disk, cd_disk, _, count, cd_size, cd_offset, comment = _unpack(_EOCD, data, pos)
    end = pos + _EOCD.size + comment
    if end > len(data) or disk != 0 or cd_disk != 0:
        return None
    record = pos
    if 0xFFFF in (count,) or 0xFFFFFFFF in (cd_size, cd_offset):
        loc = pos - _EOCD64_LOCATOR.size
        if loc < 0 or data[loc:loc + 4] != _EOCD64_LOCATOR_SIG:
            return None
        record = loc - _EOCD64.size
        if record < 0 or data[record:record + 4] != _EOCD64_SIG:
            return None
        fields = _unpack(_EOCD64, data, record)
        count, cd_size, cd_offset = fields[7], fields[8], fields[9]
    cd_start = record - cd_size
    if cd_start < 0 or cd_start < cd_offset:
        return None
    if count and data[cd_start:cd_start + 4] != _CENTRAL_SIG:
        return None
    return ZipLocation(pos, end, cd_start, cd_size, count, cd_start - cd_offset)


def check_bounds(data: ByteView, loc: ZipLocation) -> None:
    """Refuse bytes in front of the archive at `loc` or anything but padding behind it."""
    if loc.prefix:
        raise ParseFailure("type_mismatch", f"{loc.prefix} bytes of something else precede "
                           "the ZIP archive (a polyglot or self-extracting file)")
    if not _PADDING_RE.fullmatch(data[loc.end:]):  # under 64 KiB: the end record's comment
        raise ParseFailure("type_mismatch", "data follows the end of the ZIP archive (a "
                           "polyglot file)")


def read_directory(data: ByteView, loc: ZipLocation, limits: Limits) -> list[ZipEntry]:
    """Return the entries of the archive at `loc`, checking names, counts and encryption."""
    if loc.count > limits.max_zip_entries:
        raise ParseFailure("zip_bomb", f"the archive declares {loc.count} entries, over the "
                           f"limit of {limits.max_zip_entries}")
    entries: list[ZipEntry] = []
    seen: set[str] = set()
    p, end = loc.cd_start, loc.cd_start + loc.cd_size
    while p < end:
        if len(entries) >= limits.max_zip_entries:
            raise ParseFailure("zip_bomb", "the central directory holds more than "
                               f"{limits.max_zip_entries} entries")
        if p + _CENTRAL.size > end or data[p:p + 4] != _CENTRAL_SIG:
            raise ParseFailure("malformed", f"the ZIP central directory is corrupt at byte {p}")
        (_, _, _, flags, method, _, _, crc, csize, usize, nlen, elen, clen,
         disk, _, _, header) = _unpack(_CENTRAL, data, p)
        raw = data[p + 46:p + 46 + nlen]
        extra = data[p + 46 + nlen:p + 46 + nlen + elen]
        p += 46 + nlen + elen + clen
        if p > end:
            raise ParseFailure("malformed", "a ZIP directory entry runs past the directory")
        usize, csize, header = _zip64_sizes(extra, usize, csize, header)
        name = raw.decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
        _check_name(name)
        if name.lower() in seen:  # OPC part names are case-insensitive
            raise ParseFailure("malformed", f"the archive holds two entries named {name!r}; "
                               "readers would disagree on which one counts")
        seen.add(name.lower())
        if flags & 0x1:
            raise ParseFailure("encrypted", f"ZIP entry {name!r} is encrypted; remove the "
                               "password protection and upload the file again")
        entries.append(ZipEntry(name, raw, flags, method, crc, csize, usize,
                                header + loc.prefix))
    if len(entries) != loc.count:
        raise ParseFailure("malformed", f"the ZIP end record declares {loc.count} entries but "
                           f"the directory holds {len(entries)}")
    return entries


def _zip64_sizes(extra: bytes, usize: int, csize: int, header: int) -> tuple[int, int, int]:
    """Return the sizes and offset with ZIP64 extra-field values substituted."""
    if 0xFFFFFFFF not in (usize, csize, header):
        return usize, csize, header
    i = 0
    while i + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, i)
        body = extra[i + 4:i + 4 + size]
        i += 4 + size
        if tag != 0x0001:
            continue
        values = [v[0] for v in struct.iter_unpack("<Q", body[:len(body) // 8 * 8])]
        out = []
        for field in (usize, csize, header):
            if field == 0xFFFFFFFF:
                if not values:
                    raise ParseFailure("malformed", "a ZIP64 extra field is too short")
                field = values.pop(0)
            out.append(field)
        return out[0], out[1], out[2]
    raise ParseFailure("malformed", "a ZIP entry needs a ZIP64 extra field and has none")


def _check_name(name: str) -> None:
    parts = name.replace("\\", "/").split("/")
    if (not name or "\x00" in name or name.startswith(("/", "\\"))
            or re.match(r"^[A-Za-z]:", name) or ".." in parts):
        raise ParseFailure("malformed", f"ZIP entry name {name!r} escapes the archive "
                           "(absolute path or '..'); the file is hostile or damaged")


def scan_entries(data: ByteView, entries: list[ZipEntry], limits: Limits,
                 cd_start: int) -> tuple[str, ...]:
    """Check sizes, overlaps, CRCs and XML of every entry; return the flags found."""
    total = sum(e.usize for e in entries)
    if total > limits.max_zip_inflated:
        raise ParseFailure("zip_bomb", f"the archive inflates to {total} bytes, over the "
                           f"limit of {limits.max_zip_inflated}")
    for e in entries:
        if e.usize > RATIO_FLOOR and e.usize > limits.max_zip_ratio * max(e.csize, 1):
            raise ParseFailure("zip_bomb", f"entry {e.name!r} inflates {e.csize} bytes to "
                               f"{e.usize} (ratio over {limits.max_zip_ratio:g})")
        if e.method not in (0, 8):
            raise ParseFailure("malformed", f"entry {e.name!r} uses compression method "
                               f"{e.method}; Office files use only stored or deflated parts")
        if e.method == 0 and e.csize != e.usize:
            raise ParseFailure("malformed", f"stored entry {e.name!r} has different stored "
                               "and declared sizes")
    spans = sorted(((*_data_span(data, e, cd_start), e) for e in entries),
                   key=lambda t: (t[0], t[1]))
    for (_, end_a, a), (start_b, _, b) in zip(spans, spans[1:], strict=False):
        if start_b < end_a:
            raise ParseFailure("zip_bomb", f"entries {a.name!r} and {b.name!r} share bytes "
                               "(overlapping entries: a zip bomb without recursion)")
    flags: set[str] = set()
    for h, _, e in spans:
        nlen = _unpack(_LOCAL, data, h)[9]
        if data[h + 30:h + 30 + nlen] != e.raw_name:
            raise ParseFailure("malformed", f"the local header of {e.name!r} names another file")
    for _, end, e in spans:
        _scan_entry(data, e, end, limits, flags)
        lower = e.name.lower()
        if lower.endswith("vbaproject.bin") or "/activex/" in f"/{lower}":
            flags.add("active_content")
        if "/embeddings/" in f"/{lower}":
            flags.add("embedded_file")
    return tuple(sorted(flags))


def _data_span(data: ByteView, e: ZipEntry, cd_start: int) -> tuple[int, int]:
    """Return (local header offset, end of data) of an entry."""
    h = e.header
    if h < 0 or h + _LOCAL.size > cd_start or data[h:h + 4] != LOCAL_SIG:
        raise ParseFailure("malformed", f"entry {e.name!r} points at no local header")
    _, _, _, _, _, _, _, _, _, nlen, elen = _unpack(_LOCAL, data, h)
    end = h + 30 + nlen + elen + e.csize
    if end > cd_start:
        raise ParseFailure("malformed", f"entry {e.name!r} runs into the central directory")
    return h, end


def _scan_entry(data: ByteView, e: ZipEntry, end: int, limits: Limits, flags: set[str]) -> None:
    start = end - e.csize
    ext = e.name.rsplit(".", 1)[-1].lower() if "." in e.name.rsplit("/", 1)[-1] else ""
    xml = ext not in _MEDIA_EXTS and not e.name.endswith("/")
    if xml and e.usize > limits.max_xml_part_bytes:
        raise ParseFailure("over_limit", f"part {e.name!r} is {e.usize} bytes, over the "
                           f"{limits.max_xml_part_bytes}-byte limit for one XML part")
    crc = 0
    tail = b""
    for chunk in _inflate(data, start, end, e):
        crc = zlib.crc32(chunk, crc)
        if not xml:
            continue
        window = (tail + chunk).lower()
        if any(m in window for m in _ENTITY_MARKERS):
            raise ParseFailure("xml_entities", f"part {e.name!r} declares a DTD or entities "
                               "(billion laughs / external entity attack); pincite never "
                               "expands them")
        if _EXTERNAL_RE.search(window):
            flags.add("external_ref")
        tail = window[-_OVERLAP:]
    if crc != e.crc:
        raise ParseFailure("malformed", f"entry {e.name!r} fails its CRC check; the file is "
                           "damaged")


def _inflate(data: ByteView, start: int, end: int, e: ZipEntry) -> Iterator[bytes]:
    """Yield the entry's bytes (stored in `data[start:end]`); never more than its declared
    size plus one chunk check."""
    if e.method == 0:
        for i in range(start, end, _OUT_CHUNK):
            yield data[i:min(i + _OUT_CHUNK, end)]
        return
    d = zlib.decompressobj(-15)
    total, pos, pending = 0, start, b""
    try:
        while not d.eof:
            if not pending:
                if pos >= end:
                    break
                pending = data[pos:min(pos + _IN_CHUNK, end)]
                pos += len(pending)
            out = d.decompress(pending, _OUT_CHUNK)
            pending = d.unconsumed_tail
            total += len(out)
            if total > e.usize:
                raise ParseFailure("zip_bomb", f"entry {e.name!r} declares {e.usize} bytes "
                                   "but inflates to more (its size lies)")
            if out:
                yield out
    except zlib.error as exc:
        raise ParseFailure("malformed", f"entry {e.name!r} is not valid deflate data "
                           f"({exc})") from None
    if not d.eof:
        raise ParseFailure("malformed", f"entry {e.name!r} is truncated")
    if total != e.usize:
        raise ParseFailure("malformed", f"entry {e.name!r} declares {e.usize} bytes but "
                           f"holds {total}")


# --- OLE2 ---------------------------------------------------------------------------------

def check_ole(data: ByteView) -> None:
    """Refuse an OLE2 compound file that holds an encrypted Office package (`encrypted`).

    The directory decides when it can be read; when it cannot, the stream names anywhere
    in the bytes do. Any other OLE2 file passes: the caller refuses it in its own terms.
    """
    names = _ole_names(data)
    if names:
        encrypted = any(s in names for s in _ENCRYPTION_STREAMS)
    else:
        encrypted = any(s.encode("utf-16-le") in data for s in _ENCRYPTION_STREAMS)
    if encrypted:
        raise ParseFailure("encrypted", "the file is a password-protected Office document; "
                           "remove the protection (save a copy without a password) and "
                           "upload it again")


def _ole_names(data: ByteView) -> set[str]:
    """Return the stream and storage names in an OLE2 directory (bounded, best effort)."""
    try:
        shift = _unpack(_U16, data, 0x1E)[0]
        size = 1 << shift
        if shift not in (9, 12):
            return set()
        n_fat, first_dir = _unpack(_U32, data, 0x2C)[0], _unpack(_U32, data, 0x30)[0]
        difat = list(_unpack(_DIFAT, data, 0x4C))[:min(n_fat, 109)]
        sector_ids = struct.Struct(f"<{size // 4}I")
        fat: list[int] = []
        for sector in difat:
            off = (sector + 1) * size
            fat.extend(_unpack(sector_ids, data, off))
        names: set[str] = set()
        sector, seen = first_dir, 0
        while sector < 0xFFFFFFFA and seen < 4096:
            off = (sector + 1) * size
            for i in range(0, size, 128):
                raw = data[off + i:off + i + 128]
                if len(raw) < 128:
                    return names
                length = struct.unpack_from("<H", raw, 0x40)[0]
                if 2 <= length <= 64 and raw[0x42] in (1, 2, 5):
                    names.add(raw[:length - 2].decode("utf-16-le", errors="replace"))
            sector = fat[sector] if sector < len(fat) else 0xFFFFFFFE
            seen += 1
        return names
    except (struct.error, IndexError):
        return set()
