"""The measures of the strata eval: character error rate, reading-order error, table
structure similarity and locator accuracy, each over a reference the stratum names.

- **CER**: Levenshtein distance between the reference and the layer text, both in NFC with
  soft hyphens dropped and runs of whitespace made one space, over the reference's length.
- **Reading-order error**: the normalised Kendall tau distance between the order of the
  words in the reference and in the layer: the k-th occurrence of a word in one is paired
  with its k-th occurrence in the other, and the share of discordant pairs among the
  paired words is the error (0: same order, 1: reversed). Words in one text only count
  toward CER, not here.
- **Table structure**: the F1 of adjacency relations (a cell and its neighbour to the
  right or below, ICDAR 2013's measure, `evals.icdar.relations`) between the reference's
  tables and the layer's.
- **Locator accuracy**: the share of reference spans whose citation opens on the right
  page with a box overlapping the reference box by IoU ≥ `IOU_MATCH` (for a quote taken
  from inside a reference item, whose own box is not known: a citation box at least that
  much inside the item's box).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

from ...model import Box
from ..icdar import Cell, iou, relations

IOU_MATCH = 0.5
_WS_RE = re.compile(r"\s+")


def normal(text: str) -> str:
    """Return the compared form of a text: NFC, soft hyphens dropped, whitespace one space."""
    return _WS_RE.sub(" ", unicodedata.normalize("NFC", text).replace("\u00ad", "")).strip()


def edit_distance(a: str, b: str) -> int:
    """Return the Levenshtein distance between `a` and `b` (Hyyrö's bit-parallel form of
    Myers' algorithm over Python integers: one pass over `b`, `len(a)` bits a step)."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    peq: dict[str, int] = {}
    for i, c in enumerate(a):
        peq[c] = peq.get(c, 0) | (1 << i)
    m = len(a)
    mask = (1 << m) - 1
    top = 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for c in b:
        eq = peq.get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return score


def cer(reference: str, hypothesis: str) -> tuple[int, int]:
    """Return (edits, reference characters) in the compared forms of both texts."""
    ref, hyp = normal(reference), normal(hypothesis)
    return edit_distance(ref, hyp), len(ref)


def _inversions(seq: list[int]) -> int:
    """Return the number of pairs out of order in `seq` (merge sort)."""
    if len(seq) < 2:
        return 0
    mid = len(seq) // 2
    left, right = seq[:mid], seq[mid:]
    count = _inversions(left) + _inversions(right)
    i = j = 0
    for k in range(len(seq)):
        if j >= len(right) or i < len(left) and left[i] <= right[j]:
            seq[k] = left[i]
            i += 1
        else:
            seq[k] = right[j]
            j += 1
            count += len(left) - i
    return count


def order_error(reference: str, hypothesis: str) -> float | None:
    """Return the normalised Kendall tau distance between the two word orders (None when
    fewer than two words pair up)."""
    seen: Counter[str] = Counter()
    where: dict[tuple[str, int], int] = {}
    for k, w in enumerate(normal(hypothesis).split()):
        seen[w] += 1
        where[(w, seen[w])] = k
    seen.clear()
    seq: list[int] = []
    for w in normal(reference).split():
        seen[w] += 1
        at = where.get((w, seen[w]))
        if at is not None:
            seq.append(at)
    n = len(seq)
    if n < 2:
        return None
    return _inversions(seq) / (n * (n - 1) / 2)


def table_counts(gold: Iterable[Sequence[Cell]], found: Iterable[Sequence[Cell]]
                 ) -> tuple[int, int, int]:
    """Return (relations in both, gold relations, found relations) over all tables."""
    g: Counter[tuple[str, str, str]] = Counter()
    f: Counter[tuple[str, str, str]] = Counter()
    for cells in gold:
        g += relations(cells)
    for cells in found:
        f += relations(cells)
    return sum((g & f).values()), sum(g.values()), sum(f.values())


def f1(both: int, gold: int, found: int) -> float | None:
    """Return the F1 of a match count (None when there is nothing to measure)."""
    if not gold and not found:
        return None
    return 2 * both / (gold + found) if gold + found else 0.0


def located(page: int | None, box: Box | None, gold_page: int, gold_box: Box,
            within: bool = False) -> bool:
    """Return True when a citation opens on the gold page with a box matching the gold
    one (IoU ≥ `IOU_MATCH`), or, when the gold box is that of an item holding the quote
    (`within`), lying mostly inside it (≥ `IOU_MATCH` of the citation box's area)."""
    if page != gold_page or box is None:
        return False
    if not within:
        return iou(box, gold_box) >= IOU_MATCH
    w = min(box[2], gold_box[2]) - max(box[0], gold_box[0])
    h = min(box[3], gold_box[3]) - max(box[1], gold_box[1])
    area = (box[2] - box[0]) * (box[3] - box[1])
    return w > 0 and h > 0 and area > 0 and w * h / area >= IOU_MATCH
