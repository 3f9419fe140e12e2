"""Pure planning for model input: split overlong token runs, bucket pieces into batches.

Overlong input is never silently truncated. A text of n word pieces with a limit of
`limit` pieces per window becomes k = ceil(n / limit) windows of about n / k pieces
each, every cut moved back to the start of a word when one is within reach; each window
is embedded alone and the text's vector is the L2-normalised mean of its window
vectors (the space's `truncation: "split-mean"`).
"""

from __future__ import annotations

from collections.abc import Sequence

Span = tuple[int, int]


def split_windows(n_tokens: int, limit: int, word_starts: Sequence[bool] | None = None) -> list[Span]:
    """Return half-open `[start, end)` token spans covering `[0, n_tokens)`, each at most
    `limit` long. `word_starts[i]` is True where token i begins a word; cuts prefer those
    positions but never shrink a window below half its share."""
    if limit < 1:
        raise ValueError(f"limit must be positive, got {limit}")
    if n_tokens <= limit:
        return [(0, n_tokens)]
    spans: list[Span] = []
    start = 0
    while n_tokens - start > limit:
        remaining = n_tokens - start
        pieces = -(-remaining // limit)
        share = -(-remaining // pieces)
        end = start + share
        if word_starts is not None:
            floor = start + max(1, share // 2)
            for cut in range(end, floor - 1, -1):
                if word_starts[cut]:
                    end = cut
                    break
        spans.append((start, end))
        start = end
    spans.append((start, n_tokens))
    return spans


def plan_batches(lengths: Sequence[int], max_items: int, max_tokens: int) -> list[list[int]]:
    """Group indices into batches of similar length: sorted by length (stable), a batch
    grows while it holds at most `max_items` items and `items * longest <= max_tokens`
    (one item always fits). Padding stays small and the batch cost stays bounded."""
    if max_items < 1 or max_tokens < 1:
        raise ValueError("max_items and max_tokens must be positive")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        longest = max(lengths[i], 1)  # sorted, so the newcomer is the longest
        if current and (len(current) + 1 > max_items or (len(current) + 1) * longest > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches
