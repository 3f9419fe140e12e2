"""Units of evidence: what `ask` may cite, each read with its context.

A unit is either
- a **statement**: one clean sentence of a paragraph, list item or form field (see
  `sentences`), with instructions and questions cut out (`read_block`). Its context is
  the block's heading path, the titles of the clauses that hold it (a clause's first
  sentence when it is a title, "4. Limitation of Liability.") and the titles earlier in
  its own block. A heading, a title and a question are never units: they name or ask,
  they do not state; or
- a **cell**: a data cell of a table, read with its row headers and column headers
  (and the table's caption, title and stub head — the header cell over the row labels). A header cell — a column header, a row label —
  and so a header row, is never a unit.

A cell is *located* when the question names a word of its row label and — where its row
holds several data cells — a word of its own column header (the lowest header that says
more than a unit such as "$'000"); the size of a change is read only in a change column
("Change", "% change", "2019 over 2018") and a level never in one; a row whose label
adds a qualifier the question does not name is not the asked row when the question names
the row without it ("Total current liabilities" beside "Total liabilities"), nor when
the question sets its own qualifier beside the words it shares with the label, one the
cell does not hold ("capitalized … cost" of "Net … cost"); a percentage cell answers
only a question that asks a share, a rate or a change — or, when its row states
percentages only (the measure is itself a rate: "Expected volatility"), a question for
that measure. A statement answers a
what/which/who/when question only when it is no definition and does not negate the
asked words (`statement_kinds`); "who are the parties" only where organisations are
named.

Units do not depend on the question; `judge` reads one against a question: which of the
question's words the unit itself holds (`hits`: the statement; a cell's text and its row
headers) and which it holds with its context (`covered`), each weighed by what it tells
(`question.weights`), whether it states the kind of value the question expects, and
whether it states anything beyond the question's own words. Among the statements judged
for one question, a word of the innermost title over a statement counts for it only when
no statement under the same title holds that word itself (`credit_context`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ..cite.locate import strip_span
from ..index.analyze import LANGUAGES, STOP_WORDS, analyze, fold, stem_words, words
from ..model import Element
from ..vocab import ElementKind
from .asking import is_question, question_spans
from .instructions import instruction_spans, neighbour_spans
from .question import Question, root, roots_of
from .sentences import is_title, sentence_spans, statement_spans
from .statement_kinds import is_definition, named_heads, negated, organisations, values_in

MAX_TITLE_WORDS = 12  # a document's title is short ("LICENSING AND WEB SITE HOSTING AGREEMENT")
STATEMENT_KINDS = (ElementKind.PARAGRAPH, ElementKind.LIST_ITEM, ElementKind.FIELD)
# value types that answer each expected kind (`values.scan.find_values`)
ANSWERS = {"date": frozenset({"date", "datetime"}),
           "time": frozenset({"date", "datetime", "duration", "period"}),
           "amount": frozenset({"money", "number", "percent", "duration"}),
           "count": frozenset({"number", "money", "percent", "duration"}),
           "percent": frozenset({"percent"})}
# a header over the size of a change ("Change", "% change", "2019 over 2018", "Variación")
_CHANGE_HEADER = re.compile(r"\b(?:change|changes|increase|decrease|variance|variation|growth|"
                            r"over|vs|versus|variaci[oó]n|cambio|incremento|disminuci[oó]n)\b|%",
                            re.IGNORECASE)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_CHANGE_WORDS = re.compile(_CHANGE_HEADER.pattern.removesuffix("|%"), re.IGNORECASE)
# a header that says its numbers are percentages ("Change (%)", "% of revenue", "Percent")
_PERCENT_HEADER = re.compile(r"%|\bpercent(?:age)?s?\b|\bporcentajes?\b", re.IGNORECASE)
# words that state a time without a value ("perpetual", "until terminated")
_TIMELESS = frozenset("perpetual perpetuity perpetually indefinite indefinitely indefinido "
                      "indefinida perpetuo perpetua".split())
_CAPITAL = re.compile(r"(?<![\w.])[A-ZÀ-Þ][\w&'\u2019.-]*")


@dataclass(frozen=True, slots=True)
class Unit:
    """A statement or a data cell, with its context (see the module docstring)."""

    kind: str                                  # "statement" | "cell"
    pieces: tuple[tuple[int, int, str], ...]   # citable spans (absolute offsets) and texts
    text: str                                  # the statement (white space folded) or the cell
    context: str                               # heading path and titles; a cell's headers
    tokens: frozenset[str]                     # of the unit itself (a cell: with its row headers)
    roots: frozenset[str]
    said: frozenset[str]                       # of its text alone
    context_tokens: frozenset[str]
    context_roots: frozenset[str]
    values: frozenset[str]                     # value types it states
    capitals: frozenset[str]                   # folded capitalised words past its first
    label: frozenset[str] = frozenset()        # a cell: the tokens of its own row label
    column: frozenset[str] = frozenset()       # a cell: its column's words that set it apart
    measure: frozenset[str] = frozenset()      # … its row label's content words (`_measure`)
    broader: tuple[frozenset[str], ...] = ()   # … other rows' measures its own adds words to
    narrower: frozenset[str] = frozenset()     # … words other rows add to its measure
    rate_row: bool = False                     # … its row states percentages only
    organisations: int = 0                     # a statement: organisations it names
    heads: frozenset[str] = frozenset()        # … head nouns of the names it holds
    definition: bool = False                   # … it defines a quoted term
    negated: frozenset[str] = frozenset()      # … words it states only negated

    @property
    def start(self) -> int:
        return self.pieces[0][0]

    def embed_text(self) -> str:
        """What the unit is embedded as: its context, then what it says."""
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True, slots=True)
class Judged:
    """A unit read against one question."""

    unit: Unit
    hits: frozenset[int]        # question groups the unit itself holds
    covered: frozenset[int]     # … with its context
    coverage: float             # weighted share of the question the unit covers with context
    expected: bool              # it states the kind of value the question expects
    new: bool                   # it states something beyond the question's words
    exact: float                # a cell: the share of its row label's words the question holds
    located: bool = True        # a cell: the question names its row and its column

    def eligible(self) -> bool:
        """May answer: it holds a question word itself, states the expected kind of value,
        says something the question does not, and (a cell) sits where the question points:
        in a row and a column it names."""
        return bool(self.hits) and self.expected and self.new and self.located


def judge(unit: Unit, q: Question, w: Sequence[float]) -> Judged:
    """Read `unit` against question `q` whose groups weigh `w`."""
    kinds = _kinds(unit.values)
    if unit.organisations:
        kinds |= {"party", "parties"} if unit.organisations > 1 else {"party"}
    if q.name_of and q.name_of in unit.heads:
        kinds |= {"title"}
    if unit.kind == "cell" and unit.values & ANSWERS["amount"] and _PERCENT_HEADER.search(unit.context):
        kinds |= {"percent"}
    hits = q.matched(unit.tokens, unit.roots, kinds)
    covered = hits | q.matched(unit.context_tokens, unit.context_roots)
    change_column = unit.kind == "cell" and bool(
        _CHANGE_HEADER.search(unit.context.rsplit(" > ", 1)[-1]))
    if q.change and change_column:  # a change spans the years it is asked between
        covered |= {i for i, w in enumerate(q.words) if _YEAR.match(w)}
    total = sum(w) or 1.0
    coverage = sum(w[i] for i in covered) / total
    asked = frozenset().union(*q.groups, *q.roots)
    new = bool(unit.values) or any(t not in asked and root(t) not in asked for t in unit.said)
    exact = 1.0
    located = True
    if unit.kind == "cell":
        named = [t for t in unit.label if t in asked or root(t) in asked]
        if unit.label:
            exact = len(named) / len(unit.label)
        # an analyst reads a table at a row and a column: the question names a word of the
        # cell's row label, and — where the row holds values of several columns — a word
        # that sets the cell's column apart (its year, "Total", "% change")
        located = (not unit.label or bool(named)) and (
            not unit.column or bool(q.matched(unit.column, roots_of(unit.column))))
        # a row whose label qualifies the measure with a word the question does not name is
        # another row than the asked one when the question names the unqualified row
        # ("Total current liabilities" when "Total liabilities" is asked and is a row), or
        # when the question qualifies the measure itself with a word the cell does not hold
        # ("capitalized … cost" asked of "Net … cost"; "expected volatility" of "Average
        # expected life")
        surface = frozenset(words(q.text))
        said = frozenset(w for w in unit.measure if w in surface or q.matched(_forms(w), _forms(w)))
        if unit.measure - said and (any(b <= said for b in unit.broader)
                                    or _qualified_apart(unit, q)):
            located = False
        # … and a row is not the asked one when the question names a word that other rows of
        # the table add to its measure and the cell does not hold: "stock-based compensation
        # cost" asked of "Cost" beside "Net stock-based compensation cost" asks those rows
        if unit.narrower and _names_narrower(unit, q):
            located = False
        # the size of a change is read in a column of changes, not in a year's column; a
        # level ("What was X in 2018?") is not read in a column of changes
        own = unit.context.rsplit(" > ", 1)[-1]
        if q.change:
            located = located and change_column
        elif not q.changes and _CHANGE_WORDS.search(own):
            located = False
    # a question that asks for a percentage is answered by one, never by another amount;
    # a percentage answers only a question that asks a share, a rate or a change (a cell
    # "100%" beside "$23,406" is not the revenue) …
    # — unless its row states percentages only: the measure is itself a rate ("Expected
    # volatility 50.7%", "Effective tax rate 21%")
    expected = _states(unit, q) and ("percent" not in q.kinds or "percent" in kinds) and (
        q.rate or q.changes or unit.kind != "cell" or "percent" not in unit.values
        or unit.rate_row)
    # a question that asks what, which, who, when or how much is answered by a statement
    # that states it: not by a definition of a term, nor by one that states the asked
    # words only negated ("shall not be governed by the Convention", "no licence is
    # granted"); a yes-or-no question may be answered by either
    if (q.wh or q.expects not in (None, "statement")) and q.expects != "statement" \
            and unit.kind == "statement":
        expected = expected and not unit.definition and not (
            q.matched(unit.negated, roots_of(unit.negated)) - _negated_in(q))
    return Judged(unit, hits, covered, coverage, expected, new, exact, located)


def credit_context(judged: Sequence[Judged], q: Question, w: Sequence[float]) -> list[Judged]:
    """The judged units, a section title's word credited to the statement that states it:
    a question word a statement covers only through the innermost title over it (its
    section's or clause's) does not count for it when another statement under the same
    context holds that word itself — "renew" of a section "2. Term and Renewal" is stated
    by "… renews automatically …", not by "… continues for an initial term …" beside it.
    A word of an outer title, or of a title with none over it (the document's: "Licence
    Agreement"), stays everyone's."""
    held: dict[str, set[int]] = {}
    for j in judged:
        if j.unit.kind == "statement" and j.unit.context:
            held.setdefault(j.unit.context, set()).update(j.hits)
    total = sum(w) or 1.0
    out = []
    for j in judged:
        # a title with none over it is the document's (or names the whole of it): its words
        # are every statement's
        lost = (j.covered - j.hits) & held.get(j.unit.context, set()) \
            if j.unit.kind == "statement" and " > " in j.unit.context else set()
        if lost:
            inner = frozenset().union(*(_forms(x) for x in words(j.unit.context.rsplit(" > ", 1)[-1])))
            lost &= q.matched(inner, roots_of(inner))
        if lost:
            covered = j.covered - lost
            j = replace(j, covered=covered, coverage=sum(w[i] for i in covered) / total)
        out.append(j)
    return out


@lru_cache(maxsize=512)
def _negated_in(q: Question) -> frozenset[int]:
    """The question's words it asks negated or excluded itself ("the price *without* VAT"):
    a statement that excludes them answers it."""
    said = negated(q.text, None)
    return q.matched(said, roots_of(said))


def _held(unit: Unit, q: Question) -> frozenset[int]:
    """The question's words a cell holds in its text, headers or caption (any form)."""
    held_forms = frozenset().union(*(_forms(w) for w in words(f"{unit.context} {unit.text}")))
    return q.matched(unit.tokens | unit.context_tokens | held_forms,
                     unit.roots | unit.context_roots | roots_of(held_forms))


def _names_narrower(unit: Unit, q: Question) -> bool:
    """Whether the question names a word another row adds to the cell's measure, one the
    cell does not hold (in its text, headers or caption)."""
    asked = frozenset().union(*(q.matched(_forms(w), _forms(w)) for w in unit.narrower))
    if not asked:
        return False
    return bool(asked - _held(unit, q))


def _qualified_apart(unit: Unit, q: Question) -> bool:
    """Whether the question sets, right beside a word it shares with the cell's row label,
    a content word the cell does not hold (in its text, row or column headers or caption)
    — a qualifier of the measure the row does not state. A year, a number, a word that
    names a kind of value ("amount") or a word of a name is no qualifier."""
    shared = frozenset().union(*(q.matched(_forms(w), _forms(w)) for w in unit.measure))
    if not shared:
        return False
    held = _held(unit, q)
    group = {w: i for i, w in enumerate(q.words)}
    seq = [group.get(w) for w in words(q.text)]  # surface order, stop words as None
    for at, i in enumerate(seq):
        if i is None or i not in shared:
            continue
        for j in (seq[at - 1] if at else None, seq[at + 1] if at + 1 < len(seq) else None):
            if j is not None and j not in held and q.kinds[j] is None and not q.names[j] \
                    and not any(ch.isdigit() for ch in q.words[j]):
                return True
    return False


def _kinds(values: frozenset[str]) -> frozenset[str]:
    """The kinds of answer (`ANSWERS`) that values of these types state."""
    return frozenset(k for k, types in ANSWERS.items() if values & types)


def _states(unit: Unit, q: Question) -> bool:
    """Whether the unit states the kind of value `q` expects."""
    kind = q.expects
    if kind is None:
        return True
    if kind == "statement":
        return unit.kind == "statement"
    if kind == "title":
        return unit.kind == "statement" and q.name_of in unit.heads
    if kind == "name" and unit.kind == "statement" and {"party", "parties"} & set(q.kinds):
        # "Who are the parties?" is answered where they are named: organisations, as many
        # as the question asks (one party, or two or more)
        return unit.organisations >= (2 if "parties" in q.kinds else 1)
    if kind in ANSWERS:
        return bool(unit.values & ANSWERS[kind]) or (kind == "time" and bool(unit.tokens & _TIMELESS))
    asked = {w for g in q.groups for w in g}
    return bool(unit.capitals - asked)


# ---- reading blocks --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadBlock:
    """A block's units and its suspected instruction spans (absolute offsets)."""

    units: tuple[Unit, ...]
    suspected: tuple[tuple[int, int], ...]


def read_block(body: str, base: int, context: str, lang: str | None,
               carried: bool = False, pointed: bool = False) -> ReadBlock:
    """Read one statement block's text `body` (starting at offset `base` of its layer):
    its clean statements, each with the pieces that may be cited and the titles before
    it as context. Suspected spans are cut out and the rest is split into sentences
    again, so a sentence an instruction was run into is whole again. `carried`: the block
    before ends on an order that leaves its argument to this one (`instructions.hands_over`),
    so this block's first sentence is suspected; `pointed`: the block after begins by
    pointing back at this one (`instructions.points_back`), so its last sentence is."""
    suspected = instruction_spans(body)
    if carried or pointed:
        suspected = _union(suspected, neighbour_spans(body, carried, pointed))
    runs: list[tuple[int, int, int]] = []  # (offset in clean, offset in body, length)
    parts: list[str] = []
    at = 0
    for a, b in _minus(0, len(body), _union(suspected, question_spans(body))):
        runs.append((at, a, b - a))
        parts.append(body[a:b])
        at += b - a + 1
    clean = " ".join(parts)
    units: list[Unit] = []
    titles: list[str] = []
    for s, e in statement_spans(clean):
        pieces = []
        for c0, b0, n in runs:
            a, b = max(s, c0), min(e, c0 + n)
            if b > a:
                pa, pb = strip_span(body, b0 + a - c0, b0 + b - c0)
                if pb > pa:
                    pieces.append((base + pa, base + pb, body[pa:pb]))
        said = " ".join(clean[s:e].split())
        if not pieces or is_question(said):
            continue
        if is_title(said):
            titles.append(said)
            continue
        ctx = " > ".join(x for x in (context, *titles) if x)
        units.append(_unit("statement", tuple(pieces), said, ctx, lang))
    return ReadBlock(tuple(units), tuple((base + a, base + b) for a, b in suspected))


def read_title(text: str, a: int, b: int, lang: str | None) -> Unit | None:
    """The title at `[a, b)` of a layer's `text` read as a statement (it names the
    document: "What is the name of this agreement?" is answered by it), or None when it
    is no title: more than `MAX_TITLE_WORDS` words, or a sentence that states something."""
    a, b = strip_span(text, a, b)
    said = " ".join(text[a:b].split())
    if not said or len(said.split()) > MAX_TITLE_WORDS or not is_title(said):
        return None
    return _unit("statement", ((a, b, text[a:b]),), said, "", lang)


def read_table(text: str, cells: Sequence[Element], context: str,
               lang: str | None) -> ReadBlock:
    """Read a table's data cells (never a header cell), each with its row and column
    headers and the table's `context`."""
    data = [c for c in cells if (c.meta or {}).get("header") not in ("row", "column")]
    # a column is told apart by its own (lowest) header — "2019", "Total", "1-3 years" —
    # passing over a header that only names a unit ("$'000", "(in thousands)", "£m")
    columns = {c.char_start: _own_header(c.column_path, lang) for c in data}
    # the words every data cell's column holds ("in thousands") set none apart
    common = frozenset.intersection(*columns.values()) if columns else frozenset()
    per_row = Counter(c.row for c in data)
    # a row's measure, and the other rows' measures its own adds words to ("Total current
    # liabilities" adds "current" to "Total liabilities")
    measures = {c.row: _measure(c.row_path[-1]) for c in data if c.row_path}
    read: list[tuple[Element, Unit]] = []
    for c in data:
        a, b = strip_span(text, c.char_start, c.char_end)
        if b <= a:
            continue
        said = " ".join(text[a:b].split())
        heads = " > ".join(x for x in (context, " > ".join(c.row_path),
                                        " > ".join(c.column_path)) if x)
        unit = _unit("cell", ((a, b, text[a:b]),), said, heads, lang,
                     own=" ".join((*c.row_path, said)))
        label = frozenset(_FOOTNOTE.sub(r"\1", t) for t in analyze(c.row_path[-1], lang)) \
            if c.row_path else frozenset()
        column = columns[c.char_start] - common if per_row[c.row] > 1 else frozenset()
        measure = measures.get(c.row, frozenset())
        broader = tuple(sorted({m for m in measures.values() if m and m < measure}, key=sorted))
        narrower = frozenset().union(*(m - measure for m in measures.values()
                                       if measure and measure < m))
        read.append((c, replace(unit, label=label, column=column, measure=measure,
                                broader=broader, narrower=narrower)))
    # a row whose cells that state a value all state a percentage states a rate
    percent: dict[int | None, set[bool]] = {}
    for c, u in read:
        if u.values:
            percent.setdefault(c.row, set()).add(u.values == {"percent"})
    units = [replace(u, rate_row=c.row is not None and percent.get(c.row) == {True})
             for c, u in read]
    return ReadBlock(tuple(units), ())


# words of a header that names the unit of its numbers, not what they are
_UNIT_WORDS = frozenset("000 m mn bn k in thousand thousands million millions billion billions "
                        "usd eur gbp dollars euros pounds miles millones".split())


def _own_header(path: Sequence[str], lang: str | None) -> frozenset[str]:
    """The words of the lowest header of a column path that says more than a unit."""
    for head in reversed(path):
        words = frozenset(analyze(head, lang))
        if words - _UNIT_WORDS:
            return words - _UNIT_WORDS
    return frozenset()


# a footnote mark run into a label's last word ("Order intake1")
_FOOTNOTE = re.compile(r"^([^\W\d_]{3,})\d$")


def _measure(label: str) -> frozenset[str]:
    """The content words of a row label, folded: no stop word, number, footnote mark or
    unit ("Total current liabilities (1)" → total, current, liabilities)."""
    ws = [m.group(1) if (m := _FOOTNOTE.match(w)) else w for w in words(label)]
    return frozenset(w for w in ws if w not in STOP_WORDS and w not in _UNIT_WORDS
                     and not any(ch.isdigit() for ch in w))


@lru_cache(maxsize=8192)
def _forms(word: str) -> frozenset[str]:
    """A folded word, its stem in every analyzer language and their roots ("leases" →
    leases, leas, leas…): a table's language is often unknown, a question's forms are all."""
    stems = {word, *(stem_words([word], lang)[0] for lang in LANGUAGES)}
    return frozenset(stems | {root(x) for x in stems})


def _unit(kind: str, pieces: tuple[tuple[int, int, str], ...], said: str, context: str,
          lang: str | None, own: str | None = None) -> Unit:
    said_tokens = frozenset(analyze(said, lang))
    tokens = frozenset(analyze(own, lang)) if own is not None else said_tokens
    if own is not None:  # a cell: its row label's words without a footnote mark run into them
        tokens |= frozenset(m.group(1) for t in tokens if (m := _FOOTNOTE.match(t)))
    ctx = frozenset(analyze(context, lang))
    values = frozenset(t for t, _, _ in values_in(said, lang))
    caps = [m.group() for m in _CAPITAL.finditer(said)]
    capitals = frozenset(fold(c).strip(".") for c in (caps[1:] if said.startswith(caps[0])
                                                       else caps)) if caps else frozenset()
    unit = Unit(kind, pieces, said, context, tokens, roots_of(tokens), said_tokens, ctx,
                roots_of(ctx), values, capitals)
    if kind != "statement":
        return unit
    return replace(unit, organisations=organisations(said), heads=named_heads(said),
                   definition=is_definition(said), negated=negated(said, lang))


def title_of(text: str, clause: Element) -> str | None:
    """A clause's title: its first sentence when that is a title ("4. Limitation of
    Liability."), else None."""
    body = text[clause.char_start:clause.char_end]
    spans = sentence_spans(body[:400])
    if not spans:
        return None
    first = " ".join(body[spans[0][0]:spans[0][1]].split())
    return first if is_title(first) else None


def _union(*spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sorted, disjoint union of span lists."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(x for ss in spans for x in ss):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _minus(s: int, e: int, cuts: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """`[s, e)` without the spans `cuts` (sorted, disjoint)."""
    out, at = [], s
    for a, b in cuts:
        if b <= at or a >= e:
            continue
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < e:
        out.append((at, e))
    return out
