"""The gold of a tender corpus: cases, their documents and the value of each field.

`gold.json` (written by `scripts/make_tenders_dev.py` for examples/tenders-dev/):

    {"schema_name": "pincite.tender-gold", "version": 1, "schema": "tender-dictamen",
     "cases": [{"case": "es-obras", "lang": "es",
                "docs": ["es-obras/pliego.pdf", "es-obras/anuncio.html"],
                "revisions": [{"source": "es-obras/pliego.pdf", "file": "es-obras/r2/pliego.pdf"}],
                "batch": 1,
                "fields": {"duration": {"value": {"value": 6, "unit": "months"}},
                           "object": {"value": "…", "also": ["…"]},
                           "budget.base_excl_vat": {"blank": true}}}]}

A field not listed is not stated by the case's documents; `{"blank": true}` says the
documents hold a blank template where the value goes. Every path stays inside the data
folder; every field is one of the schema's and every value has its type's canonical shape.

`value_right(spec, gold, got)` is the comparison rule: typed values are equal (a money or
duration qualifier the extractor adds — `vat`, `basis`, `kind` — must be the gold's; one it
leaves out is less said, not wrong); text values are equal to the gold or one of its `also`
after folding case, accents, spaces and quotes, a leading article and end punctuation.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidGold
from ..extract.case import fold
from ..extract.schema import FieldSpec, Schema
from ..extract.typed import is_valid

GOLD_NAME = "pincite.tender-gold"
GOLD_VERSION = 1
MAX_GOLD_BYTES = 5 * 1024 * 1024
MAX_CASES = 1000
MAX_CASE_FILES = 50
_ARTICLE = re.compile(r"^(?:el|la|los|las|the|an?)\s+")
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})


@dataclass(frozen=True)
class GoldCase:
    """One case: its documents (reading order), revisions over them, and field gold."""

    case: str
    lang: str
    docs: tuple[str, ...]
    revisions: tuple[tuple[str, str], ...]   # (source id, file of the new revision)
    fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    batch: int = 1  # a later batch was written after the rules were tuned on earlier ones

    def state(self, name: str) -> str:
        """Return `stated`, `blank` or `absent` for a field of this case."""
        g = self.fields.get(name)
        if g is None:
            return "absent"
        return "blank" if g.get("blank") else "stated"

    def has_blank(self) -> bool:
        """Return True when some field of the case is a blank template."""
        return any(g.get("blank") for g in self.fields.values())


def _inside(root: Path, rel: Any, where: str) -> str:
    if not isinstance(rel, str) or not rel or rel.startswith(("/", "\\")) or "\x00" in rel:
        raise InvalidGold(f"{where}: {rel!r} is not a relative path inside the data folder")
    path = (root / rel).resolve()
    if not path.is_relative_to(root.resolve()):
        raise InvalidGold(f"{where}: {rel!r} leads outside the data folder; keep every "
                          "document under it")
    if not path.is_file():
        raise InvalidGold(f"{where}: {rel!r} is not a file under {root}; regenerate the "
                          "corpus or fix the path")
    return rel


def _no_constant(name: str) -> Any:
    raise InvalidGold(f"gold.json holds {name}, not a JSON number; write a finite number")


def load_gold(data: Path, schema: Schema) -> list[GoldCase]:
    """Return the cases of `data/gold.json`, checked against the folder and the schema;
    raise InvalidGold naming the entry that is wrong."""
    path = data / "gold.json"
    if not path.is_file():
        raise InvalidGold(f"{data} has no gold.json; give --data a tender corpus folder "
                          "(python scripts/make_tenders_dev.py writes one)")
    if path.stat().st_size > MAX_GOLD_BYTES:
        raise InvalidGold(f"{path} is over {MAX_GOLD_BYTES} bytes; split the corpus")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidGold(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema_name") != GOLD_NAME:
        raise InvalidGold(f"{path}: schema_name must be {GOLD_NAME!r}")
    if doc.get("version") != GOLD_VERSION:
        raise InvalidGold(f"{path}: version {doc.get('version')!r} is not {GOLD_VERSION}; "
                          "regenerate it with this pincite")
    if doc.get("schema") != schema.name:
        raise InvalidGold(f"{path}: its gold is for schema {doc.get('schema')!r}, not "
                          f"{schema.name!r}; give the matching --schema")
    raw = doc.get("cases")
    if not isinstance(raw, list) or not raw or len(raw) > MAX_CASES:
        raise InvalidGold(f"{path}: cases must be a list of 1 to {MAX_CASES} cases")
    names = {f.name for f in schema.fields}
    out: list[GoldCase] = []
    for i, c in enumerate(raw):
        where = f"{path}: cases[{i}]"
        if not isinstance(c, dict) or not isinstance(c.get("case"), str) or not c["case"]:
            raise InvalidGold(f"{where}: a case needs a non-empty `case` name")
        docs = c.get("docs")
        revs = c.get("revisions") or []
        if not isinstance(docs, list) or not docs or not isinstance(revs, list) \
                or len(docs) + len(revs) > MAX_CASE_FILES:
            raise InvalidGold(f"{where}: docs must list 1 to {MAX_CASE_FILES} files")
        docs_t = tuple(_inside(data, d, where) for d in docs)
        revs_t = []
        for r in revs:
            if not isinstance(r, dict) or r.get("source") not in docs_t:
                raise InvalidGold(f"{where}: a revision names a `source` among the case's docs")
            revs_t.append((r["source"], _inside(data, r.get("file"), where)))
        fields = c.get("fields") or {}
        if not isinstance(fields, dict):
            raise InvalidGold(f"{where}: fields must be an object")
        for name, g in fields.items():
            if name not in names:
                raise InvalidGold(f"{where}: field {name!r} is not in schema {schema.name!r}")
            _check_field(schema.field(name), g, f"{where}.fields[{name!r}]")
        batch = c.get("batch", 1)
        if not isinstance(batch, int) or isinstance(batch, bool) or not 1 <= batch <= 100:
            raise InvalidGold(f"{where}: batch must be an integer from 1 to 100")
        out.append(GoldCase(c["case"], str(c.get("lang") or ""), docs_t, tuple(revs_t), fields,
                            batch))
    if len({c.case for c in out}) != len(out):
        raise InvalidGold(f"{path}: two cases share a name; give each its own")
    return out


def _check_field(spec: FieldSpec, g: Any, where: str) -> None:
    if not isinstance(g, dict) or not (g == {"blank": True} or ("value" in g and set(g) <= {"value", "also"})):
        raise InvalidGold(f"{where}: write {{\"value\": …}} or {{\"blank\": true}}")
    if g.get("blank"):
        return
    values = [g["value"], *(g.get("also") or [])]
    for v in values:
        if v is None or not is_valid(spec.type, v, spec.values):
            raise InvalidGold(f"{where}: {v!r} is not a {spec.type} value")


# ---- the split ----------------------------------------------------------------------------


def folds_of(cases: list[GoldCase], k: int) -> dict[str, int]:
    """Return each case's fold in 0..k-1. Within a batch, cases are grouped by (language,
    has a blank), ordered by the sha256 of their name within a group, and dealt round-robin
    across the groups in turn, so every fold gets its share of each kind; each batch is
    dealt on its own, so adding a batch moves no case of an earlier one. A case's documents
    stay together. Deterministic: the same names give the same folds."""
    groups: dict[tuple[int, str, bool], list[str]] = {}
    for c in cases:
        groups.setdefault((c.batch, c.lang, c.has_blank()), []).append(c.case)
    out: dict[str, int] = {}
    turn, batch = 0, None
    for key in sorted(groups):
        if key[0] != batch:
            turn, batch = 0, key[0]
        for name in sorted(groups[key], key=lambda n: hashlib.sha256(n.encode()).hexdigest()):
            out[name] = turn % k
            turn += 1
    return out


# ---- the comparison rule ------------------------------------------------------------------


def _text_key(s: str) -> str:
    t = " ".join(fold(s.translate(_QUOTES)).split())
    t = _ARTICLE.sub("", t)
    return t.rstrip(" .,;:")


def _num_eq(a: Any, b: Any) -> bool:
    return (isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool)
            and not isinstance(b, bool) and math.isclose(float(a), float(b), rel_tol=1e-9))


def value_right(spec: FieldSpec, gold: dict[str, Any], got: Any) -> bool:
    """Return True when `got` states the gold value of a stated field (the rule above)."""
    want = gold["value"]
    if got is None:
        return False
    if spec.type in ("text", "entity", "clause"):
        return isinstance(got, str) and _text_key(got) in {
            _text_key(v) for v in [want, *(gold.get("also") or [])]}
    if isinstance(want, dict) and want.get("required") is False:
        return got == want
    if spec.type == "money":
        return (isinstance(got, dict) and _num_eq(got.get("amount"), want.get("amount"))
                and got.get("currency") == want.get("currency")
                and all(got[k] == want.get(k) for k in ("vat", "basis") if k in got))
    if spec.type == "duration":
        return (isinstance(got, dict) and _num_eq(got.get("value"), want.get("value"))
                and got.get("unit") == want.get("unit")
                and ("kind" not in got or got["kind"] == want.get("kind")))
    if spec.type == "percent":
        return isinstance(got, dict) and _num_eq(got.get("percent"), want.get("percent"))
    if spec.type == "number":
        return _num_eq(got, want)
    return bool(got == want)
