"""What a document's own `<style>` sheets do to its text: the elements their rules put out of
sight, and the text and background colours they give each element.

A page can hide a price with `<style>.x{display:none}</style><p class="x">` as well as with
an inline style. Only rules at the top level of a sheet are read (a rule inside `@media`,
`@supports` or any other at-block depends on the device and is not applied); a rule hides
when its declarations do what an inline style that hides does (`inline_style.hiding`).

Selectors: type (`p`, `*`), `.class`, `#id`, `[attr]` and `[attr=value]` compounds joined by
descendant (space) or child (`>`) combinators, both matched as "has such an ancestor" —
a superset, so a rule may flag more than a browser hides, never less. A selector with
anything else (pseudo-classes, `+`, `~`) is skipped. For hiding the cascade is not
computed: an inline `display:block` does not unhide what a sheet hides; flagging is the
safe side. Colours (`color`, `background(-color)`) are given by the cascade: of the rules
that match an element and set the property, the `!important` one, then the most specific,
then the last wins (`SheetStyles.color` / `.background`); an inline declaration beats a
rule that is not `!important` (the HTML parser applies that).

Bounds: at most `MAX_SELECTORS` hiding selectors and as many colour selectors, and
`MAX_STEPS` matching steps for hiding rules, `MAX_COLOUR_STEPS` for colour rules. Past the step budget, every element whose own
class, id or tag matches a hiding selector's last compound is taken as hidden, ancestors
unchecked — more flags, never fewer. Past the colour budget, the colours of every element
after it are unknown (their text is then not judged by colour: fewer flags, never a wrong
one). Colour selectors are matched as loosely as hiding ones (a child combinator read as
descendant); a rule that hides gives no colours.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import lxml.etree

from .inline_style import (
    UNSET,
    Colour,
    declarations,
    declared_background,
    declared_color,
    hiding,
)

MAX_SELECTORS = 2000
MAX_STEPS = 200_000
MAX_COLOUR_STEPS = 50_000  # colours: the text is only judged by them, never dropped
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
    if not isinstance(tag, str):
        return None
    return (tag.rsplit("}", 1)[-1] if "}" in tag else tag).lower()


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


@dataclass(frozen=True, slots=True)
class _Rule:
    selector: list[_Compound]
    rank: tuple[int, int, int, int]  # (ids, classes and attributes, types, order): higher wins
    hides: bool
    color: Colour  # UNSET when the rule sets none
    background: Colour
    important: frozenset[str]  # of "color", "background": declared `!important`
    needs: frozenset[str] = frozenset()  # index keys its ancestor compounds require

    def reachable(self, above: frozenset[str]) -> bool:
        """Return False when no element under ancestors carrying `above` can match."""
        return self.needs <= above


@dataclass(frozen=True)
class SheetStyles:
    """What the `<style>` sheets of a document do to its elements."""

    hidden: frozenset[lxml.etree._Element] = frozenset()
    # element → (colour, !important) the cascade gives it; only elements a rule reaches
    color: dict[lxml.etree._Element, tuple[Colour, bool]] = field(default_factory=dict)
    background: dict[lxml.etree._Element, tuple[Colour, bool]] = field(default_factory=dict)


_NOTHING: frozenset[str] = frozenset()
_IMPORTANT_RE = re.compile(r"(?<![-\w])(color|background(?:-color)?)\s*:[^;]*!\s*important", re.I)


def _rank(sel: list[_Compound], order: int) -> tuple[int, int, int, int]:
    ids = sum(c.ident is not None for c in sel)
    classes = sum(len(c.classes) + len(c.attrs) for c in sel)
    return ids, classes, sum(c.tag is not None for c in sel), order


def _rules(root: lxml.etree._Element) -> list[_Rule]:
    css = "\n".join(el.text or "" for el in root.iter("style"))[:MAX_SHEET_CHARS]
    found: list[_Rule] = []
    hiding_n = colour_n = 0
    for order, (selectors, text) in enumerate(_top_level_rules(css)):
        d = declarations(text)
        hides = hiding(d)
        color = declared_color(d) if "color" in d or "-webkit-text-fill-color" in d else UNSET
        background = declared_background(d)
        if not hides and color == UNSET and background == UNSET:
            continue
        important = frozenset("color" if m.group(1).lower() == "color" else "background"
                              for m in _IMPORTANT_RE.finditer(text))
        for part in selectors.split(","):
            parsed = _parse_selector(part)
            if not parsed:
                continue
            needs = frozenset(c.keys()[0] for c in parsed[:-1])
            if hides and hiding_n < MAX_SELECTORS:
                hiding_n += 1
                found.append(_Rule(parsed, _rank(parsed, order), True, color, background,
                                   important, needs))
            elif colour_n < MAX_SELECTORS and (color != UNSET or background != UNSET):
                colour_n += 1
                found.append(_Rule(parsed, _rank(parsed, order), False, color, background,
                                   important, needs))
    return found


def sheet_styles(root: lxml.etree._Element) -> SheetStyles:
    """Return what the top-level rules of `root`'s `<style>` sheets do to its elements."""
    rules = _rules(root)
    if not rules:
        return SheetStyles()
    hiding: dict[str, list[_Rule]] = {}
    colouring: dict[str, list[_Rule]] = {}
    for rule in rules:
        for key in rule.selector[-1].keys():
            (hiding if rule.hides else colouring).setdefault(key, []).append(rule)
    needed = frozenset().union(*(r.needs for r in rules if not r.hides))
    steps = colour_steps = 0
    hidden: set[lxml.etree._Element] = set()
    color: dict[lxml.etree._Element, tuple[Colour, bool]] = {}
    background: dict[lxml.etree._Element, tuple[Colour, bool]] = {}
    # the index keys some ancestor of each element carries: a selector whose ancestor
    # compound needs a key none of them has cannot match (no walk up the tree for it)
    above: dict[lxml.etree._Element, frozenset[str]] = {}
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = _tag(el)
        keys = ["*", tag or ""] + ["." + c for c in (el.get("class") or "").split()]
        if el.get("id"):
            keys.append("#" + el.get("id", ""))
        up = _NOTHING
        if needed:
            parent = el.getparent()
            up = above.get(parent, _NOTHING) if parent is not None else _NOTHING
            new = [k for k in keys if k in needed and k not in up]
            above[el] = up.union(new) if new else up
        for rule in (r for key in keys for r in hiding.get(key, ())):
            if steps > MAX_STEPS:
                ok = rule.selector[-1].matches(el)  # budget spent: ancestors unchecked
            else:
                ok, used = _matches(rule.selector, el)
                steps += used
            if ok:
                hidden.add(el)
                break
        if not colouring:
            continue
        if colour_steps > MAX_COLOUR_STEPS:  # budget spent: the colours of the rest are unknown
            color[el] = background[el] = (None, True)
            continue
        best: dict[str, tuple[tuple[bool, tuple[int, int, int, int]], Colour]] = {}
        for rule in (r for key in keys for r in colouring.get(key, ())):
            colour_steps += 1  # a candidate looked at is a step, matched or not
            last = rule.selector[-1]
            if (last.tag is not None and last.tag != tag) or not rule.reachable(up):
                continue
            ok, used = _matches(rule.selector, el)
            colour_steps += used
            if not ok:
                continue
            for prop, value in (("color", rule.color), ("background", rule.background)):
                rank = (prop in rule.important, rule.rank)
                if value != UNSET and (prop not in best or rank > best[prop][0]):
                    best[prop] = (rank, value)
        if "color" in best:
            color[el] = (best["color"][1], best["color"][0][0])
        if "background" in best:
            background[el] = (best["background"][1], best["background"][0][0])
    return SheetStyles(frozenset(hidden), color, background)


def hidden_by_sheets(root: lxml.etree._Element) -> frozenset[lxml.etree._Element]:
    """Return the elements of `root` that a top-level rule of its `<style>` sheets hides."""
    return sheet_styles(root).hidden


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
