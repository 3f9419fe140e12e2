"""Characters that change how text is shown without being shown, which every parser
flags as `hidden_text`: bidi embeddings and overrides (U+202A-202E), bidi isolates
(U+2066-2069) and Unicode tag characters (U+E0000-E007F)."""

from __future__ import annotations

import re

HIDDEN_CHARS_RE = re.compile("[\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")


def hidden_char_flags(text: str) -> tuple[str, ...]:
    """Return `("hidden_text",)` when `text` holds bidi controls or tag characters."""
    return ("hidden_text",) if HIDDEN_CHARS_RE.search(text) else ()
