"""Hostile numbers and JSON at the CLI (issue 14, class 7): every bad input ends in one
clean `error:` line and a non-zero exit, never a traceback; `fsck` reports a damaged
database as damage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.store import SQLiteStore
from tests.commands import invoke
from tests.review.queues import synthetic_queue

AS = ("--as", "t:ana:rev")
HUGE = "9" * 30  # beyond SQLite's 64-bit integers


@pytest.fixture(scope="module")
def queue_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "s"
    store = SQLiteStore(root)
    synthetic_queue(store, 2)
    store.close()
    return root


def _clean(res, code: int = 2) -> str:  # type: ignore[no-untyped-def]
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    assert res.returncode == code, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    return lines[0]


BAD_OPTIONS = [
    ("review", "next", "--lease", "1e400", *AS),
    ("review", "next", "--lease", "nan", *AS),
    ("review", "next", "--lease", "inf", *AS),
    ("review", "next", "--lease", "1e300", *AS),
    ("review", "decide", HUGE, "--decision", "accept", *AS),
    ("review", "release", HUGE, *AS),
    ("review", "incidents", "--clear", HUGE, *AS),
    ("review", "settings", "--stamp-seconds", "nan", *AS),
    ("review", "settings", "--stamp-seconds", "inf", *AS),
    ("review", "settings", "--audit-fraction", "nan", *AS),
    ("review", "settings", "--stamp-run", HUGE, *AS),
    ("fsck", "--grace", "1e400"),
    ("fsck", "--grace", "nan"),
    ("index", "prune", "--keep", HUGE),
    ("index", "prune", "--keep", "-1"),
    ("review", "serve", "--port", HUGE, *AS),
]


@pytest.mark.parametrize("args", BAD_OPTIONS, ids=lambda a: " ".join(a[:4]))
def test_bad_numbers_in_options_are_one_line_errors(queue_store, args):
    line = _clean(invoke(*args, store=queue_store))
    assert "must be" in line


def test_settings_are_unchanged_by_refused_numbers(queue_store):
    before = invoke("review", "settings", "--json", *AS, store=queue_store)
    invoke("review", "settings", "--stamp-seconds", "nan", *AS, store=queue_store)
    after = invoke("review", "settings", "--json", *AS, store=queue_store)
    assert before.returncode == 0 and before.stdout == after.stdout


def _citation(store: Path) -> dict:
    res = invoke("cite", "doc.md", "--quote", "Payment within 30 days.", "--json", *AS,
                 store=store)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _verify(store: Path, tmp_path: Path, raw: str):  # type: ignore[no-untyped-def]
    f = tmp_path / "in.json"
    f.write_text(raw, encoding="utf-8")
    return invoke("verify", str(f), *AS, store=store)


def test_verify_refuses_malformed_numbers_and_boxes_cleanly(queue_store, tmp_path):
    c = _citation(queue_store)
    assert _verify(queue_store, tmp_path, json.dumps(c)).returncode == 0
    bad = [{**c, "bbox": 5}, {**c, "bbox": "abcd"}, {**c, "bbox": [1, 2]},
           {**c, "bbox": {"x0": 1}}, {**c, "bbox": [1, 2, 3, "x"]},
           {**c, "char_start": 10**30}, {**c, "char_end": -1}, {**c, "page": 10**30},
           {**c, "page": "x"}, {**c, "char_start": 1.5}]
    for entry in bad:
        line = _clean(_verify(queue_store, tmp_path, json.dumps(entry)))
        assert "bbox" in line or "must be" in line
    text = json.dumps(c)
    for raw in (text.replace(f'"char_start": {c["char_start"]}', '"char_start": 1e400'),
                text.replace(f'"char_end": {c["char_end"]}', '"char_end": NaN'),
                text.replace('"page": null', '"page": Infinity') if '"page": null' in text
                else text.replace(f'"char_end": {c["char_end"]}', '"char_end": -Infinity')):
        assert "not usable JSON" in _clean(_verify(queue_store, tmp_path, raw))


def test_verify_refuses_deep_json_without_recursing(queue_store, tmp_path):
    for raw in ("[" * 100_000 + "]" * 100_000, "[" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        assert "nests deeper" in _clean(_verify(queue_store, tmp_path, raw))
    (tmp_path / "q.jsonl").write_text("[" * 100_000 + "\n", encoding="utf-8")
    _clean(invoke("cite", "doc.md", "--quotes", str(tmp_path / "q.jsonl"), *AS,
                  store=queue_store))
    _clean(invoke("review", "decide", "1", "--decision", "correct", "--value", "[" * 100_000,
                  *AS, store=queue_store))


def test_input_files_that_are_not_utf8_are_one_line_errors(queue_store, tmp_path):
    """Found by the acceptance suite: `verify` and `index diff --queries` read their file as
    UTF-8 and a UTF-16 file ended in a UnicodeDecodeError traceback."""
    bad = tmp_path / "utf16.json"
    bad.write_bytes(b"\xff\xfe" + json.dumps({"doc_id": "doc.md"}).encode("utf-16-le"))
    assert "is not UTF-8 text" in _clean(invoke("verify", str(bad), *AS, store=queue_store))
    line = _clean(invoke("index", "diff", "g000001", "g000002", "--queries", str(bad), *AS,
                         store=queue_store))
    assert "is not UTF-8 text" in line


def _damage(store: Path, start: int, end: int) -> None:
    db = store / "pincite.db"
    data = bytearray(db.read_bytes())
    data[start:end] = b"Z" * (min(end, len(data)) - start)
    db.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


@pytest.mark.parametrize("where", [(8192, 24576), (0, 4096)], ids=["pages", "header"])
def test_fsck_reports_a_damaged_database_as_damage(tmp_path, where):
    store = tmp_path / "s"
    s = SQLiteStore(store)
    synthetic_queue(s, 2)
    s.close()
    blobs = sorted(p for p in (store / "blobs").rglob("*") if p.is_file())
    _damage(store, *where)
    res = invoke("fsck", "--grace", "0", store=store)
    assert res.returncode == 1 and "Traceback" not in res.stderr + res.stdout, res.stderr
    damage = [ln for ln in res.stdout.splitlines() if ln.startswith("DAMAGE")]
    assert damage and any("sqlite:" in ln for ln in damage) and res.stdout.strip().endswith("damaged")
    js = invoke("fsck", "--json", "--grace", "0", store=store)
    report = json.loads(js.stdout)
    assert js.returncode == 1 and report["ok"] is False and report["damage"]
    assert all("\n" not in line for line in report["damage"])
    # a damaged database never lets fsck judge blobs unreferenced and delete them
    assert sorted(p for p in (store / "blobs").rglob("*") if p.is_file()) == blobs


def test_a_query_meeting_a_damaged_page_is_a_clean_error_naming_the_database(tmp_path):
    store = tmp_path / "s"
    doc = tmp_path / "fee.txt"
    doc.write_text("The fee is 100 euros, payable within 30 days of the invoice.")
    assert invoke("ingest", str(doc), "--tenant", "t", store=store).returncode == 0
    _damage(store, 8192, 20480)
    for args in (["sources"], ["show", "fee.txt"], ["search", "fee"], ["ask", "What is the fee?"],
                 ["review", "list"]):
        res = invoke(*args, "--as", "t:u", store=store)
        assert res.returncode == 1, (args, res.stdout, res.stderr)
        assert "Traceback" not in res.stderr + res.stdout
        assert f"the database {store / 'pincite.db'} is damaged" in res.stderr
        assert "run `pincite fsck`" in res.stderr


def test_verify_prints_a_doc_id_read_from_a_file_without_its_control_characters(tmp_path):
    store = tmp_path / "s"
    doc = tmp_path / "fee.txt"
    doc.write_text("The fee is 100 euros.")
    assert invoke("ingest", str(doc), "--tenant", "t", store=store).returncode == 0
    entry = {"doc_id": "ev\u202eil.pdf\x1b[2J@r1", "doc_sha256": "", "text_layer": "",
             "locator": "", "page": None, "bbox": None, "char_start": 0, "char_end": 4,
             "quote": "test"}
    (tmp_path / "c.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    res = invoke("verify", str(tmp_path / "c.jsonl"), "--as", "t:u", store=store)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "\u202e" not in res.stdout + res.stderr and "\x1b" not in res.stdout + res.stderr
    assert "ev\\u202eil.pdf\\u001b[2J@r1" in res.stdout
