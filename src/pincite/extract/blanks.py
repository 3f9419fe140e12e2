"""Blank templates and placeholders: where a document leaves a value unsaid.

A template states a condition's place, not its value: "Presupuesto base de licitación:
[●] euros", "Closing date: [insert date]", "Dated this ____ day of ______ 20__". A field
whose only evidence is such a blank is ABSTAIN `blank_in_document`, never a value taken
from elsewhere (`extract.decide`). `find_blanks(text)` returns every blank of a text with
its kind; the extractor treats a blank as a value position (anchored to a field by the same
trigger terms, table rows and labels as a value).

The shapes, English and Spanish (each bounded; scanning is linear):

| shape                                          | examples                                 |
|------------------------------------------------|------------------------------------------|
| a run of 2+ underscores                        | "____", "£______", "__/__/20__", "__:__" |
| a bracketed bullet, star, ellipsis or space    | "[●]", "[•]", "[*]", "[***]", "[…]", "[ ]"|
| a bracketed placeholder: an instruction verb,  | "[insert date]", "[importe]", "[Name of  |
| or up to six words naming what goes there      | Agency]", "<fecha>", "{{amount}}", "[X]" |
| a run of 4+ dots or 2+ ellipses (or 3 dots /   | "…… euros", "........ €"                 |
| one ellipsis right before a unit), not a       | (not "Budget ........ 12": a leader to a |
| leader to a number                             | page number)                             |
| X-digits before a unit or after a bound word   | "X%", "XX,XX €", "at least X similar",   |
|                                                | "$X" (not "Article X", "X-ray", "XP")    |
| a date or time template                        | "dd/mm/aaaa", "DD/MM/YYYY", "hh:mm"      |
| a year with no day where a date goes           | "on , 2020", "dated , 2013", "a de de    |
|                                                | 2026" (a fill-in line the layer dropped) |
| a currency or % with no number where one goes  | "$ .", "in the amount of  % of"          |

Not blanks: a year on its own ("in 2020"), footnote and citation brackets ("[1]",
"[Smith 2003]", "[sic]", "[Reserved]"), "X-ray", Roman numerals ("Article X").

Kinds say what the blank stands for, from its shape and its neighbours: `date`, `percent`,
`money`, `duration` (a time unit follows), or `any`. A field takes a blank of its own kind
or `any` (`fits(field_type, kind)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNITS_AFTER = (
    ("percent", r"%|por\s?ciento|percent|per\s?cent|puntos|points"),
    ("money", r"€|euros?|EUR|GBP|USD|\$|£|dollars?|pounds?"),
    ("duration", r"(?:d[ií]as|days?|mes(?:es)?|months?|años?|years?|semanas?|weeks?|horas?|hours?)"
                 r"(?:\s+(?:h[aá]biles|naturales|calendar|business|working))?"),
)
_UNIT_AFTER_RE = re.compile(r"[\s\xa0]{0,3}(?:\([^)\n]{0,20}\)[\s\xa0]{0,3})?(?:"
                            + "|".join(f"(?P<{k}>{p})" for k, p in _UNITS_AFTER) + r")(?!\w)", re.I)
_CURRENCY_BEFORE_RE = re.compile(r"(?:[€$£]|\b(?:EUR|GBP|USD))[\s\xa0]{0,2}\Z")
_PLACEHOLDER_VERBS = (r"insert|enter|specify|state|indicate|add|fill\s+in|complete|to\s+be\s+"
                      r"(?:confirmed|determined|agreed)|indicar|insertar|introducir|consignar|"
                      r"completar|rellenar|especificar|se[ñn]alar|a\s+determinar|por\s+determinar")
_PLACEHOLDER_NOUNS = (
    "amount|date|name|number|price|percentage|percent|value|sum|figure|time|hour|address|"
    "agency|authority|entity|bidder|contractor|supplier|vendor|title|period|days|months|years|"
    "term|deadline|reference|currency|tbd|tbc|x|xx|xxx|"
    "importe|fecha|nombre|n[uú]mero|precio|porcentaje|cantidad|valor|plazo|hora|d[ií]as|meses|"
    "a[ñn]os|direcci[oó]n|empresa|entidad|[oó]rgano|licitador|contratista|adjudicatario|"
    "denominaci[oó]n|cifra|lugar|referencia|expediente|euros")
_BRACKET_RE = re.compile(r"\[([^\[\]\n]{0,60})\]|<([^<>\n]{1,60})>|\{\{([^{}\n]{1,60})\}\}")
_VERB_RE = re.compile(rf"^\s*(?:{_PLACEHOLDER_VERBS})\b", re.I)
_NOUN_RE = re.compile(rf"(?<!\w)(?:{_PLACEHOLDER_NOUNS})(?!\w)", re.I)
_MARKS_RE = re.compile(r"^[\s\xa0●•∙·*…._-]*$")

_SHAPES = re.compile(
    r"(?P<under>_{2,}(?:[\s\xa0]{0,2}[/:.-][\s\xa0]{0,2}(?:_{2,}|(?:19|20)_*[0-9]*_*))*)"
    r"|(?P<dots>\.{4,}|…{2,}|(?:…\.+|\.+…)[….]*|(?:\.[\s\xa0]){3,}\.)"
    r"|(?P<dots3>(?:\.{3}|…)(?=[\s\xa0]{0,2}(?:€|euros?|%|\$|£|d[ií]as|days|meses|months)(?!\w)))"
    r"|(?P<date>\b(?:dd|DD|XX|xx)[/.-](?:mm|MM|XX|xx)[/.-](?:aaaa|AAAA|yyyy|YYYY|XXXX|xxxx|aa|AA|yy|YY)\b"
    r"|\b(?:hh|HH):(?:mm|MM)\b)"
    r"|(?P<xs>(?<![\w-])(?:X{1,4}|x{1,4})(?:[.,](?:X{1,3}|x{1,3}))*(?![\w-]))"
    r"|(?P<noyear>\b(?:on|dated|as\s+of|this|el|del|d[ií]a|a)[\s\xa0]*,[\s\xa0]*(?:19|20)[0-9]{2}\b"
    r"|\bde[\s\xa0]+de[\s\xa0]+(?:19|20)[0-9]{2}\b)"
    r"|(?P<nonum>(?<!\()[$€£](?=[\s\xa0]*(?:[.,;:)\]]|\Z))|\b(?:of|equal\s+to|del|de|al|un)[\s\xa0]+%)",
)
_BOUND_BEFORE_RE = re.compile(
    r"(?:at\s+least|a\s+minimum\s+of|minimum\s+of|no\s+fewer\s+than|not\s+less\s+than|up\s+to|"
    r"al\s+menos|como\s+m[ií]nimo|un\s+m[ií]nimo\s+de|m[ií]nimo\s+de|hasta|un\s+m[aá]ximo\s+de|"
    r"a\s+maximum\s+of|maximum\s+of)[\s\xa0]+\Z", re.I)
_NUMBER_AFTER_RE = re.compile(r"[\s\xa0]{0,3}[0-9]")
_FITS = {"money": {"money", "any"}, "percent": {"percent", "any"},
         "date": {"date", "any"}, "datetime": {"date", "any"},
         "duration": {"duration", "any"}, "number": {"duration", "any"},
         "text": {"any", "date", "money"}, "entity": {"any"}, "clause": {"any", "date"},
         "enum": {"any"}, "bool": {"any"}}
_DATE_WORDS = re.compile(r"(?<!\w)(?:date|fecha|d[ií]a|day)(?!\w)", re.I)
_MONEY_WORDS = re.compile(r"(?<!\w)(?:amount|price|sum|importe|precio|cantidad|cifra)(?!\w)", re.I)


@dataclass(frozen=True, slots=True)
class Blank:
    """One blank of a text: its span, what it stands for, and the text as written."""

    char_start: int
    char_end: int
    kind: str
    text: str


def _bracket_blank(inner: str) -> bool:
    """Return True when a bracket's content is a placeholder, not a reference or a note."""
    if _MARKS_RE.match(inner):
        return True  # "[●]", "[ ]", "[…]", "[***]"
    words = inner.split()
    if len(words) > 6 or any(ch.isdigit() for ch in inner):
        return False  # "[1]", "[Smith 2003]"
    return bool(_VERB_RE.match(inner) or _NOUN_RE.search(inner))


def _kind(text: str, s: int, e: int, inner: str = "") -> str:
    m = _UNIT_AFTER_RE.match(text, e, min(len(text), e + 40))
    if m:
        return next(k for k, _ in _UNITS_AFTER if m.group(k))
    if _CURRENCY_BEFORE_RE.search(text, max(0, s - 5), s):
        return "money"
    if inner and _DATE_WORDS.search(inner):
        return "date"
    if inner and _MONEY_WORDS.search(inner):
        return "money"
    return "any"


def find_blanks(text: str, start: int = 0, end: int | None = None) -> list[Blank]:
    """Return the blanks of `text[start:end]`, in order (see the table of this module)."""
    end = len(text) if end is None else end
    out: list[Blank] = []
    for m in _BRACKET_RE.finditer(text, start, end):
        inner = next(g for g in m.groups() if g is not None)
        if _bracket_blank(inner):
            out.append(Blank(m.start(), m.end(), _kind(text, m.start(), m.end(), inner), m.group()))
    taken = [(b.char_start, b.char_end) for b in out]
    for m in _SHAPES.finditer(text, start, end):
        s, e = m.start(), m.end()
        if any(a <= s < b or a < e <= b for a, b in taken):
            continue
        group = m.lastgroup or ""
        if group == "xs":
            unit = _UNIT_AFTER_RE.match(text, e, min(len(text), e + 40))
            if not unit and not _BOUND_BEFORE_RE.search(text, max(0, s - 30), s) \
                    and not _CURRENCY_BEFORE_RE.search(text, max(0, s - 5), s):
                continue  # "Article X", "Schedule X": a name, not a blank
        if group == "dots" and _NUMBER_AFTER_RE.match(text, e, min(len(text), e + 4)):
            continue  # a leader to a page number
        if group == "nonum" and not m.group().endswith("%") \
                and re.search(r"[0-9][\s\xa0]*\Z", text[max(0, s - 4):s]):
            continue  # "1.500.000 €": the number is written before its currency
        if group in ("date", "noyear") or (group == "under" and ("/" in m.group() or ":" in m.group())):
            kind = "date"
        elif group == "nonum":
            kind = "percent" if m.group().endswith("%") else "money"
        else:
            kind = _year_after(text, e) or _kind(text, s, e)
        out.append(Blank(s, e, kind, text[s:e]))
    out.sort(key=lambda b: b.char_start)
    return out


_YEAR_AFTER_RE = re.compile(r"\A[\s\xa0]{0,2},?[\s\xa0]{0,2}(?:de[\s\xa0]+)?(?:19|20)[0-9_]{2,}")
_DATE_AFTER_RE = re.compile(r"\A[\s\xa0]{0,2}(?:day\s+of|de)[\s\xa0]+", re.I)


def _year_after(text: str, e: int) -> str | None:
    """Return `date` when a blank is followed by a year or by "day of"/"de" (a date to fill)."""
    tail = text[e:e + 20]
    if _YEAR_AFTER_RE.match(tail) or _DATE_AFTER_RE.match(tail):
        return "date"
    return None


def fits(field_type: str, kind: str, unit: str | None = None) -> bool:
    """Return True when a blank of `kind` can stand for a value of `field_type` (a number
    field that counts things, `unit: count`, takes no blank before a time unit)."""
    if field_type == "number" and kind == "duration" and unit == "count":
        return False
    return kind in _FITS.get(field_type, {"any"})


def is_blank_value(text: str) -> bool:
    """Return True when a text value is a blank: it starts with one ("[Name of Agency]",
    "______, 2020", "June __, 2020") or is mostly placeholder marks."""
    stripped = text.strip()
    if not stripped:
        return False
    blanks = find_blanks(stripped)
    if not blanks:
        return False
    head = stripped[:blanks[0].char_start].split()
    return (len(head) <= 1 or len(stripped.split()) <= 4
            or sum(b.char_end - b.char_start for b in blanks) * 2 >= len(stripped))
