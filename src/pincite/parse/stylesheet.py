"""What a document's own `<style>` sheets hide: the elements their rules put out of sight.

A page can hide a price with `<style>.x{display:none}</style><p class="x">` as well as with
an inline style. Only rules at the top level of a sheet are read (a rule inside `@media`,
`@supports` or any other at-block depends on the device and is not applied); a rule hides
when its declarations do what an inline style that hides does (`inline_style.HIDING`).

Selectors: type (`p`, `*`), `.class`, `#id`, `[attr]` and `[attr=value]` compounds joined by
descendant (space) or child (`>`) combinators, both matched as "has such an ancestor" —
a superset, so a rule may flag more than a browser hides, never less. A selector with
anything else (pseudo-classes, `+`, `~`) is skipped. The cascade is not computed: an inline
`display:block` does not unhide what a sheet hides; flagging is the safe side.

Bounds: at most `MAX_SELECTORS` hiding selectors and `MAX_STEPS` matching steps. Past the
step budget, every element whose own class, id or tag matches a hiding selector's last
compound is taken as hidden, ancestors unchecked — more flags, never fewer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import lxml.etree

from .inline_style import hiding_declarations

MAX_SELECTORS = 2000
MAX_STEPS = 200_000
MAX_SHEET_CHARS = 1_000_000

_COMMENT_RE = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_NAME = r"-?[_a-zA-Z\u00a0-\uffff][-_a-zA-Z0-9\u00a0-\uffff]*"
_PART_RE = re.compile(
    rf"(?P<tag>{_NAME}|\*)|\.(?P<cls>{_NAME})|#(?P<id>{_NAME})"
    rf"|\[\s*(?P<attr>{_NAME})\s*(?:=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|(?P<bare>{_NAME}))\s*)?\]"
    r"|(?P<child>\s*>\s*)|(?P<desc>\s+)")


@dataclass(frozen=True, slots=True)
class _Compound:
    tag: str | None
    classes: frozenset[str]
    ident: str | None
    attrs: tuple[tuple[str, str | None], ...]

    def matches(self, el: lxml.etree._Element) -> bool:
        if self.tag is not None and _tag(el) != self.tag:
            return False
        if self.ident is not None and el.get("id") != self.ident:
            return False
        if self.classes and not self.classes <= set((el.get("class") or "").split()):
            return False
        return all(el.get(k) is not None and (v is None or el.get(k) == v) for k, v in self.attrs)

    def keys(self) -> list[str]:
        """Return the index keys an element must carry to match: its id, a class, or a tag."""
        if self.ident is not None:
            return ["#" + self.ident]
        if self.classes:
            return ["." + min(self.classes)]
        return [self.tag or "*"]


def _tag(el: lxml.etree._Element) -> str | None:
    tag = el.tag
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else None


def _top_level_rules(css: str) -> Iterator[tuple[str, str]]:
    """Yield (selector list, declarations) of each top-level rule; at-rules are skipped."""
    css = _COMMENT_RE.sub(" ", css)
    i, n = 0, len(css)
    while i < n:
        open_at = css.find("{", i)
        semi = css.find(";", i)
        prelude_end = open_at if open_at >= 0 else n
        if css[i:prelude_end].lstrip().startswith("@") and 0 <= semi < prelude_end:
            i = semi + 1  # a block-less at-rule (`@import …;`)
            continue
        if open_at < 0:
            return
        depth, j = 1, open_at + 1
        while j < n and depth:
            depth += {"{": 1, "}": -1}.get(css[j], 0)
            j += 1
        prelude = css[i:open_at].strip()
        if not prelude.startswith("@"):
            yield prelude, css[open_at + 1:j - 1]
        i = j


def _parse_selector(text: str) -> list[_Compound] | None:
    """Return the compounds of one selector, left to right, or None when unsupported."""
    compounds: list[_Compound] = []
    tag: str | None = None
    classes: set[str] = set()
    ident: str | None = None
    attrs: list[tuple[str, str | None]] = []
    started = False
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _PART_RE.match(text, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        if m.group("child") is not None or m.group("desc") is not None:
            if not started:
                return None
            compounds.append(_Compound(tag, frozenset(classes), ident, tuple(attrs)))
            tag, classes, ident, attrs, started = None, set(), None, [], False
            continue
        started = True
        if m.group("tag"):
            tag = None if m.group("tag") == "*" else m.group("tag").lower()
        elif m.group("cls"):
            classes.add(m.group("cls"))
        elif m.group("id"):
            ident = m.group("id")
        else:
            value = next((v for v in (m.group("dq"), m.group("sq"), m.group("bare")) if v is not None),
                         None)
            attrs.append((m.group("attr").lower(), value))
    if not started:
        return None
    compounds.append(_Compound(tag, frozenset(classes), ident, tuple(attrs)))
    return compounds


def _hiding_selectors(root: lxml.etree._Element) -> list[list[_Compound]]:
    css = "\n".join(el.text or "" for el in root.iter("style"))[:MAX_SHEET_CHARS]
    found: list[list[_Compound]] = []
    for selectors, declarations in _top_level_rules(css):
        if not hiding_declarations(declarations):
            continue
        for text in selectors.split(","):
            parsed = _parse_selector(text)
            if parsed:
                found.append(parsed)
                if len(found) >= MAX_SELECTORS:
                    return found
    return found


def hidden_by_sheets(root: lxml.etree._Element) -> frozenset[lxml.etree._Element]:
    """Return the elements of `root` that a top-level rule of its `<style>` sheets hides."""
    selectors = _hiding_selectors(root)
    if not selectors:
        return frozenset()
    index: dict[str, list[list[_Compound]]] = {}
    for sel in selectors:
        for key in sel[-1].keys():
            index.setdefault(key, []).append(sel)
    steps = 0
    hidden: set[lxml.etree._Element] = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        keys = ["*", _tag(el) or ""] + ["." + c for c in (el.get("class") or "").split()]
        if el.get("id"):
            keys.append("#" + el.get("id", ""))
        candidates = (sel for key in keys for sel in index.get(key, ()))
        for sel in candidates:
            if steps > MAX_STEPS:
                ok = sel[-1].matches(el)  # budget spent: ancestors unchecked
            else:
                ok, used = _matches(sel, el)
                steps += used
            if ok:
                hidden.add(el)
                break
    return frozenset(hidden)


def _matches(sel: list[_Compound], el: lxml.etree._Element) -> tuple[bool, int]:
    """Return whether `sel` matches `el` (every combinator read as "has an ancestor"), and the
    compound tests spent."""
    steps = 1
    if not sel[-1].matches(el):
        return False, steps
    node = el.getparent()
    for compound in reversed(sel[:-1]):
        while node is not None:
            steps += 1
            if compound.matches(node):
                break
            node = node.getparent()
        if node is None:
            return False, steps
        node = node.getparent()
    return True, steps
