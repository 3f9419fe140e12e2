"""A case: the documents one extraction reads, loaded once with what the extractors need.

`load_case(store, principal, docs)` resolves each document (a source id, or `SOURCE@rN`
for a named revision) for the principal, loads its text layer with the locator index,
its atomic facts and a length-preserving folded copy of the text (case- and
accent-insensitive) that trigger terms are matched against.

A case id names stored records within a tenant (the store keys them by tenant and case
id), so it carries no principal: the records of a case belong to whoever may read its
documents. A case is authorized per document (`case_guard`): a principal that names a
stored case holding a live document it may not read gets "not found" — at load, and again
inside the transaction that would write the case — so it can neither learn of nor
overwrite records resting on that document, however guessable the id.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..cite.locate import strip_span
from ..cite.resolve import resolve_doc
from ..cite.verifier import LoadedLayer, Verifier, citation_for
from ..errors import NotFound, UsageError
from ..facts.atomic import AtomicFact, extract_facts
from ..model import Citation, Element, Principal, Revision, acl_allows
from ..store import Store
from ..values import guess_lang

MAX_CASE_DOCS = 200
_SENT_END = re.compile(r"(?<=[.;!?])\s+(?=[\"“(¿¡A-ZÁÉÍÓÚÑÜ0-9])|\n\s*\n")
MAX_SENTENCE = 600


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    base = unicodedata.normalize("NFD", ch)[:1].lower()
    return base if len(base) == 1 else ch


def fold(text: str) -> str:
    """Return `text` lower-cased with accents dropped, one character per character."""
    return "".join(_fold_char(c) for c in text)


def term_regex(terms: Sequence[str]) -> re.Pattern[str] | None:
    """Return one regex matching any of `terms` (folded, whitespace-tolerant), or None."""
    parts = sorted({fold(t).strip() for t in terms if t.strip()}, key=len, reverse=True)
    if not parts:
        return None
    alts = [r"\s+".join(re.escape(w) for w in p.split()) for p in parts]
    return re.compile(r"(?<![\w])(?:" + "|".join(alts) + r")(?![\w])")


@dataclass
class CaseDoc:
    """One document of a case: revision, loaded text layer, facts, folded text."""

    order: int
    rev: Revision
    loaded: LoadedLayer
    facts: list[AtomicFact]
    folded: str
    lang: str | None
    _sentences: dict[int, tuple[int, int]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.loaded.text

    @property
    def doc_id(self) -> str:
        return self.rev.doc_id

    def element_at(self, pos: int) -> Element | None:
        """Return the innermost element containing `pos`."""
        return self.loaded.index.element_at(pos)

    def sentence(self, start: int, end: int | None = None) -> tuple[int, int]:
        """Return the sentence span around `[start, end)` inside its element (trimmed)."""
        end = start + 1 if end is None else end
        el = self.element_at(start)
        lo, hi = (el.char_start, el.char_end) if el is not None else (0, len(self.text))
        if hi - lo <= MAX_SENTENCE and not _SENT_END.search(self.text, lo, hi):
            return strip_span(self.text, lo, hi)
        s = lo
        for m in _SENT_END.finditer(self.text, lo, hi):
            if m.start() >= start:
                break
            s = m.end()
        e = hi
        for m in _SENT_END.finditer(self.text, max(end, s), hi):
            e = m.start()
            break
        s, e = strip_span(self.text, s, e)
        if e - s > MAX_SENTENCE:
            s = max(s, start - MAX_SENTENCE // 2)
            e = min(e, max(end, s + MAX_SENTENCE))
            s, e = _word_bounds(self.text, s, e, start, end)
        return s, e

    def cite(self, start: int, end: int) -> Citation:
        """Return the (unverified) citation of `[start, end)` in this document."""
        return citation_for(self.rev, self.loaded, start, end)

    def heading(self, pos: int) -> str:
        """Return the folded heading path of the element at `pos`."""
        el = self.element_at(pos)
        return fold(" / ".join(el.heading_path)) if el is not None else ""



def _word_bounds(text: str, s: int, e: int, start: int, end: int) -> tuple[int, int]:
    while s > 0 and s < start and not text[s - 1].isspace():
        s += 1
    while e < len(text) and e > end and not text[e].isspace():
        e -= 1
    return strip_span(text, s, e)


@dataclass
class Case:
    """The documents of one extraction, in the order given (the first is the main one)."""

    case_id: str
    docs: list[CaseDoc]
    verifier: Verifier
    principal: Principal

    def source_ids(self) -> list[str]:
        return [d.rev.source_id for d in self.docs]

    def doc(self, doc_id: str) -> CaseDoc | None:
        for d in self.docs:
            if d.doc_id == doc_id:
                return d
        return None


DEFAULT_CASE_PREFIX = "case-"


def case_id_for(revs: Sequence[Revision]) -> str:
    """Return the default case id: a digest of the source ids (not the revisions, so a
    corrected document stays the same case)."""
    key = "\x00".join(sorted(r.source_id for r in revs))
    return DEFAULT_CASE_PREFIX + hashlib.blake2b(key.encode(), digest_size=6).hexdigest()


def case_guard(store: Store, principal: Principal, case_id: str) -> Callable[[set[str]], None]:
    """Return the check that refuses (NotFound) a stored case holding a live source the
    principal may not read; a deleted source is nobody's and does not block."""
    def guard(held: set[str]) -> None:
        for source_id in sorted(held):
            src = store.source(principal.tenant, source_id)
            if src is not None and not acl_allows(src.acl, principal):
                raise NotFound("case", case_id)
    return guard


def load_case(store: Store, principal: Principal, docs: Sequence[str],
              case_id: str | None = None) -> Case:
    """Return the loaded case of `docs` for `principal`; raise NotFound for an invisible one."""
    if not docs:
        raise UsageError("give at least one document to extract from")
    if len(docs) > MAX_CASE_DOCS:
        raise UsageError(f"a case holds at most {MAX_CASE_DOCS} documents; split it")
    verifier = Verifier(store, principal)
    out: list[CaseDoc] = []
    seen: set[str] = set()
    for i, ref in enumerate(docs):
        rev = resolve_doc(store, principal, ref)
        if rev.doc_id in seen:
            continue
        seen.add(rev.doc_id)
        loaded = verifier.layer(rev)
        if loaded is None:
            raise UsageError(f"{rev.doc_id} has no text layer; run `pincite reparse {rev.source_id}`")
        lang = guess_lang(loaded.text)
        facts = extract_facts(loaded.layer, rev.doc_id, lang=lang)
        out.append(CaseDoc(i, rev, loaded, facts, fold(loaded.text), lang))
    default = case_id_for([d.rev for d in out])
    if case_id is not None and case_id != default and case_id.startswith(DEFAULT_CASE_PREFIX):
        # a default id is derived from its documents and claimable by no one else: pre-
        # claiming another case's default id would lock its readers out of it
        raise UsageError(f"case ids that begin {DEFAULT_CASE_PREFIX!r} are the ids pincite "
                         "derives from a case's documents: choose another case id "
                         "(--case ID), or give none to use this case's own")
    case_id = case_id or default
    case_guard(store, principal, case_id)(store.case_source_ids(principal.tenant, case_id))
    return Case(case_id, out, verifier, principal)
