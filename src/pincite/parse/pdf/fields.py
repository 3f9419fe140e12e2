"""A PDF's AcroForm field values, read through pdfium's form API, with their widgets.

A tender application or a declaration says what it says partly in its form fields: the
applicant's name typed into a text field, a ticked checkbox, the lot chosen in a list. The
values are not in the page's content stream (a viewer draws them from the field), so a
text layer read from the content alone misses them. Each field with a value becomes a
block of the layer with the locator `field NAME` (the fully qualified name) and the page
and box of its widget as shown:

- a text field: its value;
- a checkbox or a radio group: the name of the state of its ticked widget ("Yes", "Off"
  when none is ticked), with that widget's box;
- a combo or list box: the selected option as the field states it;
- push buttons and signature fields carry no value and are skipped.

A widget marked hidden or not to be viewed gives a field flagged `hidden_text`. A field
whose name holds a control or format character (line breaks and bidi overrides included),
is empty, or is over `MAX_NAME` characters is left out and the layer is flagged
`form_field_refused`: the name becomes a locator shown in reports. More than
`Limits.max_form_fields` fields, or a value over `Limits.max_field_chars`, is over a limit.
"""

from __future__ import annotations

import ctypes
import unicodedata
from dataclasses import dataclass
from typing import Any

from ...errors import ParseFailure
from ...limits import Limits
from ...model import Box
from ..layout import LayerBuilder
from .frames import page_box, transform
from .pdfium_api import pdfium_fns

MAX_NAME = 200  # characters of a field name (it becomes a locator)
REFUSED = "form_field_refused"  # the layer flag for a field left out
_TEXT, _CHECK, _RADIO, _COMBO, _LIST = 6, 2, 3, 4, 5  # FPDF_FORMFIELD_* kinds with a value
_WIDGET = 20  # FPDF_ANNOT_WIDGET
_HIDDEN, _NOVIEW = 2, 32  # annotation flags


@dataclass(frozen=True, slots=True)
class FormField:
    """One field's value on its widget: page (1-based) and box as shown."""

    name: str
    value: str
    page: int
    box: Box
    hidden: bool


def has_form(doc: Any) -> bool:
    """Return True when the document has an AcroForm (the form API is then worth starting)."""
    import pypdfium2.raw as R

    return bool(R.FPDF_GetFormType(doc.raw))


def _wide_text(fn: Any, *args: Any) -> str:
    n = fn(*args, None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    import pypdfium2.raw as R

    fn(*args, ctypes.cast(buf, ctypes.POINTER(R.FPDF_WCHAR)), n)
    return buf.raw[:n - 2].decode("utf-16-le", "replace")


def name_refused(name: str) -> bool:
    """Return True when a field name cannot be a locator: empty, too long, or holding a
    control or format character."""
    return (not name.strip() or len(name) > MAX_NAME
            or any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name))


def read_fields(doc: Any, limits: Limits) -> tuple[list[FormField], int]:
    """Return the document's fields with a value, in page order, and how many were refused
    (`doc`: a pypdfium2 document whose form environment is started)."""
    import numpy as np
    import pypdfium2.raw as R

    fn = pdfium_fns()

    form = doc.formenv.raw
    seen: dict[str, int] = {}  # field name → index in `out`
    out: list[FormField] = []
    refused = 0
    count = 0
    for index in range(len(doc)):
        number = index + 1
        page = doc[index]
        handle = ctypes.cast(page.raw, ctypes.c_void_p).value or 0
        _, _, shown = transform(page_box(fn, handle), fn.rotation(handle) % 4)
        try:
            for k in range(R.FPDFPage_GetAnnotCount(page.raw)):
                annot = R.FPDFPage_GetAnnot(page.raw, k)
                if not annot:
                    continue
                try:
                    if R.FPDFAnnot_GetSubtype(annot) != _WIDGET:
                        continue
                    kind = R.FPDFAnnot_GetFormFieldType(form, annot)
                    if kind not in (_TEXT, _CHECK, _RADIO, _COMBO, _LIST):
                        continue
                    name = _wide_text(R.FPDFAnnot_GetFormFieldName, form, annot)
                    value = _wide_text(R.FPDFAnnot_GetFormFieldValue, form, annot)
                    checked = kind in (_CHECK, _RADIO) and bool(R.FPDFAnnot_IsChecked(form, annot))
                    if name in seen and not checked:
                        continue  # another widget of a field already read
                    count += 1
                    if count > limits.max_form_fields:
                        raise ParseFailure("over_limit", f"more than {limits.max_form_fields} "
                                           "form fields")
                    if name_refused(name):
                        refused += 1
                        continue
                    if kind in (_CHECK, _RADIO) and not checked:
                        value = "Off"
                    if len(value) > limits.max_field_chars:
                        raise ParseFailure("over_limit", f"form field {name!r} holds {len(value)} "
                                           f"characters, over the limit of {limits.max_field_chars}")
                    if not value.strip():
                        continue
                    rect = R.FS_RECTF()
                    if not R.FPDFAnnot_GetRect(annot, rect):
                        continue
                    cols = [np.array([v], dtype=np.float64) for v in
                            (min(rect.left, rect.right), max(rect.top, rect.bottom),
                             max(rect.left, rect.right), min(rect.top, rect.bottom))]
                    x0, top, x1, bottom = (float(c[0]) for c in shown(*cols))
                    box = (min(x0, x1), min(top, bottom), max(x0, x1), max(top, bottom))
                    hidden = bool(R.FPDFAnnot_GetFlags(annot) & (_HIDDEN | _NOVIEW))
                    f = FormField(name, value, number, box, hidden)
                    if name in seen:  # the ticked widget of a group read before
                        out[seen[name]] = f
                    else:
                        seen[name] = len(out)
                        out.append(f)
                finally:
                    R.FPDFPage_CloseAnnot(annot)
        finally:
            page.close()
    return out, refused


def emit_fields(builder: LayerBuilder, fields: list[FormField], before: int) -> None:
    """Add the fields of the pages before `before` (taking them from `fields`), top to
    bottom and left to right on each page."""
    done = [f for f in fields if f.page < before]
    for f in sorted(done, key=lambda f: (f.page, f.box[1], f.box[0])):
        builder.field(f.name, f.value, page=f.page, box=f.box,
                      flags=("hidden_text",) if f.hidden else ())
    fields[:] = [f for f in fields if f.page >= before]
