"""What a statement states besides typed values — read once per unit, independent of the
question, so `units.judge` can ask whether it states what a question's form asks for:

- **organisations** it names: a capitalised name ending in a company form ("Harbour
  Freight Inc.", "IMRS OPERATIONS INC.", "Ibérica S.A.", "CRO Consulting (Pty) Limited",
  "theglobe.com, Inc."), and persons declared parties ("Jane Roe, an individual").
  "Who are the parties?" is answered where two are named, not by a sentence that only
  says "the parties";
- **named things**: the head nouns of capitalised names of two words or more ("Master
  Service Agreement", "WEB SITE HOSTING AGREEMENT" → "agreement"), never a determiner and
  its noun ("This Agreement"). "What is the name of this agreement?" is answered where
  the agreement is named, not by a sentence about a trade name;
- whether it is a **definition** ('"Applicable Law" means …'): it says what a term means,
  which answers "what is X", not "which law governs" or "who are the parties";
- which names refer to **this document** (`this_names`): a name opening the statement,
  after "this", or defined as the document ('… Agreement (the "Agreement")'), not one a
  recital gives another agreement ('an asset purchase agreement ("Asset Purchase
  Agreement")');
- the words it states only **negated** ("shall not be governed by …", "no party shall
  …"): a statement that the document is not governed by a convention does not say which
  law governs it. A negation reaches the three words after it; a negative subject
  ("Neither party …", "Nothing in this Agreement shall …", "There are no …") and a
  denial ("waives any right to assert that …", "shall not contend that …") the rest of
  its clause, up to an exception ("except", "provided", "unless", "other than", "but")
  or a semicolon. A bound is not a negation ("not less than", "no later than").
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..index.analyze import analyze, fold
from ..values.scan import find_values

# company forms (English and Spanish practice, and the common foreign ones)
# company forms of the Nordic countries and Europe written in capitals (or as the register
# spells them), which as other words are common: "Halvorsen Data AS", "Lund Verktyg AB"
_CASED_FORMS = ("ASA", "AS", "AB", "Oy", "KG", "KGaA", "SA", "SpA", "SRL", "BV", "NV", "SE")
_FORMS = (r"(?:(?=[A-Z])(?i:inc|incorporated|corp|corporation|ltd|limited|llc|l\.l\.c|llp|l\.p|lp|"
          r"co|company|gmbh\s?&\s?co\.?\s?kg(?:aa)?|gmbh|ag|s\.a|s\.a\.u|s\.l|s\.l\.u|s\.r\.l|s\.p\.a|n\.v|b\.v|pty|pte|sas|"
          r"se|plc|oyj|sarl|s\.a\.s|s\.a\.r\.l|s\.\u00e0\s?r\.l|a/s|aps)|plc"
          # forms that are also short words ("as", "ab", "sa"): written as the form is
          r"|{}(?=[^/]|$))".format("|".join(_CASED_FORMS)))
# a word of a name: capitalised, or a lower-case word that a capital or a dot marks as a
# name ("eBay", "theglobe.com")
_WORD = r"(?:[A-ZÀ-Þ0-9][\w&'\u2019.\-]*|[a-z]+(?:[A-Z]|\.[a-z]{2,4}\b)[\w&'\u2019.\-]*)"
_ORGANISATION = re.compile(
    rf"(?<![\w])((?:{_WORD},?\s+(?:\([A-Za-z]+\)\s+)?){{1,6}}){_FORMS}\.?(?![\w])")
# a capitalised name: capitalised words, with the small words a name holds between them
_LETTERS = r"[A-ZÀ-Þ][\w&'\u2019.\-]*"
_NAME = re.compile(rf"(?<![\w.]){_LETTERS}(?:\s+(?:(?:of|and|for|to|the|on|de|del|la|y|e)\s+)?{_LETTERS})+")
MAX_NAME_WORDS = 6
DOCUMENT_WORDS = frozenset("agreement contract acuerdo contrato convenio".split())
_DETERMINERS = frozenset("this the that these those such said each any its their our your a an "
                         "este esta estos estas el la los las dicho dicha".split())
_DEFINITION = re.compile(
    r"^(?:[\w.()]{1,10}\s+)?(?:[\"\u201c\u2018'][^\"\u201d\u2019]{1,80}[\"\u201d\u2019']\s*"
    r"(?:,|or|and|o|y)?\s*){1,4}"
    r"(?:\([^)]{0,40}\)\s*)?(?:,\s*)?(?:shall\s+mean|means|mean|shall\s+have\s+the\s+meaning|"
    r"has\s+the\s+meaning|refers\s+to|significa|se\s+entender[aá])\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|neither|nor|no|cannot|ni|nunca|tampoco)\b"
                       r"(?!\W+(?:less|more|later|earlier|fewer|greater|sooner|longer|menos|m[aá]s|"
                       r"despu[eé]s)\b)((?:\W+\w+){1,3})", re.IGNORECASE)
# what an amount or a term leaves out: "excluding VAT", "exclusive of taxes", "net of
# fees", "VAT excluded", "IVA excluido", "sin IVA", "IVA no incluido"
_EXCLUSION = re.compile(
    r"\b(?:excluding|exclusive\s+of|excl\.|net\s+of|sin|excluyendo|excluido|excluida|excluidos|"
    r"excluidas)\s+(?:el\s+|la\s+|los\s+|las\s+|any\s+|all\s+)?([^\W\d_]+)|"
    r"\b([^\W\d_]+)\s+(?:excluded|not\s+included|excluid[oa]s?|no\s+incluid[oa]s?)\b",
    re.IGNORECASE)
# an exception, up to the end of its clause
_EXCEPTION_PHRASE = re.compile(r"\b(?:except|excepting|other\s+than|save\s+for|apart\s+from|salvo|"
                               r"excepto|con\s+excepci[oó]n\s+de)\b[^,;:]*", re.IGNORECASE)
# a negative subject at the start of a clause: its scope is the rest of the clause
_NEGATIVE_SUBJECT = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|that|but|y|que)\s+)(?:[(\w.)]{1,8}\s+)??"
    r"(?:neither|nothing|none|no(?=\s+(?!event\b|case\b|later\b|less\b|more\b)\w+\s+\w*)|"
    r"there\s+(?:is|are|shall\s+be|will\s+be)\s+no|ninguna?|nada|no\s+existe)\b"
    r"(.*?)(?=[;]|\b(?:except|excepto|salvo|provided|unless|other\s+than|but|sino|it\s+being)\b|$)",
    re.IGNORECASE | re.DOTALL)
# a denial: a party gives up or may not assert that something is so ("waives any right to
# assert that the fee is a penalty", "shall not contend that …"): the rest of the clause
_DENIAL = re.compile(
    r"(?:\b(?:waives?|waived|renounces?|renuncia)\s+(?:any|all|its|their|el|todo)\s+(?:right|rights|"
    r"claims?|derecho)\s+(?:to|a)\s+(?:assert|claim|contend|argue|allege|alegar|reclamar)|"
    r"\b(?:not|never|no)\s+(?:assert|claim|contend|argue|allege|alegar[aá]?)"
    r")\s+(?:that|que)\b(.*?)(?=[;]|\b(?:except|excepto|salvo|provided|unless|but|sino)\b|$)",
    re.IGNORECASE | re.DOTALL)


# a person who is a party: a name declared "an individual" ('Jane Roe ("Consultant"), an
# individual'; "Juan Pérez, persona física")
_INDIVIDUAL = re.compile(
    r"(?<![\w])((?:[A-ZÀ-Þ][\w'\u2019.\-]*\s+){1,3}[A-ZÀ-Þ][\w'\u2019\-]*)\s*,?\s*"
    r"(?:\([^)]{1,60}\)\s*,?\s*)?(?:an\s+individual|persona\s+f[ií]sica)\b")


# a public body declared a party: its name, then (after its address, say) the role it is
# given ('el Ayuntamiento de Calatayud (el "Ayuntamiento")', 'the City of Leeds ("Council")')
_PUBLIC_BODY = re.compile(
    r"(?<![\w])((?:Ayuntamiento|Diputaci[oó]n|Consejer[ií]a|Ministerio|Universidad|Gobierno|"
    r"Junta|Comunidad|Agencia|Consorcio|Generalitat|Cabildo|Mancomunidad|City|County|Council|"
    r"Ministry|Department|University|Authority|Agency|Government|Municipality|Borough)"
    r"(?:\s+(?:of|de|del|de\s+la|for)\s+|\s+)[A-ZÀ-Þ][\w'\u2019\-]*(?:\s+[A-ZÀ-Þ][\w'\u2019\-]*){0,4})"
    r"[^()\"\u201c]{0,120}?\(\s*(?:the\s+|el\s+|la\s+|en\s+adelante\s*,?\s*)?[\"\u201c\u2018]")


# the parties clause: what follows "between" ("by and between", "entre") names the parties
_BETWEEN = re.compile(r"\b(?:between|among|entre)\s+", re.IGNORECASE)
# … a party there given its role or short name: 'World Energy Solutions, ("WES")'
_GIVEN_ROLE = re.compile(
    rf"(?<![\w])((?:{_WORD},?\s+){{0,5}}{_WORD}),?\s*\(\s*(?:the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?|"
    r"el\s+|la\s+|en\s+adelante\s*,?\s*)?[\"\u201c\u2018]")
# … or described as a company of some place: 'i-on interactive, a Florida corporation'
_DESCRIBED = re.compile(
    r"(?:^|\b(?:and|y|e)\s+)((?:[\w&'\u2019.\-]+\s+){0,3}[\w&'\u2019.\-]+),\s+an?\s+"
    r"(?:[A-Z][\w.\-]*\s+){1,3}(?:corporation|company|limited\s+liability\s+company|limited\s+partnership|"
    r"general\s+partnership|partnership|corporaci[oó]n|sociedad|banking\s+corporation|association)\b")


def organisations(text: str) -> int:
    """How many different parties `text` names: organisations (a capitalised name and a
    company form), public bodies given a role, persons declared individuals, and — in a
    parties clause, after "between" — a name given a role ('World Energy Solutions,
    ("WES")') or described as a company ("i-on interactive, a Florida corporation")."""
    found = set()
    for m in (*_INDIVIDUAL.finditer(text), *_PUBLIC_BODY.finditer(text)):
        found.add(fold(m.group(1)))
    between = _BETWEEN.search(text)
    if between is not None:
        rest = text[between.end():]
        for m in (*_GIVEN_ROLE.finditer(rest), *_DESCRIBED.finditer(rest)):
            name = fold(m.group(1)).strip(" ,.")
            words = name.split()
            while words and words[0] in _DETERMINERS:
                words = words[1:]
            if words and words[0][0].isalpha() and not any(w in DOCUMENT_WORDS for w in words):
                found.add(" ".join(words))
    for m in _ORGANISATION.finditer(text):
        words = [w for w in m.group(1).replace(",", " ").split() if not w.startswith("(")]
        while words and fold(words[0]) in _DETERMINERS:
            words = words[1:]
        # a form that is also a short word ("AS", "SA") after a run of capitals is a word
        # of a sentence in upper case ("… ANY DAMAGES AS A RESULT …"), not a company
        if m.group(0)[m.end(1) - m.start(0):].strip() in _CASED_FORMS \
                and all(w.isupper() for w in words):
            continue
        if words:
            found.add(fold(" ".join(words)))
    # one party named twice ("CNS Pharmaceuticals, Inc." as an organisation and as given a
    # role) counts once
    names = sorted(found, key=len)
    return sum(1 for i, n in enumerate(names) if not any(_same_party(n, m) for m in names[i + 1:]))


def _same_party(a: str, b: str) -> bool:
    """Whether two folded names name one party (the words of one a run of the other's)."""
    wa, wb = re.findall(r"\w+", a), re.findall(r"\w+", b)
    return bool(wa) and any(wb[i:i + len(wa)] == wa for i in range(len(wb) - len(wa) + 1))


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
    """The analysed words `text` states only negated: that follow a negation within three
    words ("shall *not be governed*"), or that an amount excludes ("*VAT* excluded", "sin
    *IVA*"), and that it does not also state outside every such scope and every exception
    ("shall automatically renew … unless a party gives notice not to renew" states
    "renew")."""
    spans: list[tuple[int, int]] = []
    for m in (*_NEGATION.finditer(text), *_NEGATIVE_SUBJECT.finditer(text),
              *_DENIAL.finditer(text)):
        spans.append(m.span(1))
    for m in _EXCLUSION.finditer(text):
        spans.append(m.span(1) if m.group(1) else m.span(2))
    if not spans:
        return frozenset()
    out: set[str] = set()
    for a, b in spans:
        out.update(analyze(text[a:b], lang))
    outside = list(text)
    # an exception states nothing of its own ("except for any licence granted in a
    # Schedule, this Agreement grants no licence")
    spans += [m.span() for m in _EXCEPTION_PHRASE.finditer(text)]
    for a, b in spans:
        outside[a:b] = " " * (b - a)
    return frozenset(out) - frozenset(analyze("".join(outside), lang))


# a name defined as the document itself: '(the "Agreement")', '("this Agreement")'
_DEFINED_AS_DOCUMENT = re.compile(
    r"^\s*,?\s*\(\s*(?:(?:the|this|hereinafter|herein|called|referred\s+to\s+as|el|este|en\s+adelante)\s+)*"
    r"[\"\u201c\u2018']?\s*(?:this\s+|el\s+|este\s+)?(?:agreement|contract|acuerdo|contrato|convenio)"
    r"\s*[\"\u201d\u2019']?\s*\)", re.IGNORECASE)
_THIS_BEFORE = re.compile(r"\b(?:this|the\s+present|este|esta|el\s+presente)\s+$", re.IGNORECASE)
_OPENING = re.compile(r"^[\W\d_]*(?:[ivxlcdm]+\.|[a-z]\))?\s*$", re.IGNORECASE)
MAX_TITLE_WORDS = 10


def this_names(text: str) -> frozenset[str]:
    """The folded head nouns of the names in `text` that refer to this document: a name
    that opens the statement, follows "this", or is defined as the document."""
    out = set()
    for m in _NAME.finditer(text):
        words = m.group().split()
        if len(words) > MAX_TITLE_WORDS or all(fold(w).strip(".,") in _DETERMINERS
                                                for w in words[:-1]):
            continue
        head = fold(words[-1]).strip(".,;:\"'\u201d\u2019)")
        opens = _OPENING.match(text[:m.start()]) is not None
        after_this = fold(words[0]) in ("this", "este", "esta") or \
            _THIS_BEFORE.search(text[max(0, m.start() - 16):m.start()]) is not None
        defined = _DEFINED_AS_DOCUMENT.match(text[m.end():m.end() + 60]) is not None
        opens = opens and fold(words[0]) not in _DETERMINERS - {"this", "este", "esta"}
        if (opens and len(words) <= MAX_NAME_WORDS) or after_this or defined:
            out.add(head)
    return frozenset(out)


@lru_cache(maxsize=8192)
def values_in(text: str, lang: str | None) -> tuple[tuple[str, int, int], ...]:
    """The typed values `text` states, as (value type, start, end): `values.scan.find_values`,
    read once per text (a unit and every reader of it share the reading)."""
    return tuple((v.value_type, v.char_start, v.char_end) for v in find_values(text, lang=lang))
