"""When a document's term ends: the question that asks it and the statement that states it.

"When does the initial term of this agreement expire?" asks for the end of the document's
life. A contract states it in its term clause, and rarely in the question's words: "This
Agreement shall continue for five (5) years", "The term of the Agreement will be for 12
months", "… shall remain in force and effect until October 31, 2012", "… shall commence on
the date hereof and shall terminate upon the termination of the Offering", "El contrato
tendrá una vigencia de dos años". A lawyer reads each as the answer, and the initial term
of a contract without renewals is its term.

- `asks_term_end(question)`: a "when" question (or "until when") whose subject is the
  document ("this agreement", "the contract") or its term ("the (initial) term of this
  agreement") and whose verb ends it (expire, end, terminate, lapse; vencer, finalizar,
  terminar, expirar).
- `states_term_end(text)`: the statement's subject is the document or its term — it opens
  the statement, after a leading "Subject to …," / "Unless …," / "Except …," clause and a
  clause number — and a verb of lasting or ending follows it (continue, remain in force or
  effect, be in effect, last, run, be for, expire, end, terminate; durar, estar vigente,
  tener una vigencia o duración de, vencer, finalizar) with, within `REACH` words and before
  a semicolon, a time (a date, a duration, a period), a word for an unbounded term
  ("indefinitely", "perpetual") or a bound ("until …", "through …", "hasta …"). Not a right
  to end it ("either party *may* terminate …"), not a renewal ("continue for successive
  one-year periods"), and "terminate upon …" (which a breach also triggers) only in a
  statement that also begins the term ("shall become effective on … and shall terminate
  upon …").
"""

from __future__ import annotations

import re
from functools import lru_cache

from .statement_kinds import values_in

# a question's verb that ends its subject (the last word of a folded "when" question)
_END_VERBS = frozenset("expire expires end ends terminate terminates lapse lapses finish finishes "
                       "vence vencera finaliza finalizara termina terminara expira expirara "
                       "concluye concluira".split())
# the subject of a "when" question (folded): the document, or its term
_ASKS = re.compile(
    r"^(?:when|until when|by when|cuando|hasta cuando) (?:does|do|will|shall|is|would)? ?"
    r"(?:(?:the|this|its|el|la|este|esta) )?"
    r"(?:(?:(?:initial|original|current|inicial) )?(?:term|period|duration|plazo|vigencia|duracion) "
    r"(?:of|de|del) (?:(?:the|this|este|esta|el|la) )?)?"
    r"(?:agreement|contract|acuerdo|contrato|convenio) (\w+)$|"
    r"^(?:cuando|hasta cuando) (\w+) (?:el|la|este|esta) (?:(?:plazo|vigencia|duracion) (?:de )?(?:el |del )?)?"
    r"(?:presente )?(?:contrato|acuerdo|convenio)$")
# the statement's subject, at its start: the document or its term
_LEAD = re.compile(r"^\s*(?:\(?[\divxlc]+(?:\.\d+)*[.)]?\s+)?(?:(?:subject\s+to|unless|except|save|"
                   r"without\s+prejudice\s+to|salvo|sin\s+perjuicio\s+de)\b[^,;]{0,160},\s*)?",
                   re.IGNORECASE)
_SUBJECT = re.compile(
    r"(?:the\s+|this\s+|its\s+|el\s+|la\s+|este\s+|esta\s+|el\s+presente\s+)?"
    r"(?:(?:[\"\u201c]?(?:initial|original)\s+)?[\"\u201c]?(?:term|period|duration)[\"\u201d]?\s+"
    r"(?:of\s+)?(?:(?:the|this)\s+)?(?:agreement|contract)\b|"
    r"(?:agreement|contract|acuerdo|contrato|convenio)\b|(?:(?:initial|original)\s+)?[\"\u201c]?term[\"\u201d]?\b(?!\s+of\b)|"
    r"(?:plazo|vigencia|duraci[oó]n)\s+del?\s+(?:presente\s+)?(?:contrato|acuerdo|convenio)\b)",
    re.IGNORECASE)
# a verb of lasting or ending, and what may stand between it and its time or bound
_VERB = re.compile(
    r"\b(?P<modal>may|can|might|could|puede|podr[aá]n?)?\s*(?:\w+\s+)?"
    r"(?P<verb>continu(?:e|es|ing)|remain(?:s|ing)?\s+in\s+(?:full\s+)?(?:force|effect)|"
    r"(?:be|is|are|stay|remain)\s+(?:in\s+(?:full\s+)?(?:force|effect)|effective|valid)|"
    r"last(?:s|ing)?|run(?:s|ning)?|be|is|have|has|expir(?:e|es|ing)|end(?:s|ing)?|"
    r"terminat(?:e|es|ing)|"
    r"durar[aá]|estar[aá]\s+vigente|permanecer[aá]\s+vigente|tendr[aá]\s+una\s+(?:vigencia|duraci[oó]n)|"
    r"vencer[aá]|finalizar[aá]|expirar[aá]|terminar[aá])\b",
    re.IGNORECASE)
# a bound or an unbounded term right after the verb
_BOUND = re.compile(r"^\W*(?:\w+\W+){0,6}?(?:until|till|through|thru|hasta|indefinitely|"
                    r"perpetual\w*|in\s+perpetuity|indefinid\w*)\b", re.IGNORECASE)
_EVENT = re.compile(r"^\W*(?:automatically\s+)?(?:on|upon|at|as\s+of|with|when|el|al|con)\b",
                    re.IGNORECASE)
_RENEWAL = re.compile(r"\b(?:successive|additional|renewal|further|renew\w*|extension|sucesiv\w*|"
                      r"pr[oó]rroga\w*|prorrog\w*)\b", re.IGNORECASE)
_BEGINS = re.compile(r"\b(?:commenc\w*|begin\w*|effective|takes?\s+effect|start\w*|entrar[aá]\s+en\s+vigor)\b",
                     re.IGNORECASE)
# what may stand between "be" and the term's length ("be for a period of")
_COPULA_GAP = re.compile(r"\s*(?:(?:for|a|an|the|period|term|duration|of|initial|original)\s+)*",
                         re.IGNORECASE)
_TIME_TYPES = frozenset({"date", "datetime", "duration", "period"})
REACH = 12  # words from the verb to its time or bound
WINDOW = 600  # characters after the verb read for them (a sentence may be any length)


def asks_term_end(folded_question: str) -> bool:
    """Whether a folded question asks when the document or its term ends."""
    m = _ASKS.match(folded_question)
    return m is not None and (m.group(1) or m.group(2)) in _END_VERBS


@lru_cache(maxsize=8192)
def states_term_end(text: str, lang: str | None) -> bool:
    """Whether statement `text` states when the document's term ends (module docstring)."""
    lead = _LEAD.match(text)
    start = lead.end() if lead else 0
    subject = _SUBJECT.match(text, start)
    if subject is None:
        return False
    times = [(a, b) for t, a, b in values_in(text, lang) if t in _TIME_TYPES]
    begins = _BEGINS.search(text, subject.end()) is not None
    for m in _VERB.finditer(text, subject.end()):
        if m.group("modal"):
            continue
        clause = text[m.end():m.end() + WINDOW].split(";", 1)[0]
        reach = " ".join(clause.split()[:REACH])
        if _RENEWAL.search(reach):
            continue
        verb = m.group("verb").lower()
        if verb in ("be", "is", "have", "has"):  # "is three years", "shall be for a period of
            # one (1) year", "shall have an initial term of one (1) year"
            if any(m.end() <= a and _COPULA_GAP.fullmatch(text[m.end():a]) for a, _ in times):
                return True
            continue
        if _BOUND.match(clause):
            return True
        end = m.end() + len(reach)
        if any(m.end() <= a < end for a, _ in times):
            return True
        if verb.startswith(("expir", "end", "vencer", "finaliz")) and _EVENT.match(clause):
            return True
        if verb.startswith(("terminat", "terminar")) and begins and _EVENT.match(clause):
            return True
    return False

