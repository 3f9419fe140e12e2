"""HTML that hides text from a reader is flagged `hidden_text` (tiny and white text too), the
documented nesting limit is honoured (nothing at or above it is dropped), and nesting past
what libxml2 reads is refused with its own quarantine reason, not `empty`."""

from __future__ import annotations

import pytest

from pincite.errors import ParseFailure
from pincite.parse import parse
from pincite.vocab import QuarantineReason


def _flags(html: str) -> dict[str, tuple[str, ...]]:
    layer = parse("html", html.encode())
    return {layer.text[e.char_start:e.char_end]: e.flags for e in layer.elements}


@pytest.mark.parametrize("style", [
    "font-size:1px", "font-size: 1px; color: #fff", "font-size:0.5pt", "font-size:1.5px",
    "font-size:0.1em", "color:#fff", "color:#FFFFFF", "color: white", "color:rgb(255, 255, 255)",
    "color:transparent", "color:#fff; background-color:#fff", "display:none",
])
def test_text_a_reader_does_not_see_is_flagged(style):
    flags = _flags(f'<p>Shown.</p><p style="{style}">Price 999 EUR.</p>')
    assert flags == {"Shown.": (), "Price 999 EUR.": ("hidden_text",)}


@pytest.mark.parametrize("html", [
    '<p style="font-size:12px">Price 999 EUR.</p>',
    '<p style="font-size:2em; color:#222">Price 999 EUR.</p>',
    '<div style="background:#000"><p style="color:#fff">Price 999 EUR.</p></div>',
    '<p style="background-color: navy; color: white">Price 999 EUR.</p>',
    '<table bgcolor="#003"><tr><td style="color:#fff">Price 999 EUR.</td></tr></table>',
    '<p style="background-color:#fff;color:#333">Price 999 EUR.</p>',
])
def test_visible_text_is_not_flagged(html):
    layer = parse("html", html.encode())
    assert "hidden_text" not in layer.flags
    assert all("hidden_text" not in e.flags for e in layer.elements)


def test_a_hidden_table_cell_is_flagged_on_its_own():
    layer = parse("html", b"<table><tr><td>a</td><td style='font-size:1px'>b</td></tr>"
                          b"<tr><td>c</td><td>d</td></tr></table>")
    cells = {layer.text[e.char_start:e.char_end]: e.flags for e in layer.elements
             if e.kind == "cell"}
    assert cells == {"a": (), "b": ("hidden_text",), "c": (), "d": ()}


def _nested(n: int) -> bytes:
    return (b"<p>before</p>" + b"<div>" * n + b"<p>inner</p>" + b"</div>" * n
            + b"".join(b"<p>after %d</p>" % i for i in range(3)))


@pytest.mark.parametrize("n", [300, 400, 510])
def test_nesting_within_the_documented_limit_keeps_everything(n):
    layer = parse("html", _nested(n))
    assert layer.text.split("\n\n") == ["before", "inner", "after 0", "after 1", "after 2"]
    assert "truncated" not in layer.flags


@pytest.mark.parametrize("n", [511, 600, 2000])
def test_nesting_past_the_limit_drops_only_the_deeper_text_and_says_so(n):
    layer = parse("html", _nested(n))
    assert layer.text.split("\n\n") == ["before", "after 0", "after 1", "after 2"]
    assert "truncated" in layer.flags


@pytest.mark.parametrize("n", [600, 2000])
def test_a_file_whose_only_text_is_past_the_limit_is_too_deep_not_empty(n):
    """Found by the acceptance suite: all the text dropped for depth read as `empty`."""
    with pytest.raises(ParseFailure) as exc:
        parse("html", b"<html><body>" + b"<div>" * n + b"<p>deep text</p>" + b"</div>" * n
              + b"</body></html>")
    assert exc.value.reason == "too_deep" and "512 levels" in exc.value.message
    with pytest.raises(ParseFailure) as empty:
        parse("html", b"<html><body>" + b"<div>" * 20 + b"</div>" * 20 + b"</body></html>")
    assert empty.value.reason == "empty"


@pytest.mark.parametrize("n", [3000, 100_000])
def test_nesting_past_what_the_parser_reads_is_refused_as_too_deep(n):
    for data in (_nested(n), b"<div>" * n + b"deep" + b"</div>" * n):
        with pytest.raises(ParseFailure) as exc:
            parse("html", data)
        assert exc.value.reason == QuarantineReason.TOO_DEEP == "too_deep"
        assert "deeper" in exc.value.message


def test_a_too_deep_file_is_quarantined_with_its_reason(lib):
    res = lib.ingest_bytes(b"<html><body>" + b"<div>" * 100_000 + b"x" + b"</div>" * 100_000
                           + b"</body></html>", source_id="deep.html", tenant="acme",
                           acl=["group:legal"], name="deep.html")
    assert res.status == "quarantined"
    [q] = lib.store.quarantined("acme")
    assert q.reason == "too_deep"


# ---- rules of the document's own <style> sheets (parse.stylesheet) -------------------------

SHEET_HIDES = {
    "class": ("<style>.x{display:none}</style>", '<p class="x">'),
    "one of several classes": ("<style>.a.off { visibility : hidden }</style>", '<p class="a off b">'),
    "id": ("<style>#fee{font-size:0}</style>", '<p id="fee">'),
    "type and attribute": ('<style>p[data-k="v"]{opacity:0}</style>', '<p data-k="v">'),
    "descendant": ("<style>div.box span{display:none}</style>", '<div class="box"><p><span>'),
    "child, in a selector list, after a comment": (
        "<style>/* layout */ h9, .wrap > p { color: transparent }</style>", '<div class="wrap"><p>'),
    "tiny text": ("<style>.t{font-size:0.5px}</style>", '<p class="t">'),
    "after an @media block and an @import": (
        "<style>@import 'x.css'; @media print{.n{color:red}} .x{display:none}</style>",
        '<p class="x">'),
}


@pytest.mark.parametrize("sheet,open_tag", SHEET_HIDES.values(), ids=SHEET_HIDES.keys())
def test_text_a_style_sheet_rule_hides_is_flagged(sheet, open_tag):
    closing = "".join(f"</{t.split()[0].strip('<>')}>" for t in reversed(open_tag.split("<")[1:]))
    flags = _flags(f"<html><head>{sheet}</head><body><p>Shown.</p>"
                   f"{open_tag}Price 999 EUR.{closing}</body></html>")
    assert flags == {"Shown.": (), "Price 999 EUR.": ("hidden_text",)}


@pytest.mark.parametrize("sheet,open_tag", [
    ("<style>.x{display:none}</style>", '<p class="xx">'),          # another class
    ("<style>div.box span{display:none}</style>", '<div><p><span>'),  # no such ancestor
    ("<style>@media print{.x{display:none}}</style>", '<p class="x">'),  # device-dependent
    ("<style>.x:hover{display:none}</style>", '<p class="x">'),       # pseudo-class: skipped
    ("<style>.x{display:block; color:#333}</style>", '<p class="x">'),
    ("<style>.x{color:#fff} .d{background:#123}</style>", '<div class="d"><p class="x">'),  # on a dark ground
])
def test_style_sheet_rules_that_do_not_hide_this_text_flag_nothing(sheet, open_tag):
    closing = "".join(f"</{t.split()[0].strip('<>')}>" for t in reversed(open_tag.split("<")[1:]))
    layer = parse("html", f"<html><head>{sheet}</head><body>{open_tag}Price 999 EUR."
                          f"{closing}</body></html>".encode())
    assert all("hidden_text" not in e.flags for e in layer.elements)


def test_past_its_step_budget_the_sheet_flags_more_never_less(monkeypatch):
    from pincite.parse import stylesheet
    html = ("<html><head><style>div.deep div div .k{display:none}</style></head><body>"
            + '<p class="k">Outside 1.</p>' * 30
            + '<div class="deep"><div><div><p class="k">Price 999 EUR.</p></div></div></div>'
            + "</body></html>")
    exact = _flags(html)
    assert exact["Price 999 EUR."] == ("hidden_text",) and exact["Outside 1."] == ()
    monkeypatch.setattr(stylesheet, "MAX_STEPS", 10)
    bounded = _flags(html)
    assert bounded["Price 999 EUR."] == ("hidden_text",) and bounded["Outside 1."] == ("hidden_text",)


def test_a_hostile_style_sheet_finishes_quickly():
    import time
    body = "<div>" * 300 + "".join(f'<p class="k{i % 7}">w{i}</p>' for i in range(2000)) + "</div>" * 300
    for head in ("div div div div", "section div div div"):  # ancestors found / never found
        rules = "".join(f"{head} .k{i % 7}, " for i in range(5000)) + ".z{display:none}"
        t0 = time.perf_counter()
        parse("html", f"<html><head><style>{rules}</style></head><body>{body}</body></html>".encode())
        assert time.perf_counter() - t0 < 5
