"""Numbers that refer to structure (`artículo 108`, `clause 9`, `Section 4.2`)."""

from __future__ import annotations

import re

from .words import last_word

_REF_KW = (
    r"art(?:[íi]culo|icle)?s?\.?|cl[áa]usulas?|clauses?|sections?|secci[óo]n(?:es)?"
    r"|apartados?|anexos?|annex(?:es)?|exhibits?|schedules?|appendix|ap[ée]ndices?|p[áa]ginas?"
    r"|pages?|pp?\.|p[áa]rrafos?|paragraphs?|ley(?:es)?|laws?|reglamento|rules?|items?|punto"
    r"|cap[íi]tulos?|chapters?|t[íi]tulos?|grupo|subgrupo|categor[íi]a|n[º°]|n\.[º°]|no\."
    r"|n[úu]m\.|n[úu]mero|nos?\.|§{1,2}|lotes?|lots?|tablas?|tables?|figur[ae]s?|notas?"
    r"|notes?|decreto|directiva|directive|orden|versi[óo]n|version")
_REF_CONNECTORS = frozenset(",|y|e|o|u|a|al|and|or|to|through|-|–".split("|"))
_REF_WORD_RE = re.compile(_REF_KW, re.I)
_REF_RE = re.compile(
    rf"(?<!\w)(?:{_REF_KW})\s{{0,3}}(?:[0-9]{{1,6}}(?:\.[0-9]{{1,4}}){{0,4}}[a-z]?\)?\s{{0,3}}"
    r"(?:,|y|e|o|u|a|al|and|or|to|through|-|–)\s{0,3}){0,6}\Z", re.I)


def is_reference(text: str, lo: int, s: int) -> bool:
    """Return whether the number at `s` follows a structure word (`clause 9`, `arts. 3 y`)."""
    tok = last_word(text, lo, s)
    if not tok:
        return False
    if _REF_WORD_RE.fullmatch(tok) is None and tok not in _REF_CONNECTORS and tok[-1] != ",":
        return False
    return _REF_RE.search(text, max(lo, s - 60), s) is not None
