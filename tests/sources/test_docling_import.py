"""`pincite ingest --from-docling FILE.json [--source FILE]` (`sources.docling_import`):
the layer from docling's tree, the bytes pinned, the check that the two texts agree, and
the refusals — bad JSON, a file that is not the one docling read, a link, a writer who may
not write — each quarantined or refused with nothing stored.

`docling_data/` holds an export made here with docling's HTML backend (see its README);
docling's own exports beside their files (`../shared/data/docling_testdata`) are read when
present.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

import pincite
from pincite.errors import NotFound
from pincite.library import ingest_docling
from pincite.limits import Limits
from pincite.model import Principal
from tests.commands import invoke
from tests.loud_skips import shared_files, shared_path

DATA = Path(__file__).resolve().parent / "docling_data"
LEASE_JSON = DATA / "lease_notice.docling.json"
LEASE_HTML = DATA / "lease_notice.html"
ANA = Principal.parse("acme:ana:legal")
OTHER_HTML = (b"<html><body><h1>Minutes</h1><p>The board met on Tuesday and approved the "
              b"budget for the new library wing.</p></body></html>")


def _open(tmp_path: Path) -> Any:
    return pincite.open(str(tmp_path / "store"), create=True)


def _import(lib: Any, json_file: Path, source: Path | None = None, **kw: Any) -> Any:
    kw.setdefault("acl", ["group:legal"])
    return ingest_docling(lib, json_file, source=source, tenant="acme", principal=ANA,
                          sandbox=False, **kw)


def test_the_cli_import_pins_the_source_and_its_quotes_verify(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run = invoke("ingest", "--from-docling", str(LEASE_JSON), "--source", str(LEASE_HTML),
                 "--tenant", "acme", "--acl", "group:legal", "--as", str(ANA), "--json",
                 "--no-publish", store=store)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.splitlines()[0])
    assert (result["status"], result["source_id"], result["media_type"]) == (
        "new", "lease_notice.html", "text/html")
    assert result["doc_sha256"] == hashlib.sha256(LEASE_HTML.read_bytes()).hexdigest()
    entries = []
    for quote, locator in (("The monthly rent is 2,450 euros, payable",
                            "Lease renewal notice > Term and rent ¶1"),
                           ("29,988", "table 1 / Base rent / 2027-28")):
        cited = invoke("cite", result["doc_id"], "--quote", quote, "--as", str(ANA), "--json",
                       store=store)
        entry = json.loads(cited.stdout)
        assert (entry["locator"], entry["quote_verified"]) == (locator, True), cited.stderr
        assert entry["text_layer"].startswith("docling@1+")
        entries.append(entry)
    (tmp_path / "cited.json").write_text(json.dumps(entries), "utf-8")
    checked = invoke("verify", str(tmp_path / "cited.json"), "--as", str(ANA), "--json",
                     store=store)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    eve = invoke("verify", str(tmp_path / "cited.json"), "--as", "rival:eve", "--json",
                 store=store)
    assert eve.returncode != 0 and '"ok"' not in eve.stdout  # another tenant: unknown


def test_without_source_the_json_is_pinned_and_reparse_leaves_it(tmp_path: Path) -> None:
    with _open(tmp_path) as lib:
        r = _import(lib, LEASE_JSON)
        assert (r.status, r.media_type) == ("new", "application/json")
        assert r.doc_sha256 == hashlib.sha256(LEASE_JSON.read_bytes()).hexdigest()
        c = lib.cite(ANA, r.doc_id, "shall repair the roof within 30 days")
        assert (c.locator, c.quote_verified) == ("clause 2", True)
        assert lib.reparse(ANA, [r.source_id]) == [(r.doc_id, None)]
        assert lib.verify(ANA, [c])[0].verify_reason == "ok"


def test_another_export_of_the_same_file_is_another_layer_of_its_revision(tmp_path: Path) -> None:
    raw = json.loads(LEASE_JSON.read_text("utf-8"))
    for t in raw["texts"]:
        t["text"] = t["text"].replace("six months'", "six months’")
    second = tmp_path / "again.json"
    second.write_text(json.dumps(raw), "utf-8")
    with _open(tmp_path) as lib:
        first = _import(lib, LEASE_JSON, LEASE_HTML)
        old = lib.cite(ANA, first.doc_id, "Either party may end the lease")
        again = _import(lib, second, LEASE_HTML)
        assert (again.status, again.doc_id) == ("unchanged", first.doc_id)
        assert again.detail.startswith("added text layer docling@1+")
        _, layer = lib.document(ANA, first.doc_id)
        assert again.detail.endswith(layer.layer_id) and layer.layer_id != old.text_layer
        assert lib.verify(ANA, [old])[0].verify_reason == "ok"  # the old layer is kept
        assert _import(lib, second, LEASE_HTML).detail is None  # nothing new the third time


def test_a_source_whose_text_is_not_the_exports_is_quarantined(tmp_path: Path) -> None:
    other = tmp_path / "minutes.html"
    other.write_bytes(OTHER_HTML)
    with _open(tmp_path) as lib:
        r = _import(lib, LEASE_JSON, other)
        assert (r.status, r.reason, r.source_id) == ("quarantined", "text_mismatch",
                                                     "minutes.html")
        assert "is not the text of minutes.html" in r.detail and "agree" in r.detail
        (q,) = lib.quarantined(ANA)
        assert (q.reason, q.path) == ("text_mismatch", str(LEASE_JSON))
        assert lib.store.sources("acme") == []


@pytest.mark.parametrize(("body", "reason"), [
    (b"{ this is not JSON", "malformed"),
    (b'{"schema_name": "SomethingElse", "version": "1.0.0"}', "unsupported_type"),
    (b'{"schema_name": "DoclingDocument", "version": "1.10.0", "body": {"self_ref": '
     b'"#/body", "children": [{"$ref": "#/texts/0"}]}, "texts": [{"self_ref": "#/texts/0", '
     b'"text": ["not", "a", "string"]}]}', "malformed"),
    (b"[" * 2000 + b"]" * 2000, "too_deep"),
    (b" " * 4096 + b"{}", "over_limit"),  # past the 4 KiB limit of this test
], ids=["not-json", "wrong-schema", "wrong-field-type", "nested-bomb", "too-big"])
def test_bad_json_is_quarantined_with_its_reason_and_nothing_stored(
        tmp_path: Path, body: bytes, reason: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(body)
    with _open(tmp_path) as lib:
        r = _import(lib, bad, LEASE_HTML, limits=Limits(max_bytes=4096))
        assert (r.status, r.reason) == ("quarantined", reason), r.detail
        assert [q.reason for q in lib.quarantined(ANA)] == [reason]
        assert lib.store.sources("acme") == []


def test_links_and_files_past_the_limit_are_refused_unread(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(LEASE_JSON)
    with _open(tmp_path) as lib:
        r = _import(lib, link, LEASE_HTML)
        assert (r.status, r.reason) == ("quarantined", "symlink")
        small = Limits(max_bytes=LEASE_JSON.stat().st_size)  # the HTML is smaller, fits
        r = _import(lib, LEASE_JSON, LEASE_HTML, limits=Limits(max_bytes=2000))
        assert (r.status, r.reason) == ("quarantined", "over_limit")
        big = tmp_path / "big.html"
        big.write_bytes(LEASE_HTML.read_bytes() + b" " * small.max_bytes)
        r = _import(lib, LEASE_JSON, big, limits=small)
        assert (r.status, r.reason, r.path) == ("quarantined", "over_limit", str(big))
        assert lib.store.sources("acme") == []


def test_the_write_rule_holds_before_anything_is_read(tmp_path: Path) -> None:
    with _open(tmp_path) as lib:
        lib.ingest_bytes(OTHER_HTML, source_id="lease_notice.html", tenant="acme",
                         acl=["user:alice"], principal=Principal.parse("acme:alice"),
                         sandbox=False)
        with pytest.raises(NotFound):  # ana cannot read alice's source: "not found"
            _import(lib, LEASE_JSON, LEASE_HTML)
        assert [r.revision_id for r in lib.store.revisions("acme", "lease_notice.html")] == ["r1"]
        assert lib.quarantined(ANA) == []
    run = invoke("ingest", "--from-docling", str(LEASE_JSON), "--tenant", "acme",
                 "--as", "rival:eve", store=tmp_path / "store")
    assert run.returncode != 0 and "principal of tenant 'rival'" in run.stderr
    run = invoke("ingest", str(LEASE_HTML), "--from-docling", str(LEASE_JSON),
                 store=tmp_path / "store")
    assert run.returncode != 0 and "--from-docling" in run.stderr


# ---- docling's own exports beside the files they came from (../shared) ------------------

FAMILIES = ("pdf", "docx", "html", "xlsx")


def _source_of(export: Path) -> Path:
    family = export.parts[-3]
    name = export.name.removesuffix(".json")
    return export.parents[1] / "sources" / (f"{name}.pdf" if family == "pdf" else name)


def _wordy(text: str, least: int = 20) -> bool:
    """Return True for a text of `least` characters or more that holds a word."""
    return len(text) >= least and re.search(r"[^\W\d_]{3}", text) is not None


def _quote(text: str) -> str:
    """Return up to the first eight words of `text`."""
    return " ".join(text.split()[:8])


@pytest.mark.shared_data("docling_testdata")
@pytest.mark.parametrize("family", FAMILIES)
def test_docling_test_exports_cite_a_paragraph_and_a_cell_that_verify(
        tmp_path: Path, family: str) -> None:
    exports = shared_files(f"docling_testdata/{family}/groundtruth", "*.json")
    assert shared_path("docling_testdata/LICENSE").is_file()
    kinds, boxes = set(), 0
    with _open(tmp_path) as lib:
        for export in exports:
            raw = json.loads(export.read_bytes())
            r = _import(lib, export, _source_of(export), acl=["*"])
            assert r.status == "new", (export.name, r.reason, r.detail)
            heights = {int(k): p["size"]["height"] for k, p in raw["pages"].items()}
            paras = [t for t in raw["texts"] if t["label"] == "text" and _wordy(t["text"])
                     and t["content_layer"] == "body"  # in the body or under a heading:
                     and t["parent"]["$ref"].startswith(("#/body", "#/texts/"))]
            cells = [c for t in raw["tables"] for c in t["data"]["table_cells"]
                     if _wordy(c["text"], 4) and "\n" not in c["text"]]
            for kind, item in (("paragraph", max(paras, key=lambda t: len(t["text"]), default=None)),
                               ("cell", max(cells, key=lambda c: len(c["text"]), default=None))):
                if item is None:
                    continue
                c = lib.cite(ANA, r.doc_id, _quote(item["text"]))
                once = c.occurrence_count <= 1
                if not once:
                    c = lib.cite(ANA, r.doc_id, _quote(item["text"]), occurrence=1)
                assert lib.verify(ANA, [c])[0].verify_reason == "ok", (export.name, kind)
                kinds.add(kind)
                if kind == "cell":
                    assert c.locator.startswith("table "), (export.name, c.locator)
                prov = item.get("prov") or []
                box = item.get("bbox") if kind == "cell" else (prov[0]["bbox"] if prov else None)
                if family == "pdf" and once and box and (kind == "cell" or len(prov) == 1):
                    assert c.page is not None and c.bbox is not None, export.name
                    h = heights[c.page]
                    want = ((box["l"], h - box["t"], box["r"], h - box["b"])
                            if box["coord_origin"] == "BOTTOMLEFT" else
                            (box["l"], box["t"], box["r"], box["b"]))
                    assert c.bbox == pytest.approx(want, abs=0.01), (export.name, kind)
                    boxes += 1
    assert kinds == ({"cell"} if family == "xlsx" else {"paragraph", "cell"})
    assert (boxes >= 8) if family == "pdf" else (boxes == 0)
