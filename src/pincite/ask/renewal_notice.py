"""How much notice stops a renewal: the question that asks it and the statement that sets it.

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
  antelación" ("ninety (90) days prior to the end of the term"). A renewal clause with no
  notice period, or a notice with no lead time, does not set one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..values.scan import find_values

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
_DURATIONS = frozenset({"duration", "period"})
LEAD_WORDS = 3  # words between the duration and "prior to" ("days' written notice prior to")


def asks_renewal_notice(folded_question: str) -> bool:
    """Whether a folded question asks the notice that stops a renewal."""
    return (_WH.match(folded_question) is not None and _NOTICE_Q.search(folded_question) is not None
            and _RENEWAL_Q.search(folded_question) is not None)


@lru_cache(maxsize=8192)
def states_renewal_notice(text: str, lang: str | None) -> bool:
    """Whether statement `text` sets the notice that stops a renewal (module docstring)."""
    if not (_RENEWAL.search(text) and _NOTICE.search(text) and _NOT_RENEWING.search(text)):
        return False
    return any(_AHEAD.match(text, v.char_end) for v in find_values(text, lang=lang)
               if v.value_type in _DURATIONS)
