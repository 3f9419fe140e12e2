"""The generated documents of the strata eval, one builder per stratum.

Each is written with `PdfWriter` the way a generator of its class writes (see the
builders), so its reference is exact: the text as drawn, in reading order, and the box of
every character. The text is numbered clauses made from a small vocabulary.
"""

from __future__ import annotations

import re
import unicodedata

from ..icdar import Cell
from .typeset import GoldDoc, GoldSpan, Laid, Typesetter, clauses, sentence_spans
from .writer import Field, PdfWriter

DRAWN = "the text as drawn (generated)"


def _prose(name: str, stratum: str, seed: int, *, rotate: int = 0, paragraphs: int = 9,
           columns: tuple[tuple[float, float], ...] = ((72.0, 540.0),),
           rows_across: bool = False) -> GoldDoc:
    w = PdfWriter()
    ts = Typesetter(w, rotate=rotate, columns=columns)
    laid = [ts.paragraph(p) for p in clauses(seed, paragraphs)]
    spans = [s for para in laid for s in sentence_spans(para)]
    if rows_across:  # each page's lines drawn top to bottom across the columns
        for page in w.pages:
            page.ops.sort(key=lambda op: tuple(-float(v) if i else float(v) for i, v in enumerate(
                reversed(re.search(rb"([-\d.]+) ([-\d.]+) Td", op).groups()))))  # type: ignore[union-attr]
    return GoldDoc(name, stratum, DRAWN, w.tobytes(), "\n\n".join(p.text for p in laid), spans)


def born_digital() -> list[GoldDoc]:
    """Two pages of numbered clauses; a page whose superscripts are drawn after its text."""
    docs = [_prose("clauses-2p", "born-digital", 11, paragraphs=14)]
    w = PdfWriter()
    pg = w.page()
    text, spans = [], []
    later = []
    y = 700.0
    for i, (head, sup, tail) in enumerate([("Notice is given on the 26", "th", " day of May."),
                                           ("The hall measures 120 m", "2", " in all."),
                                           ("As the Agreement", "1", " states, rent is due."),
                                           ("The 5", "th", " instalment is the last.")]):
        boxes = pg.text(72, y, 11, head)
        x = 72 + pg.advance(head, 11)
        later.append((x, y, sup))
        x += pg.advance(sup, 6.6)
        boxes_tail = pg.text(x, y, 11, tail)
        line = head + sup + tail
        text.append(line)
        spans.append(GoldSpan(line, 1, (72.0, boxes[0][1], boxes_tail[-1][2], boxes[0][3])))
        y -= 30 if i % 2 else 60
    for x, y, sup in later:  # a generator that draws the superscripts last
        pg.text(x, y, 6.6, sup, rise=4.0)
    docs.append(GoldDoc("superscripts-last", "born-digital", DRAWN, w.tobytes(),
                        "\n\n".join(text), spans))
    return docs


def rotated() -> list[GoldDoc]:
    """The same clauses on /Rotate 90 and /Rotate 270 pages (boxes as shown)."""
    return [_prose("rotate-90", "rotated", 21, rotate=90),
            _prose("rotate-270", "rotated", 22, rotate=270)]


def multi_column() -> list[GoldDoc]:
    """Two-column pages: the left column is read before the right one, whether the PDF
    draws a column after the other or (as some converters do) row by row across both."""
    cols = ((72.0, 296.0), (316.0, 540.0))
    across = _prose("two-columns-drawn-across", "multi-column", 33, columns=cols, paragraphs=12,
                    rows_across=True)
    return [_prose("two-columns", "multi-column", 31, columns=cols, paragraphs=16),
            _prose("two-columns-short", "multi-column", 32, columns=cols, paragraphs=6), across]


def forms() -> list[GoldDoc]:
    """A filled application form: labels on the page, values in text, check and choice
    fields (the layer puts the values after the page's text, top to bottom)."""
    docs = []
    for n, (applicant, lot, ticked) in enumerate([("Obras Norte S.A.", "Lot 2", "Yes"),
                                                  ("Blue Harbour Ltd", "Lot 1", "Off")]):
        w = PdfWriter()
        pg = w.page()
        labels = ["Tender application form", "Applicant:", "Lot applied for:",
                  "The applicant declares it meets the conditions:"]
        for y, label in zip((720, 680, 640, 600), labels, strict=True):
            pg.text(72, y, 11, label)
        fields = [Field("applicant", "text", applicant, (200, 676, 420, 692)),
                  Field("lot", "choice", lot, (200, 636, 300, 652), ("Lot 1", "Lot 2")),
                  Field("declares", "check", ticked, (340, 596, 352, 608))]
        for f in fields:
            pg.add_field(f)
        spans = [GoldSpan(f.value, 1, (f.rect[0], 792 - f.rect[3], f.rect[2], 792 - f.rect[1]))
                 for f in fields[:2]]
        text = "\n\n".join(labels + [f.value for f in fields])
        docs.append(GoldDoc(f"form-{n + 1}", "forms", DRAWN + "; field values after the page text",
                            w.tobytes(), text, spans))
    return docs


def tables() -> list[GoldDoc]:
    """A ruled price table between two paragraphs; an unruled one set in columns."""
    docs = []
    for n, ruled in enumerate((True, False)):
        w = PdfWriter()
        ts = Typesetter(w)
        before = ts.paragraph(clauses(41 + n, 1)[0])
        rows = [["Item", "Quantity", "Unit price", "Total"]]
        rows += [[f"Part {chr(65 + i)}{n}", str(3 + i), f"{12 + 5 * i}.50", f"{(3 + i) * (12 + 5 * i)}.00"]
                 for i in range(5)]
        xs = [72.0, 200.0, 300.0, 420.0, 540.0]
        top = ts.y
        pg = ts.page
        spans = []
        for r, row in enumerate(rows):
            y = top - 20 * r - 14
            for c, cell in enumerate(row):
                boxes = pg.text(xs[c] + 4, y, 10, cell)
                if r and c == 0:
                    spans.append(GoldSpan(cell, 1, (boxes[0][0], boxes[0][1], boxes[-1][2], boxes[0][3])))
        if ruled:
            for r in range(len(rows) + 1):
                pg.line(xs[0], top - 20 * r, xs[-1], top - 20 * r)
            for x in xs:
                pg.line(x, top, x, top - 20 * len(rows))
        ts.y = top - 20 * len(rows) - 24
        after = ts.paragraph(clauses(51 + n, 1)[0])
        cells = [Cell(r, c, r, c, cell) for r, row in enumerate(rows) for c, cell in enumerate(row)]
        text = "\n\n".join([before.text, "\n".join("\t".join(row) for row in rows), after.text])
        docs.append(GoldDoc(f"table-{'ruled' if ruled else 'unruled'}", "tables", DRAWN,
                            w.tobytes(), text, spans + sentence_spans(before), [cells]))
    return docs


# ---- right to left ----------------------------------------------------------------------

_RTL_LINES = [
    ["\u062a\u0645 \u062a\u0633\u0644\u064a\u0645 \u0627\u0644\u0623\u0639\u0645\u0627\u0644 "
     "\u062e\u0644\u0627\u0644 \u0627\u0644\u0645\u062f\u0629"],
    ["\u064a\u0633\u062a\u062e\u062f\u0645 \u0627\u0644\u0641\u0631\u064a\u0642 ", "R", " \u0648 ",
     "Python", " \u0644\u0644\u062a\u062d\u0644\u064a\u0644"],
    ["\u0627\u0644\u0645\u0628\u0644\u063a \u0645\u062f\u0641\u0648\u0639 \u0623\u064a\u0636\u064b\u0627 "
     "\u0628\u0644\u0627 \u062a\u0623\u062e\u064a\u0631"],
    ["\u05d4\u05e1\u05e4\u05e7 \u05d9\u05e9\u05dc\u05dd \u05d0\u05ea \u05d4\u05d7\u05e9\u05d1\u05d5\u05df "
     "\u05d1\u05ea\u05d5\u05da \u05e9\u05dc\u05d5\u05e9\u05d9\u05dd \u05d9\u05d5\u05dd"],
]


def _clusters(run: str) -> list[list[str]]:
    """Return the glyph clusters of a right-to-left run in logical order: a lam-alef pair is
    one glyph (standing for both letters), a mark follows its base in its cluster."""
    out: list[list[str]] = []
    k = 0
    while k < len(run):
        c = run[k]
        if unicodedata.combining(c) and out:
            out[-1].append(c)
        elif c == "\u0644" and k + 1 < len(run) and run[k + 1] in "\u0627\u0623\u0625\u0622":
            out.append([run[k:k + 2]])
            k += 1
        else:
            out.append([c])
        k += 1
    return out


def _visual(runs: list[str]) -> list[str | float]:
    """Return the glyphs of a right-to-left line in visual order, left to right, as Word
    draws it: runs in reverse, a right-to-left run's clusters reversed, each base before its
    marks (moved back over it); a left-to-right run as it reads."""
    out: list[str | float] = []
    for run in reversed(runs):
        if re.search("[A-Za-z]", run):
            out.extend(run)
            continue
        for cluster in reversed(_clusters(run)):
            out.append(cluster[0])
            for mark in cluster[1:]:
                out.extend([400.0, mark, -250.0])
    return out


def rtl() -> list[GoldDoc]:
    """Arabic (with lam-alef glyphs, a mark, Latin runs) and Hebrew lines drawn in visual
    order, right-aligned."""
    w = PdfWriter()
    pg = w.page()
    text, spans = [], []
    for i, runs in enumerate(_RTL_LINES):
        glyphs = _visual(runs)
        width = pg.advance([g for g in glyphs if isinstance(g, str)], 12)
        y = 700 - 36 * i
        boxes = pg.draw(540 - width, y, 12, glyphs)
        line = "".join(runs)
        text.append(line)
        spans.append(GoldSpan(line, 1, (min(b[0] for b in boxes), boxes[0][1],
                                        max(b[2] for b in boxes), boxes[0][3])))
    return [GoldDoc("arabic-hebrew", "rtl", DRAWN + " (logical order)", w.tobytes(),
                    "\n\n".join(text), spans)]


_CJK = ["\u4e2d\u534e\u4eba\u6c11\u5171\u548c\u56fd\u6c11\u6cd5\u5178",
        "\u65e5\u672c\u56fd\u61b2\u6cd5", "\u30c7\u30fc\u30bf\u4fdd\u8b77\u898f\u5247"]


def cjk() -> list[GoldDoc]:
    """English clauses that name CJK titles, one of them letter-spaced; a CJK line."""
    w = PdfWriter()
    pg = w.page()
    text, spans = [], []
    for i, (title, spacing) in enumerate(zip(_CJK, (0.0, 4.0, 0.0), strict=True)):
        y = 700 - 40 * i
        head, tail = f"Clause {i + 1} applies the ", " as in force on signature."
        pg.text(72, y, 11, head)
        x = 72 + pg.advance(head, 11)
        boxes = pg.text(x, y, 11, title, spacing=spacing)
        pg.text(boxes[-1][2] + spacing, y, 11, tail)
        text.append(head + title + tail)
        spans.append(GoldSpan(title, 1, (boxes[0][0], boxes[0][1], boxes[-1][2], boxes[0][3])))
    line = "\u672c\u5951\u7d04\u306f\u65e5\u672c\u6cd5\u306b\u6e96\u62e0\u3059\u308b\u3002"
    boxes = pg.text(72, 560, 11, line)
    text.append(line)
    spans.append(GoldSpan(line, 1, (72.0, boxes[0][1], boxes[-1][2], boxes[0][3])))
    return [GoldDoc("cjk-titles", "cjk", DRAWN, w.tobytes(), "\n\n".join(text), spans)]


def hidden() -> list[GoldDoc]:
    """Visible clauses with one drawn invisible (render mode 3) and one white on white:
    kept in the layer, and their citations must say `hidden_text`."""
    w = PdfWriter()
    ts = Typesetter(w)
    paras = clauses(61, 5)
    laid: list[Laid] = []
    covered = []
    for i, p in enumerate(paras):
        if i == 1:
            laid.append(ts.paragraph(p, mode=3))
            covered.append(p[3:60])
        elif i == 3:
            laid.append(ts.paragraph(p, gray=1.0))
            covered.append(p[3:60])
        else:
            laid.append(ts.paragraph(p))
    spans = [s for i, para in enumerate(laid) if i not in (1, 3) for s in sentence_spans(para)]
    return [GoldDoc("invisible-and-white", "hidden text", DRAWN + " (hidden text included)",
                    w.tobytes(), "\n\n".join(p.text for p in laid), spans, covered=covered)]


def redactions() -> list[GoldDoc]:
    """A black box drawn over a phrase still in the content stream (a redaction done by
    drawing), and one where the phrase was removed: the reference is what a reader sees."""
    w = PdfWriter()
    ts = Typesetter(w)
    paras = clauses(71, 4)
    secret = "The Agent shall insure the premises"
    paras[1] = f"2. {secret} with policy CODE-4471 as the schedule states."
    laid = [ts.paragraph(p) for p in paras]
    hit = laid[1].span(secret)
    x0, top, x1, bottom = hit.box
    ts.page.rect(x0, 792 - bottom, x1 - x0, bottom - top)  # drawn over the text
    visible = [p.text for p in laid]
    visible[1] = visible[1].replace(secret + " ", "")
    spans = [s for i, para in enumerate(laid) if i != 1 for s in sentence_spans(para)]
    return [GoldDoc("box-over-text", "redactions", "the text a reader sees (generated)",
                    w.tobytes(), "\n\n".join(visible), spans, covered=[secret])]


def malformed() -> list[GoldDoc]:
    """Clauses whose cross-reference table is damaged: offsets shifted, and the table and
    trailer cut off (a reader rebuilds it from the objects)."""
    base = _prose("xref", "malformed", 81, paragraphs=4)
    data = base.pdf
    k = data.rindex(b"xref\n")
    shifted = data[:k] + re.sub(rb"\n(\d{10}) 00000 n", lambda m: b"\n%010d 00000 n" % (int(m.group(1)) + 7),
                                data[k:])
    cut = data[:k]
    return [GoldDoc("xref-offsets-shifted", "malformed", base.reference, shifted, base.text, base.spans),
            GoldDoc("xref-and-trailer-cut", "malformed", base.reference, cut, base.text, base.spans)]
