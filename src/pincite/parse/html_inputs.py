"""What an HTML document's bytes and tree say before it is read (`parse.html`): the encoding
to decode it with, and whether it refers to anything remote (`external_ref`)."""

from __future__ import annotations

import re

import lxml.etree

from .decoding import bom_encoding

_META_CHARSET_RE = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_\-:.]+)", re.I)
_REMOTE_RE = re.compile(r"^\s*(?:https?:|ftp:|file:|//|\\\\)", re.I)
_CSS_REMOTE_RE = re.compile(
    r"url\(\s*[\"']?\s*(?:https?:|ftp:|file:|//)|@import\s+[\"']\s*(?:https?:|ftp:|//)", re.I
)
_REF_ATTRS = ("src", "data", "poster", "background", "lowsrc", "dynsrc", "longdesc")
_WINDOWS_1252_ALIASES = {"iso-8859-1", "iso8859-1", "latin1", "latin-1", "us-ascii", "ascii",
                         "l1", "iso_8859-1", "cp819", "ibm819"}



def sniff_encoding(data: bytes) -> str:
    """Return the encoding to decode `data` with: a BOM's, a `<meta charset>`'s in the
    first 4 KiB (ISO-8859-1 and ASCII as windows-1252, as browsers do), else UTF-8."""
    enc, _ = bom_encoding(data)
    if enc:
        return enc
    m = _META_CHARSET_RE.search(data[:4096])
    if m:
        name = m.group(1).decode("ascii", "ignore").strip().lower()
        if name in _WINDOWS_1252_ALIASES:
            return "cp1252"
        if name.startswith("utf-16") or name.startswith("utf-32"):
            return "utf-8"  # a meta tag cannot declare a 16-bit encoding (WHATWG)
        try:
            "".encode(name)
        except LookupError:
            return "utf-8"
        return name
    return "utf-8"


def tag_of(el: lxml.etree._Element) -> str | None:
    """Return the element's tag name, lower case, without namespace (None: a comment,
    processing instruction or entity)."""
    tag = el.tag
    if not isinstance(tag, str):
        return None  # comment, processing instruction, entity
    return tag.rsplit("}", 1)[-1].lower()



def has_external_refs(root: lxml.etree._Element) -> bool:
    """Return True when the tree refers to anything remote (`external_ref`; never fetched)."""
    for el in root.iter():
        tag = tag_of(el)
        if tag is None:
            continue
        a = el.attrib
        for name in _REF_ATTRS:
            v = a.get(name)
            if v and _REMOTE_RE.match(v):
                return True
        if tag in ("link", "base") and _REMOTE_RE.match(a.get("href", "")):
            return True
        srcset = a.get("srcset") or a.get("imagesrcset")
        if srcset and any(_REMOTE_RE.match(p) for p in srcset.split(",")):
            return True
        style = a.get("style")
        if style and _CSS_REMOTE_RE.search(style):
            return True
        if tag == "style" and el.text and _CSS_REMOTE_RE.search(el.text):
            return True
        if tag == "meta" and a.get("http-equiv", "").lower() == "refresh":
            if re.search(r"url\s*=\s*['\"]?\s*(?:https?:|ftp:|//)", a.get("content", ""), re.I):
                return True
    return False
