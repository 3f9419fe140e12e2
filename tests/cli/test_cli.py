"""The CLI contract: names, flags, JSON fields and exit codes other tools rely on."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from tests.commands import invoke
from tests.corpus import EXAMPLES

DOC = b"""# Terms

1. PAYMENT

1.1 Invoices are payable within thirty (30) days.

2. LAW

2.1 This Agreement is governed by the laws of Spain.
"""


def test_help_is_fast_and_lists_every_command():
    def timed() -> tuple[subprocess.CompletedProcess[str], float]:
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pincite.cli", "--help"],
                              capture_output=True, text=True, timeout=30)
        return done, time.perf_counter() - t

    # best of three: a busy CI machine should not fail a startup-time contract by chance
    out, elapsed = min((timed() for _ in range(3)), key=lambda r: r[1])
    assert out.returncode == 0
    assert elapsed < 1.0, f"pincite --help took {elapsed:.2f}s"
    for cmd in ("ingest", "acl", "sources", "show", "fsck", "cite", "verify", "reparse", "eval"):
        assert cmd in out.stdout
    # heavy libraries are not imported by --help
    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.argv=['pincite','--help']\n"
         "import pincite.cli\n"
         "try:\n    pincite.cli.main()\nexcept SystemExit:\n    pass\n"
         "bad=[m for m in ('pypdfium2','docx','openpyxl','lxml','sqlite3') if m in sys.modules]\n"
         "print('HEAVY', bad)"],
        capture_output=True, text=True, timeout=30)
    assert "HEAVY []" in probe.stdout, probe.stdout + probe.stderr


def test_ingest_json_contract_and_cite_verify_round_trip(tmp_path):
    store = tmp_path / "s"
    f = tmp_path / "terms.md"
    f.write_bytes(DOC)
    out = invoke("ingest", str(f), "--tenant", "acme", "--acl", "group:legal", "--json",
                  store=store)
    assert out.returncode == 0, out.stderr
    line = json.loads(out.stdout)
    assert set(line) >= {"path", "source_id", "revision_id", "doc_id", "doc_sha256",
                         "media_type", "status", "reason", "flags"}
    assert (line["source_id"], line["doc_id"], line["status"]) == ("terms.md", "terms.md@r1", "new")
    assert line["media_type"] == "text/markdown" and line["reason"] is None
    # --store after the command name works too
    cited = invoke("cite", "terms.md", "--store", str(store), "--as", "acme:ana:legal",
                   "--quote", "governed by the laws of Spain",
                   "--quote", "governed by the laws of France", "--json")
    assert cited.returncode == 1  # one quote missing
    first, second = [json.loads(x) for x in cited.stdout.splitlines()]
    assert second == {"quote": "governed by the laws of France", "error": "not_found",
                      "message": "quote 'governed by the laws of France' is not in the text "
                                 "layer of terms.md@r1; check the wording or cite a shorter "
                                 "passage"}
    assert first["quote_verified"] is True and first["locator"] == "clause 2.1"
    cfile = tmp_path / "c.json"
    cfile.write_text(json.dumps({"records": [{"provenance": [first]}]}))
    ok = invoke("verify", str(cfile), "--as", "acme:ana:legal", "--json", store=store)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {"doc_id": "terms.md@r1", "char_start": first["char_start"],
                                     "char_end": first["char_end"], "quote_verified": True,
                                     "verify_reason": "ok", "comparison": "cmp-2"}
    # another tenant: not found, no hint that it exists
    other = invoke("verify", str(cfile), "--as", "evil:ana:legal", "--json", store=store)
    assert other.returncode == 1
    assert json.loads(other.stdout)["verify_reason"] == "unknown_document"
    shown = invoke("show", "terms.md", "--as", "evil:ana", store=store)
    assert shown.returncode == 1 and "not found" in shown.stderr
    missing = invoke("show", "nothing.md", "--as", "acme:ana:legal", store=store)
    assert missing.stderr.splitlines()[0] == shown.stderr.splitlines()[0].replace(
        "terms.md", "nothing.md")
    # what follows the error (who evil:ana was taken to be) is the same for a document that
    # does not exist: it speaks of the caller only
    absent = invoke("show", "nothing.md", "--as", "evil:ana", store=store)
    assert absent.stderr == shown.stderr.replace("terms.md", "nothing.md")


def test_show_by_locator_and_chars(tmp_path):
    store = tmp_path / "s"
    f = tmp_path / "terms.md"
    f.write_bytes(DOC)
    invoke("ingest", str(f), store=store)
    out = invoke("show", "terms.md", "--locator", "clause 1.1", "--json", store=store)
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["text"] == "1.1 Invoices are payable within thirty (30) days."
    rng = invoke("show", "terms.md@r1", "--chars", f"{obj['char_start']}:{obj['char_start'] + 3}",
                  store=store)
    assert rng.stdout.strip() == "1.1"
    bad = invoke("show", "terms.md", "--chars", "5:1", store=store)
    assert bad.returncode == 2


def test_usage_errors_exit_2_and_default_acl_is_announced(tmp_path):
    store = tmp_path / "s"
    f = tmp_path / "a.txt"
    f.write_bytes(b"hello world")
    out = invoke("ingest", str(f), store=store)
    assert out.returncode == 0
    assert "acl * for new sources (default)" in out.stderr
    assert "tenant default (default)" in out.stderr
    bad = invoke("ingest", str(f), "--acl", "admin", store=store)
    assert bad.returncode == 2 and "invalid ACL entry" in bad.stderr
    bad_as = invoke("show", "a.txt", "--as", "nocolon", store=store)
    assert bad_as.returncode == 2


def test_ingest_without_acl_keeps_existing_acl(tmp_path):
    store = tmp_path / "s"
    f = tmp_path / "a.txt"
    f.write_bytes(b"first version")
    invoke("ingest", str(f), "--acl", "user:ana", "--as", "default:ana", store=store)
    f.write_bytes(b"second version")  # revised by a reader (the write rule: reading)
    out = invoke("ingest", str(f), "--json", "--as", "default:ana", store=store)
    assert json.loads(out.stdout)["status"] == "revised"
    listed = invoke("sources", "--as", "default:ana", "--json", store=store)
    assert json.loads(listed.stdout)["acl"] == ["user:ana"]
    assert invoke("sources", "--as", "default:bob", "--json", store=store).stdout == ""


def test_examples_corpus_ingests_cleanly(tmp_path):
    out = invoke("ingest", str(EXAMPLES), "--json", store=tmp_path / "s")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert {x["source_id"]: x["status"] for x in lines} == {
        "tender/anexo-tecnico.docx": "new", "tender/anuncio.html": "new",
        "tender/pliego.pdf": "new", "workbook/annual-report.pdf": "new",
        "workbook/key-figures.xlsx": "new", "workbook/marks.csv": "new",
        "workbook/operating-model.xlsx": "new"}


def test_tables_and_facts_commands_on_the_example_tender(tmp_path):
    store = tmp_path / "s"
    invoke("ingest", str(EXAMPLES), store=store)
    out = invoke("tables", "tender/anexo-tecnico.docx", "--json", store=store)
    assert out.returncode == 0, out.stderr
    [table] = [json.loads(x) for x in out.stdout.splitlines()]
    assert (table["schema_name"], table["n_rows"], table["n_cols"]) == ("pincite.table", 3, 2)
    cell = next(c for c in table["cells"] if c["text"] == "4")
    assert (cell["row_path"], cell["column_path"]) == (["Oficial electricista"], ["Número"])
    assert cell["locator"] == "table 1 / Oficial electricista / Número"
    facts = invoke("facts", "tender/pliego.pdf", "--type", "money", "--json", store=store)
    assert facts.returncode == 0, facts.stderr
    rows = [json.loads(x) for x in facts.stdout.splitlines()]
    assert {r["value_type"] for r in rows} == {"money"}
    turnover = next(r for r in rows if r["value"] == "450.000 euros")
    assert (turnover["normalized_value"], turnover["currency"]) == ("450000", "EUR")
    assert turnover["qualifier"] == "igual o superior a"
    assert turnover["locator"] == "clause 7.1.a"
    # a fact is a citation: its span verifies
    cfile = tmp_path / "f.json"
    cfile.write_text(json.dumps({
        "doc_id": turnover["doc_id"], "doc_sha256": next(
            s["doc_sha256"] for s in map(json.loads, invoke(
                "sources", "--json", store=store).stdout.splitlines())
            if s["source_id"] == "tender/pliego.pdf"),
        "text_layer": turnover["text_layer"], "locator": turnover["locator"],
        "char_start": turnover["char_start"], "char_end": turnover["char_end"],
        "quote": turnover["value"]}))
    ver = invoke("verify", str(cfile), "--json", store=store)
    assert json.loads(ver.stdout)["verify_reason"] == "ok", ver.stdout + ver.stderr
    bad = invoke("facts", "tender/pliego.pdf", "--type", "potatoes", store=store)
    assert bad.returncode == 2
