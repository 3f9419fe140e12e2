"""How financial statements spell a label, so that one line item spelled two ways is
read as one (`PP&E` and `Property, plant and equipment`, `A/R` and `accounts
receivable`, `capitalised` and `capitalized`).

- `expand(text)`: returns a folded label with each known abbreviation written out. The
  table is a general glossary of the field, written from ordinary accounting usage:
  statement lines (COGS, SG&A, D&A), tax (NOL, DTA, ETR), pensions (PBO, OPEB), equity
  plans (RSU, ESOP), credit (ACL, ECL), ratios (EPS, ROE) and regions (U.S., EMEA). It
  does not hold every abbreviation an analyst might coin. Abbreviations with two common
  meanings in a statement are left out: `NI` (net income or National Insurance), `VA`,
  `GM`, `GP`, `DC`, `CFO`, `LTD`, `AR`, `AP`.
- `us_spelling(word)`: returns one word in US spelling (`amortisation` → `amortization`,
  `centre` → `center`, `licence` → `license`).

Both sides of a comparison go through the same functions, so a rule that also catches an
unrelated word changes both sides alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

ABBREVIATIONS: dict[str, str] = {
    # income statement and cash flow
    "cogs": "cost of goods sold",
    "sg&a": "selling general and administrative",
    "sga": "selling general and administrative",
    "g&a": "general and administrative",
    "s&m": "sales and marketing",
    "r&d": "research and development",
    "ipr&d": "in process research and development",
    "d&a": "depreciation and amortization",
    "m&a": "mergers and acquisitions",
    "opex": "operating expenses",
    "capex": "capital expenditures",
    "ebt": "earnings before taxes",
    "pbt": "profit before tax",
    "pat": "profit after tax",
    "npat": "net profit after tax",
    "eps": "earnings per share",
    "dps": "dividends per share",
    "fcf": "free cash flow",
    "arpu": "average revenue per user",
    # balance sheet
    "pp&e": "property plant and equipment",
    "ppe": "property plant and equipment",
    "p&e": "property and equipment",
    "a/r": "accounts receivable",
    "a/p": "accounts payable",
    "nwc": "net working capital",
    "wip": "work in process",
    "cip": "construction in progress",
    "rou": "right of use",
    "aro": "asset retirement obligation",
    "nci": "noncontrolling interest",
    "oci": "other comprehensive income",
    "aoci": "accumulated other comprehensive income",
    "aocl": "accumulated other comprehensive loss",
    "nbv": "net book value",
    "nav": "net asset value",
    "fv": "fair value",
    "afs": "available for sale",
    "htm": "held to maturity",
    # tax
    "nol": "net operating loss",
    "dta": "deferred tax asset",
    "dtl": "deferred tax liability",
    "etr": "effective tax rate",
    "vat": "value added tax",
    "gst": "goods and services tax",
    # pensions and equity plans
    "pbo": "projected benefit obligation",
    "abo": "accumulated benefit obligation",
    "opeb": "other postretirement benefits",
    "sbc": "stock based compensation",
    "esop": "employee stock ownership plan",
    "espp": "employee stock purchase plan",
    "rsu": "restricted stock unit",
    "psu": "performance stock unit",
    "ltip": "long term incentive plan",
    "tsr": "total shareholder return",
    # credit and ratios
    "acl": "allowance for credit losses",
    "alll": "allowance for loan and lease losses",
    "ecl": "expected credit loss",
    "ltv": "loan to value",
    "roe": "return on equity",
    "roa": "return on assets",
    "roce": "return on capital employed",
    "roic": "return on invested capital",
    "fx": "foreign exchange",
    "fte": "full time equivalent",
    # shortened words
    "accum.": "accumulated",
    "amort.": "amortization",
    "depr.": "depreciation",
    "adj.": "adjusted",
    "incl.": "including",
    "excl.": "excluding",
    "avg.": "average",
    "avg": "average",
    "wtd.": "weighted",
    "wtd": "weighted",
    "misc.": "miscellaneous",
    "govt": "government",
    "gov't": "government",
    "int'l": "international",
    "intl": "international",
    "mgmt": "management",
    "ops": "operations",
    "disc.": "discontinued",
    "est.": "estimated",
    "approx.": "approximately",
    "yr": "year",
    "yrs": "years",
    # regions
    "u.s.a.": "united states",
    "u.s.": "united states",
    "usa": "united states",
    "us": "united states",
    "u.k.": "united kingdom",
    "uk": "united kingdom",
    "emea": "europe middle east and africa",
    "apac": "asia pacific",
    "latam": "latin america",
}

_US_WORDS = {"licence": "license", "licences": "licenses", "licenced": "licensed",
             "defence": "defense", "offence": "offense", "programme": "program",
             "programmes": "programs", "cheque": "check", "cheques": "checks",
             "judgement": "judgment", "ageing": "aging", "instalment": "installment",
             "instalments": "installments", "fulfil": "fulfill", "enrolment": "enrollment"}
_ISE_RE = re.compile(r"(?<=[a-z]{3})is(e|ed|es|ing|ation|ations|er|ers)$")
_OUR_RE = re.compile(r"^(lab|fav|col|behavi|hon|neighb)our")
_TRE_RE = re.compile(r"(?<=[a-z]{2})(t|b)re(s?)$")


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    def one(abbr: str) -> str:
        plural = "s?" if abbr.isalnum() else ""  # "RSUs", "DTAs", "NOLs"
        return re.escape(abbr) + plural
    names = sorted(ABBREVIATIONS, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9&/.'])(" + "|".join(one(a) for a in names)
                      + r")(?![a-z0-9&/'])")


def _expansion(m: re.Match[str]) -> str:
    found = m.group(1)
    key = found if found in ABBREVIATIONS else found[:-1]  # a plural "s"
    return " " + ABBREVIATIONS[key] + " "


def expand(text: str) -> str:
    """Return a folded (lower-case) label with its known abbreviations written out."""
    return " ".join(_pattern().sub(_expansion, text).split())


def us_spelling(word: str) -> str:
    """Return one lower-case word in US spelling (`capitalised` → `capitalized`)."""
    if word in _US_WORDS:
        return _US_WORDS[word]
    w = _ISE_RE.sub(r"iz\1", word)
    w = _OUR_RE.sub(r"\1or", w)
    return _TRE_RE.sub(r"\1er\2", w)
