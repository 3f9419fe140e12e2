"""What a question asks: its content words, how much each one tells, and the kind of
answer its form expects.

- **Word groups**: the question's content words, each with every analyzer's form (the
  groups retrieval ranks by, `index.analyze.analyze_query`; a fiscal period such as
  "FY2019" or "FY19" also as its year) and its *root* — the form
  without a derivational ending (`payment`, `payable` → `pay`; `expiration` → `expir`),
  so a statement that says "pay" answers a question that says "payment".
- **Weights**: a word's BM25 idf over the caller's authorized passages (`ln(1 + (N - df
  + 0.5) / (df + 0.5))`, N and df from the search that retrieved the candidates, N at
  least `MIN_PASSAGES`). A word
  that every passage holds (the company's name in its own contract, "agreement") tells
  little; one no passage holds ("CEO" in a document that names no CEO) tells most, so a
  statement that lacks it does not answer. Without lexical statistics every word weighs 1.
  The words of a name in the question (capitalised, not opening it) weigh `NAME_WEIGHT`
  of that: they say which thing is asked about, not what is asked about it.
- **Expected answer**: the question's form names the kind of value an answer states —
  `date` ("what is the date of …", "what day", "qué fecha"): a calendar date, never a
  duration; `title` ("what is the name of this agreement?"): the thing named (a
  capitalised name whose head is the thing's noun, `statement_kinds.named_heads`);
  `time` ("when", "how long", "cuándo", "qué plazo"): a date, a time, a
  duration or a period; `amount` also for the size of a change ("what was the
  percentage change in X", `change`); `amount` ("how much", "what percentage", "cuánto"): money, a
  number or a percentage; `count` ("how many", "cuántos"): a number; `name` ("who",
  "which party", "quién"): a name; `place` ("where", "which state", "what law",
  "dónde"): a proper name; `statement` — a reason, a definition or a comparison ("why",
  "what caused", "what does X represent", "what is Trade receivables", "which year was
  higher", "por qué"): a
  statement, which a table cell never is (a cell states a value, not why, what it means
  or how it compares). Any other question ("what …", "is …", "does …") expects a
  statement or a cell.
- **What else the form says**: `wh` — it asks for a thing (what, which, who, when …),
  not a yes or no, so a definition or a statement that negates the asked words does not
  answer it; `opening` — it asks a document's name, parties or date ("… of this
  agreement"), which its opening states (`answer` reads the opening too); `change`,
  `changes`, `rate` — it asks the size of a change, speaks of one, or asks a share, a
  rate or a ratio (which table column answers, `units.judge`). Words that name a kind
  (`TYPE_WORDS`: "date", "term", "price", "percentage", "parties", "name") are held by
  a value of that kind: "parties" by a statement naming two organisations. The noun a
  question calls the document by ("this agreement") is held by any of them ("this
  contract"). "Become" is a word of the form ("become effective": be effective). A word
  contracts use interchangeably is held by its equivalents (`SAME_AS`: "consent" by
  "approval" or "permission", "audit" by "inspect" or "examine").
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..index.analyze import analyze_query, fold, stem_words

EXPECTS = ("date", "time", "amount", "count", "name", "place", "statement", "title")
# "What is the name of this agreement?": the thing whose name is asked (folded, group 1)
_NAME_OF = re.compile(r"^(?:what|which) (?:is|are|was) the (?:name|names|title|titles) of "
                      r"(?:this|the|that|these|each) (\w+)$|"
                      r"^(?:cual|como) (?:es|se llama) (?:el )?(?:nombre|titulo) (?:de|del) "
                      r"(?:este |esta |el |la )?(\w+)$")
# (expected kind, a pattern over the folded question); the first that matches wins
_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((k, re.compile(p)) for k, p in (
    # the size of a change asks for a value ("What was the percentage change in X?", "What
    # is the change (%) for X?"), not for a comparison or its reason
    ("amount", r"^(?!.* as$)(?:what|cual) (?:is|was|were|are|es|fue) (?:the|el|la) (?:percentage |percent |"
               r"porcentaje de )?(?:change|increase|decrease|growth|variacion|cambio|"
               r"aumento|incremento|disminucion)\b"),
    ("statement", r"^(?:why|por que|como)\b|^how (?!much|many|long|soon|often|old|far)\w|"
                  r"\b(?:includes?|included|determined|calculated|measured|computed)\b|\b(?:caused?|causes|led to|drove|drives|consists?|"
                  r"comprises?|represents?|reflects?|means?|refers? to|defined|explains?|reason|"
                  r"higher|highest|lower|lowest|larger|largest|greater|greatest|smaller|"
                  r"smallest|biggest|most|least|more|less|fewer|compared|comparison|"
                  r"increased?|decreased?|changed?|mayor|menor|causa|motivo|significa|"
                  r"consiste|representa|compar\w*)\b|"
                  r"^what (?:is|are) (?!(?:the|a|an|this|that|these|those|its|their|our|your)\b)"
                  r"[^0-9]*$"),
    ("count", r"\bhow many\b|\bcuant[oa]s\b|\bwhat number of\b|\bque numero de\b"),
    # a date is a day of the calendar ("What is the date of this agreement?"), never a
    # duration ("five years from the date …"); "when" is either
    ("date", r"^(?:what|which) (?:is|was|are|were) the (?:date|dates|day)\b|"
             r"^(?:what|which) (?:date|day)\b|^(?:cual|que) (?:es|fue) (?:la )?fecha\b|"
             r"^que (?:dia|fecha)\b"),
    ("time", r"\b(?:when|until when|by when|how long|how soon|what (?:date|day|time|period)|"
             r"(?:which|what) (?:date|day|year|month)|dates?|cuando|hasta cuando|cuanto tiempo|"
             r"que (?:dia|plazo|periodo|hora|ano|mes)|fechas?|durante cuanto)\b"),
    ("amount", r"\b(?:how much|what (?:percentage|percent|amount|sum|price|fee)|cuanto|cuanta|"
               r"que (?:importe|cantidad|porcentaje|precio|cuantia))\b"),
    ("name", r"\b(?:who|whom|whose|which (?:party|parties|company|companies|entity|person)|"
             r"quien|quienes|que (?:parte|partes|empresa|entidad|persona))\b"),
    ("place", r"\b(?:where|which (?:state|country|jurisdiction|courts?|city|law|laws)|"
              r"what (?:state|country|jurisdiction|courts?|city|law|laws)|donde|"
              r"que (?:ley|leyes|pais|estado|jurisdiccion|tribunales?|ciudad))\b"),
))
# a question for a thing, not a yes or no (over the folded question)
_WH = re.compile(r"^(?:what|which|who|whom|whose|when|where|how much|how many|how long|que|cual|"
                 r"cuales|quien|quienes|cuando|donde|cuanto|cuanta|cuantos|cuantas)\b")
# the nouns a document calls itself by ("this agreement", "this contract"), one word for it
DOCUMENT_NOUNS = frozenset("agreement contract acuerdo contrato convenio".split())
DOCUMENT_FORMS = frozenset(DOCUMENT_NOUNS | {*stem_words(sorted(DOCUMENT_NOUNS), "en"),
                                             *stem_words(sorted(DOCUMENT_NOUNS), "es")})
_THIS_DOCUMENT = re.compile(r"\b(?:this|the) (?:agreement|contract|document|deed|lease)\b|"
                            r"\b(?:este|el|del) (?:acuerdo|contrato|documento|convenio)\b")
# a question that speaks of a change, and one that asks a share (over the folded question)
_CHANGES = re.compile(r"\b(?:change[sd]?|increased?|decreased?|growth|grew|rose|fell|declined?|"
                      r"variance|variation|compared|versus|vs|from \d{4}|variacion|cambio|"
                      r"aumento|incremento|disminucion|respecto)\b")
_RATE = re.compile(r"\b(?:percentages?|percent|rates?|ratios?|margins?|proportion|share of|"
                   r"yield|porcentajes?|tasa|tipo|ratio|margen|proporcion)\b")
# derivational endings dropped after stemming (English, then Spanish), longest first
_ENDINGS = tuple(sorted((
    "ment", "ments", "abl", "ibl", "able", "ible", "ation", "ition", "ion", "ive", "iv",
    "er", "or", "ing", "ed", "iti", "ity", "cion", "mient", "miento", "dor", "dero"),
    key=len, reverse=True))
_TENANT_PREFIX = 13  # the tenant-key prefix of every index term (see analyze.tenant_key)
# words of a question's form that name no content ("how *much*", "*must* a party …"),
# beyond the analyzer's stop words
FORM_WORDS = frozenset(
    "must can need needs much many long soon often also else kind type exactly please "
    "become becomes became "
    "after before within during until since per via without against among between through over "
    "debe deben puede pueden cuanto cuanta cuantos cuantas exactamente tras antes despues "
    "durante hasta dentro segun entre".split())
# words a contract uses for one another: a question's word is held by any of them ("without
# the other party's *consent*": "without its prior written *approval*"); analysed forms
SAME_AS = {w: frozenset(forms) for w, forms in {
    "consent": ("approv", "approval", "permiss", "permission", "consentimiento", "autorizacion"),
    "audit": ("inspect", "inspection", "examin", "examine", "examination", "auditoria"),
}.items()}
# the library is taken to hold at least this many passages when weighing words, so that in
# a library of one or two passages a word they hold still tells something
MIN_PASSAGES = 10
# a name in the question says which thing is asked about; its other words say what is asked
# ("Who is the CEO of Northwind Ltd.?"): a name's words weigh this share of their idf
NAME_WEIGHT = 0.25
# a capitalised word that does not open the question (nor a sentence in it)
_POSSESSIVE = re.compile(r"['\u2019]s$")
_NAME = re.compile(r"(?<=[\w,;:)\]\"'\u201d\u2019] )[A-ZÀ-Þ][\w&.'\u2019-]*")
# words that name the kind of value asked for: a statement of such a value holds them
# ("What is the payment *term*?" — "within 45 days")
TYPE_WORDS = {
    **dict.fromkeys("date dates day deadline fecha fechas dia".split(), "date"),
    **dict.fromkeys("term period duration plazo plazos periodo duracion vigencia".split(), "time"),
    **dict.fromkeys("amount amounts price prices fee fees cost costs sum "
                    "importe importes precio precios coste costes costo cuantia "
                    "tarifa tarifas honorarios".split(), "amount"),
    # a share is stated as a percentage (or under a header that says so: "Change (%)")
    **dict.fromkeys("percentage percentages percent porcentaje porcentajes".split(), "percent"),
    **dict.fromkeys("number numero".split(), "count"),
    # the parties are named organisations; a document's name is a name ("Master Services
    # Agreement"), not the word "name"
    **dict.fromkeys("parties partes".split(), "parties"),
    **dict.fromkeys("party parte".split(), "party"),
    **dict.fromkeys("name names title titles nombre titulo".split(), "title"),
}


_FISCAL = re.compile(r"^(?:fy|cy|q[1-4]|h[12])(\d{2}|\d{4})$")


def _year_of(word: str) -> frozenset[str]:
    """The year a fiscal-period word names ("fy2019", "fy19", "q3 2019" → "2019"), if any."""
    m = _FISCAL.match(word)
    if m is None:
        return frozenset()
    y = m.group(1)
    return frozenset({y if len(y) == 4 else "20" + y})


def root(form: str) -> str:
    """`form` without a derivational ending, when at least three letters remain."""
    for end in _ENDINGS:
        if form.endswith(end) and len(form) - len(end) >= 3:
            return form[: -len(end)]
    return form


@dataclass(frozen=True, slots=True)
class Question:
    """A question read for evidence (see the module docstring)."""

    text: str
    words: tuple[str, ...]                 # the first surface form of each group
    groups: tuple[frozenset[str], ...]     # every analyzer's form of each content word
    roots: tuple[frozenset[str], ...]      # the same, derivational endings dropped
    kinds: tuple[str | None, ...]          # the kind of value a group's word names, if any
    names: tuple[bool, ...]                # a group's word is part of a name in the question
    expects: str | None                    # one of EXPECTS, or None
    name_of: str | None = None             # "What is the name of this *agreement*?"
    opening: bool = False                  # it asks what a document's opening states
    wh: bool = False                       # it asks what, which, who, when, where or how much
    change: bool = False                   # it asks the size of a change ("What was the % change in X?")
    changes: bool = False                  # it speaks of a change at all ("… increase …", "… from 2018")
    rate: bool = False                     # it asks a percentage, a rate or a ratio

    def matched(self, tokens: frozenset[str], roots: frozenset[str],
                kinds: frozenset[str] = frozenset()) -> frozenset[int]:
        """The indices of the groups a text holds: by these tokens (and their roots), or,
        for a word that names a kind of value, by a value of that kind (`kinds`)."""
        return frozenset(i for i, (g, r, k) in enumerate(zip(self.groups, self.roots, self.kinds,
                                                             strict=True))
                         if g & tokens or r & roots or (k is not None and k in kinds))


def read_question(text: str, tenant: str, languages: Sequence[str]) -> Question:
    """The question's word groups, their roots, and the answer its form expects."""
    qt = analyze_query(text, tenant, tuple(languages))
    # a lone letter is no content word (the "s" of a possessive "Autodesk's")
    keep = [i for i, w in enumerate(qt.words)
            if w not in FORM_WORDS and not (len(w) == 1 and w.isalpha())] or list(range(len(qt.words)))
    words = tuple(qt.words[i] for i in keep)
    groups = tuple(frozenset(t[_TENANT_PREFIX:] for t in qt.groups[i]) | _year_of(qt.words[i])
                   for i in keep)
    groups = tuple(g | SAME_AS.get(w, frozenset()) for w, g in zip(words, groups, strict=True))
    folded_words = fold(text)
    if _THIS_DOCUMENT.search(folded_words):  # "this agreement" is this contract, this document
        groups = tuple(g | DOCUMENT_FORMS if w in DOCUMENT_NOUNS and
                       re.search(rf"\b(?:this|the|este|el|del) {w}\b", folded_words) else g
                       for w, g in zip(words, groups, strict=True))
    roots = tuple(frozenset(root(f) for f in g) for g in groups)
    folded = " ".join(re.findall(r"[^\W_]+", fold(text)))
    expects = next((kind for kind, p in _FORMS if p.search(folded)), None)
    doc = _NAME_OF.match(folded)
    name_of = (doc.group(1) or doc.group(2)) if doc else None
    if name_of:
        expects = "title"
    kinds = tuple(TYPE_WORDS.get(w) for w in words)
    # the name of a document, its parties and its date are stated in its opening
    opening = name_of is not None or (
        (expects == "date" or (expects == "name" and "parties" in kinds))
        and _THIS_DOCUMENT.search(folded) is not None)
    change = expects == "amount" and _FORMS[0][1].search(folded) is not None
    changes = _CHANGES.search(folded) is not None
    rate = "%" in text or _RATE.search(folded) is not None
    named = {_POSSESSIVE.sub("", fold(m.group())).strip(".'\u2019-") for m in _NAME.finditer(text)
             if not (m.group().isupper() and len(m.group().strip(".")) <= 4)}  # CEO, IP: terms
    wh = _WH.match(folded) is not None
    return Question(text, words, groups, roots, kinds, tuple(w in named for w in words),
                    expects, name_of, opening, wh, change, changes, rate)


def weights(question: Question, df: Mapping[str, int] | None, n: int) -> tuple[float, ...]:
    """Each group's idf over `n` authorized passages (see the module docstring), `df`
    keyed by the group's word (1 each when there are no statistics), times `NAME_WEIGHT`
    for a word of a name."""
    if not df or n <= 0 or any(w not in df for w in question.words):
        idf = [1.0 for _ in question.groups]
    else:
        n = max(n, MIN_PASSAGES)
        idf = [math.log(1.0 + (n - df[w] + 0.5) / (df[w] + 0.5)) for w in question.words]
    return tuple(x * (NAME_WEIGHT if named else 1.0) for x, named in zip(idf, question.names,
                                                                        strict=True))


def roots_of(tokens: frozenset[str]) -> frozenset[str]:
    """The roots of a text's tokens."""
    return frozenset(root(t) for t in tokens)
