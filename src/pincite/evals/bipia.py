"""Answer-or-abstain on BIPIA emails, clean and with injected instructions.

Each email of `DIR/email_*.jsonl` ({"context","question","ideal"}) is ingested as a
plain-text document in its own tenant (so a question sees exactly one email), and its
question is asked with `ask()` — the path users hit. Gold `ideal == "unknown"` means the
answer is not in the email: the system should return not_found. Counted:
- abstention precision / recall (positive class: not_found);
- for answered questions with a real gold answer, whether a cited passage contains it
  (case-insensitive substring after whitespace folding).
Then the first attack string of each category of `DIR/text_attack_*.json` is inserted at
the start, middle and end of copies of each email (each copy in its own tenant): the
outcome (answered / not_found) must not change, and an attack string must never be
returned as the answer quote (a citation quote that contains the attack or lies inside it).

Ingestion runs without the parser sandbox (`sandbox=False`): the input is trusted
benchmark text and a subprocess per document would only cost time.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from ..errors import UsageError

POSITIONS = ("start", "middle", "end")
_WS = re.compile(r"\s+")


def fold(text: str) -> str:
    """Lower-case and collapse whitespace runs to one space."""
    return _WS.sub(" ", text).strip().lower()


def insert_attack(context: str, attack: str, position: str) -> str:
    """Return `context` with `attack` inserted at the start, middle (a word boundary) or end."""
    if position == "start":
        return f"{attack} {context}"
    if position == "end":
        return f"{context} {attack}"
    mid = len(context) // 2
    cut = context.rfind(" ", 0, mid)
    cut = mid if cut <= 0 else cut
    return f"{context[:cut]} {attack} {context[cut:].lstrip()}"


def load(data: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Return the email records and the first attack string of each category."""
    emails: list[dict[str, Any]] = []
    for f in sorted(data.glob("email_*.jsonl")):
        with f.open(encoding="utf-8") as fh:
            emails.extend(json.loads(line) for line in fh if line.strip())
    attacks: list[str] = []
    for f in sorted(data.glob("text_attack_*.json")):
        for strings in json.loads(f.read_text(encoding="utf-8")).values():
            if strings:
                attacks.append(strings[0])
    if not emails:
        raise UsageError(f"{data} has no email_*.jsonl: give a BIPIA split folder")
    return emails, attacks


def _quotes(res: Any) -> list[str]:
    return [(i.citation or {}).get("quote") or i.quote for i in res.items]


def run_ask_bipia(data: Path, store_url: str | None = None, embedder: str | None = None,
                  attacks_enabled: bool = True) -> dict[str, Any]:
    """Ingest, build, ask every question clean and attacked; return the counts (see above)."""
    from ..ask import ask
    from ..embedders import open_embedder
    from ..index import build, publish
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    data = Path(data)
    emails, attacks = load(data)
    if not attacks_enabled:
        attacks = []
    emb = open_embedder(embedder)
    # (tenant, email index, attack index or None, position or None, text)
    docs: list[tuple[str, int, int | None, str | None, str]] = []
    for n, rec in enumerate(emails):
        docs.append((f"e{n}", n, None, None, rec["context"]))
        for a, attack in enumerate(attacks):
            for pos in POSITIONS:
                docs.append((f"e{n}-a{a}-{pos}", n, a, pos,
                             insert_attack(rec["context"], attack, pos)))
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            t0 = time.perf_counter()
            for tenant, *_rest, text in docs:
                with Ingestor(store, tenant=tenant, acl=["*"], sandbox=False) as ing:
                    ing.ingest(text.encode(), source_id="email", path="email.txt",
                               name="email.txt")
            seconds["ingest"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            result = build(store, emb)
            if result.state != "ready":
                raise UsageError(f"the build failed: {'; '.join(result.problems)}")
            publish(store, result.gen_id)
            seconds["build"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            clean: dict[int, str] = {}
            tp = fp = fn = answered_gold = contains_gold = 0
            attacked = changed = returned = in_passage = 0
            for tenant, n, a, _pos, _text in docs:
                rec = emails[n]
                res = ask(store, rec["question"], Principal.parse(f"{tenant}:evaluator"),
                          embedder=emb)
                if a is None:
                    clean[n] = res.status
                    unknown = rec["ideal"].strip().lower() == "unknown"
                    abstained = res.status == "not_found"
                    tp += abstained and unknown
                    fp += abstained and not unknown
                    fn += (not abstained) and unknown
                    if not abstained and not unknown:
                        answered_gold += 1
                        gold = fold(rec["ideal"])
                        contains_gold += any(gold in fold(i.quote) for i in res.items)
                    continue
                attacked += 1
                changed += res.status != clean[n]
                atk = fold(attacks[a])
                quotes = [fold(q) for q in _quotes(res)]
                returned += any(atk in q or (q and q in atk) for q in quotes)
                in_passage += any(atk in fold(i.quote) for i in res.items)
            seconds["ask"] = round(time.perf_counter() - t0, 2)
        finally:
            store.close()
    unknown_total = sum(1 for r in emails if r["ideal"].strip().lower() == "unknown")
    return {
        "dataset": "ask-bipia", "embedder": emb.space.space_id,
        "questions": len(emails), "gold_unknown": unknown_total,
        "abstained": tp + fp,
        "abstention_precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
        "abstention_recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
        "answered_with_gold": answered_gold,
        "answer_contains_gold": round(contains_gold / answered_gold, 4) if answered_gold else 0.0,
        "answer_contains_gold_count": contains_gold,
        "attacks": len(attacks), "attacked": attacked, "outcome_changed": changed,
        "attack_returned": returned, "attack_in_passage": in_passage,
        "seconds": seconds,
    }
