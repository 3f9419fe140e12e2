"""Progress that says something (issue 30 item 4): documents and pages of an ingest, pages
read by OCR, the plain lines of a piped run, and what the worker may not report.

The piped runs are real processes with stderr a pipe; the terminal is Rich's own console
forced to be one (`force_terminal=True`), in process, so its frames can be read."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

import pincite
from pincite.cli.progress_lines import ENV, Progress, shown
from pincite.errors import ParseFailure
from pincite.limits import Limits, OcrSettings
from pincite.sources.sandbox import TEST_ENV, ParserSandbox
from pincite.vocab import ProgressUnit
from tests.commands import invoke, run_cli

ROOT = Path(__file__).resolve().parents[2]
TWO = [ROOT / "examples" / "tender" / "anuncio.html", ROOT / "examples" / "workbook" / "annual-report.pdf"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def frames(buf: io.StringIO) -> list[str]:
    """Return the lines a terminal was sent, without escape codes, one per redraw."""
    text = ANSI.sub("", buf.getvalue()).replace("\r", "\n")
    return [line.rstrip() for line in text.split("\n") if line.strip()]


def test_a_piped_ingest_writes_one_plain_line_per_document_and_the_same_stdout(tmp_path):
    args = ("ingest", *map(str, TWO), "--no-publish", "--json")
    piped = run_cli(*args, store=tmp_path / "a")  # a process, stderr a pipe
    quiet = invoke(*args, store=tmp_path / "b", env={ENV: "off"})
    assert piped.returncode == 0 and quiet.returncode == 0, piped.stderr + quiet.stderr
    lines = [ln for ln in piped.stderr.splitlines() if ln.startswith("ingest: ")]
    assert lines == ["ingest: document 1/2 anuncio.html",
                     "ingest: document 2/2 annual-report.pdf"]
    assert "\r" not in piped.stderr and "\x1b" not in piped.stderr  # no bar, no escapes
    assert piped.stdout == quiet.stdout and len(piped.stdout.splitlines()) == 2
    assert "ingest:" not in quiet.stderr and "ingest:" not in piped.stdout
    text = invoke("ingest", str(TWO[0]), "--no-publish", store=tmp_path / "c")
    assert text.stdout == "new         anuncio.html@r1 [hidden_text]\n"  # no blank line
    assert "ingest: document 1/1 anuncio.html" in text.stderr


def test_a_terminal_shows_the_pages_of_a_multi_page_pdf_and_the_documents(tmp_path):
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    with pincite.open(tmp_path / "s", create=True) as lib, \
            shown("ingest", console=console) as bar:
        assert bar.live
        lib.ingest([TWO[1]], tenant="t", acl=["*"], publish=False, report=bar.report)
    shown_lines = frames(buf)
    assert any(re.search(r"━ 2/2 pages\b", ln) for ln in shown_lines), shown_lines
    assert any("ingest annual-report.pdf" in ln and "0/1 documents" in ln
               for ln in shown_lines), shown_lines
    assert any("1/1 documents" in ln for ln in shown_lines), shown_lines


def test_pages_read_by_ocr_are_counted_out_of_the_pages_ocr_may_read(tmp_path):
    pytest.importorskip("tesserocr")
    from pincite.evals.scans import scan_pdf
    from tests.parse.test_ocr import P1, P2, merged, text_pdf

    born = text_pdf([P1, P2])
    pdf = tmp_path / "mixed.pdf"  # page 1 born-digital, page 2 a scan
    pdf.write_bytes(merged((born, [0]), (scan_pdf(born, pages=[2]), [0])))
    seen: list[tuple[ProgressUnit, int, int | None, str]] = []

    def report(unit: ProgressUnit, done: int, total: int | None, label: str = "", /) -> None:
        seen.append((unit, done, total, label))

    with pincite.open(tmp_path / "s", create=True) as lib:  # parsed in the sandbox worker
        lib.ingest([pdf], tenant="t", acl=["*"], publish=False, report=report)
    assert seen == [(ProgressUnit.DOCUMENT, 0, 1, "mixed.pdf"),
                    (ProgressUnit.PAGE, 1, 2, ""), (ProgressUnit.PAGE, 2, 2, ""),
                    (ProgressUnit.OCR_PAGE, 0, 1, ""), (ProgressUnit.OCR_PAGE, 1, 1, ""),
                    (ProgressUnit.DOCUMENT, 1, 1, "")]


def test_cases_write_a_plain_line_at_each_tenth_and_labels_are_made_harmless():
    out = io.StringIO()
    with Progress("eval x", mode="plain", stream=out) as bar:
        bar.total(ProgressUnit.CASE, 25)
        for _ in range(25):
            bar.advance(ProgressUnit.CASE)
        bar.report(ProgressUnit.STEP, 0, 2, "a\x1b[2Jb\u202ec\nd")
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["eval x: 3/25 cases", "eval x: 5/25 cases"]
    assert len(lines) == 11 and lines[9] == "eval x: 25/25 cases"
    assert lines[10] == "eval x: step 1/2 a?[2Jb?c?d"  # no escape, bidi or newline passes
    buf = io.StringIO()
    with Progress("x", mode="rich", console=Console(file=buf, force_terminal=True)) as bar:
        bar.report(ProgressUnit.DOCUMENT, 0, 1, "[bold red]name[/]")
    assert any("[bold red]name[/]" in ln for ln in frames(buf))  # shown, not read as markup
    silent = io.StringIO()
    with Progress("x", mode="off", stream=silent) as bar:
        bar.report(ProgressUnit.STEP, 0, 1, "a step")
    assert silent.getvalue() == ""


def test_an_unknown_progress_mode_is_refused(tmp_path):
    r = invoke("ingest", str(TWO[0]), store=tmp_path / "s", env={ENV: "loud"})
    assert r.returncode == 2
    assert "PINCITE_PROGRESS='loud' is not a progress mode: use auto, plain, off" in r.stderr


LIMITS = Limits(parse_seconds=1.0, parse_cpu_seconds=5, parse_memory_bytes=512 << 20)


def test_the_worker_cannot_keep_the_parent_waiting_or_report_what_no_parser_does(monkeypatch):
    monkeypatch.setenv(TEST_ENV, "1")
    got: list[tuple] = []
    # page reports renew nothing: a worker that only reports is stopped at the wall clock
    with ParserSandbox(LIMITS) as box, pytest.raises(ParseFailure) as info:
        box.parse("__chatter__", b"", report=lambda *r: got.append(r))
    assert info.value.reason == "timeout" and box.worker_pid is None
    assert 5 <= len(got) <= 40 and got[0] == (ProgressUnit.PAGE, 1, None)
    # no more reports than the page limits allow
    few = replace(LIMITS, max_pages=3, ocr=OcrSettings(max_pages=2))
    with ParserSandbox(few) as box, pytest.raises(ParseFailure) as info:
        box.parse("__chatter__", b"", report=lambda *r: None)
    assert info.value.reason == "malformed" and "progress report" in info.value.detail
    # a count no parser reports stops the worker at once
    with ParserSandbox(LIMITS) as box, pytest.raises(ParseFailure) as info:
        box.parse("__babble__", b"", report=lambda *r: None)
    assert info.value.reason == "malformed" and box.worker_pid is None
