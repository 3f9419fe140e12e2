"""AcroForm field values in the PDF text layer: citable at `field NAME` on their widget."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pincite.errors import ParseFailure
from pincite.evals.strata.writer import Field, PdfWriter
from pincite.limits import Limits
from pincite.model import TextLayer
from pincite.parse.pdf import reading as pdf
from tests.loud_skips import shared_path

H = 792.0  # letter height: a PDF rect (l, b, r, t) shows as (l, H - t, r, H - b)


def _parse(data: bytes, limits: Limits | None = None) -> TextLayer:
    return pdf.parse(data, password=None, limits=limits or Limits())


def _form(*fields: Field, rotate: int = 0, text: bool = True) -> bytes:
    w = PdfWriter()
    pg = w.page(rotate=rotate)
    if text:
        pg.text(72, 700, 11, "Application form for lot 2.")
    for f in fields:
        pg.add_field(f)
    return w.tobytes()


APPLICANT = Field("applicant.name", "text", "ACME Construcciones S.L.", (180, 650, 400, 667))
DECLARES = Field("declares", "check", "Yes", (72, 600, 84, 612))
LOT = Field("lot", "choice", "Lot 2", (180, 560, 300, 576), ("Lot 1", "Lot 2"))


def _fields(layer: TextLayer) -> list[tuple[str, str, int | None, tuple | None, tuple]]:
    return [(e.locator, layer.text[e.char_start:e.char_end], e.page,
             tuple(round(v, 2) for v in e.bbox) if e.bbox else None, e.flags)
            for e in layer.elements if e.kind == "field"]


def test_field_values_follow_their_page_text_with_widget_boxes() -> None:
    layer = _parse(_form(APPLICANT, DECLARES, LOT))
    assert layer.text == ("Application form for lot 2.\n\nACME Construcciones S.L.\n\nYes\n\n"
                          "Lot 2")
    assert _fields(layer) == [
        ("field applicant.name", "ACME Construcciones S.L.", 1, (180.0, H - 667, 400.0, H - 650), ()),
        ("field declares", "Yes", 1, (72.0, H - 612, 84.0, H - 600), ()),
        ("field lot", "Lot 2", 1, (180.0, H - 576, 300.0, H - 560), ()),
    ]
    assert layer.flags == ()
    geo = layer.geometry
    assert geo is not None
    k = layer.text.index("ACME")
    assert geo.span_boxes(k, k + 4) == [(1, (180.0, H - 667, 400.0, H - 650))]


def test_unticked_checkbox_reads_off_and_a_radio_group_its_ticked_widget() -> None:
    no = Field("consent", "check", "Off", (72, 600, 84, 612))
    layer = _parse(_form(no))
    assert _fields(layer) == [("field consent", "Off", 1, (72.0, H - 612, 84.0, H - 600), ())]


def test_fields_of_a_form_with_no_page_text_are_the_layer() -> None:
    layer = _parse(_form(APPLICANT, text=False))
    assert layer.text == "ACME Construcciones S.L."
    assert "no_text_layer" in layer.flags


def test_widget_box_on_a_rotated_page_is_as_shown() -> None:
    """On a /Rotate 90 page (612 × 792 turned to 792 × 612) a PDF rect (l, b, r, t) shows
    at (b, l, t, r)."""
    layer = _parse(_form(APPLICANT, rotate=90))
    [(_, _, page, box, _)] = _fields(layer)
    assert page == 1 and box == (650.0, 180.0, 667.0, 400.0)


def test_hidden_widget_is_flagged() -> None:
    data = _form(APPLICANT).replace(b"/F 4 /T", b"/F 6 /T")  # print + hidden
    [(_, _, _, _, flags)] = _fields(_parse(data))
    assert flags == ("hidden_text",)


@pytest.mark.parametrize("name", ["bad\x07name", "line\nbreak", "evil\u202eeman", " ", "x" * 201])
def test_field_with_a_name_that_cannot_be_a_locator_is_refused(name: str) -> None:
    layer = _parse(_form(APPLICANT, Field(name, "text", "smuggled", (180, 500, 300, 516))))
    assert [f[0] for f in _fields(layer)] == ["field applicant.name"]
    assert "smuggled" not in layer.text
    assert "form_field_refused" in layer.flags


def test_field_value_past_the_limit_is_over_limit() -> None:
    big = replace(APPLICANT, value="x" * 101)
    with pytest.raises(ParseFailure) as e:
        _parse(_form(big), replace(Limits(), max_field_chars=100))
    assert e.value.reason == "over_limit" and "applicant.name" in str(e.value)
    assert _fields(_parse(_form(replace(big, value="x" * 100)),
                          replace(Limits(), max_field_chars=100)))


def test_more_fields_than_the_limit_is_over_limit() -> None:
    many = [Field(f"f{i}", "text", str(i), (72, 100 + 10 * i, 90, 108 + 10 * i)) for i in range(4)]
    with pytest.raises(ParseFailure, match="more than 3 form fields"):
        _parse(_form(*many), replace(Limits(), max_form_fields=3))


def test_a_field_value_is_cited_and_verified_at_its_widget(lib, ana) -> None:
    r = lib.ingest_bytes(_form(APPLICANT, DECLARES), source_id="form.pdf", tenant="acme",
                         acl=["group:legal"], name="form.pdf")
    assert r.status == "new", r
    c = lib.cite(ana, "form.pdf", "ACME Construcciones")
    assert c.quote_verified and c.verify_reason == "ok"
    assert c.locator == "field applicant.name"
    assert c.page == 1 and c.bbox == pytest.approx((180.0, H - 667, 400.0, H - 650))
    assert lib.verify(ana, [c])[0].quote_verified


@pytest.mark.shared_data("pypdf_sample_files/012-libreoffice-form")
def test_libreoffice_form_values_are_in_the_layer() -> None:
    """The form's filled text fields (their values read here from the file itself) are
    field elements on page 1 of the layer."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as R

    data = (shared_path("pypdf_sample_files/012-libreoffice-form") / "libreoffice-form.pdf").read_bytes()
    layer = _parse(data)
    fields = _fields(layer)
    assert fields and all(p == 1 and box is not None for _, _, p, box, _ in fields)
    doc = pdfium.PdfDocument(data)
    assert R.FPDF_GetFormType(doc.raw) != 0
    values = {v for _, v, _, _, _ in fields}
    assert len({loc for loc, _, _, _, _ in fields}) == len(fields)
    assert all(v in layer.text for v in values)
