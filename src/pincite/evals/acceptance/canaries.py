"""Canary tokens: unique words planted per tenant, document and carrier, and the scanner
that finds them in any output.

A token is `cnq` followed by nine lowercase letters, drawn from a seeded generator, so a
run is reproducible and no token occurs by chance in other text. The scanner finds every
token in a text (an HTTP body, a CLI line, an embedder's input, the raw bytes of a store
file) and reports those the caller may not see. Tokens that the caller itself typed (a
query, a document id given as an argument) are echoes, not leaks, and are left out.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterable, Sequence

from .builders import Spec, render
from .oracle import Doc

TOKEN = re.compile(r"cnq[a-z]{9}")
TOKEN_BYTES = re.compile(rb"cnq[a-z]{9}")


class TokenMint:
    """Makes unique canary tokens from one seed."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._made: set[str] = set()

    def new(self) -> str:
        """Return a token never returned before by this mint."""
        while True:
            t = "cnq" + "".join(self._rng.choice(string.ascii_lowercase) for _ in range(9))
            if t not in self._made:
                self._made.add(t)
                return t


def found(text: str) -> set[str]:
    """Every canary-shaped token in `text`."""
    return set(TOKEN.findall(text))


def foreign(text: str, registered: set[str], allowed: set[str],
            echoed: Iterable[str] = ()) -> list[str]:
    """The registered tokens in `text` that the caller may not see (echoes of what the
    caller typed left out), sorted."""
    echo = set()
    for e in echoed:
        echo |= found(e)
    return sorted((found(text) & registered) - allowed - echo)


def needles(*texts: str) -> list[bytes]:
    """The byte forms a string can take on disk: UTF-8 and UTF-16-LE (SQLite's two text
    encodings)."""
    out: list[bytes] = []
    for t in texts:
        out += [t.encode("utf-8"), t.encode("utf-16-le")]
    return out


# Words shared by many documents, so one query reaches documents of every tenant and ACL.
VOCAB = ("invoice", "payment", "warranty", "penalty", "delivery", "garantía", "plazo",
         "contrato", "notice", "interest")
CARRIERS = ("title", "body", "cell", "hidden", "meta", "file")
TEXT_CARRIERS = ("title", "body", "cell", "hidden")  # in the text layer: search finds them


def canary_doc(mint: TokenMint, rng: random.Random, tenant: str, acl: Sequence[str],
               kind: str, owner: str | None = None) -> tuple[Doc, bytes]:
    """Return a canary document of `kind` for `tenant` with a token in each carrier its
    format has (title, body, table cell, hidden text, metadata, file name), and its bytes.
    Markdown has no hidden text or metadata carrier."""
    tok = {c: mint.new() for c in CARRIERS if kind != "md" or c not in ("hidden", "meta")}
    w = rng.sample(VOCAB, 4)
    spec = Spec(title=f"Agreement {tok['title']}",
                paragraphs=(f"1.1 The {w[0]} and {w[1]} terms of {tok['body']} apply.",
                            f"1.2 Notice of {w[2]} is due within thirty days of the {w[3]}."),
                cells=(("Item", "Reference"), (w[0], tok["cell"])),
                hidden=(f"Internal note {tok['hidden']} on the {w[1]}.",) if "hidden" in tok else (),
                meta=f"Metadata {tok['meta']}" if "meta" in tok else "",
                hidden_style=rng.randrange(6))
    doc = Doc(tenant, f"{kind}/{tok['file']}.{kind}", tuple(sorted(set(acl))), kind, owner, tok)
    return doc, render(spec, kind)
