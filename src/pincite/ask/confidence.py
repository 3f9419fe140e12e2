"""The confidence an answer item carries: a measured probability, never a raw score.

Until the fitted judge of issue 26 replaces the readers' gates, an answer's confidence is
the share of `ask`'s answers of the same kind that were right when the questions were
worded by someone who never read the readers (`evals/paraphrases/`, six styles, asked with
`eval ask-cuad --questions` and `eval ask-tatqa --questions` on the dev splits), taken as
the lower end of its 95 % Wilson interval, so a kind with few answers measured claims
little. It is deliberately *not* measured on the evals' own wordings, which the readers
were written against (CUAD dev, own wording: 184 / 187 answers right held out; the same
categories in independent wordings, since questions are read as their kind: 1014 / 1078).
A kind with no answers measured gets the pooled figure. The fitted judge (`judge`) would
replace these figures with a per-answer probability; it is not shipped. `docs/evaluation.md`
prints the table beside the figures.
"""

from __future__ import annotations

from math import sqrt

from ..vocab import AnswerKind

# (answered right, answered) per answer kind at the shipped policy; MEASURED says which
# runs. Re-measure when a reader, a threshold or the paraphrase set changes.
MEASURED = ("ask-cuad dev --questions evals/paraphrases/cuad_dev.json (25 contracts x 492 "
            "phrasings, never fitted by the kind model) and ask-tatqa dev --questions "
            "evals/paraphrases/tatqa_dev.json, by answer kind, at b8e3fa1; 2026-12-05")
COUNTS: dict[AnswerKind, tuple[int, int]] = {
    AnswerKind.AMOUNT: (94, 98),
    AnswerKind.CELL: (208, 223),
    AnswerKind.COUNT: (1, 2),
    AnswerKind.DATE: (171, 189),
    AnswerKind.NAME: (60, 60),
    AnswerKind.PASSAGE: (113, 142),
    AnswerKind.PLACE: (140, 140),
    AnswerKind.STATEMENT: (30, 30),
    AnswerKind.TIME: (202, 207),
    AnswerKind.TITLE: (168, 168),
    AnswerKind.YES_NO: (114, 125),
}
POOLED: tuple[int, int] = (1301, 1384)  # every answer of both runs: CUAD 1014/1078, TAT-QA 287/306
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
