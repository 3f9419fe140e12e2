"""`pincite.__all__` is the public API: the exact list, each name resolving to the object
its home module defines, and `import pincite` loading none of the stages."""

from __future__ import annotations

import subprocess
import sys

import pytest

import pincite

PUBLIC = [
    "AskResult", "Citation", "EvidenceBundle", "ExtractionResult", "FieldRecord",
    "IngestResult", "Library", "NotFound", "PinciteError", "Principal", "QuoteNotFound",
    "Revision", "Source", "UsageError", "__version__", "open",
]


def test_all_is_exactly_the_public_api():
    assert pincite.__all__ == PUBLIC


@pytest.mark.parametrize(("name", "home"), [
    ("AskResult", "pincite.ask.answer"),
    ("Citation", "pincite.model"),
    ("EvidenceBundle", "pincite.retrieve.bundle"),
    ("ExtractionResult", "pincite.extract.run"),
    ("FieldRecord", "pincite.extract.records"),
    ("IngestResult", "pincite.sources.ingest"),
    ("Library", "pincite.library"),
    ("NotFound", "pincite.errors"),
    ("PinciteError", "pincite.errors"),
    ("Principal", "pincite.model"),
    ("QuoteNotFound", "pincite.errors"),
    ("Revision", "pincite.model"),
    ("Source", "pincite.model"),
    ("UsageError", "pincite.errors"),
])
def test_each_public_name_is_its_home_modules_object(name, home):
    import importlib

    assert getattr(pincite, name) is getattr(importlib.import_module(home), name)


def test_the_public_errors_share_one_base():
    assert issubclass(pincite.NotFound, pincite.PinciteError)
    assert issubclass(pincite.QuoteNotFound, pincite.PinciteError)
    assert issubclass(pincite.UsageError, pincite.PinciteError)


def test_star_import_gives_the_public_names_and_unknown_names_raise():
    ns: dict[str, object] = {}
    exec("from pincite import *", ns)
    assert sorted(k for k in ns if k != "__builtins__") == sorted(PUBLIC)
    assert pincite.__version__ == "0.1.0" and callable(pincite.open)
    with pytest.raises(AttributeError, match="no attribute 'SQLiteStore'"):
        pincite.SQLiteStore  # noqa: B018 - the backend is not public


def test_import_pincite_loads_no_stage():
    code = ("import sys, pincite\n"
            "print(sorted(m for m in sys.modules if m.startswith('pincite.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "[]"
