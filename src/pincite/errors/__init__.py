"""Every exception pincite raises on purpose.

Domain outcomes (a failed verification, a quarantined file, an abstention) are values,
not exceptions. Only broken inputs and broken invariants raise.

    PinciteError                      code, HTTP status, a message that says what to do
    ├── UsageError (400)              a malformed argument: principal, ACL entry, locator, JSON
    │   ├── InvalidCitation (400)     a provenance entry that is not shaped like one
    │   ├── EmptyQuote (400)          a quote to cite or verify that holds nothing but space
    │   ├── InvalidSchema (400)       an extraction schema file that does not validate
    │   ├── OutputUnwritable (400)    an output folder that cannot be written (checked first)
    │   ├── InvalidCorrection (400)   a reviewer's corrected value that fails the field's checks
    │   ├── InvalidGold (400)         an evaluation's gold file that does not validate
    │   ├── InvalidProfile (400)      a company profile for `rank` that does not validate
    │   ├── InvalidContract (400)     a release contract that does not validate
    │   ├── DocumentNotInCase (400)   a correction citing a document outside the item's case
    │   ├── InvalidTarget (400)       a fill target that is not a readable .xlsx within the limits
    │   ├── PrincipalRequired (400)   a retriever adapter built without a principal
    │   └── OcrLanguageMissing (400)  an OCR language whose pack is not installed
    ├── Forbidden (403)               visible to this principal, but not its to change
    ├── NotFound (404)                no such thing, or not visible to this principal
    ├── CrossSiteRequest (403)        a review-page change from another origin or without its token
    ├── UnknownHost (421)             a review-page request whose Host is not on the allow-list
    ├── Unauthenticated (401)         a service request without valid credentials (key or JWT)
    │   └── KeysRefreshing (401)      a token whose key is being fetched: await it, try once more
    ├── RateLimited (429)             a tenant over its request rate or concurrency cap
    │   └── TooManyFailures (429)     a client address past its failed authentications
    ├── BodyTooLarge (413)            a request body over the service's cap
    ├── RequestTimeout (503)          a service request that ran past its time limit
    ├── QuoteNotFound (404)           the quote is not in the text layer
    ├── ReviewConflict (409)          a review decision the queue's state does not allow
    ├── ReleaseRefused (409)          a release step whose evidence misses the contract
    ├── SpaceMismatch (409)           a vector, cache or index of another embedding space
    ├── GenerationInvalid (409)       an index generation failed its integrity check
    ├── StoreError (500)              the store is damaged or cannot be opened
    │   ├── SchemaTooNew (500)        the store was written by a newer pincite
    │   ├── SchemaTooOld (500)        a PostgreSQL store whose schema needs `pincite db upgrade`
    │   ├── StoreMissing (404)        no store at the path a read names (only ingest creates)
    │   ├── NotAStore (400)           the store path is a file, or cannot be a directory
    │   ├── StoreDamaged (500)        the database file is damaged (`fsck` reports it)
    │   └── StoreBusy (503)           another writer holds the store past the timeout
    ├── ParseFailure (422)            bytes refused by inspection, a container check, a parser
    │                                 or the sandbox; `reason` is a `QuarantineReason`
    ├── InputChanged (409)            a file written to while it was ingested from disk
    ├── IndexUnavailable (503)        no retrieval channel of the generation could be read
    │   ├── VectorsUnavailable (503)  a generation's vector file is missing or misshapen
    │   └── AnnUnavailable (503)      an ANN partition file is missing, damaged or misbehaved
    ├── ModelUnavailable (503)        the model endpoint failed or refused, after the retries
    │   └── TransientModelFailure (503)  one failed attempt worth retrying (never escapes)
    ├── MissingExtra (500)            an optional dependency is not installed
    ├── OcrUnavailable (500)          Tesseract could not load its language packs
    ├── HnswlibMissing (500)          hnswlib, a core dependency, did not build
    ├── WeightsDigestMismatch (500)   embedding weights that are not the pinned release
    ├── ModelLayoutError (500)        verified weights that do not load as the space describes
    └── FaultInjected (500)           a test fault point configured with `raise` (`faults`)
"""

from __future__ import annotations

from .adapter_refusals import *  # noqa: F403
from .refusals import *  # noqa: F403
from .tree import *  # noqa: F403
