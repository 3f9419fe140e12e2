"""The abstention rule (seed 000 §04): what the interface may do with a field.

The order matters: absence, conflict and unverified citations are checked before
confidence, because a confident record with a citation that does not resolve is worse
than a hesitant one. An absent record that cites something cites a blank template
("[●] euros", "__/__/20__", `extract.blanks`): the document does not state the value, and
no value from elsewhere stands in for it.

| in this order                                   | outcome  | reason                |
|-------------------------------------------------|----------|-----------------------|
| status absent and no provenance                 | ABSTAIN  | `not_stated`          |
| status absent, its provenance (the blank the    | ABSTAIN  | `blank_in_document`   |
| document leaves where the value goes) verified  |          |                       |
| status conflicting                              | REVIEW   | `conflicting`         |
| any citation not verified (or none for a value) | REVIEW   | `unverified_citation` |
| a validation error (type, range, postcondition, | REVIEW   | `schema_violation`    |
| value not stated by its quote)                  |          |                       |
| rests on OCR words below `OCR_MIN_CONFIDENCE`   | REVIEW   | `low_ocr_confidence`  |
| rests on hidden text, confidence >= tau_flag    | FLAG     | `hidden_text`         |
| only a trigger word links it, >= tau_flag       | FLAG     | `term_only`           |
| confidence >= tau_show                          | SHOW     | `above_tau_show`      |
| confidence >= tau_flag                          | FLAG     | `above_tau_flag`      |
| otherwise                                       | REVIEW   | `low_confidence`      |

A record rests on hidden text when any citation it carries has the verifier's `hidden_text`
flag (the span overlaps text the parser found hidden: display:none, tiny or white text,
invisible PDF text, hidden DOCX runs); such a field is at best FLAG, never SHOWn as fact,
and the record carries the flag (`record_flags`). A clause record whose passage matched
none of its field's patterns — only a trigger word such as "Agreement" links it — carries
`term_only` from the extractor and is likewise at best FLAG: a common word is not evidence
enough to show a value as fact.

A record rests on OCR when any citation it carries has the verifier's `ocr` flag (the
span holds words read from a page image); it carries the flag too. When the lowest word
confidence under any of its citations (`Citation.ocr_confidence`, Tesseract's 0-100) is
below `OCR_MIN_CONFIDENCE`, the value is never shown: a person reads the page image.
docs/ocr.md gives the word error rates measured above and below the bar.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vocab import DecisionReason, FieldStatus, Outcome, RecordFlag
from .records import FieldRecord

OCR_MIN_CONFIDENCE = 80.0  # Tesseract word confidence (0-100) a shown value's words must reach


@dataclass(frozen=True, slots=True)
class Decision:
    """An outcome with its reason code and the thresholds it was decided with."""

    outcome: Outcome
    reason: DecisionReason


def record_flags(r: FieldRecord) -> tuple[RecordFlag, ...]:
    """Return the flags a record takes from its citations (`hidden_text`, `ocr`), and those
    its extractor set (`term_only`)."""
    cited = tuple(f for f in (RecordFlag.HIDDEN_TEXT, RecordFlag.OCR)
                  if any(f in c.flags for c in r.provenance))
    return cited + tuple(f for f in r.flags if f == RecordFlag.TERM_ONLY)


def low_ocr(r: FieldRecord) -> bool:
    """Return True when a citation of the record holds OCR words below the bar."""
    return any(c.ocr_confidence is not None and c.ocr_confidence < OCR_MIN_CONFIDENCE
               for c in r.provenance)


def decide(r: FieldRecord, tau_show: float, tau_flag: float) -> Decision:
    """Return the outcome of one validated record under the thresholds."""
    if r.status == FieldStatus.ABSENT and not r.provenance:
        return Decision(Outcome.ABSTAIN, DecisionReason.NOT_STATED)
    if (r.status == FieldStatus.ABSENT and r.value is None
            and all(c.quote_verified for c in r.provenance)):
        return Decision(Outcome.ABSTAIN, DecisionReason.BLANK_IN_DOCUMENT)
    if r.status == FieldStatus.CONFLICTING:
        return Decision(Outcome.REVIEW, DecisionReason.CONFLICTING)
    if (r.value is not None and not r.provenance) or not all(c.quote_verified for c in r.provenance):
        return Decision(Outcome.REVIEW, DecisionReason.UNVERIFIED_CITATION)
    if r.validation_errors:
        return Decision(Outcome.REVIEW, DecisionReason.SCHEMA_VIOLATION)
    if low_ocr(r):
        return Decision(Outcome.REVIEW, DecisionReason.LOW_OCR_CONFIDENCE)
    if RecordFlag.HIDDEN_TEXT in record_flags(r) and r.confidence >= tau_flag:
        return Decision(Outcome.FLAG, DecisionReason.HIDDEN_TEXT)
    if RecordFlag.TERM_ONLY in r.flags and r.confidence >= tau_flag:
        return Decision(Outcome.FLAG, DecisionReason.TERM_ONLY)
    if r.confidence >= tau_show:
        return Decision(Outcome.SHOW, DecisionReason.ABOVE_TAU_SHOW)
    if r.confidence >= tau_flag:
        return Decision(Outcome.FLAG, DecisionReason.ABOVE_TAU_FLAG)
    return Decision(Outcome.REVIEW, DecisionReason.LOW_CONFIDENCE)
