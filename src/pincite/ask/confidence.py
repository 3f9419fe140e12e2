"""The confidence an answer item carries: a measured probability, never a raw score.

Until the fitted judge of issue 26 replaces the readers' gates, an answer's confidence is
the share of `ask`'s answers of the same kind that were right on the dev evaluations
(`eval ask-cuad --folds 5`, `eval ask-tatqa --folds 5`, held-out folds pooled), taken as
the lower end of its 95 % Wilson interval, so a kind with few answers measured claims
little. A kind with no answers measured gets the pooled figure of all kinds. The table
names where each count came from; `docs/evaluation.md` prints it beside the figures.
"""

from __future__ import annotations

from math import sqrt

from ..vocab import AnswerKind

# (answered right, answered) per answer kind, on the dev splits at the shipped policy;
# MEASURED says which runs. Re-measure when a reader or threshold changes.
MEASURED = "ask-cuad dev (25 contracts, 41 questions) + ask-tatqa dev, 2026-12-04"
COUNTS: dict[AnswerKind, tuple[int, int]] = {}
POOLED: tuple[int, int] = (226, 229)  # CUAD dev held out 184/187 + TAT-QA dev 42/42
Z = 1.96


def wilson_low(right: int, answered: int) -> float:
    """Return the lower end of the 95 % Wilson interval of right / answered (0 when none)."""
    if answered <= 0:
        return 0.0
    p = right / answered
    den = 1 + Z * Z / answered
    centre = p + Z * Z / (2 * answered)
    spread = Z * sqrt(p * (1 - p) / answered + Z * Z / (4 * answered * answered))
    return max(0.0, (centre - spread) / den)


def answer_confidence(kind: AnswerKind) -> float:
    """Return the confidence of an answer of `kind`: the measured right rate's Wilson lower
    bound for that kind, else for all kinds, rounded to 3 places."""
    right, answered = COUNTS.get(kind, POOLED)
    return round(wilson_low(right, answered), 3)
