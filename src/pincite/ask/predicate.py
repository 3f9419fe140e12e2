"""What a statement must state to answer a question, beyond sharing its words (issue 13,
item 6, third pass): the question's *predicate* — its action and what the action bears on
— stated by the statement itself, not lent by a heading or a clause title.

- **Yes or no** ("Is/Does/Can/Must a party …?"): every predicate word is held by the
  statement itself (a derived form counting: "compete" for "competing"), except the words
  that only say who or which document (`party`, `the other party`, `this agreement`) and
  the words of the question's form ("have the right to", "is entitled to", "is restricted
  from", "does … provide for"). Words joined by "or"/"and" are alternatives: one of them
  is enough ("raising *or* reducing its prices"). A word prefixed "non-" is a word of its
  own: "non-exclusive" does not state "exclusive", nor "transferable" "non-transferable".
  A condition with set phrasings in contracts is held by one of them (`CONCEPTS`:
  "without cause" by "for convenience", "for any reason", "at will", or "at any time"
  where the statement names no cause such as a breach). A question whether the document
  *has* something ("Does this agreement have third-party beneficiaries?", "Is there a
  limit …?") is not answered by a statement that it has none: the clause is absent. A
  question for a thing with its verb ("What license does a party grant?", "Who owns the
  intellectual property …?") is read the same way; a topic question ("What is the
  limitation of liability?") may take its words from the heading.
- **When something begins** ("When does this agreement become effective?"): a statement
  that the document itself (this agreement, the contract, "hereof") becomes effective,
  commences or starts, with a calendar date or an event ("upon execution", "as of the
  date first written above") — never a duration alone, nor its own defined term ("on the
  Effective Date").
- **When the document's term ends** ("When does the initial term of this agreement
  expire?"): its term clause, in whatever words it states the document's life ("shall
  continue for five years", "remains in force until 31 March 2029", "is for a period of
  12 months") answers the whole question (`term_end`); a right to terminate, a renewal or
  a survival clause does not.
- **How much a party can be liable for** ("What is the maximum liability of a party?"):
  the cap, in whatever words it bounds liability by an amount ("shall not exceed the fees
  paid", "is limited to EUR 250,000", "in no event … in an amount greater than …")
  answers the whole question (`liability_cap`); an exclusion of kinds of damages or an
  insurance limit does not.
- **Renewals**: the renewal clause's period ("shall renew automatically for successive
  one-year periods") answers how long a renewal runs, and its lead time ("unless a party
  gives notice of non-renewal at least ninety days before the end of the term") how much
  notice stops one — each the whole question (`renewal`); a renewal with no notice
  period does not answer the second.
- **When** in general: a time stated relative to the asked event ("ninety days prior to
  the expiration") says when something else happens, not the event; and the thing asked
  about, where the question names the document ("when does *this agreement* …"), is named
  by the statement.
- **The date of a document**: a date that ends or bounds something ("ending on", "until",
  "no later than"), that its term starts on ("commences on", "takes effect on",
  "entrará en vigor el") or that another agreement bears ("a sublicense agreement dated
  …") is not the document's date.
- **The name of a document**: a name that refers to this document — opening the
  statement, after "this", or defined as the document ('… Agreement (the "Agreement")') —
  never another agreement a recital names.
- **A place** ("Which law governs …?"): a proper name as the complement of the asked noun
  ("the laws *of* the State of Texas", "*Ohio* law"), not a defined term ("Applicable
  Law") nor a capitalised word elsewhere in the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ..index.analyze import fold, stem_words
from .liability_cap import asks_liability_cap, states_liability_cap
from .question import SAME_AS, TYPE_WORDS, Question, root
from .renewal import (
    asks_renewal_notice,
    asks_renewal_term,
    states_renewal_notice,
    states_renewal_term,
)
from .statement_kinds import negated, this_names, values_in
from .term_end import asks_term_end, states_term_end
from .units import Judged, Unit, judge

# a question that asks yes or no opens with an auxiliary (folded)
_YES_NO = re.compile(r"^(?:is|are|was|were|does|do|did|has|have|can|could|may|might|must|shall|"
                     r"should|will|would|es|son|esta|estan|puede|pueden|debe|deben|tiene|tienen|"
                     r"existe|existen|hay|incluye|preve)\b")
# a question whether the document has something
_EXISTENCE = re.compile(r"^(?:is|are) there\b|^(?:does|do|did|will|shall) (?:this|the|a|an|any|each|"
                        r"either)? ?\w+(?: \w+)? (?:have|provide|include|contain|grant|impose)s?\b|"
                        r"^(?:hay|existe|existen)\b|^(?:tiene|incluye|preve)\b")
# words that say who or which document, not what is asked of them
_ROLE = frozenset("party parties party's parties' other another either each any both "
                  "parte partes otra otro cada ambas".split())
_DOCUMENT = frozenset("agreement contract document deed lease acuerdo contrato documento convenio".split())
# words of the question's form: "have the right to", "is entitled to", "is restricted
# from", "does … provide for", "become effective" (the copula)
_FORM = frozenset("have has having had provide provides provided include includes contain "
                  "contains exist exists become becomes be being get gets take takes there "
                  "may might can could must shall should will would need needs "
                  "is are was were do does did "
                  "what which who whom whose que cual cuales quien quienes "
                  "tener tiene tienen haber hay existe existen preve incluye".split())
_MODAL = re.compile(r"\b(?:right|rights|entitled|required|obliged|obligated|permitted|allowed|able|"
                    r"restricted|prohibited|prevented|forbidden|free|derecho|obligad[oa]s?|"
                    r"autorizad[oa]s?|facultad[oa]s?)\s+(?:not\s+|no\s+)?(?:to|from|a|de)\b|"
                    r"\b(?:not|no)\b")
# conditions that contracts state in set phrasings: the question's phrase (folded) and a
# statement's phrasings of it; "at any time" only where the statement names no cause
CONCEPTS: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "without cause": (
        re.compile(r"\bwith(?:out)? (?:or without )?(?:any )?(?:reason|cause|causa)|"
                   r"\bfor (?:its |their |his |her |any party's |either party's )?(?:own )?convenience|"
                   r"\bfor any (?:or no )?reason|\bfor no reason|\bat will\b|"
                   r"\bsin (?:necesidad de )?(?:alegar )?(?:causa|motivo)|\bat any time\b|"
                   r"\ben cualquier momento\b", re.IGNORECASE),
        re.compile(r"\bfor (?:\w+ ){0,2}cause\b|\bbreach\w*|\bdefault\w*|\binsolven\w*|"
                   r"\bbankrupt\w*|\bincumplimiento\b|\bif\b|\bin the event\b|\bupon the occurrence\b",
                   re.IGNORECASE)),
}
_CONCEPT_IN_QUESTION = {"without cause": re.compile(r"\bwithout (?:any )?(?:cause|reason)\b|"
                                                    r"\bfor convenience\b|\bsin causa\b")}
# "at any time" and the like hold "without cause" only where no cause is named
_WEAK = re.compile(r"\bat any time\b|\ben cualquier momento\b", re.IGNORECASE)
# answers that contracts state in set phrasings, rarely in the question's words: per name,
# whether a question (read, and folded) asks it, and whether a statement states it
PHRASED: dict[str, tuple[Callable[[Question, str], bool], Callable[[str, str | None], bool]]] = {
    "term_end": (lambda q, f: q.expects == "time" and asks_term_end(f), states_term_end),
    "liability_cap": (lambda q, f: asks_liability_cap(f), states_liability_cap),
    "renewal_notice": (lambda q, f: asks_renewal_notice(f), states_renewal_notice),
    "renewal_term": (lambda q, f: asks_renewal_term(f), states_renewal_term),
}
# a question about when something begins
_BEGINS = re.compile(r"\b(?:become|becomes|take|takes) effect(?:ive)?\b|\b(?:begin|begins|commence|"
                     r"commences|start|starts|entra|entrara) ?(?:en vigor)?\b|\bentry into force\b")
_BEGIN_WORDS = re.compile(r"\beffect(?:ive|iveness)?\b|\bcommenc\w*|\bbegin\w*|\bstart\w*|"
                          r"\bin force\b|\bvigor\b|\bvigencia\b", re.IGNORECASE)
# an event a beginning is tied to ("upon execution", "as of the date first written above")
_EVENT = re.compile(
    r"\b(?:upon|on|as of|from|following|after|at|with effect from|a partir de|desde|tras)\s+"
    r"(?:the\s+|its\s+|such\s+|la\s+|el\s+)?(?:\w+\s+){0,3}?"
    r"(?:execution|executed|signing|signature|signed|occurrence|receipt|approval|completion|"
    r"closing|delivery|satisfaction|fulfil\w*|later|earlier|"
    r"(?<!effective\s)(?<!commencement\s)date\s+(?:first|last|hereof|of\s+"
    r"(?:execution|signature|signing|this|the\s+last))|date\s+(?:on\s+)?which|firma|aprobaci[oó]n|"
    r"formalizaci[oó]n)\b", re.IGNORECASE)
# a date defined as the beginning: '… 2020 (the "Effective Date")'
_DEFINED_BEGIN = re.compile(r"\s*,?\s*\(\s*(?:the\s+|hereinafter\s+|la\s+)?[\"\u201c\u2018']?\s*"
                            r"(?:effective|commencement|start|starting|fecha\s+de\s+(?:entrada|inicio|efecto))\b",
                            re.IGNORECASE)
# the document spoken of as itself
_SELF = re.compile(r"\b(?:agreement|contract|acuerdo|contrato|convenio|here(?:of|under|in|to|by))\b",
                   re.IGNORECASE)
_DOCUMENT_WORD = re.compile(r"\b(?:agreement|contract|acuerdo|contrato|convenio)\b", re.IGNORECASE)
NEAR_WORDS = 8
NEAR_NAME = 6
# capitalised words that are no name ("… the laws OF THE State …" in capitals)
_NOT_NAMES = frozenset("and or nor the this that shall will may be is are hereunder hereof herein "
                       "y o el la los las".split())
# a time stated relative to an event ("ninety days prior to the expiration of …")
_RELATIVE = re.compile(r"\W*(?:\S+\s+){0,3}?(?:prior\s+to|before|after|following|preceding|from|"
                       r"in\s+advance\s+of|antes\s+de|despu[eé]s\s+de|tras)\s+((?:\S+\s*){1,6})",
                       re.IGNORECASE)
# a date that ends, starts or bounds something (a term "commencing on", "a contar desde"),
# not the date of a document
_BOUND_BEFORE = re.compile(r"\b(?:ending|ends?|until|till|through|thru|expir\w*|terminat\w*|"
                           r"no\s+later\s+than|not\s+later\s+than|before|after|prior\s+to|"
                           r"following|within|by|commencing|starting|beginning|hasta|antes\s+de|"
                           r"desde|a\s+partir\s+de)\s+(?:on\s+|the\s+|el\s+|"
                           r"day\s+of\s+)*$", re.IGNORECASE)
# a date the document's term starts on ("commences on", "takes effect on", "is effective as
# of", "entrará en vigor el"): its effective date, not the date it bears ("dated", "made
# on", "a 12 de enero"); "made and effective as of" bears it too (no copula before effective)
_STARTS_BEFORE = re.compile(r"\b(?:commences?|begins?|starts?|takes?\s+effect|take\s+effect|"
                            r"(?:is|be|becomes?)\s+effective|"
                            r"(?:shall|will)\s+(?:commence|begin|start)|entrar[aá]\s+en\s+vigor|"
                            r"entra\s+en\s+vigor|comenzar[aá]|se\s+inicia(?:r[aá])?)\s+"
                            r"(?:on\s+|from\s+|as\s+of\s+|the\s+|el\s+|day\s+of\s+)*$", re.IGNORECASE)
# … nor a date given to another agreement ("a sublicense agreement dated 19 February 2019",
# "the licence agreement between Depositor and Beneficiary dated 2 May 2021")
_OTHER_DATED = re.compile(
    r"(?:\b(?:a|an|that|such|any|each|certain|un|una)\s+(?:[\w-]+\s+){0,4}?"
    r"(?:agreements?|contracts?|licen[cs]es?|leases?|acuerdo|contrato)\s+(?:[^.;]{0,100}?\s+)?|"
    r"\bthe\s+(?:[\w-]+\s+){0,4}?(?:agreements?|contracts?|licen[cs]es?|leases?)\s+"
    r"(?:between|among|with|by\s+and\s+between)\b[^.;]{0,100}?\s+)"
    r"(?:dated|of|de\s+fecha|fechad[oa])\s+(?:as\s+of\s+)?$", re.IGNORECASE)
_TIME_TYPES = frozenset({"date", "datetime", "duration", "period"})
_DATE_TYPES = frozenset({"date", "datetime"})
_TOKEN = re.compile(r"[^\W_]+(?:[-'\u2019][^\W_]+)*['\u2019]?|,")
_STOP = frozenset("a an the its their his her this that these those of to for from by with in on "
                  "at as under any such without within after before during until upon per via "
                  "between among against through over into than least most "
                  "el la los las un una de del al su sus sin tras antes durante hasta entre".split())
_COORD = frozenset("or and nor o y ni".split())
PREFIX_MIN = 5  # a stem at least this long also holds the longer stems it opens ("compet")


@dataclass(frozen=True, slots=True)
class Predicate:
    """What a statement must state to answer a question (see the module docstring)."""

    slots: tuple[tuple[tuple[str, ...], ...], ...]  # each: alternatives, each: stems all held
    concepts: tuple[str, ...]                        # names of `CONCEPTS` the question states
    yes_no: bool
    existence: bool                                  # it asks whether the document has something
    begins: bool                                     # it asks when something begins
    subject: str | None                              # a time question's subject ("agreement", "term")
    events: frozenset[str]                           # a "when" question's event stems ("expir")
    phrases: tuple[tuple[str, ...], ...] = ()         # runs of two words or more ("intellectual property")
    phrased: str | None = None                       # the set phrasing that answers it (`PHRASED`)


# a noun of a person ("licensor", "licensee", "employee"): its root ("licens") names the
# act, not the person, so only its own forms hold it
_AGENT = re.compile(r"(?:or|ee|ees|ors)$")


def _stems(word: str) -> frozenset[str]:
    """A folded word's forms: itself and its English and Spanish stems, with their roots
    (not for a noun of a person)."""
    forms = {word, *stem_words([word], "en"), *stem_words([word], "es")}
    if _AGENT.search(word):
        return frozenset(forms)
    return frozenset(forms | {root(f) for f in forms})


@lru_cache(maxsize=512)
def read_predicate(q: Question) -> Predicate:
    """The predicate of question `q`: its slots, conditions and what its form asks."""
    folded = " ".join(re.findall(r"[^\W_]+(?:['\u2019-][^\W_]+)*", fold(q.text)))
    yes_no = not q.wh and _YES_NO.match(folded) is not None
    concepts = tuple(n for n, p in _CONCEPT_IN_QUESTION.items() if p.search(folded))
    # a yes or no, a thing whose answer is a statement ("What license does a party
    # grant?") or who does something ("Who owns the intellectual property …?"), not a
    # value of a kind (a date, an amount) nor a document's parties, nor a topic ("What is
    # the limitation of liability?": a heading names the topic, its clause states it)
    slots, phrases = _slots(_MODAL.sub(" ", fold(q.text)), yes_no) \
        if yes_no or (q.wh and (q.expects is None or (q.expects == "name" and not q.opening))
                      and not _TOPIC.match(folded)) else ((), ())
    begins = q.expects == "time" and _BEGINS.search(folded) is not None
    subject, events = _subject(folded) if q.expects == "time" else (None, frozenset())
    return Predicate(slots, concepts, yes_no, yes_no and _EXISTENCE.match(folded) is not None,
                     begins, subject, events, phrases,
                     next((name for name, (asks, _) in PHRASED.items() if asks(q, folded)), None))


# a question for a topic: "what is the …", whose heading may name it
_TOPIC = re.compile(r"^(?:what|which|cual|cuales|que) (?:is|are|was|were|es|son|fue|fueron) ")
# "when does the initial term of this agreement expire?": its subject and its event
_WHEN = re.compile(r"^(?:(?:for )?how long|when|until when|by when) (?:does|do|did|will|shall|is|are|"
                   r"can|must|would) (?:(?:the|this|its|a|an|each|any|such) )?(.+)$")


def _subject(folded: str) -> tuple[str | None, frozenset[str]]:
    """The head noun of a time question's subject (the word before "of", else its first
    word) and, for "when", the stems of its last word (the event asked about)."""
    m = _WHEN.match(folded)
    if m is None:
        return None, frozenset()
    ws = m.group(1).split()
    head = ws[ws.index("of") - 1] if "of" in ws[1:4] else ws[0]
    event = _stems(ws[-1]) if folded.startswith(("when", "until", "by when")) and len(ws) > 1 \
        else frozenset()
    return head, event


Slots = tuple[tuple[tuple[str, ...], ...], ...]


def _slots(text: str, yes_no: bool) -> tuple[Slots, tuple[tuple[str, ...], ...]]:
    """The question's content words as slots — each word one, a run joined to the one
    before by "or"/"and"/"," an alternative to as many words ending it (the auxiliary
    that opens the question dropped) — and its runs of two words or more."""
    for p in _CONCEPT_IN_QUESTION.values():
        text = p.sub(" ", text)
    toks = [re.sub(r"['\u2019]s?$", "", w) for w in _TOKEN.findall(text)]
    if yes_no and toks:
        toks = toks[1:]
    runs: list[tuple[list[str], bool]] = []  # content runs, each joined to the one before?
    cur: list[str] = []
    joined = False
    for i, t in enumerate([*toks, "."]):
        third = t in _ROLE and i > 0 and toks[i - 1] == "third"  # "third party" is content
        if third or not (t in _STOP or t in _COORD or t in _FORM or t in _DOCUMENT
                         or t in _ROLE or t in (".", ",")):
            cur.extend(_parts(t))
            continue
        if cur:
            runs.append((cur, joined))
            cur, joined = [], False
        if t in _COORD or t == ",":
            joined = True
        elif t not in _STOP and t not in _ROLE and t not in _DOCUMENT:
            joined = False
    # a run joined to the one before is an alternative to as many words ending that one
    # ("liquidated damages or a termination fee"; "the license irrevocable or perpetual")
    slots: list[list[tuple[str, ...]]] = []
    last = 0  # how many single-word slots the run before added
    for run, j in runs:
        if not (j and slots):
            slots.extend([(w,)] for w in run)
            last = len(run)
        elif len(slots[-1]) > 1:  # a list already: "A, B or C"
            slots[-1].append(tuple(run))
        else:
            k = max(1, min(len(run), last))
            left = tuple(w for slot in slots[-k:] for w in slot[0])
            slots[-k:] = [[left, tuple(run)]]
            last = 0
    return tuple(tuple(s) for s in slots), tuple(tuple(r) for r, _ in runs if len(r) > 1)


def _parts(word: str) -> list[str]:
    """A hyphenated word's parts ("enterprise-wide"), "non-X" kept as one word "nonX"."""
    if word.startswith("non-"):
        return ["non" + word[4:].replace("-", "")]
    return [p for p in word.split("-") if p]


# ---- a statement read against a predicate ---------------------------------------------------


@lru_cache(maxsize=8192)
def _said(text: str, lang: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """A statement's stems ("non-X" read as one word "nonX") and their roots."""
    joined = re.sub(r"\b([Nn][Oo][Nn])[-\s]+(?=[^\W\d_])", r"\1", text)
    ws = [w for w in re.findall(r"[^\W_]+", fold(joined))]
    stems = set(ws) | set(stem_words(ws, lang if lang in ("en", "es") else "en"))
    return frozenset(stems), frozenset(root(s) for s in stems)


# a word that names a kind of value is held by a value of that kind ("minimum *amount*")
_KIND_VALUES = {"date": frozenset({"date", "datetime"}),
                "time": frozenset({"date", "datetime", "duration", "period"}),
                "amount": frozenset({"money", "number", "percent"}),
                "percent": frozenset({"percent"}), "count": frozenset({"number"})}


def _holds(alt: tuple[str, ...], stems: frozenset[str], roots: frozenset[str],
           values: frozenset[str] = frozenset()) -> bool:
    """Whether a statement (its stems, their roots and the types of its values) holds
    every word of one alternative of a slot."""
    for w in alt:
        if values & _KIND_VALUES.get(TYPE_WORDS.get(w, ""), frozenset()):
            continue
        forms = _stems(w) | SAME_AS.get(w, frozenset())
        if forms & stems or (not _AGENT.search(w) and forms & roots):
            continue
        if any(len(f) >= PREFIX_MIN and any(s.startswith(f) for s in stems) for f in forms):
            continue
        return False
    return True


def _abbreviated(phrases: tuple[tuple[str, ...], ...], text: str) -> frozenset[str]:
    """The forms of the question's phrases that `text` holds as their initials in capitals
    ("IP" for "intellectual property")."""
    caps = frozenset(re.findall(r"\b([A-Z]{2,6})s?\b", text))
    out: set[str] = set()
    for ph in phrases:
        for i in range(len(ph)):
            for j in range(i + 2, min(len(ph), i + 6) + 1):
                if "".join(w[0] for w in ph[i:j]).upper() in caps:
                    out.update(f for w in ph[i:j] for f in _stems(w))
    return frozenset(out)


def _near(a: re.Pattern[str], b: re.Pattern[str], text: str, words: int = NEAR_WORDS) -> bool:
    """Whether a match of `a` and one of `b` lie within `words` words of each other."""
    ends = [(m.start(), m.end()) for m in a.finditer(text)]
    for m in b.finditer(text):
        for s, e in ends:
            gap = text[e:m.start()] if e <= m.start() else text[m.end():s]
            if len(gap.split()) <= words:
                return True
    return False


def judge_stated(u: Unit, q: Question, w: Sequence[float], p: Predicate,
                 lang: str | None) -> Judged:
    """`units.judge`, where a statement that does not state the predicate (`states`) is
    not of the kind the question expects."""
    j = judge(u, q, w)
    if u.kind == "statement" and p.phrased and not u.definition \
            and PHRASED[p.phrased][1](u.text, lang):
        # a clause in one of the set phrasings of what is asked answers the whole question
        every = frozenset(range(len(q.groups)))
        return replace(j, covered=every, coverage=1.0, expected=True)
    if u.kind == "statement" and j.expected and not states(p, q, u.text, lang):
        return replace(j, expected=False)
    return j


def states(p: Predicate, q: Question, text: str, lang: str | None) -> bool:
    """Whether statement `text` states what question `q` (read as `p`) asks (see the
    module docstring); True where no rule applies."""
    if p.slots:
        stems, roots = _said(text, lang)
        stems |= _abbreviated(p.phrases, text)
        types = frozenset(v[0] for v in values_in(text, lang))
        if not all(any(_holds(a, stems, roots, types) for a in slot) for slot in p.slots):
            return False
        for name in p.concepts:
            pos, neg = CONCEPTS[name]
            strong = [m for m in pos.finditer(text) if not _WEAK.fullmatch(m.group())]
            if not strong and not (pos.search(text) and (neg is None or not neg.search(text))):
                return False
        if p.existence:
            denied = negated(text, lang)
            droots = frozenset(root(s) for s in denied)
            if any(_holds(a, denied, droots) for slot in p.slots for a in slot):
                return False
    if p.subject is not None:
        if p.subject in _DOCUMENT:
            if not _SELF.search(text):
                return False
        elif not _holds((p.subject,), *_said(text, lang)):
            return False
    if p.begins:  # the document itself begins, near the words that say so, on a date or an
        # event — or a date is defined as its beginning ('March 1, 2020 (the "Effective Date")')
        dates = [v for v in values_in(text, lang) if v[0] in _DATE_TYPES
                 and not _BOUND_BEFORE.search(text[max(0, v[1] - 40):v[1]])]
        defined = any(_DEFINED_BEGIN.match(text, end) for _, _, end in dates)
        if not defined and not (_near(_DOCUMENT_WORD, _BEGIN_WORDS, text)
                                and (dates or _EVENT.search(text))):
            return False
    if q.expects in ("time", "date") and p.events:
        times = [v for v in values_in(text, lang) if v[0] in _TIME_TYPES]
        if times and all(_relative(text, end, p.events) for _, _, end in times):
            return False
    if q.expects == "date" and q.opening:
        dates = [v for v in values_in(text, lang) if v[0] in _DATE_TYPES]
        if dates and all(_BOUND_BEFORE.search(text[max(0, a - 40):a])
                         or _STARTS_BEFORE.search(text[max(0, a - 40):a])
                         or _OTHER_DATED.search(text[max(0, a - 160):a]) for _, a, _ in dates):
            return False
    if q.name_of is not None and q.name_of not in this_names(text):
        return False
    if q.expects == "place" and not _named_near(q, text, lang):
        return False
    return True


# the noun a place question asks for ("which law", "what courts"), and the words that join
# a place to it ("the laws *of* …", "courts *in* …")
_PLACE_NOUN = re.compile(r"\b(?:which|what|que|cual) (state|country|jurisdiction|courts?|city|laws?|ley|"
                         r"leyes|pais|estado|jurisdiccion|tribunal|tribunales|ciudad)\b")
_OF = frozenset("of in under de del en".split())
_SURFACE = re.compile(r"[^\W_]+(?:['\u2019.&-][^\W_]+)*")


def _named_near(q: Question, text: str, lang: str | None) -> bool:
    """Whether a proper name the question does not hold is the complement of the asked
    place noun ("which *law*" → "the laws *of* the State of Texas", "the laws in force *in*
    Ireland", "*Ohio* law"): right before it (not a defined term: "Applicable Law"), or within `NEAR_NAME` words after it with
    "of" or "in" between. Without a place noun ("where …"), any word the question asks
    anchors the name."""
    m = _PLACE_NOUN.search(" ".join(re.findall(r"[^\W_]+", fold(q.text))))
    nouns = _stems(m.group(1)) if m else None
    asked = frozenset().union(*q.groups, *q.roots)
    ws = _SURFACE.findall(text)
    folded = [fold(w) for w in ws]
    stems = stem_words(folded, lang if lang in ("en", "es") else "en")
    anchors = [i for i, (f, st) in enumerate(zip(folded, stems, strict=True))
               if (f in nouns or st in nouns if nouns is not None
                   else f not in _DOCUMENT and (f in asked or st in asked or root(st) in asked))]
    names = {i for i, (w, f, st) in enumerate(zip(ws, folded, stems, strict=True))
             if i > 0 and w[0].isupper() and f not in _STOP and f not in _DOCUMENT
             and f not in asked and st not in asked and f not in _NOT_NAMES}
    shouting = text.upper() == text
    for a in anchors:
        # "Ohio law", not the defined term "Applicable Law"
        if a - 1 in names and (ws[a].islower() or shouting):
            return True
        for n in range(a + 1, min(len(ws), a + NEAR_NAME + 1)):
            if n in names and any(x in _OF for x in folded[a + 1:n]):
                return True
    return False


def _relative(text: str, end: int, events: frozenset[str]) -> bool:
    """Whether the time ending at `end` is stated relative to one of the asked events."""
    m = _RELATIVE.match(text, end)
    if m is None:
        return False
    stems, roots = _said(m.group(1), None)
    return bool((stems | roots) & events)
