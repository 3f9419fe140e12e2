"""Renewals: how long a renewal runs, and how much notice stops one — the questions that
ask them and the statements that set them.

"For how long does this agreement renew after its initial term?" is answered by the
renewal clause's period, in its own words: "… shall renew automatically for successive
one-year periods", "… is extended for further terms of twelve (12) months", "se prorrogará
por periodos de un año".

- `asks_renewal_term(question)`: a question for a length (how long, for what period, cuánto
  tiempo, por cuánto) that names a renewal (renew, extend, prórroga).
- `states_renewal_term(text)`: the statement renews or extends the document or its term
  (named before the verb: agreement, contract, term, lease, licence, contrato) for a length within `PERIOD_WORDS` words: a duration or a
  period ("for successive one (1) year periods", "for two further years"), or one year at
  a time ("from year to year", "on a year-to-year basis", "por periodos anuales"). Not a
  renewal it negates ("shall not be renewed"), nor a notice period ("notice of non-renewal
  ninety days before …": a lead time, see below).

"How much notice must a party give to prevent the renewal of this agreement?" is answered
by the renewal clause's notice period, which rarely says "prevent": "… renews for
successive one-year periods unless either party gives notice of non-renewal at least
ninety (90) days before the end of the then-current term", "… unless a party notifies its
intention not to renew not less than fifteen (15) days prior to the expiry", "se
prorrogará … salvo preaviso de dos meses antes de su vencimiento".

- `asks_renewal_notice(question)`: a question for a thing (how much, how many, what, how
  long, cuánto, qué) that names a notice (notice, notify, aviso, preaviso) and a renewal
  (renew, renewal, non-renewal, renovación, prórroga).
- `states_renewal_notice(text)`: the statement speaks of a renewal, of a notice, of not
  renewing or of ending (not to renew, non-renewal, terminate, cancel, object; no renovar,
  oponerse), and states a time ahead of something: a duration followed within `LEAD_WORDS`
  words by "prior to", "before", "in advance of", "preceding", "antes de", "de
  antelación" ("ninety (90) days prior to the end of the term"), or named a lead time
  before it ("con una antelación mínima de tres meses", "a notice period of ninety days"). A renewal clause with no
  notice period, or a notice with no lead time, does not set one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .statement_kinds import values_in

_NOTICE_Q = re.compile(r"\b(?:notice|notices|notify|notification|aviso|preaviso|notificacion|"
                       r"notificar|antelacion)\b")
_RENEWAL_Q = re.compile(r"\b(?:renew\w*|non ?renewal|renovacion|renovar|prorroga\w*|prorrogar)\b")
_WH = re.compile(r"^(?:how much|how many|how long|how far|what|which|cuanto|cuanta|cuantos|cuantas|"
                 r"que|cual|con cuanta|con que)\b")
_RENEWAL = re.compile(r"\b(?:renew\w*|non-?renewal|extension|extended|renovaci[oó]n|renovar\w*|"
                      r"pr[oó]rroga\w*|prorrogar\w*)\b", re.IGNORECASE)
_NOTICE = re.compile(r"\b(?:notice|notif\w+|aviso|preaviso|notificaci[oó]n|notificar\w*|comuni(?:c|qu)\w+)\b",
                     re.IGNORECASE)
_NOT_RENEWING = re.compile(
    r"\bnot\s+(?:to\s+)?(?:renew|extend)\w*|\bnon-?renewal\b|\bterminat\w*|\bcancel\w*|\bobject\w*|"
    r"\bno\s+renovar|\bno\s+prorrogar|\boponerse\b|\boposici[oó]n\b|\bdenuncia\w*|\bresolver\b",
    re.IGNORECASE)
_AHEAD = re.compile(r"\W*(?:\S+\s+){0,3}?(?:prior\s+to|before|in\s+advance\s+of|preceding|"
                    r"antes\s+de|de\s+antelaci[oó]n|con\s+antelaci[oó]n|de\s+anticipaci[oó]n|previ[oa]s?\s+a)",
                    re.IGNORECASE)
# … or a lead time named before its length ("con una antelación mínima de tres meses", "a
# notice period of ninety days")
_LEAD_BEFORE = re.compile(r"\b(?:antelaci[oó]n|anticipaci[oó]n|preaviso|notice\s+period)\s+"
                          r"(?:m[ií]nim[ao]\s+|minimum\s+)?(?:de|of)\s+(?:at\s+least\s+|al\s+menos\s+)?$",
                          re.IGNORECASE)
_DURATIONS = frozenset({"duration", "period"})
LEAD_WORDS = 3  # words between the duration and "prior to" ("days' written notice prior to")
PERIOD_WORDS = 8  # words from "renew" to the length it renews for
WINDOW = 400  # characters after "renew" read for it (a sentence may be any length)

_LENGTH_Q = re.compile(r"^(?:for )?(?:how long|what (?:period|term|length)|cuanto tiempo|por cuanto "
                       r"tiempo|durante cuanto tiempo|por que (?:periodo|plazo))\b")
_RENEWS = re.compile(r"\b(?:renew(?:s|ed|al)?|extend(?:s|ed)?|prorrogar[aá]n?|se\s+prorroga|"
                     r"renovar[aá]n?|se\s+renueva)\b", re.IGNORECASE)
# what renews: the document or its term, named before the verb
_DOCUMENT = re.compile(r"\b(?:agreement|contract|term|lease|licen[cs]e|contrato|acuerdo|convenio|"
                       r"vigencia|arrendamiento)\b", re.IGNORECASE)
_NOT_RENEWED = re.compile(r"\b(?:not|no|never|nunca)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_YEARLY = re.compile(r"\b(?:year[\s-]to[\s-]year|month[\s-]to[\s-]month|annual(?:ly)?|yearly|"
                     r"anual(?:es|mente)?|mensual(?:es|mente)?)\b", re.IGNORECASE)


def asks_renewal_term(folded_question: str) -> bool:
    """Whether a folded question asks how long a renewal runs."""
    return (_LENGTH_Q.match(folded_question) is not None
            and _RENEWAL_Q.search(folded_question) is not None
            and _NOTICE_Q.search(folded_question) is None)


@lru_cache(maxsize=8192)
def states_renewal_term(text: str, lang: str | None) -> bool:
    """Whether statement `text` states how long a renewal runs (module docstring)."""
    document = _DOCUMENT.search(text)
    if document is None:
        return False
    lengths = [a for t, a, _ in values_in(text, lang) if t in _DURATIONS]
    for m in _RENEWS.finditer(text, document.end()):
        if _NOT_RENEWED.search(text, max(0, m.start() - 24), m.start()):
            continue
        end = m.end() + len(" ".join(text[m.end():m.end() + WINDOW].split()[:PERIOD_WORDS]))
        if _AHEAD.match(text, m.end()) is None and (
                any(m.end() <= a < end for a in lengths) or _YEARLY.search(text, m.end(), end)):
            return True
    return False


def asks_renewal_notice(folded_question: str) -> bool:
    """Whether a folded question asks the notice that stops a renewal."""
    return (_WH.match(folded_question) is not None and _NOTICE_Q.search(folded_question) is not None
            and _RENEWAL_Q.search(folded_question) is not None)


@lru_cache(maxsize=8192)
def states_renewal_notice(text: str, lang: str | None) -> bool:
    """Whether statement `text` sets the notice that stops a renewal (module docstring)."""
    if not (_RENEWAL.search(text) and _NOTICE.search(text) and _NOT_RENEWING.search(text)):
        return False
    return any(_AHEAD.match(text, end) or _LEAD_BEFORE.search(text, 0, start)
               for t, start, end in values_in(text, lang) if t in _DURATIONS)
