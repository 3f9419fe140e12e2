"""The closed vocabularies: every set of codes pincite writes, defined once as a `StrEnum`.

The values are JSON and SQL contracts: a member compares equal to its string, and a
stored or serialized code is exactly `member.value`. Anything that needs the set (a SQL
`CHECK`, a template's list, a test) takes it from here; `sql_in` writes it as SQL text.
No other pincite module is imported here, so every layer may import this one.
"""

from __future__ import annotations

from enum import StrEnum


class QuarantineReason(StrEnum):
    """Why an input was refused before or while parsing (`ParseFailure.reason`)."""

    EMPTY = "empty"
    ENCRYPTED = "encrypted"
    MALFORMED = "malformed"
    UNSUPPORTED_TYPE = "unsupported_type"
    TYPE_MISMATCH = "type_mismatch"
    OVER_LIMIT = "over_limit"
    ZIP_BOMB = "zip_bomb"
    XML_ENTITIES = "xml_entities"
    TIMEOUT = "timeout"
    SYMLINK = "symlink"
    TOO_DEEP = "too_deep"  # nesting past what the parser can read (HTML past libxml2's bound)
    TEXT_MISMATCH = "text_mismatch"  # a docling export whose text is not its --source file's


class IngestStatus(StrEnum):
    """What an ingest did with one file."""

    NEW = "new"
    UNCHANGED = "unchanged"
    REVISED = "revised"
    QUARANTINED = "quarantined"


class ElementKind(StrEnum):
    """The kinds of text-layer elements."""

    PAGE = "page"
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    CLAUSE = "clause"
    TABLE = "table"
    CELL = "cell"
    FIELD = "field"  # a form field's value (locator `field NAME`)


class VerifyReason(StrEnum):
    """The outcome of verifying a citation; `ok` and `superseded` count as verified."""

    OK = "ok"
    SUPERSEDED = "superseded"
    DOCUMENT_CHANGED = "document_changed"
    OFFSETS_MISMATCH = "offsets_mismatch"
    LOCATOR_MISMATCH = "locator_mismatch"
    UNKNOWN_DOCUMENT = "unknown_document"
    SOURCE_DELETED = "source_deleted"
    EMPTY_QUOTE = "empty_quote"          # the quote holds nothing to compare
    CUT_INSIDE_WORD = "cut_inside_word"  # the span starts or ends inside a token of the layer
    GEOMETRY_MISMATCH = "geometry_mismatch"  # page, bbox or boxes are not the span's


class ComparisonForm(StrEnum):
    """The versions of the comparison form a citation's quote is compared in
    (`cite.compare`); a citation that names none was made under `cmp-1`."""

    CMP_1 = "cmp-1"  # NFKC + casefold: superseded, kept so old citations verify as they did
    CMP_2 = "cmp-2"  # a documented safe set of folds, case kept


class CiteNote(StrEnum):
    """How `cite` found a quote, when not as written (each a JSON flag of the citation)."""

    EXTENDED = "extended"          # the quote stopped inside a word: the span runs to its end
    AMBIGUOUS = "ambiguous"        # the quote occurs more than once and none was chosen
    CASE_DIFFERS = "case_differs"  # found only ignoring case; the quote is the document's
    RESPACED = "respaced"          # found only without the quote's spaces inside a word


VERIFIED_REASONS = frozenset({VerifyReason.OK, VerifyReason.SUPERSEDED})
UNRESOLVED_REASONS = (VerifyReason.UNKNOWN_DOCUMENT, VerifyReason.SOURCE_DELETED,
                      VerifyReason.DOCUMENT_CHANGED)  # the citation no longer resolves


class GenerationState(StrEnum):
    """The life of an index generation."""

    BUILDING = "building"
    READY = "ready"
    PUBLISHED = "published"
    RETIRED = "retired"
    FAILED = "failed"
    DROPPED = "dropped"


SERVABLE_STATES = frozenset({GenerationState.PUBLISHED, GenerationState.RETIRED,
                             GenerationState.READY})


class LayerFlag(StrEnum):
    """Flags a PDF text layer (and its revision) takes from OCR (`parse.pdf.scanned`)."""

    OCR = "ocr"                        # some of its text was read from page images
    OCR_INCOMPLETE = "ocr_incomplete"  # a page that needed reading was not read (`OcrStatus`)


class OcrReason(StrEnum):
    """Why the PDF parser read a page from its image: what its text layer lacked."""

    NO_TEXT = "no_text"          # no characters at all, and the page draws something
    HIDDEN_TEXT = "hidden_text"  # only text nobody sees (a scanner's invisible layer)
    GARBAGE = "garbage"          # mostly characters with no meaning (no ToUnicode map)
    SPARSE_TEXT = "sparse_text"  # a few characters (a stamp, a page number) over a page image


class OcrStatus(StrEnum):
    """What became of a page that needed reading from its image."""

    READ = "read"
    OVER_PIXELS = "over_pixels"    # its image would exceed the per-page pixel limit
    TIMEOUT = "timeout"            # recognition took over the per-page seconds
    PAGE_LIMIT = "page_limit"      # past the pages a document may have read
    UNAVAILABLE = "unavailable"    # no engine or language pack here (or OCR turned off)


class ChunkFlag(StrEnum):
    """Element flags a chunk inherits (and a generation's manifest counts)."""

    HIDDEN_TEXT = "hidden_text"
    FORMULA = "formula"
    OCR = "ocr"  # read from a page image (`LayerFlag.OCR`)


class BundleFlag(StrEnum):
    """Flags of an evidence bundle as a whole."""

    NO_GENERATION = "no_generation"
    UNDERFILLED = "underfilled"
    TRUNCATED = "truncated"
    TIMEOUT = "timeout"
    STALE = "stale"
    DEGRADED = "degraded"
    FALLBACK = "fallback"


class ItemFlag(StrEnum):
    """Flags of one evidence item."""

    HIDDEN_TEXT = "hidden_text"
    FORMULA = "formula"
    OCR = "ocr"
    SUPERSEDED = "superseded"
    TRUNCATED = "truncated"
    INJECTION_SUSPECTED = "injection_suspected"


class ItemRole(StrEnum):
    """What an item of an `ask` result is: a span the reader judged to answer the question,
    or a passage retrieval found that may help and was not checked as an answer."""

    ANSWER = "answer"
    RELATED = "related"


class AnswerKind(StrEnum):
    """The kind of answer an answer item is (read from the question and the span)."""

    DATE = "date"
    TIME = "time"
    AMOUNT = "amount"
    COUNT = "count"
    NAME = "name"
    PLACE = "place"
    STATEMENT = "statement"
    TITLE = "title"
    YES_NO = "yes_no"
    CELL = "cell"
    PASSAGE = "passage"


class RecordFlag(StrEnum):
    """Flags of a provenance entry (set by the verifier from the text layer's element flags)
    and of a field record resting on such an entry."""

    HIDDEN_TEXT = "hidden_text"  # the cited passage is text a reader of the document does not see
    OCR = "ocr"  # the cited passage was read from a page image (the entry has `ocr_confidence`)
    # a clause field with patterns whose passage matched none of them: its only link to the
    # field is a common trigger word ("Agreement"), so it is at best FLAG
    TERM_ONLY = "term_only"


class FieldStatus(StrEnum):
    """What an extractor says about a field: stated once, not stated, or stated differently."""

    PRESENT = "present"
    ABSENT = "absent"
    CONFLICTING = "conflicting"


# What a model may answer for a field; `conflicting` is decided by code, never claimed.
ANSWER_STATUSES = (FieldStatus.PRESENT, FieldStatus.ABSENT)


class Outcome(StrEnum):
    """What the interface may do with a decided field."""

    SHOW = "show"
    FLAG = "flag"
    REVIEW = "review"
    ABSTAIN = "abstain"


class DecisionReason(StrEnum):
    """The reason code beside an outcome: the rule that decided it (`extract.decide`), or the
    review decision that replaced it."""

    NOT_STATED = "not_stated"
    BLANK_IN_DOCUMENT = "blank_in_document"  # the document leaves a blank template ("____", "[●]")
    CONFLICTING = "conflicting"
    UNVERIFIED_CITATION = "unverified_citation"
    SCHEMA_VIOLATION = "schema_violation"
    ABOVE_TAU_SHOW = "above_tau_show"
    ABOVE_TAU_FLAG = "above_tau_flag"
    LOW_CONFIDENCE = "low_confidence"
    HIDDEN_TEXT = "hidden_text"  # confident, but it rests on hidden text: at best FLAG
    LOW_OCR_CONFIDENCE = "low_ocr_confidence"  # it rests on OCR words read with low confidence
    TERM_ONLY = "term_only"  # confident, but only a trigger word links it: at best FLAG
    PASSAGE_CHANGED = "passage_changed"  # a review decision rested on words a new revision lost
    REVIEWER_ACCEPTED = "reviewer_accepted"      # after a review decision (`review.decisions`)
    REVIEWER_CORRECTED = "reviewer_corrected"
    REVIEWER_NOT_STATED = "reviewer_not_stated"
    REVIEWER_REJECTED = "reviewer_rejected"


class ReviewReason(StrEnum):
    """Why an item is in the review queue: a `review` outcome's reason, or a sample audit."""

    LOW_CONFIDENCE = "low_confidence"
    CONFLICTING = "conflicting"
    UNVERIFIED_CITATION = "unverified_citation"
    SCHEMA_VIOLATION = "schema_violation"
    LOW_OCR_CONFIDENCE = "low_ocr_confidence"
    PASSAGE_CHANGED = "passage_changed"
    SAMPLE_AUDIT = "sample_audit"


class ReviewDecision(StrEnum):
    """What a reviewer decided about a queued item."""

    ACCEPT = "accept"
    CORRECT = "correct"
    REJECT = "reject"
    ABSTAIN = "abstain"


class ReviewState(StrEnum):
    """The state of a queued item."""

    OPEN = "open"
    STALE = "stale"
    DECIDED = "decided"


class ClaimEnd(StrEnum):
    """How a reviewer's claim on an item ended."""

    DECIDED = "decided"
    RELEASED = "released"
    EXPIRED = "expired"


class IncidentKind(StrEnum):
    """The kinds of review incidents."""

    RUBBER_STAMP = "rubber_stamp"


class Role(StrEnum):
    """Administrative roles. A principal holds a role by belonging to the group named
    `Role.group` (the role with `.` for `:`): `--as acme:lea:acl.admin` holds `acl:admin`."""

    ACL_ADMIN = "acl:admin"        # may change the ACL of any source it can read
    REVIEW_ADMIN = "review:admin"  # may change review settings and clear others' incidents

    @property
    def group(self) -> str:
        return self.value.replace(":", ".")


class RunStep(StrEnum):
    """The recorded steps of a durable run (`pincite.runs`): an ingest's, per file then
    once, and an extraction's. `PINCITE_FAULTS` names them `run.<step>[.done]`."""

    ACQUIRE = "acquire"
    INSPECT = "inspect"
    PARSE = "parse"
    STORE = "store"
    SEGMENT_EMBED = "segment_embed"
    PUBLISH = "publish"
    CASE = "case"
    EXTRACT = "extract"
    VALIDATE = "validate"
    DECIDE = "decide"
    WRITE = "write"


def sql_in(vocabulary: type[StrEnum]) -> str:
    """Return the members of `vocabulary` as the text of a SQL `IN` list: `'a', 'b'`."""
    return ", ".join("'" + m.value.replace("'", "''") + "'" for m in vocabulary)


class ProgressUnit(StrEnum):
    """What long work counts as it reports progress (`model.progress_report.Report`); the
    sandbox worker sends the page units to its parent by these codes."""

    DOCUMENT = "document"
    PAGE = "page"                  # a PDF page read by the parser
    OCR_PAGE = "page read by OCR"  # a PDF page read from its image
    STEP = "step"
    CASE = "case"
