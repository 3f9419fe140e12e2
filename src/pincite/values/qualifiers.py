"""Qualifiers next to a value: bounds (`at least`), tax basis (`IVA excluido`), rates."""

from __future__ import annotations

import re
from dataclasses import replace

from .base import Qualifier, ScanContext, Value
from .words import last_word

_PRE_Q = (
    ("ge", r"at\s+least|a\s+minimum\s+of|minimum\s+of|min\.|on\s+or\s+after|equal\s+to\s+or\s+"
           r"(?:greater|more)\s+than|(?:greater|more)\s+than\s+or\s+equal\s+to|como\s+m[íi]nimo"
           r"|al\s+menos|por\s+lo\s+menos|un\s+m[íi]nimo\s+del?|m[íi]nimo\s+del?|igual\s+o\s+"
           r"(?:superior|mayor)\s+al?|(?:superior|mayor)\s+o\s+igual\s+al?|a\s+partir\s+del?"
           r"|desde|starting\s+on"),
    ("gt", r"more\s+than|greater\s+than|in\s+excess\s+of|exceeding|above|later\s+than|after"
           r"|(?:superior|mayor)\s+al?|m[áa]s\s+del?|por\s+encima\s+del?|m[áa]s\s+tarde\s+del?"
           r"|despu[ée]s\s+del?|posterior\s+al?"),
    ("le", r"up\s+to(?:\s+a\s+maximum\s+of)?|at\s+most|a\s+maximum\s+of|maximum\s+of|max\."
           r"|equal\s+to\s+or\s+less\s+than|less\s+than\s+or\s+equal\s+to|on\s+or\s+before"
           r"|within|como\s+m[áa]ximo|hasta\s+un\s+m[áa]ximo\s+del?|hasta|un\s+m[áa]ximo\s+del?"
           r"|m[áa]ximo\s+del?|m[áa]ximo|igual\s+o\s+(?:inferior|menor)\s+al?|(?:inferior|menor)"
           r"\s+o\s+igual\s+al?|dentro\s+(?:del?|de\s+los|de\s+las)"),
    ("lt", r"less\s+than|fewer\s+than|below|before|prior\s+to|(?:inferior|menor)\s+al?"
           r"|menos\s+del?|por\s+debajo\s+del?|antes\s+del?"),
    ("approx", r"approximately|approx\.|about|around|circa|aproximadamente|alrededor\s+del?"
               r"|en\s+torno\s+al?|cerca\s+del?"),
)
_PRE_Q_RE = re.compile(
    r"(?<!\w)(?P<neg>(?:not|no|never|nunca)(?:\s+(?:be|ser[áa]|sea|es|podr[áa]\s+ser))?\s+)?(?:"
    + "|".join(f"(?P<{k}>{p})" for k, p in _PRE_Q)
    + r")(?:\s+(?:the|el|la|los|las))?(?!\w)\s{0,3}\Z", re.I)
_POST_Q = (
    ("excl_tax", r"(?:el\s+)?IVA\s+(?P<n1>no\s+)?excluido|excluido\s+(?:el\s+)?IVA|exclud(?:ing|ed)"
                 r"\s+VAT|VAT\s+excluded|exclusive\s+of\s+VAT|excl\.?\s+VAT|net\s+of\s+VAT"
                 r"|sin\s+IVA|m[áa]s\s+IVA|\+\s?IVA|plus\s+VAT|\+\s?VAT|before\s+(?:VAT|taxes)"
                 r"|(?:excluding|excluyendo)\s+(?:taxes|impuestos)|impuestos\s+excluidos"
                 r"|IVA\s+aparte"),
    ("incl_tax", r"(?:el\s+)?IVA\s+(?P<n2>no\s+)?incluido|incluido\s+(?:el\s+)?IVA|includ(?:ing|ed)"
                 r"\s+VAT|VAT\s+included|inclusive\s+of\s+VAT|incl\.?\s+VAT|con\s+IVA"
                 r"|(?:impuestos|taxes)\s+incluid[oa]s|all\s+taxes\s+included"),
    ("per_day", r"per\s+(?:calendar\s+)?day|a\s+day|por\s+d[íi]a|al\s+d[íi]a|diari[oa]s?|/\s?d[íi]a"),
    ("per_week", r"per\s+week|a\s+week|por\s+semana|a\s+la\s+semana|semanales"),
    ("per_month", r"per\s+month|a\s+month|por\s+mes|al\s+mes|mensual(?:es)?|/\s?mes"),
    ("per_year", r"per\s+(?:year|annum)|a\s+year|por\s+a[ñn]o|al\s+a[ñn]o|anual(?:es)?|/\s?a[ñn]o"),
    ("per_hour", r"per\s+hour|an\s+hour|por\s+hora|la\s+hora|/\s?h"),
    ("ge", r"o\s+m[áa]s|or\s+more|or\s+greater|como\s+m[íi]nimo|at\s+least|o\s+superior"),
    ("le", r"o\s+menos|or\s+less|or\s+fewer|como\s+m[áa]ximo|at\s+most|o\s+inferior"),
)
_POST_Q_RE = re.compile(
    r"\s{0,3},?\s{0,3}\(?\s?(?:" + "|".join(f"(?P<{k}>{p})" for k, p in _POST_Q) + r")(?!\w)",
    re.I)
_FLIP = {"ge": "lt", "lt": "ge", "gt": "le", "le": "gt", "excl_tax": "incl_tax",
         "incl_tax": "excl_tax"}


# the last word of every pre-qualifier (a cheap gate before the regex search)
_PRE_Q_LAST = frozenset(
    "than least of to after before most within máximo maximo mínimo minimo de del a al menos "
    "exceeding above below desde hasta about around circa approximately approx. "
    "aproximadamente los las el la the on max. min. excess".split())


def qualify(c: ScanContext, v: Value, prev_end: int) -> Value:
    """Return `v` with the qualifiers written right before (after `prev_end`) and after it."""
    text = c.text
    out: list[Qualifier] = []
    lo = max(c.lo, prev_end, v.char_start - 60)
    pm = None
    if lo < v.char_start and last_word(text, lo, v.char_start).rstrip(",") in _PRE_Q_LAST:
        pm = _PRE_Q_RE.search(text, lo, v.char_start)
    if pm:
        kind = next(k for k, _ in _PRE_Q if pm.group(k))
        neg = bool(pm.group("neg"))
        qs = pm.start()
        qe = qs + len(pm.group().rstrip())
        out.append(Qualifier(text[qs:qe], _FLIP.get(kind, kind) if neg else kind, qs, qe, neg))
    pos = v.char_end
    for _ in range(2):
        qm = _POST_Q_RE.match(text, pos, min(c.hi, pos + 50))
        if not qm:
            break
        kind = next(k for k, _ in _POST_Q if qm.group(k))
        neg = bool(qm.groupdict().get("n1") or qm.groupdict().get("n2"))
        qs = qm.start(kind)
        out.append(Qualifier(text[qs:qm.end()], _FLIP.get(kind, kind) if neg else kind, qs,
                             qm.end(), neg))
        pos = qm.end()
    return replace(v, qualifiers=tuple(out)) if out else v
