"""How much a party can be liable for: the question that asks it and the statement that
caps it.

"What is the maximum liability of a party under this agreement?" is answered by the
contract's cap, which rarely says "maximum": "Supplier's aggregate liability shall not
exceed the fees paid in the prior twelve months", "… liability … is limited to $500,000",
"In no event shall either party be liable in an amount greater than the amounts paid
hereunder", "la responsabilidad del Proveedor no excederá del precio del contrato". A
lawyer reads each as the answer.

- `asks_liability_cap(question)`: a question for a thing (what, how much, cuál, cuánto)
  that names a maximum, cap, limit or ceiling of liability ("maximum liability", "cap on
  liability", "limitation of liability", "límite de responsabilidad") — not one that asks
  what is excluded from it or left unlimited.
- `states_liability_cap(text)`: the statement speaks of liability (liability, liable,
  responsabilidad) and, within `REACH` words, bounds it: "shall not exceed", "is limited to",
  "capped at", "up to a maximum of", "no excederá", "limitada a" — or, after a negation
  ("in no event", "not", "never", "neither party"), "exceed", "greater than", "in excess
  of", "more than" —
  and the bound is an amount or names one (the fees, the amounts paid, the price, the
  total). "Including but not limited to" bounds nothing; nor does an exclusion of kinds of
  damages ("neither party is liable for consequential damages"), which states no amount;
  nor an insurance limit ("limits of liability of not less than $1,000,000").
"""

from __future__ import annotations

import re
from functools import lru_cache

from .statement_kinds import values_in

_ASKS = re.compile(
    r"\b(?:maximum|max|cap|caps|capped|limit|limits|limitation|limitations|ceiling|maximo|maxima|"
    r"limite|limites|limitacion|tope)\b(?:\W+\w+){0,4}?\W+(?:liability|liabilities|liable|"
    r"responsabilidad)\b|"
    r"\b(?:liability|liabilities|responsabilidad)\b(?:\W+\w+){0,3}?\W+(?:capped|limited|cap|"
    r"maximum|maxima|limitada|limite|tope)\b")
_WH = re.compile(r"^(?:what|which|how much|how far|up to what|cual|cuales|cuanto|cuanta|que|hasta)\b")
_NOT_A_CAP = re.compile(r"\b(?:exclud\w*|except\w*|unlimited|uncapped|not limited|"
                        r"exclu\w*|ilimitad\w*|salvo)\b")
_LIABLE = re.compile(r"\b(?:liabilit(?:y|ies)|liable|responsabilidad(?:es)?|responsable)\b",
                     re.IGNORECASE)
# a bound on its own, and one that bounds only after a negation
_BOUND = re.compile(
    r"\b(?:not\s+to\s+exceed|(?:shall|will|may|does|do|would)\s+not\s+exceed|"
    r"(?:be|is|are|been)\s+(?:\w+\s+)?(?<!not\s)(?:limited|capped|restricted)\s+(?:to|at)|"
    r"capped\s+at|up\s+to\s+(?:a\s+|the\s+)?maximum\s+(?:of|amount)|"
    r"no\s+exceder[aá]n?|no\s+podr[aá]n?\s+exceder|no\s+superar[aá]n?|"
    r"(?:queda|quedar[aá]|est[aá]|ser[aá])\s+limitad[ao]s?\s+a|hasta\s+(?:un\s+)?m[aá]ximo\s+de)\b",
    re.IGNORECASE)
_NEGATED_BOUND = re.compile(r"\b(?:exceed|exceeding|greater\s+than|in\s+excess\s+of|more\s+than|"
                            r"exceder|superar)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|neither|no\s+party|no\s+event|no\s+circumstances?|nunca|en\s+ning[uú]n\s+caso)\b",
                       re.IGNORECASE)
# a bound that names its amount without a figure
_NAMED_AMOUNT = re.compile(
    r"\b(?:amounts?|fees?|sums?|total|aggregate|price|compensation|payments?|charges?|value|"
    r"consideration|revenues?|royalt\w+|importe|precio|cantidad|honorarios|contraprestaci[oó]n|"
    r"valor)\b", re.IGNORECASE)
_NOT_BEFORE = re.compile(r"\b(?:not|no)\s+(?:\w+\s+)?$", re.IGNORECASE)
_MONEY = frozenset({"money", "number", "percent"})
REACH = 30  # words from "liability" to its bound
AMOUNT_REACH = 25  # words from the bound to its amount
WINDOW = 1200  # characters read for that many words (a sentence may be any length)


def asks_liability_cap(folded_question: str) -> bool:
    """Whether a folded question asks how much a party can be liable for."""
    return (_WH.match(folded_question) is not None and _ASKS.search(folded_question) is not None
            and _NOT_A_CAP.search(folded_question) is None)


@lru_cache(maxsize=8192)
def states_liability_cap(text: str, lang: str | None) -> bool:
    """Whether statement `text` caps a party's liability (see the module docstring)."""
    amounts = [a for t, a, _ in values_in(text, lang) if t in _MONEY]
    for liable in _LIABLE.finditer(text):
        window_end = _word_end(text, liable.end(), REACH)
        bounds = [m for m in _BOUND.finditer(text, liable.start(), window_end)]
        bounds += [m for m in _NEGATED_BOUND.finditer(text, liable.start(), window_end)
                   if _NEGATION.search(text, 0, m.start())]
        for b in bounds:
            if _NOT_BEFORE.search(text, max(0, b.start() - 12), b.start()):  # "shall not be limited to"
                continue
            after = _word_end(text, b.end(), AMOUNT_REACH)
            if any(b.end() <= a < after for a in amounts) or _NAMED_AMOUNT.search(text, b.end(), after):
                return True
    return False


def _word_end(text: str, start: int, words: int) -> int:
    """The offset `words` words after `start` (the end of the text if fewer remain)."""
    m = re.match(rf"(?:\W*\w+){{0,{words}}}", text[start:start + WINDOW])
    return start + (m.end() if m else 0)

