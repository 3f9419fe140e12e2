"""Questions that ask what amount was paid to or by a named party, and the statements that
answer them.

A *payment question* names a party and its role in a payment:
- the **payee** (money went to it): "Find the $ value paid to X", "How much was paid to X?",
  "What amount did X charge?", "How much was charged by X?", "How much did X receive?";
- the **payer** (money came from it): "… paid by X", "How much did X pay?", "How much was X
  charged?".
A leading label ("Q:") is not part of the question, and only its first sentence (up to "?")
asks: a further sentence ("If multiple, record all $ values paid.") is an instruction about
the answer, which is what `ask` returns anyway — every statement that answers, cited.

A statement answers when it states a money amount and names the party in the asked role:
- payee: charged / billed / preauthorised / debited … *by* X ("Your card was charged $20.00
  by X": X took the money); paid / sent / transferred … *to* X; X received / was credited a
  sum ("X's card has received a $5.00 credit": the credit went to X); X charged / billed
  someone ("X has charged your account $9.00");
- payer: X paid / sent / transferred a sum; a sum paid … *by* X; a sum received, credited or
  refunded *from* X; X's card or account was charged or debited a sum.
A statement whose sentences run together (an end with no space after it: "…account
••7681.If you have…") is not cut into sentences reliably: an instruction inserted into it
can take the payment with it, so a payment stated there is not answered (the answer must
not depend on what else is inserted). A statement with an amount but no party ("Your card was charged $20.00") answers no one's
payment: when no statement names the party in its role, `ask` abstains. The party matches
when the statement's name starts with the question's words (case and punctuation aside:
"Acme" is "ACME, INC." and "ACME.IO").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

PAYEE, PAYER = "payee", "payer"


class _Candidate(Protocol):
    @property
    def item(self) -> Any: ...     # the passage (`evidence_id`)

    @property
    def judged(self) -> Any: ...   # the judged unit (`unit.text`, `unit.start`)


T = TypeVar("T", bound=_Candidate)
MAX_PARTY_WORDS = 6
_LABEL = re.compile(r"^\s*(?:q|question)\s*[:.)\-]\s*", re.IGNORECASE)
_VALUE = r"(?:\$|usd|dollars?|money|amounts?|values?|sums?|totals?|prices?|fees?|payments?)"
_VERB_PREP = r"(paid|charged|billed|credited|sent|transferred|refunded)\s+(to|by|from)"
# "Find the $ value paid to X", "What was the amount charged by X", "How much was paid to X"
_PASSIVE = re.compile(
    rf"^(?:(?:find|give|list|show|tell me|state|what (?:is|was|are|were))\s+(?:me\s+)?"
    rf"(?:the\s+|all\s+(?:the\s+)?)?(?:[\w$]+\s+){{0,2}}?{_VALUE}[\w$ ]{{0,20}}?|how much"
    rf"(?:\s+money)?)\s+(?:that\s+)?(?:(?:was|were|has been|have been|had been|is)\s+)?"
    rf"{_VERB_PREP}\s+(?P<x>.+?)\s*$", re.IGNORECASE)
# "What amount did X charge?", "How much did X pay?"
_ACTIVE = re.compile(
    r"^(?:how much(?:\s+money)?|what (?:amount|sum|total|\$ value|value)|what)\s+(?:did|does|has|"
    r"have)\s+(?P<x>.+?)\s+(?P<v>charge|charged|bill|billed|invoice|invoiced|receive|received|"
    r"pay|paid|send|sent|transfer|transferred|spend|spent)(?:\s+(?:you|us|me))?\s*$",
    re.IGNORECASE)
# "How much was X charged?", "How much was X paid?"
_ASKED_OF = re.compile(r"^how much (?:money\s+)?(?:was|were|has|have|had)\s+(?P<x>.+?)\s+(?:been\s+)?"
                       r"(?P<v>charged|billed|debited|paid|credited)\s*$", re.IGNORECASE)
_ACTIVE_PAYEE = frozenset("charge charged bill billed invoice invoiced receive received".split())
_PREP_ROLE = {("to", False): PAYEE, ("by", True): PAYEE, ("by", False): PAYER,
              ("from", False): PAYER, ("from", True): PAYER, ("to", True): PAYER}
_BILLING = frozenset({"charged", "billed"})
_DETERMINER = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_PARTY_WORD = re.compile(r"[^\W_]+")

_MONEY = (r"(?:[$€£]\s?\d[\d,\u00a0 ]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars?|"
          r"euros?)\b)")
_GAP = r"[^.;|?!$€£]{0,60}?"           # within the clause, no other amount in between
_NAME_TAIL = r"(?:[\s,]+(?-i:[A-Z0-9][\w&.'\u2019/-]*)){0,3}"  # "Corp" of "Acme Corp", "Inc."
_RUN_ON = re.compile(r"[a-z0-9][.!?](?=[A-Z][a-z])")  # "7681.If": a sentence end run into the next
_OWNER = r"(?:['\u2019]s?)?[^.;|?!$€£]{0,50}?"  # "X's Mercury debit card ••1890"


@dataclass(frozen=True, slots=True)
class PaymentQuestion:
    """The party a payment question names and its role (`PAYEE` or `PAYER`)."""

    party: str
    role: str

    def pattern(self) -> re.Pattern[str]:
        """The statements that state an amount with the party in its role."""
        p = _party(self.party)
        if self.role == PAYEE:
            forms = (
                rf"\b(?:charged|billed|preauthori[sz]ed|authori[sz]ed|debited|invoiced|withdrawn)\b"
                rf"{_GAP}{_MONEY}{_GAP}\bby\s+(?:the\s+)?{p}",
                rf"{_MONEY}{_GAP}\b(?:paid|sent|transferred|wired|remitted|payable)\b{_GAP}\bto\s+(?:the\s+)?{p}",
                rf"\b(?:paid|sent|transferred|wired|remitted|payment|pay)\b{_GAP}{_MONEY}{_GAP}\bto\s+(?:the\s+)?{p}",
                rf"{p}{_OWNER}\b(?:has\s+|have\s+|had\s+)?(?:received|been\s+credited|was\s+credited|"
                rf"got)\b{_GAP}{_MONEY}",
                rf"{p}{_NAME_TAIL}\s+(?:has\s+|have\s+|had\s+|just\s+)?(?:charged|billed|invoiced)\b"
                rf"{_GAP}{_MONEY}")
        else:
            forms = (
                rf"{p}{_NAME_TAIL}\s+(?:has\s+|have\s+|had\s+|just\s+)?(?:paid|sent|transferred|wired|"
                rf"remitted)\b{_GAP}{_MONEY}",
                rf"{_MONEY}{_GAP}\b(?:paid|sent|transferred|wired|remitted)\s+by\s+(?:the\s+)?{p}",
                rf"\b(?:received|credit|credited|refund|refunded|payment|transfer|deposit)\b{_GAP}"
                rf"{_MONEY}{_GAP}\bfrom\s+(?:the\s+)?{p}",
                rf"{_MONEY}{_GAP}\b(?:credit|refund|payment|transfer|deposit)\b{_GAP}\bfrom\s+(?:the\s+)?{p}",
                rf"{p}{_OWNER}\b(?:was|were|has\s+been|have\s+been|is|got)\s+(?:charged|billed|debited)\b"
                rf"{_GAP}{_MONEY}")
        return re.compile("|".join(f"(?:{f})" for f in forms), re.IGNORECASE)


def _party(name: str) -> str:
    words = _PARTY_WORD.findall(name)
    return r"(?<![^\W_])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![a-z])"


def _named(x: str) -> str | None:
    """The party `x` when it is a name (a capital or a digit, at most `MAX_PARTY_WORDS`
    words), else None."""
    x = _DETERMINER.sub("", x.strip(" \t\"'\u201c\u201d")).strip()
    words = _PARTY_WORD.findall(x)
    if not words or len(words) > MAX_PARTY_WORDS or not re.search(r"[A-Z0-9]", x):
        return None
    return x


def read_payment(question: str) -> PaymentQuestion | None:
    """The payment question `question` asks (see the module docstring), or None."""
    text = _LABEL.sub("", question).strip()
    first = text.split("?", 1)[0].strip()
    first = re.sub(r"\s+", " ", first)
    m = _PASSIVE.match(first)
    if m:
        party = _named(m.group("x"))
        verb, prep = m.group(1).lower(), m.group(2).lower()
        role = _PREP_ROLE[(prep, verb in _BILLING)]
        if verb == "credited":  # a sum credited to X went to X; credited by X came from X
            role = PAYEE if prep == "to" else PAYER
        return PaymentQuestion(party, role) if party else None
    m = _ACTIVE.match(first)
    if m:
        party = _named(m.group("x"))
        role = PAYEE if m.group("v").lower() in _ACTIVE_PAYEE else PAYER
        return PaymentQuestion(party, role) if party else None
    m = _ASKED_OF.match(first)
    if m:
        party = _named(m.group("x"))
        role = PAYEE if m.group("v").lower() in ("paid", "credited") else PAYER
        return PaymentQuestion(party, role) if party else None
    return None


def states_payment(pq: PaymentQuestion, text: str) -> bool:
    """Whether `text` states an amount paid with the party of `pq` in its role."""
    return pq.pattern().search(text) is not None


def amounts(text: str) -> tuple[str, ...]:
    """The money amounts `text` states, digit separators dropped, in order."""
    return tuple(re.sub(r"[,\u00a0 ]", "", m.group(0)).lower()
                 for m in re.finditer(_MONEY, text, re.IGNORECASE))


def choose_payments(pq: PaymentQuestion, cands: Sequence[T]) -> list[T]:
    """The candidates whose unit states a payment of `pq`: per passage, the first in
    document order of each distinct set of amounts (a subject line and a body stating the
    same charge are one answer)."""
    pat = pq.pattern()
    seen: set[tuple[str, tuple[str, ...]]] = set()
    out: list[T] = []
    for c in sorted(cands, key=lambda c: (c.item.evidence_id, c.judged.unit.start)):
        if _RUN_ON.search(c.judged.unit.text) or not pat.search(c.judged.unit.text):
            continue
        key = (c.item.evidence_id, tuple(sorted(set(amounts(c.judged.unit.text)))))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out
