"""The suite's own documents, built in code: Markdown, HTML, DOCX and PDF from one spec.

Nothing is read from a dataset or a test folder (a user's clone has neither). A `Spec`
holds a title, paragraphs, an optional table, text a reader does not see (`hidden`) and
metadata; `render(spec, kind)` writes it in one format:
- `md`: title as `#` heading, paragraphs, a pipe table; hidden text has no carrier here;
- `html`: `<title>` and `<meta name="description">` (metadata), `<h1>`, paragraphs, a table;
  hidden paragraphs cycle through `display:none`, the `hidden` attribute and 1-px white text;
- `docx` (python-docx): core title (metadata), heading, paragraphs, a table; hidden text is
  a run with the `vanish` property (Word's hidden text);
- `pdf`: written by hand (one page per 40 lines, Helvetica, WinAnsi); `/Title` in the
  document information; hidden lines use the invisible text render mode (3 Tr) or white
  fill, alternately.
"""

from __future__ import annotations

import html as html_lib
import io
import textwrap
from dataclasses import dataclass

KINDS = ("md", "html", "docx", "pdf")
HIDDEN_HTML = ("display:none", "hidden-attribute", "white-1px")
HIDDEN_PDF = ("render-mode-3", "white-fill")


@dataclass(frozen=True)
class Spec:
    """What a document says, independent of its format."""

    title: str
    paragraphs: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...] = ()  # table rows, the first one the header
    hidden: tuple[str, ...] = ()             # text a reader of the document does not see
    meta: str = ""                           # metadata (not part of the text layer)
    hidden_style: int = 0                    # which hidden carrier (cycled per format)
    hidden_first: bool = False               # hidden text before the paragraphs


def render(spec: Spec, kind: str) -> bytes:
    """Return the bytes of `spec` written as `kind` (md, html, docx or pdf)."""
    return {"md": markdown, "html": html, "docx": docx, "pdf": pdf}[kind](spec)


def markdown(spec: Spec) -> bytes:
    """The spec as Markdown (hidden text and metadata have no carrier)."""
    parts = [f"# {spec.title}", *spec.paragraphs]
    if spec.cells:
        head, *rows = spec.cells
        parts.append("\n".join(["| " + " | ".join(head) + " |",
                                "|" + "---|" * len(head),
                                *("| " + " | ".join(r) + " |" for r in rows)]))
    return ("\n\n".join(parts) + "\n").encode("utf-8")


def html(spec: Spec) -> bytes:
    """The spec as an HTML page; hidden text in the carrier `hidden_style` picks."""
    e = html_lib.escape
    style = HIDDEN_HTML[spec.hidden_style % len(HIDDEN_HTML)]
    hide = {"display:none": ' style="display:none"', "hidden-attribute": " hidden",
            "white-1px": ' style="color:#ffffff;font-size:1px"'}[style]
    shown = [f"<p>{e(p)}</p>" for p in spec.paragraphs]
    hidden = [f"<p{hide}>{e(h)}</p>" for h in spec.hidden]
    body = [f"<h1>{e(spec.title)}</h1>", *(hidden + shown if spec.hidden_first else shown + hidden)]
    if spec.cells:
        head, *rows = spec.cells
        body.append("<table><tr>" + "".join(f"<th>{e(c)}</th>" for c in head) + "</tr>"
                    + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                              for r in rows) + "</table>")
    meta = e(spec.meta)
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{meta}</title>'
            f'<meta name="description" content="{meta}"></head><body>\n'
            + "\n".join(body) + "\n</body></html>\n").encode("utf-8")


def docx(spec: Spec) -> bytes:
    """The spec as a DOCX file; hidden text is a `vanish` run at the end of the last
    paragraph (`hidden_first`: at the start of the first)."""
    import docx as python_docx

    d = python_docx.Document()
    d.core_properties.title = spec.meta
    d.add_heading(spec.title, 1)
    paras = []
    for i, p in enumerate(spec.paragraphs or ("",)):
        para = d.add_paragraph()
        if spec.hidden_first and i == 0:
            for h in spec.hidden:
                para.add_run(h + " ").font.hidden = True
        para.add_run(p)
        paras.append(para)
    for h in () if spec.hidden_first else spec.hidden:
        run = paras[-1].add_run(" " + h)
        run.font.hidden = True
    if spec.cells:
        table = d.add_table(rows=len(spec.cells), cols=len(spec.cells[0]))
        for i, row in enumerate(spec.cells):
            for j, cell in enumerate(row):
                table.cell(i, j).text = cell
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def _pdf_text(s: str) -> bytes:
    raw = s.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def pdf(spec: Spec) -> bytes:
    """The spec as a PDF written by hand: the title line, wrapped paragraphs, table rows
    as lines, then hidden lines (invisible render mode or white fill)."""
    hidden_mode = HIDDEN_PDF[spec.hidden_style % len(HIDDEN_PDF)]
    shown: list[tuple[str, int, str]] = []
    for p in spec.paragraphs:
        shown += [(w, 11, "visible") for w in textwrap.wrap(p, 90, break_on_hyphens=False)] + [("", 11, "visible")]
    shown += [("   ".join(r), 11, "visible") for r in spec.cells]
    hidden = [(w, 11, hidden_mode) for h in spec.hidden for w in textwrap.wrap(h, 90, break_on_hyphens=False)]
    if spec.hidden_first and hidden:
        hidden.append(("", 11, "visible"))
    lines = [(spec.title, 16, "visible"), *(hidden + shown if spec.hidden_first
                                             else shown + hidden)]
    pages = [lines[i:i + 40] for i in range(0, len(lines), 40)] or [[]]
    objs: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    font = 3
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                b"/Encoding /WinAnsiEncoding >>")
    kids = []
    for page in pages:
        ops = []
        y = 740
        for text, size, mode in page:
            if text:
                fill = b"1 1 1 rg " if mode == "white-fill" else b"0 0 0 rg "
                tr = b"3 Tr " if mode == "render-mode-3" else b"0 Tr "
                ops.append(fill + b"BT /F1 %d Tf " % size + tr + b"72 %d Td (" % y
                           + _pdf_text(text) + b") Tj ET")
            y -= size + 7
        stream = b"\n".join(ops)
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        contents = len(objs)
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                    b"<< /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (font, contents))
        kids.append(len(objs))
    objs[1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids)
               + b"] /Count %d >>" % len(kids))
    objs.append(b"<< /Title (" + _pdf_text(spec.meta) + b") >>")
    info = len(objs)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += (b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objs) + 1, info, xref))
    return bytes(out)
