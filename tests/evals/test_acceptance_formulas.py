"""FORMULA INJECTION (issue 25): clean on the code as it is, and it counts a bad outcome
when the escaping of CSV cells or the numbers of the filled workbook are taken away."""

from __future__ import annotations

from pincite.evals.acceptance import formulas
from tests.evals.test_acceptance import _bad, _run


def test_formula_injection_is_clean_and_not_vacuous():
    got = _run(formulas.run_formulas)
    assert all(bad == 0 for _t, bad in got.values()), got
    assert got[formulas.F_SEEN][0] == 1 + 6 and got[formulas.F_CSV][0] >= 4 * 7


def test_formula_injection_sees_a_csv_written_without_escaping(monkeypatch):
    import csv
    import io

    from pincite.fill import coverage

    def naive(rows):  # type: ignore[no-untyped-def]
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        return buf.getvalue()

    monkeypatch.setattr(coverage, "csv_text", naive)
    got = _run(formulas.run_formulas)
    assert _bad(got, formulas.F_CSV) >= 6
    assert _bad(got, formulas.F_SEEN) == 0 and _bad(got, formulas.F_XLSX) == 0


def test_formula_injection_sees_a_formula_written_into_the_workbook(monkeypatch):
    from pincite.fill import output

    monkeypatch.setattr(output, "_number", lambda value: f"=HYPERLINK(\"http://x.invalid\",{value})")
    got = _run(formulas.run_formulas)
    assert _bad(got, formulas.F_XLSX) > 0 and _bad(got, formulas.F_CSV) == 0
