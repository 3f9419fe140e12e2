"""The lexical analyzer `snowball-fold-1`: what a word becomes in the BM25 index.

A text is analyzed in one language (`en`, `es`, or `None` for unknown):
1. NFKC, casefold, then accents folded (NFD, combining marks dropped, NFC) — folding
   comes *before* stemming so that `garantías`, `garantias` and `garantía` meet;
2. words are runs of letters and digits (`[^\\W_]+`); `_` and punctuation separate;
3. each word is stemmed with the Snowball stemmer of the language (PyStemmer); a text
   of unknown language keeps its folded words unstemmed.

FTS5 ships only an English (Porter) stemmer, so pincite analyzes text itself and stores
the analyzed tokens in the FTS5 table (`tokenize='unicode61 remove_diacritics 2'`, which
leaves these tokens as they are). Every stored token carries its tenant's key as a
prefix, so a term's postings list in the inverted index holds one tenant's rows only.

A query is analyzed with every analyzer of the generation (`en`, `es`, `none`): each
query word becomes a *term group* — the set of its forms — and a chunk matches the word
when it holds any form. Stop words of either language are dropped from queries (unless
nothing else is left); the index keeps them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

ANALYZER_ID = "snowball-fold-1"
LANGUAGES = ("en", "es")
FTS5_TOKENIZE = "unicode61 remove_diacritics 2"
_STEMMERS = {"en": "english", "es": "spanish"}
_WORD = re.compile(r"[^\W_]+")
MAX_QUERY_WORDS = 64

STOP_WORDS = frozenset(
    # English
    "a an and are as at be been but by can could did do does for from had has have he her "
    "his how i if in into is it its may me might my no nor not of on or our shall she "
    "should so such than that the their them then there these they this those to under "
    "upon was we were what when where which while who whom why will with would you your "
    # Spanish (accents folded)
    "al algo como con cual cuando de del desde donde el ella ellas ellos en entre era es "
    "esa ese eso esta este esto estos han hay la las le les lo los mas me mi muy ni nos o "
    "para pero por que se ser si sin sobre su sus tambien te tiene un una uno unos y ya".split()
)


def fold(text: str) -> str:
    """Return `text` in NFKC, casefolded, with accents removed."""
    t = unicodedata.normalize("NFKC", text).casefold()
    if t.isascii():
        return t
    t = unicodedata.normalize("NFD", t)
    return unicodedata.normalize("NFC", "".join(ch for ch in t if unicodedata.category(ch) != "Mn"))


def words(text: str) -> list[str]:
    """Return the folded words of `text`, in order."""
    return _WORD.findall(fold(text))


@lru_cache(maxsize=8)
def _stemmer(lang: str):  # type: ignore[no-untyped-def]
    try:
        import Stemmer
    except ImportError as exc:  # a core dependency; say which package is missing
        from ..errors import MissingExtra

        raise MissingExtra("PyStemmer", "core") from exc
    return Stemmer.Stemmer(_STEMMERS[lang])


def stem_words(ws: list[str], lang: str | None) -> list[str]:
    """Return `ws` stemmed in `lang` (unchanged when `lang` is None or unknown)."""
    if lang not in _STEMMERS or not ws:
        return ws
    return list(_stemmer(lang).stemWords(ws))


def analyze(text: str, lang: str | None) -> list[str]:
    """Return the index tokens of `text` analyzed in `lang` (without the tenant prefix)."""
    return stem_words(words(text), lang)


def tenant_key(tenant: str) -> str:
    """Return the 13-character token prefix of a tenant (letters and digits only)."""
    return "t" + hashlib.sha256(tenant.encode()).hexdigest()[:12]


def index_body(tenant: str, tokens: list[str]) -> str:
    """Return the FTS5 body: every token prefixed with the tenant's key."""
    key = tenant_key(tenant)
    return " ".join(key + t for t in tokens)


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """A query analyzed for one tenant: `groups[i]` holds the index terms of word i."""

    words: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]

    @property
    def terms(self) -> list[str]:
        """Every distinct index term of every group."""
        return sorted({t for g in self.groups for t in g})


def analyze_query(text: str, tenant: str, languages: tuple[str, ...] = LANGUAGES) -> QueryTerms:
    """Return the term groups of a query for a tenant's postings.

    The query is data, never FTS5 syntax: operators such as `OR`, `NEAR(`, `"` or `*` are
    words or separators here, and terms are looked up by equality (bound parameters to
    the `fts5vocab` table), so no user text ever reaches an FTS5 MATCH expression.
    """
    ws = list(dict.fromkeys(words(text)))
    content = [w for w in ws if w not in STOP_WORDS]
    ws = (content or ws)[:MAX_QUERY_WORDS]
    key = tenant_key(tenant)
    forms: list[set[str]] = [{w} for w in ws]
    for lang in languages:
        for i, s in enumerate(stem_words(ws, lang)):
            forms[i].add(s)
    groups: dict[tuple[str, ...], str] = {}
    for w, f in zip(ws, forms, strict=True):
        g = tuple(sorted(key + x for x in f if x))
        groups.setdefault(g, w)
    return QueryTerms(tuple(groups.values()), tuple(groups))


def analyzer_record() -> dict[str, object]:
    """The analyzer as recorded in a generation manifest."""
    try:
        import Stemmer

        version = getattr(Stemmer, "__version__", "?")
    except ImportError:  # pragma: no cover - a core dependency
        version = "missing"
    return {
        "name": ANALYZER_ID,
        "languages": list(LANGUAGES),
        "fallback": "none (folded, unstemmed)",
        "fold": "nfkc+casefold+strip-combining-marks, before stemming",
        "word": _WORD.pattern,
        "stemmer": f"snowball via PyStemmer {version}",
        "fts5_tokenize": FTS5_TOKENIZE,
        "token_prefix": "tenant key (t + 12 hex of sha256(tenant))",
        "query": "every language's stem of each word, OR-ed; stop words dropped",
    }
