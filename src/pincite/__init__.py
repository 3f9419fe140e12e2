"""pincite: retrieval and structured extraction where the document stays the authority."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"
__all__ = ["Citation", "Library", "Principal", "__version__", "open"]

if TYPE_CHECKING:
    from .library import Library
    from .model import Citation, Principal


def open(url: str) -> Library:  # noqa: A001 - the documented entry point
    """Return the library at `url`: a directory path opens the embedded SQLite store."""
    from .library import open_library

    return open_library(url)


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    # Lazy exports keep `import pincite` (and `pincite --help`) fast.
    if name == "Library":
        from .library import Library

        return Library
    if name in ("Citation", "Principal"):
        from . import model

        return getattr(model, name)
    raise AttributeError(name)
