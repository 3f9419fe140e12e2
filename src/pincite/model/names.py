"""Names of tenants, users, groups and source ids: one Unicode policy, checked over the whole
string (docs/concepts.md, "Names")."""

from __future__ import annotations

import re
import unicodedata

from ..errors import UsageError

# Names (tenants, users, groups, source ids): one policy, checked over the whole string
# (never a `$` anchor, which matches before a trailing newline) and written down in
# docs/concepts.md, "Names": NFC; no control, format (bidi, zero-width, tag), other
# invisible, surrogate, private-use or unassigned characters; no space but U+0020.
NAME_MAX = 64
SOURCE_ID_MAX = 512
_NAME_PUNCT = frozenset("_.-")
_IGNORABLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0]
    + list(range(0x180B, 0x1810)) + list(range(0xFE00, 0xFE10)) + list(range(0xE0100, 0xE01F0)))
_CATEGORY_WORDS = {"Cc": "control character", "Cf": "invisible format character (bidi control, "
                   "zero-width or tag character)", "Cs": "surrogate (undecodable byte)",
                   "Co": "private-use character", "Cn": "unassigned code point",
                   "Zl": "line separator", "Zp": "paragraph separator", "Zs": "space but U+0020"}


def text_problem(value: str) -> str | None:
    """Return why `value` breaks the Unicode policy of names (None when it keeps it)."""
    for ch in value:
        cat = unicodedata.category(ch)
        if cat in _CATEGORY_WORDS and ch != " ":
            return f"contains a {_CATEGORY_WORDS[cat]} (U+{ord(ch):04X})"
        if ord(ch) in _IGNORABLE:
            return f"contains an invisible character (U+{ord(ch):04X})"
    if not unicodedata.is_normalized("NFC", value):
        return (f"is not in Unicode NFC form: write it as "
                f"{unicodedata.normalize('NFC', value)!r}")
    return _mixed_script(value)


# One word (a run of letters and marks) is written in one script, so that `pаypal` with a
# Cyrillic `а` cannot pass for `paypal`. Han mixes with Kana, Hangul, Bopomofo and Latin
# as real Japanese, Korean and Chinese names do (UTS #39, "highly restrictive").
_SCRIPT_WORD = {"CJK": "Han", "HIRAGANA": "Kana", "KATAKANA": "Kana", "KATAKANA-HIRAGANA": "Kana",
                "HALFWIDTH": "Kana"}
_HAN_COMPANIONS = frozenset({"Han", "Kana", "HANGUL", "BOPOMOFO", "LATIN"})
_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)


def _script(ch: str) -> str | None:
    if unicodedata.category(ch)[0] != "L":
        return None  # marks follow their base letter
    head = unicodedata.name(ch, "").split(" ", 1)[0]
    return _SCRIPT_WORD.get(head, head) or None


def _mixed_script(value: str) -> str | None:
    for word in _WORD_RE.findall(value):
        scripts = [s for s in map(_script, word) if s]
        kinds = set(scripts)
        if len(kinds) > 1 and not ("Han" in kinds and kinds <= _HAN_COMPANIONS):
            odd = next(ch for ch, s in zip(word, map(_script, word), strict=True) if s and s != scripts[0])
            return (f"mixes {' and '.join(sorted(k.title() for k in kinds))} letters in one word "
                    f"(U+{ord(odd):04X} is {_script(odd)}), so it could pass for another name")
    return None


def check_name(kind: str, value: str) -> str:
    """Return `value` if it is a valid tenant/user/group name, else raise UsageError."""
    if not isinstance(value, str) or not value:
        problem: str | None = "is empty"
    elif len(value) > NAME_MAX:
        problem = f"is {len(value)} characters long"
    elif not (problem := text_problem(value)):
        bad = next((c for i, c in enumerate(value) if not _name_char(c, first=i == 0)), None)
        problem = None if bad is None else f"contains {bad!r}"
    if problem is not None:
        raise UsageError(f"invalid {kind} name {value!r}: it {problem}; use 1-{NAME_MAX} "
                         "letters, digits, '_', '.' or '-', starting with a letter or digit")
    return value


def _name_char(ch: str, *, first: bool) -> bool:
    cat = unicodedata.category(ch)
    if cat[0] == "L" or cat == "Nd":
        return True
    return not first and (cat[0] == "M" or ch in _NAME_PUNCT)


def check_source_id(source_id: str) -> str:
    """Return `source_id` if usable as a source id, else raise UsageError."""
    hint = (f"1-{SOURCE_ID_MAX} visible characters in NFC, spaces only inside, "
            f"no '.' or '..' part, not ending in @r<digits>")
    problem = None
    if not isinstance(source_id, str) or not source_id:
        problem = "is empty"
    elif len(source_id) > SOURCE_ID_MAX:
        problem = f"is {len(source_id)} characters long"
    else:
        problem = text_problem(source_id)
    if problem is None and source_id != source_id.strip(" "):
        problem = "starts or ends with a space"
    if problem is None and re.fullmatch(r".*@r[0-9]+", source_id, re.S):
        problem = "ends like a revision (@r<digits>), so SOURCE@REV would be ambiguous"
    if problem is None and any(part in (".", "..") for part in source_id.split("/")):
        problem = "has a '.' or '..' part (a step of a path, not a name)"
    if problem is not None:
        raise UsageError(f"invalid source id {source_id!r}: it {problem}; use {hint}")
    return source_id
