"""What a statement states besides typed values — read once per unit, independent of the
question, so `units.judge` can ask whether it states what a question's form asks for:

- **organisations** it names: a capitalised name ending in a company form ("Harbour
  Freight Inc.", "IMRS OPERATIONS INC.", "Ibérica S.A.", "CRO Consulting (Pty) Limited").
  "Who are the parties?" is answered where two are named, not by a sentence that only
  says "the parties";
- **named things**: the head nouns of capitalised names of two words or more ("Master
  Service Agreement", "WEB SITE HOSTING AGREEMENT" → "agreement"), never a determiner and
  its noun ("This Agreement"). "What is the name of this agreement?" is answered where
  the agreement is named, not by a sentence about a trade name;
- whether it is a **definition** ('"Applicable Law" means …'): it says what a term means,
  which answers "what is X", not "which law governs" or "who are the parties";
- the words it states only **negated** ("shall not be governed by …", "no party shall
  …"): a statement that the document is not governed by a convention does not say which
  law governs it.
"""

from __future__ import annotations

import re

from ..index.analyze import analyze, fold

# company forms (English and Spanish practice, and the common foreign ones)
_FORMS = (r"(?:(?=[A-Z])(?i:inc|incorporated|corp|corporation|ltd|limited|llc|l\.l\.c|llp|l\.p|lp|"
          r"co|company|gmbh|ag|s\.a|s\.a\.u|s\.l|s\.l\.u|s\.r\.l|s\.p\.a|n\.v|b\.v|pty|pte|sas|"
          r"se|plc)|plc)")
_WORD = r"[A-ZÀ-Þ0-9][\w&'\u2019.\-]*"
_ORGANISATION = re.compile(
    rf"(?<![\w])((?:{_WORD},?\s+(?:\([A-Za-z]+\)\s+)?){{1,6}}){_FORMS}\.?(?![\w])")
# a capitalised name: capitalised words, with the small words a name holds between them
_LETTERS = r"[A-ZÀ-Þ][\w&'\u2019.\-]*"
_NAME = re.compile(rf"(?<![\w.]){_LETTERS}(?:\s+(?:(?:of|and|for|to|the|on|de|del|la|y|e)\s+)?{_LETTERS})+")
MAX_NAME_WORDS = 6
_DETERMINERS = frozenset("this the that these those such said each any its their our your a an "
                         "este esta estos estas el la los las dicho dicha".split())
_DEFINITION = re.compile(
    r"^(?:[\w.()]{1,10}\s+)?(?:[\"\u201c\u2018'][^\"\u201d\u2019]{1,80}[\"\u201d\u2019']\s*"
    r"(?:,|or|and|o|y)?\s*){1,4}"
    r"(?:\([^)]{0,40}\)\s*)?(?:,\s*)?(?:shall\s+mean|means|mean|shall\s+have\s+the\s+meaning|"
    r"has\s+the\s+meaning|refers\s+to|significa|se\s+entender[aá])\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|neither|nor|no|cannot|ni|nunca|tampoco)\b((?:\W+\w+){1,3})",
                       re.IGNORECASE)


def organisations(text: str) -> int:
    """How many different organisations `text` names (a capitalised name and a company form)."""
    found = set()
    for m in _ORGANISATION.finditer(text):
        words = [w for w in m.group(1).replace(",", " ").split() if not w.startswith("(")]
        while words and fold(words[0]) in _DETERMINERS:
            words = words[1:]
        if words:
            found.add(fold(" ".join(words)))
    return len(found)


def named_heads(text: str) -> frozenset[str]:
    """The folded head nouns (last words) of the capitalised names of two or more words in
    `text` whose other words are not all determiners."""
    out = set()
    for m in _NAME.finditer(text):
        words = m.group().split()
        if len(words) > MAX_NAME_WORDS:  # a run of capitals (a sentence in upper case)
            continue
        if any(fold(w).strip(".,") not in _DETERMINERS for w in words[:-1]):
            out.add(fold(words[-1]).strip(".,;:\"'\u201d\u2019)"))
    return frozenset(out)


def is_definition(text: str) -> bool:
    """Whether `text` defines a quoted term ('"Party" means …', '1.3 "Applicable Law" means')."""
    return _DEFINITION.match(text) is not None


def negated(text: str, lang: str | None) -> frozenset[str]:
    """The analysed words that follow a negation within three words ("shall *not be
    governed*")."""
    out: set[str] = set()
    for m in _NEGATION.finditer(text):
        out.update(analyze(m.group(1), lang))
    return frozenset(out)
