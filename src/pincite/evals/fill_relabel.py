"""The target side of `eval fill`: row labels, period headers and the scale of an
operating model, respelled from the eval's own data and code, not the product's.

Label respellings, period styles and scale wordings come from a label file
(`evals/fill_labels/tatqa_dev.json`, written without reading `pincite.fill.labels`).
Years, sub-year periods, scales and currencies are read here by small regexes. None of
this imports `pincite.fill` or `pincite.parse`, so the target is never built with the
vocabulary that the filler uses to read it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import UsageError

SCHEMA_NAME = "pincite.eval.fill_labels"
SCHEMA_VERSION = 1
YEAR_RE = re.compile(r"(?<![\d.,])(?:19|20)\d{2}(?![\d.,]*\d)")
# a header naming less than a year (a quarter, some months or weeks, a half) or a span
_SUB_YEAR_RE = re.compile(r"(?i)\b(?:quarters?|months?|weeks?|half|Q[1-4]|H[12]|YTD|to date)\b")
_SCALES = (
    ("thousands", re.compile(r"(?i)\bthousands?\b|['’]000s?\b|\b000s\b")),
    ("millions", re.compile(r"(?i)\bmillions?\b|\bmn\b|[$€£¥]\s?m\b")),
    ("billions", re.compile(r"(?i)\bbillions?\b|\bbn\b|[$€£¥]\s?bn\b")),
)
NEXT_SCALE = {"thousands": "millions", "millions": "billions"}
_CURRENCIES = (  # (ISO code, pattern, symbol); the plain dollar sign last
    ("EUR", re.compile(r"€|\bEUR\b|\beuros?\b", re.I), "€"),
    ("GBP", re.compile(r"£|\bGBP\b|\bsterling\b", re.I), "£"),
    ("JPY", re.compile(r"¥|\bJPY\b|\byen\b", re.I), "¥"),
    ("CNY", re.compile(r"\bRMB\b|\bCNY\b"), "CNY "),
    ("TWD", re.compile(r"\bNT\$|\bTWD\b"), "NT$"),
    ("SGD", re.compile(r"\bS\$|\bSGD\b"), "S$"),
    ("AUD", re.compile(r"\bA\$|\bAUD\b"), "A$"),
    ("CAD", re.compile(r"\bC\$|\bCAD\b"), "C$"),
    ("USD", re.compile(r"\$|\bUSD\b|\bdollars?\b", re.I), "$"),
)


@dataclass(frozen=True)
class TargetLabels:
    """An eval's own target vocabulary: label respellings, period styles, scale wordings."""

    labels: Mapping[str, tuple[str, ...]]
    periods: tuple[str, ...]
    scales: Mapping[str, tuple[str, ...]]
    path: str = ""


def default_label_file() -> Path:
    """Return `evals/fill_labels/tatqa_dev.json` of the source checkout."""
    path = Path(__file__).resolve().parents[3] / "evals" / "fill_labels" / "tatqa_dev.json"
    if not path.is_file():
        raise UsageError("evals/fill_labels/tatqa_dev.json is not next to this install; "
                         "run `pincite eval fill` from a source checkout of pincite")
    return path


def load_labels(path: Path) -> TargetLabels:
    """Return the target vocabulary of a label file (see evals/fill_labels/README.md)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the fill label file {path}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema_name") != SCHEMA_NAME or doc.get(
            "version") != SCHEMA_VERSION:
        raise UsageError(f"{path} is not a {SCHEMA_NAME} v{SCHEMA_VERSION} file; "
                         "see evals/fill_labels/README.md for its shape")
    labels, periods, scales = doc.get("labels"), doc.get("periods"), doc.get("scales")
    if not (isinstance(labels, dict) and all(
                isinstance(v, list) and all(isinstance(s, str) and s.strip() for s in v)
                for v in labels.values())
            and isinstance(periods, list) and periods
            and all(isinstance(p, str) and "{y" in p for p in periods)
            and isinstance(scales, dict)
            and all(isinstance(scales.get(k), list) and scales[k]
                    for k in NEXT_SCALE.values())):
        raise UsageError(f"{path}: 'labels' must map each label to a list of respellings, "
                         "'periods' list styles with {y} or {yy}, 'scales' list wordings "
                         "for millions and billions")
    return TargetLabels(labels={" ".join(k.split()): tuple(v) for k, v in labels.items()},
                        periods=tuple(periods),
                        scales={k: tuple(v) for k, v in scales.items()}, path=str(path))


@lru_cache(maxsize=1)
def default_labels() -> TargetLabels:
    """Return the label file of the source checkout, read once."""
    return load_labels(default_label_file())


def seed_hash(text: str) -> int:
    """Return a stable 32-bit number for a seed (the same pick on every run)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def years_in(text: str) -> list[int]:
    """Return the four-digit years (1900-2099) a header names."""
    return [int(m.group()) for m in YEAR_RE.finditer(text)]


def scale_of(text: str) -> str | None:
    """Return the scale a text states first ('thousands', 'millions', 'billions'), or None."""
    found = [(m.start(), name) for name, rx in _SCALES if (m := rx.search(text))]
    return min(found)[1] if found else None


def currency_of(text: str) -> tuple[str, str] | None:
    """Return (ISO code, symbol) of the currency a text names, or None."""
    for code, rx, sym in _CURRENCIES:
        if rx.search(text):
            return code, sym
    return None


def _respellings(label: str, table: TargetLabels) -> tuple[str, tuple[str, ...] | None]:
    key = " ".join(label.split())
    base = re.sub(r"[:\s]+$", "", key)
    return base, table.labels.get(key, table.labels.get(base))


def label_kind(label: str, labels: TargetLabels | None = None) -> str:
    """Return how a label is respelled: 'respelled', 'case_only' or 'not_in_file'."""
    names = _respellings(label, labels or default_labels())[1]
    return "not_in_file" if names is None else "respelled" if names else "case_only"


def respell_label(label: str, seed: str, labels: TargetLabels | None = None) -> str:
    """Return a row label as the label file respells it (one of its respellings, picked
    by the seed); a label with none changes case and 'and'/'&'."""
    base, names = _respellings(label, labels or default_labels())
    if names:
        return names[seed_hash(seed) % len(names)]
    t = base.replace(" and ", " & ") if " and " in base else base.replace(" & ", " and ")
    return t.upper() if seed_hash(seed + "u") % 3 == 0 else (t.lower() if t != base else t.title())


def respell_period(text: str, seed: str, labels: TargetLabels | None = None) -> str:
    """Return a header naming one whole year in a style of the label file; others unchanged."""
    ys = years_in(text)
    if len(ys) != 1 or _SUB_YEAR_RE.search(text):
        return text
    styles = (labels or default_labels()).periods
    style = styles[seed_hash(seed) % len(styles)]
    return style.format(y=ys[0], yy=f"{ys[0] % 100:02d}")


def scale_title(scale: str, currency: tuple[str, str] | None, seed: str,
                labels: TargetLabels | None = None) -> str:
    """Return how the target's title states its scale ('USD billions', '$bn', …)."""
    code, sym = currency or ("USD", "$")
    wordings = (labels or default_labels()).scales[scale]
    return wordings[seed_hash(seed) % len(wordings)].format(cur=code, sym=sym)


@dataclass(frozen=True)
class TargetWords:
    """How `eval fill` writes a target: which headers name a year, the scale and currency
    a text states, the title's scale wording, and period and row-label respellings. The
    independent words (`independent_words`) come from a label file and this module's
    regexes; `evals.fill_product_words` builds the product's own vocabulary instead."""

    name: str
    has_year: Callable[[str], bool]
    scale_of: Callable[[str], str | None]
    names_unit: Callable[[str], bool]
    title: Callable[[str, str, str], str]       # (scale, table text, seed)
    period: Callable[[str, str], str]           # (header, seed)
    label: Callable[[str, str], str]            # (row label, seed)
    kind: Callable[[str], str]                  # how a label is respelled
    path: str = ""


def independent_words(labels: TargetLabels | None = None) -> TargetWords:
    """Return the eval's own target words: `labels` (default: the checkout's label file)
    and this module's year, scale and currency readers."""
    lab = labels or default_labels()
    return TargetWords(
        name="independent", has_year=lambda x: bool(years_in(x)), scale_of=scale_of,
        names_unit=lambda x: currency_of(x) is not None,
        title=lambda scale, text, seed: scale_title(scale, currency_of(text), seed, lab),
        period=lambda x, seed: respell_period(x, seed, lab),
        label=lambda x, seed: respell_label(x, seed, lab),
        kind=lambda x: label_kind(x, lab), path=lab.path)
