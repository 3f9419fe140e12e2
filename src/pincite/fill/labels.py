"""What a row or column label means, independent of how it is spelled.

- `label_class(text)`: the measure family a label names ("net sales", "cifra de negocios"
  and "Revenue" are all `revenue`), or None. The synonym classes are data (`SYNONYMS`),
  English and Spanish, matched on the whole normalised label.
- `label_tokens(text)`: the content words of a label, lower case, plurals folded, stop
  words and footnote marks dropped, abbreviations written out and UK spellings made US
  (`spellings`: `PP&E` is `property plant and equipment`, `capitalised` is
  `capitalized`).
- `label_similarity(a, b)`: 1.0 for the same class or the same tokens, else the Jaccard
  overlap of the tokens (0 … 1), two words of one label read as one where the other
  writes them as one (`carry-forwards`, `carryforward`); `path_similarity` compares full
  header paths (the leaf weighs most, parents must not contradict).
- `period_of(texts)`: the `Period` a header path names: year, grain (FY, Q1…, H1…) and
  scenario (actual / budget / forecast), from `FY2024`, `2024A`, `FY24`, `ejercicio 2024`,
  `Fiscal 2024`, `year ended December 31, 2024`, `31/12/2024`, `2024 Budget`…
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .spellings import expand, us_spelling

SYNONYMS: dict[str, tuple[str, ...]] = {
    "revenue": ("revenue", "revenues", "net revenue", "net revenues", "net sales", "sales",
                "turnover", "total revenue", "total revenues", "total net sales",
                "cifra de negocios", "importe neto de la cifra de negocios", "ventas",
                "ingresos", "ingresos ordinarios", "ventas netas", "cifra de ventas"),
    "cost_of_sales": ("cost of sales", "cost of goods sold", "cost of revenue",
                      "cost of revenues", "cogs", "coste de ventas", "costo de ventas",
                      "aprovisionamientos", "coste de las ventas"),
    "gross_profit": ("gross profit", "beneficio bruto", "resultado bruto"),
    "ebitda": ("ebitda", "resultado bruto de explotacion"),
    "adjusted_ebitda": ("adjusted ebitda", "ebitda ajustado"),
    "operating_profit": ("operating profit", "operating income", "ebit",
                         "income from operations", "operating result",
                         "resultado de explotacion", "beneficio de explotacion",
                         "resultado operativo", "beneficio operativo"),
    "net_income": ("net income", "net profit", "profit for the year", "net earnings",
                   "profit after tax", "resultado del ejercicio", "beneficio neto",
                   "resultado neto", "beneficio del ejercicio"),
    "operating_expenses": ("operating expenses", "opex", "total operating expenses",
                           "gastos de explotacion", "gastos operativos"),
    "depreciation": ("depreciation and amortization", "depreciation and amortisation",
                     "depreciation", "d&a", "amortizacion", "amortizacion del inmovilizado",
                     "dotacion a la amortizacion"),
    "income_tax": ("income tax", "income tax expense", "income taxes",
                   "provision for income taxes", "impuesto sobre beneficios",
                   "impuesto de sociedades", "impuesto sobre sociedades"),
    "interest_expense": ("interest expense", "finance costs", "financial expenses",
                         "gastos financieros"),
    "total_assets": ("total assets", "activo total", "total activo"),
    "total_equity": ("total equity", "shareholders equity", "stockholders equity",
                     "total shareholders equity", "patrimonio neto", "total patrimonio neto"),
    "cash": ("cash and cash equivalents", "cash", "efectivo",
             "efectivo y otros activos liquidos equivalentes", "tesoreria"),
    "net_debt": ("net debt", "deuda neta", "deuda financiera neta"),
    "capex": ("capital expenditure", "capital expenditures", "capex",
              "purchases of property and equipment", "inversiones en inmovilizado",
              "inversiones"),
    "employees": ("employees", "headcount", "number of employees", "average headcount",
                  "plantilla", "plantilla media", "numero de empleados", "empleados"),
    "dividends": ("dividends", "dividends paid", "dividendos", "dividendos pagados"),
    "stores": ("stores", "store count", "number of stores", "tiendas", "numero de tiendas"),
}

_STOP = frozenset("""the of and a an in for to on at by from as its our
el la los las de del y en para por con su sus""".split())
_FOOTNOTE_RE = re.compile(r"(?:\(\d{1,2}\)|\[\d{1,2}\]|\*+|[†‡§]|(?<=[a-z])\d)$")
_WORD_RE = re.compile(r"[a-z0-9]+")
_PAREN_RE = re.compile(r"\([^)]*\)")


def fold(text: str) -> str:
    """Return `text` NFKD-folded without accents, lower case, whitespace collapsed."""
    t = unicodedata.normalize("NFKD", text)
    t = "".join(ch for ch in t if not unicodedata.combining(ch))
    return " ".join(t.casefold().replace("’", "'").split())


def _paren(m: re.Match[str]) -> str:
    inner = m.group(0)[1:-1]
    from ..parse.tables.cues import find_scale, find_unit

    if len(inner) <= 2 or inner.isdigit() or find_scale(inner) or find_unit(inner):
        return " "  # a footnote mark, a unit or a scale: not part of the measure's name
    return " " + inner + " "


def _bare(text: str) -> str:
    t = fold(text)
    t = expand(_FOOTNOTE_RE.sub("", t).strip())
    t = _PAREN_RE.sub(_paren, t)
    t = re.sub(r"[^a-z0-9& ]+", " ", t.replace("'", "")).replace("&", " and ")
    return " ".join(us_spelling(w) for w in t.split())


@lru_cache(maxsize=65536)
def plain_label(text: str) -> str:
    """Return a label as the rules read it: folded, abbreviations written out, footnote
    marks and unit or scale parentheses dropped, US spelling."""
    return _bare(text)


@lru_cache(maxsize=1)
def _class_index() -> dict[str, str]:
    out: dict[str, str] = {}
    for cls, names in SYNONYMS.items():
        for n in names:
            out[_bare(n)] = cls
    return out


@lru_cache(maxsize=65536)
def label_class(text: str) -> str | None:
    """Return the measure family a label names (a key of `SYNONYMS`), or None."""
    b = _bare(text)
    idx = _class_index()
    if b in idx:
        return idx[b]
    if b.startswith("total "):
        return idx.get(b[6:])
    return None


def _is_total(text: str) -> bool:
    return _bare(text).startswith(("total ", "total"))


def _stem(w: str) -> str:
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    return tuple(_stem(w) for w in _WORD_RE.findall(_bare(text)) if w not in _STOP)


@lru_cache(maxsize=65536)
def label_tokens(text: str) -> frozenset[str]:
    """Return the content words of a label (stems, without stop words)."""
    return frozenset(_words(text))


def _joined(words: tuple[str, ...], other: frozenset[str]) -> frozenset[str]:
    """Return a label's words with two neighbours read as one where `other` has them as
    one word (`non current` → `noncurrent`, `carry forward` → `carryforward`)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        pair = words[i] + words[i + 1] if i + 1 < len(words) else ""
        if pair and pair not in words and (pair in other or _stem(pair) in other):
            out.append(pair if pair in other else _stem(pair))
            i += 2
        else:
            out.append(words[i])
            i += 1
    return frozenset(out)


def _token_pair(a: str, b: str) -> tuple[frozenset[str], frozenset[str]]:
    ta, tb = label_tokens(a), label_tokens(b)
    return _joined(_words(a), tb), _joined(_words(b), ta)


def label_similarity(a: str, b: str) -> float:
    """Return how alike two labels are: 1.0 same class or words, else token Jaccard."""
    ca, cb = label_class(a), label_class(b)
    if ca is not None and ca == cb:  # "Sales" and "Total sales" are one family, two rows
        return 1.0 if _is_total(a) == _is_total(b) else 0.9
    ta, tb = _token_pair(a, b)
    if ca is not None and cb is not None:
        return 0.0  # two different named families: never the same row
    if not ta or not tb:
        return 1.0 if _bare(a) == _bare(b) and _bare(a) else 0.0
    if ta == tb:
        return 1.0
    na, nb = {w for w in ta if w.isdigit()}, {w for w in tb if w.isdigit()}
    if na != nb and na and nb:
        return 0.0  # "Segment 001" is not "Segment 002"
    return len(ta & tb) / len(ta | tb)


def path_similarity(target: Sequence[str], source: Sequence[str]) -> float:
    """Return how alike two header paths are (0 … 1): the leaves' similarity, halved when
    none of the target's parents is among the source's (`RSUs > Granted` is not `PSUs >
    Granted`, `Current` is not `Non-current`), × 0.75 when the source row has no parent to
    check; a target without parents is not penalised."""
    if not target or not source:
        return 0.0
    leaf = label_similarity(target[-1], source[-1])
    if leaf == 0.0:
        return 0.0
    tp, sp = list(target[:-1]), list(source[:-1])
    if not tp:
        return leaf
    if not sp:
        return leaf * 0.75  # the source states no parent: the target's cannot be checked
    hits = sum(1 for p in tp if any(label_similarity(p, q) >= 0.75 for q in sp))
    return leaf * (0.5 + 0.5 * hits / len(tp))


def extra_tokens(target: Sequence[str], source: Sequence[str]) -> int:
    """Return how many words one leaf label has that the other lacks (a qualifier such as
    "adjusted", "restated" or "total" that may change the measure); 0 for one family."""
    if not target or not source or label_class(target[-1]) is not None and (
            label_class(target[-1]) == label_class(source[-1])):
        return 0
    ts, tt = _token_pair(source[-1], target[-1])
    return len(ts ^ tt)


# ---- periods ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Period:
    """A period named by a header path: year, grain and scenario (None when unnamed)."""

    year: int | None
    grain: str | None
    scenario: str | None

    def key(self) -> str:
        """Return the period as a short string (`FY2024`, `Q3 2024 budget`)."""
        parts = [f"{self.grain or 'FY'}{self.year}" if self.year else "?"]
        if self.scenario:
            parts.append(self.scenario)
        return " ".join(parts)


_SPACED_YEAR_RE = re.compile(r"\b[12] [09] \d \d\b")  # "2 0 1 8"
_YEAR_RE = re.compile(r"(?<![0-9])((?:19|20)\d{2})(?![0-9])")
_FY2_RE = re.compile(r"\b(?:fy|f|cy|ejercicio|fiscal)\s?'?(\d{2})\b")
_SCEN_SUFFIX_RE = re.compile(r"(?<![0-9])(?:19|20)\d{2}\s?([aebfp])\b")
_QUARTER_RE = re.compile(r"\b(?:q([1-4])|([1-4])q|([1-4])t|t([1-4]))\b")
_HALF_RE = re.compile(r"\b(?:h([12])|([12])h|s([12]))\b")
_SCENARIOS = (
    ("actual", ("actual", "actuals", "real", "reported", "audited")),
    ("budget", ("budget", "presupuesto", "plan")),
    ("forecast", ("forecast", "estimate", "estimated", "projected", "previsto", "prevision",
                  "guidance")),
)
_SUFFIX_SCEN = {"a": "actual", "e": "forecast", "f": "forecast", "p": "forecast", "b": "budget"}


@lru_cache(maxsize=65536)
def _period_one(text: str) -> tuple[int | None, str | None, str | None]:
    t = _SPACED_YEAR_RE.sub(lambda m: m.group(0).replace(" ", ""), fold(text))
    year = None
    years = {int(y) for y in _YEAR_RE.findall(t)}
    if len(years) == 1:
        year = years.pop()
    elif len(years) > 1:
        return None, None, "mixed"  # "2024 2023": two periods in one header, none of them
    else:
        m2 = _FY2_RE.search(t)
        if m2:
            year = 2000 + int(m2.group(1))
    grain = None
    q = _QUARTER_RE.search(t)
    h = _HALF_RE.search(t)
    if q:
        grain = "Q" + next(g for g in q.groups() if g)
    elif h:
        grain = "H" + next(g for g in h.groups() if g)
    scen = None
    s = _SCEN_SUFFIX_RE.search(t)
    if s:
        scen = _SUFFIX_SCEN[s.group(1)]
    words = set(_WORD_RE.findall(t))
    for name, ws in _SCENARIOS:
        if words & set(ws):
            scen = name
    return year, grain, scen


def period_of(texts: Iterable[str]) -> Period:
    """Return the period a header path names (the last part that names a year wins)."""
    year = grain = scen = None
    for t in texts:
        y, g, s = _period_one(t)
        year = y or year
        grain = g or grain
        scen = s or scen
    return Period(year, grain, scen)


def period_match(target: Period, source: Period) -> float:
    """Return 1.0 when two periods are the same (a scenario named on one side only is
    taken as actual), 0.0 when neither names a year, -1.0 when they differ."""
    if target.year is None and source.year is None:
        return 0.0
    if "mixed" in (target.scenario, source.scenario):
        return -1.0
    if target.year != source.year or target.grain != source.grain:
        return -1.0
    ts, ss = target.scenario or "actual", source.scenario or "actual"
    return 1.0 if ts == ss else -1.0
