"""Every exception pincite raises on purpose.

Domain outcomes (a failed verification, a quarantined file, an abstention) are values,
not exceptions. Only broken inputs and broken invariants raise.

    PinciteError                    code, HTTP status, a message that says what to do
    ├── UsageError (400)            a malformed argument: principal, ACL entry, locator, JSON
    │   ├── InvalidCitation (400)   a provenance entry that is not shaped like one
    │   └── InvalidSchema (400)     an extraction schema file that does not validate
    ├── NotFound (404)              no such thing, or not visible to this principal
    ├── QuoteNotFound (404)         the quote is not in the text layer
    ├── ReviewConflict (409)        a review decision the queue's state does not allow
    ├── StoreError (500)            the store is damaged or cannot be opened
    │   ├── SchemaTooNew (500)      the store was written by a newer pincite
    │   └── StoreBusy (503)         another writer holds the store past the timeout
    ├── ParseFailure (422)          a parser or container check refused bytes (a quarantine reason)
    ├── ModelUnavailable (503)      the model endpoint failed or refused, after the retries
    └── MissingExtra (500)          an optional dependency is not installed
"""

from __future__ import annotations


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


class InvalidSchema(UsageError):
    """An extraction schema file is malformed; the message names the file and the path."""

    code = "invalid_schema"


class ReviewConflict(PinciteError):
    """A review decision or release the queue's state does not allow (lease gone, item
    stale, already decided)."""

    code = "review_conflict"
    status = 409


class NotFound(PinciteError):
    """Raised for missing things and for things the principal may not see (no hint of which)."""

    code = "not_found"
    status = 404

    def __init__(self, what: str, ident: str) -> None:
        super().__init__(f"{what} {ident!r} not found")
        self.what = what
        self.ident = ident


class QuoteNotFound(PinciteError):
    code = "quote_not_found"
    status = 404

    def __init__(self, doc_id: str, quote: str) -> None:
        short = quote if len(quote) <= 80 else quote[:77] + "..."
        super().__init__(
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


class StoreBusy(StoreError):
    code = "store_busy"
    status = 503

    def __init__(self, detail: str) -> None:
        super().__init__(f"the store is locked by another writer ({detail}); retry shortly")


class ParseFailure(PinciteError):
    """A parser (or the container scanner, `pincite.containers`) gave up on some bytes;
    `reason` is one of the quarantine reasons."""

    code = "parse_failure"
    status = 422

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class MissingExtra(PinciteError):
    code = "missing_extra"
    status = 500

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(f"{package} is not installed: pip install 'pincite[{extra}]'")


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
