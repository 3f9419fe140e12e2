"""pincite: retrieval and structured extraction where the document stays the authority.

    import pincite

    with pincite.open("./lib", create=True) as lib:   # create: only a writer may make a store
        lib.ingest(["contracts/"], tenant="acme", acl=["group:legal"])
        bundle = lib.search(pincite.Principal.parse("acme:ana:legal"), "governing law")

The names below are the public API (a test locks the list). They load on first use, so
`import pincite` (and `pincite --help`) stays fast.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "AskResult",
    "Citation",
    "EvidenceBundle",
    "ExtractionResult",
    "FieldRecord",
    "IngestResult",
    "Library",
    "NotFound",
    "PinciteError",
    "Principal",
    "QuoteNotFound",
    "Revision",
    "Source",
    "UsageError",
    "__version__",
    "open",
]

# public name → the module that defines it
_HOMES = {
    "AskResult": "pincite.ask.answer",
    "Citation": "pincite.model",
    "EvidenceBundle": "pincite.retrieve.bundle",
    "ExtractionResult": "pincite.extract.run",
    "FieldRecord": "pincite.extract.records",
    "IngestResult": "pincite.sources.ingest",
    "Library": "pincite.library",
    "NotFound": "pincite.errors",
    "PinciteError": "pincite.errors",
    "Principal": "pincite.model",
    "QuoteNotFound": "pincite.errors",
    "Revision": "pincite.model",
    "Source": "pincite.model",
    "UsageError": "pincite.errors",
}

if TYPE_CHECKING:
    from .ask.answer import AskResult
    from .errors import NotFound, PinciteError, QuoteNotFound, UsageError
    from .extract.records import FieldRecord
    from .extract.run import ExtractionResult
    from .library import Library
    from .model import Citation, Principal, Revision, Source
    from .retrieve.bundle import EvidenceBundle
    from .sources.ingest import IngestResult


def open(url: str | Path, *, create: bool = False) -> Library:  # noqa: A001 - the documented entry point
    """Return the library at `url`: a directory path opens the embedded SQLite store.

    A store that does not exist is refused (`StoreMissing`, naming the path), so a typo
    does not read an empty library; pass `create=True` to create it (as `ingest` does).
    """
    from .library import open_library

    return open_library(url, create=create)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pincite' has no attribute {name!r}")
    return getattr(import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
